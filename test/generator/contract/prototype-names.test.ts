/**
 * `__proto__`, `constructor`, `toString` and the other names every JS object inherits are ordinary names
 * in a contract and a lock: as tool, prompt, template and argument names and as property and annotation
 * keys, they are declared, served exactly as declared (the generated server's `tools/list` is the
 * declaration, byte for byte as JSON, over the runtime's client and server), bound by a pulled client,
 * and none is dropped or reported "declared twice".
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { afterAll, expect, it } from "vitest";
import { createClient } from "../../../generated/2025-11-25/client.js";
import { createServer } from "../../../generated/2025-11-25/server.js";
import { compileChecks } from "../../../generator/contract/checks.js";
import { emitContract } from "../../../generator/contract/emit.js";
import { loadContractText } from "../../../generator/contract/load.js";
import { emitContractClient } from "../../../generator/lock/emit-client.js";
import { contractFromLock } from "../../../generator/lock/from-lock.js";
import { buildLock } from "../../../generator/lock/lock.js";
import { arbitraryOf } from "../../../generator/sampling/arbitrary.js";
import { createMemoryTransportPair } from "../../../runtime/jsonrpc/memory.js";

const REPO = fileURLToPath(new URL("../../../", import.meta.url));
const OUT = `${REPO}test/.tmp/prototype-names-${process.pid}/`;
afterAll(() => rmSync(OUT, { recursive: true, force: true }));

const NAMES = ["__proto__", "constructor", "toString", "hasOwnProperty", "valueOf"];
/** A prompt's argument: named as the prompt, but for a property `hasOwnProperty` (json-schema-to-typescript calls it). */
const argumentOf = (prompt: string) => (prompt === "hasOwnProperty" ? "own" : prompt);
const object = { type: "object" };

/** JSON text, so that `__proto__` is an own key of the document (an object literal would set a prototype). */
const CONTRACT = `{
  "tools": {
    ${NAMES.map((n) => `"${n}": { "description": "the tool ${n}", "inputSchema": ${JSON.stringify(object)} }`).join(",\n    ")},
    "shape": {
      "inputSchema": {
        "type": "object",
        "properties": { "__proto__": { "type": "string" }, "constructor": { "type": "number" } },
        "required": ["__proto__"]
      },
      "annotations": { "__proto__": { "polluted": true }, "readOnlyHint": true }
    }
  },
  "prompts": {
    ${NAMES.map((n) => `"${n}": { "arguments": [{ "name": "${argumentOf(n)}", "required": true }] }`).join(",\n    ")}
  },
  "resourceTemplates": {
    "constructor": { "uriTemplate": "note://{toString}" }
  }
}`;

/** A handler per name, each an own property (`__proto__` too). */
const handlersOf = (names: string[], answer: (name: string) => unknown) =>
  Object.fromEntries(names.map((n) => [n, () => answer(n)]));

async function connected(handlers: object) {
  const server = createServer({
    info: { name: "prototype-names", version: "1" },
    handlers: handlers as never,
  });
  const [a, b] = createMemoryTransportPair();
  await server.connect(a);
  const client = createClient({ info: { name: "t", version: "1" } });
  await client.connect(b);
  return client;
}

it("a contract of prototype names is loaded, served as declared, and called by name", async () => {
  const contract = await loadContractText(CONTRACT, "contract.json");
  expect(contract.tools.map((t) => t.name)).toEqual([...NAMES, "shape"]);
  expect(contract.prompts.map((p) => p.name)).toEqual(NAMES);
  const dir = `${OUT}served/`;
  mkdirSync(dir, { recursive: true });
  const files = await emitContract(contract, {
    protocolVersion: "2025-11-25",
    protocolDir: "../../../../generated/2025-11-25",
  });
  for (const [name, text] of Object.entries(files)) writeFileSync(`${dir}${name}`, text);
  const { contractHandlers } = await import(`${dir}server.ts`);
  const client = await connected(
    contractHandlers({
      tools: handlersOf([...NAMES, "shape"], (n) => `tool ${n}`),
      prompts: handlersOf(NAMES, (n) => `prompt ${n}`),
      resourceTemplates: handlersOf(["constructor"], () => "template"),
    }),
  );
  try {
    const declared = JSON.parse(CONTRACT);
    const listed = await client.listTools();
    expect(JSON.stringify(listed.tools)).toBe(JSON.stringify(contract.tools.map((t) => t.definition)));
    const shape = listed.tools.find((t) => t.name === "shape")!;
    expect(Object.keys(shape.inputSchema.properties ?? {})).toEqual(["__proto__", "constructor"]);
    expect(JSON.stringify(shape.annotations)).toBe(JSON.stringify(declared.tools.shape.annotations));
    expect(Object.getPrototypeOf(shape.annotations)).toBe(Object.prototype);
    for (const name of NAMES) {
      const called = await client.callTool({ name, arguments: {} });
      expect(called.content).toEqual([{ type: "text", text: `tool ${name}` }]);
      const prompt = await client.getPrompt({ name, arguments: { [argumentOf(name)]: "x" } });
      expect(prompt.messages[0]?.content).toEqual({ type: "text", text: `prompt ${name}` });
    }
    // `__proto__` is a required string property like any other: its absence is refused by name.
    const refused = await client.callTool({ name: "shape", arguments: { constructor: 1 } });
    expect(refused.isError).toBe(true);
    expect(JSON.stringify(refused.content)).toContain("__proto__");
    const listedPrompts = await client.listPrompts();
    expect(listedPrompts.prompts.map((p) => p.name)).toEqual(NAMES);
  } finally {
    await client.close();
  }
});

it("a lock of prototype names gives a client with every one of them, calling the server by name", async () => {
  const contract = await loadContractText(CONTRACT, "contract.json");
  const { lock, warnings } = buildLock({
    server: { name: "prototype-names", version: "1" },
    protocolVersion: "2025-11-25",
    tools: contract.tools.map((t) => t.definition),
    prompts: contract.prompts.map((p) => p.definition),
    resources: [],
    resourceTemplates: contract.resourceTemplates.map((t) => t.definition),
  });
  expect(warnings).toEqual([]);
  const pulled = contractFromLock(lock, "prototype-names.lock.json");
  expect(pulled.warnings).toEqual([]);
  expect(pulled.model.tools.map((t) => t.name).sort()).toEqual([...NAMES, "shape"].sort());
  expect(pulled.model.prompts.map((p) => p.name).sort()).toEqual([...NAMES].sort());
  const dir = `${OUT}pulled/`;
  mkdirSync(dir, { recursive: true });
  const files = await emitContractClient({
    lock,
    lockFile: "prototype-names.lock.json",
    model: pulled.model,
    loose: pulled.loose,
  });
  for (const [name, text] of Object.entries(files)) writeFileSync(`${dir}${name}`, text);
  const { bindClient } = await import(`${dir}client.ts`);
  const client = await connected({
    listTools: () => ({ tools: lock.tools.map((t) => t.definition) }),
    callTool: ({ name }: { name: string }) => ({ content: [{ type: "text", text: `tool ${name}` }] }),
    getPrompt: ({ name }: { name: string }) => ({
      messages: [{ role: "user", content: { type: "text", text: `prompt ${name}` } }],
    }),
  });
  try {
    const bound = bindClient(client);
    for (const name of NAMES) {
      expect(Object.hasOwn(bound.tools, name), name).toBe(true);
      expect((await bound.tools[name]({})).content).toEqual([{ type: "text", text: `tool ${name}` }]);
      const prompt = await bound.prompts[name]({ [argumentOf(name)]: "x" });
      expect(prompt.messages[0].content.text).toBe(`prompt ${name}`);
    }
    expect(Object.hasOwn(bound.resourceTemplates, "constructor")).toBe(true);
    // The pulled checks know `__proto__` as a property: leaving the required one out is refused, unsent.
    await expect(bound.tools.shape({ constructor: 1 })).rejects.toThrow(/__proto__/);
  } finally {
    await client.close();
  }
});

it("requires a property named like an Object.prototype member that `properties` does not describe", async () => {
  const contract = await loadContractText(
    '{ "tools": { "t": { "inputSchema": { "type": "object", "required": ["constructor", "toString"] } } } }',
    "contract.json",
  );
  const check = compileChecks(contract.definitions).get(contract.tools[0]!.input)!;
  expect(check({})).toMatchObject({ message: "Required", path: ["constructor"] });
  expect(check({ constructor: 1 })).toMatchObject({ message: "Required", path: ["toString"] });
  expect(check(JSON.parse('{ "constructor": 1, "toString": 2 }'))).toBeUndefined();
});

it("samples properties named __proto__ and constructor for mcp-codegen test, as own keys the checks accept", async () => {
  const contract = await loadContractText(
    `{ "tools": { "t": { "inputSchema": { "type": "object",
        "properties": { "__proto__": { "type": "string" }, "constructor": { "type": "number" } },
        "required": ["__proto__", "constructor"],
        "allOf": [{ "type": "object", "properties": { "toString": { "type": "boolean" } }, "required": ["toString"] }] } } } }`,
    "contract.json",
  );
  const tool = contract.tools[0]!;
  const definitions = Object.fromEntries(contract.definitions.map((d) => [d.name, d.schema]));
  const check = compileChecks(contract.definitions).get(tool.input)!;
  for (const value of fc.sample(arbitraryOf(definitions[tool.input]!, definitions), {
    seed: 7,
    numRuns: 50,
  })) {
    expect(Object.keys(value as object)).toEqual(
      expect.arrayContaining(["__proto__", "constructor", "toString"]),
    );
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(check(value)).toBeUndefined();
  }
});
