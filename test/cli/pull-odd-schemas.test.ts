/**
 * `mcp-codegen pull` against a real server process (test/fixtures/pull/raw-server.mjs, over a real pipe)
 * that lists odd or hostile tools: prototype names as property, tool and prompt names, a lone surrogate in
 * a property name, nesting past the generator's limits, a `$ref` into the schema itself, wrong-typed
 * annotations and fields. None may crash the pull ("internal error", a stack) or lose the other tools:
 * what cannot be typed exactly is typed loosely or left out, with a warning naming the tool and the place.
 */
import { execFile } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { typeErrors } from "../support/typecheck.js";
import { REPO } from "./run.js";

const TSX = `${REPO}node_modules/.bin/tsx`;
const SERVER = `${REPO}test/fixtures/pull/raw-server.mjs`;
const TMP = join(REPO, "test/.tmp", `pull-odd-${process.pid}`);

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Pulls from the raw server listing `lists` (JSON text, written as is) into TMP/<name>. */
function pull(name: string, lists: string, options: string[] = []): Promise<Run> {
  const file = join(TMP, `${name}.lists.json`);
  writeFileSync(file, lists);
  return new Promise((resolve) => {
    execFile(
      TSX,
      [
        "--conditions=mcp-codegen-source",
        `${REPO}generator/cli/index.ts`,
        "pull",
        "--name",
        name,
        "--out",
        TMP,
        ...options,
        "--",
        process.execPath,
        SERVER,
      ],
      { cwd: REPO, env: { ...process.env, PULL_LISTS: file }, encoding: "utf8", timeout: 60_000 },
      (error, stdout, stderr) =>
        resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

const read = (path: string) => readFileSync(join(TMP, path), "utf8");
const lockOf = (name: string) =>
  JSON.parse(read(`${name}.lock.json`)) as {
    tools: { name: string; definition: Record<string, unknown> }[];
    prompts: { name: string; definition: Record<string, unknown> }[];
  };

/** No crash: exit 0, no internal error, no stack. */
function expectPulled(run: Run): void {
  expect(run.stderr).not.toContain("internal error");
  expect(run.stderr).not.toMatch(/\n\s+at /);
  expect(run.code, run.stderr).toBe(0);
}

/** tsc over `files` (written into TMP) with the repository's settings (and a canary); the error lines. */
async function typecheck(files: Record<string, string>): Promise<string[]> {
  for (const [name, text] of Object.entries(files)) writeFileSync(join(TMP, name), text);
  return typeErrors(
    TMP,
    Object.keys(files).map((f) => `./${f}`),
  );
}

const plain = { name: "plain", inputSchema: { type: "object", properties: { a: { type: "number" } } } };
const object = (properties: Record<string, unknown>, required: string[] = []) => ({
  type: "object",
  properties,
  ...(required.length ? { required } : {}),
});

beforeAll(() => mkdirSync(TMP, { recursive: true }));
afterAll(() => rmSync(TMP, { recursive: true, force: true }));

describe("pull: odd schemas neither crash it nor lose the other tools", () => {
  it("properties named like Object.prototype members are ordinary properties, typed and checked", async () => {
    const names = ["hasOwnProperty", "constructor", "toString", "valueOf", "__proto__", "isPrototypeOf"];
    const schema = object(Object.fromEntries(names.map((n) => [n, { type: "string" }])), [
      "hasOwnProperty",
      "__proto__",
    ]);
    // JSON text: `__proto__` stays a key (an object literal would make it the prototype).
    const run = await pull(
      "proto",
      `{"tools":[${JSON.stringify(plain)},{"name":"proto","inputSchema":${JSON.stringify(schema).replace('"properties":{', '"properties":{"__proto__":{"type":"string"},')}}]}`,
    );
    expectPulled(run);
    const lock = lockOf("proto");
    expect(lock.tools.map((t) => t.name)).toEqual(["plain", "proto"]);
    const input = lock.tools[1]!.definition.inputSchema as { properties: object };
    expect(Object.keys(input.properties).sort()).toEqual([...names].sort());
    const types = read("proto/types.ts");
    for (const n of names) expect(types).toMatch(new RegExp(`\\n  "${n}"\\??: string;`));
    const errors = await typecheck({
      "proto-usage.ts": `
import { createClient } from "../../../generated/2025-11-25/client.js";
import { bindClient } from "./proto/client.js";

export async function use(): Promise<void> {
  const proto = bindClient(createClient({ info: { name: "t", version: "1" } }));
  // Every one given: TypeScript reads an omitted \`toString\` as the inherited method, not as absent.
  const all = { constructor: "c", toString: "t", valueOf: "v", isPrototypeOf: "i" };
  await proto.tools.proto({ hasOwnProperty: "h", ["__proto__"]: "p", ...all });
  // @ts-expect-error hasOwnProperty is a string
  await proto.tools.proto({ hasOwnProperty: 1, ["__proto__"]: "p", ...all });
}
`,
    });
    expect(errors).toEqual([]);
    const { checkProtoInput } = await import(join(TMP, "proto/validators.ts"));
    expect(checkProtoInput(JSON.parse('{"hasOwnProperty":"h","__proto__":"p"}'))).toBeUndefined();
    expect(checkProtoInput(JSON.parse('{"__proto__":"p"}'))).toMatchObject({ path: ["hasOwnProperty"] });
    expect(checkProtoInput(JSON.parse('{"hasOwnProperty":"h"}'))).toMatchObject({ path: ["__proto__"] });
  }, 60_000);

  it("a lone surrogate in a property name is kept, escaped, in the lock and the types", async () => {
    const run = await pull(
      "surrogate",
      `{"tools":[${JSON.stringify(plain)},{"name":"odd","inputSchema":{"type":"object","properties":{"a\\ud800b":{"type":"string"}},"required":["a\\ud800b"]}}]}`,
    );
    expectPulled(run);
    expect(lockOf("surrogate").tools.map((t) => t.name)).toEqual(["odd", "plain"]);
    expect(read("surrogate.lock.json")).toContain('"a\\ud800b"');
    expect(read("surrogate/types.ts")).toContain('"a\\ud800b": string;');
  });

  it("a schema nested past the limit is typed loosely with a warning; an entry past the lock's limit is left out", async () => {
    let deep = '{"type":"string"}';
    for (let i = 0; i < 150; i++) deep = `{"type":"object","properties":{"a":${deep}}}`;
    let value = "1";
    for (let i = 0; i < 3000; i++) value = `[${value}]`;
    const run = await pull(
      "deep",
      `{"tools":[${JSON.stringify(plain)},{"name":"deep","inputSchema":${deep}},{"name":"deeper","inputSchema":{"type":"object","properties":{"a":{"default":${value}}}}}]}`,
    );
    expectPulled(run);
    expect(run.stderr).toMatch(
      /warning: tool "deep": its inputSchema is typed as Record<string, unknown> and not checked \(.*\/properties\/a\/properties\/a.*nested deeper than 128 levels/,
    );
    expect(run.stderr).toMatch(
      /warning: tools: "deeper" is left out: \/inputSchema\/properties\/a\/default\/0\/0.* is nested deeper than 1024 levels/,
    );
    expect(lockOf("deep").tools.map((t) => t.name)).toEqual(["deep", "plain"]);
    expect(read("deep/client.ts")).toMatch(/deep\(\s*args\?: Record<string, unknown>/);
  });

  it('a $ref into the schema itself ("#/properties/a") is resolved: the client type-checks', async () => {
    const schema = object({ a: { type: "string" }, b: { $ref: "#/properties/a" } }, ["b"]);
    const run = await pull(
      "selfref",
      JSON.stringify({ tools: [plain, { name: "refs", inputSchema: schema }] }),
    );
    expectPulled(run);
    const errors = await typecheck({
      "selfref-usage.ts": `
import { createClient } from "../../../generated/2025-11-25/client.js";
import { bindClient } from "./selfref/client.js";

export async function use(): Promise<void> {
  const refs = bindClient(createClient({ info: { name: "t", version: "1" } }));
  await refs.tools.refs({ b: "x" });
  // @ts-expect-error b is a string, as a is
  await refs.tools.refs({ b: 1 });
}
`,
    });
    expect(errors).toEqual([]);
    const { checkRefsInput } = await import(join(TMP, "selfref/validators.ts"));
    expect(checkRefsInput({ b: "x" })).toBeUndefined();
    expect(checkRefsInput({ b: 1 })).toMatchObject({ path: ["b"] });
  }, 60_000);

  it("a malformed annotation or field is left out with a warning naming the tool and the place; the tool and the others are kept", async () => {
    const lists = {
      tools: [
        plain,
        {
          name: "odd",
          annotations: { readOnlyHint: "yes", title: "Odd" },
          icons: [{ src: "https://example.com/i.png" }, { size: 3 }],
          inputSchema: object({ a: { type: "number" } }),
        },
        { name: "unnamed-schema" },
      ],
      prompts: [{ name: "greet", arguments: [{ name: "who", required: "yes" }] }],
    };
    const run = await pull("fields", JSON.stringify(lists));
    expectPulled(run);
    expect(run.stderr).toContain(
      'warning: tool "odd": left out annotations.readOnlyHint (Expected boolean), icons.1 (icons.1.src: Required)',
    );
    expect(run.stderr).toContain('warning: tool "unnamed-schema" is left out: inputSchema: Required');
    expect(run.stderr).toContain('warning: prompt "greet": left out arguments.0.required (Expected boolean)');
    const lock = lockOf("fields");
    expect(lock.tools.map((t) => t.name)).toEqual(["odd", "plain"]);
    expect(lock.tools[0]!.definition).toMatchObject({
      annotations: { title: "Odd" },
      icons: [{ src: "https://example.com/i.png" }],
    });
    expect(lock.tools[0]!.definition.annotations).not.toHaveProperty("readOnlyHint");
    expect(lock.prompts[0]!.definition).toEqual({ name: "greet", arguments: [{ name: "who" }] });
  });

  it("tools and prompts named constructor, toString and __proto__ are pulled like any other", async () => {
    const run = await pull(
      "names",
      `{"tools":[{"name":"constructor","inputSchema":{"type":"object"}},{"name":"toString","inputSchema":{"type":"object"}},{"name":"__proto__","inputSchema":{"type":"object","properties":{"x":{"type":"number"}}}}],
        "prompts":[{"name":"constructor"},{"name":"__proto__","arguments":[{"name":"__proto__"},{"name":"constructor","required":true}]}]}`,
    );
    expectPulled(run);
    expect(run.stderr).not.toContain("warning");
    const lock = lockOf("names");
    expect(lock.tools.map((t) => t.name)).toEqual(["__proto__", "constructor", "toString"]);
    expect(lock.prompts.map((p) => p.name)).toEqual(["__proto__", "constructor"]);
    const types = read("names/types.ts");
    expect(types).toContain("export type ProtoInput = {\n  x?: number;\n};");
    expect(types).toContain("export type ConstructorInput = {");
    expect(types).toContain("export type ToStringInput = {");
    expect(types).toContain(
      'export type ProtoPromptArguments = {\n  "__proto__"?: string;\n  "constructor": string;\n};',
    );
  });
});

describe("pull --check: names and depth", () => {
  it("an output property named constructor that the server removed is breaking", async () => {
    const withIt = (properties: Record<string, unknown>) =>
      JSON.stringify({
        tools: [{ name: "get", inputSchema: { type: "object" }, outputSchema: object(properties) }],
      });
    expectPulled(await pull("check", withIt({ constructor: { type: "string" }, n: { type: "number" } })));
    const check = await pull("check", withIt({ n: { type: "number" } }), ["--check"]);
    expect(check.stderr).not.toContain("internal error");
    expect(check.stdout).toContain('BREAKING   output property "constructor" removed');
    expect(check.code).toBe(1);
  });

  it("a recursive schema that changed is compared round its cycle once", async () => {
    const listed = (description: string) =>
      JSON.stringify({
        tools: [
          {
            name: "walk",
            inputSchema: {
              type: "object",
              properties: { node: { $ref: "#/$defs/Node" } },
              $defs: {
                Node: { type: "object", description, properties: { next: { $ref: "#/$defs/Node" } } },
              },
            },
          },
        ],
      });
    expectPulled(await pull("cycle", listed("a node")));
    const check = await pull("cycle", listed("a node of the list"), ["--check"]);
    expect(check.stderr).not.toContain("internal error");
    expect(check.stdout).toContain('compatible argument "node": description changed');
    expect(check.stdout).toContain("0 breaking, 1 compatible");
    expect(check.code).toBe(0);
  });

  it("a lock nested past the limit is refused naming the lock and the place (exit 2)", async () => {
    let deep = "1";
    for (let i = 0; i < 20_000; i++) deep = `[${deep}]`;
    const lock = join(TMP, "deep.lock.json");
    writeFileSync(
      lock,
      `{"lockVersion":1,"server":{"name":"raw","version":"1"},"protocolVersion":"2025-11-25","sha256":"0","prompts":[],"resources":[],"resourceTemplates":[],"tools":[{"name":"x","sha256":"0","definition":{"name":"x","inputSchema":{"type":"object","default":${deep}}}}]}`,
    );
    const run = await pull("deeplock", JSON.stringify({ tools: [plain] }), ["--check", "--lock", lock]);
    expect(run.stderr).not.toContain("internal error");
    expect(run.stderr).toMatch(
      new RegExp(
        `^error: ${lock}: /tools/0/definition/inputSchema/default/0/0\\S*: nested deeper than 1024 levels`,
        "m",
      ),
    );
    expect(run.code).toBe(2);
  });
});
