/**
 * Identifiers from users' and servers' names (generator/util/mangle.ts): names that differ only in punctuation
 * or case get distinct identifiers, deterministically and stably; no identifier is a reserved word or a
 * prototype member; and a contract full of such names generates, type-checks and is served with each
 * name's own checks.
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { createClient } from "../../../generated/2025-11-25/client.js";
import { createServer } from "../../../generated/2025-11-25/server.js";
import { emitContract, emitContractSources } from "../../../generator/contract/emit.js";
import { loadContractText } from "../../../generator/contract/load.js";
import { identifierToken, typeIdentifier, typeNamesOf } from "../../../generator/util/mangle.js";
import { createMemoryTransportPair } from "../../../runtime/jsonrpc/memory.js";
import { typeErrors } from "../../support/typecheck.js";

const REPO = fileURLToPath(new URL("../../../", import.meta.url));
const OUT = `${REPO}test/.tmp/names-${process.pid}/`;
afterAll(() => rmSync(OUT, { recursive: true, force: true }));

const TRICKY = [
  "get_user",
  "get-user",
  "getUser",
  "GetUser",
  "get user",
  "get.user",
  "tool2go",
  "Tool2Go",
  "",
  "2fa",
  "__proto__",
  "constructor",
  "toString",
  "class",
  "default",
  "Ünïcödé",
  "日本",
  "\u{1f600}",
  "GetUserX00000000",
];

describe("mangle.ts", () => {
  it("gives distinct names distinct type names, each a PascalCase identifier", () => {
    const names = typeNamesOf(TRICKY);
    expect(new Set(names.values()).size).toBe(TRICKY.length);
    for (const [name, type] of names) {
      expect(type, name).toMatch(/^[A-Z][A-Za-z0-9]*$/);
      // What json-schema-to-typescript would make of it is itself: no letter after a digit in lower case.
      expect(type, name).not.toMatch(/[0-9][a-z]/);
    }
    // The first name of a form in code-unit order keeps the readable form.
    expect(names.get("GetUser")).toBe("GetUser");
    expect(names.get("get_user")).toMatch(/^GetUserX[0-9A-F]{8}$/);
  });

  it("is stable: adding a name renames no other unless it shares its form and sorts first", () => {
    const before = typeNamesOf(["get_user", "list_items", "search"]);
    const after = typeNamesOf(["get_user", "list_items", "search", "get_user_", "zebra"]);
    for (const name of before.keys()) expect(after.get(name)).toBe(before.get(name));
    expect(after.get("get_user_")).toMatch(/^GetUserX[0-9A-F]{8}$/);
    // "get-user" sorts before "get_user" ("-" < "_"): it takes the readable form, the one rename.
    const first = typeNamesOf(["get_user", "list_items", "search", "get-user"]);
    expect(first.get("get-user")).toBe("GetUser");
    expect(first.get("get_user")).toMatch(/^GetUserX[0-9A-F]{8}$/);
    expect(first.get("list_items")).toBe("ListItems");
  });

  it("keeps the protocol's names and makes every other definition name a distinct type name", () => {
    for (const name of ["CallToolRequest", "JSONRPCMessage", "Base64", "GetUserInput"])
      expect(typeIdentifier(name)).toBe(name);
    const types = TRICKY.map(typeIdentifier);
    expect(new Set(types).size).toBe(TRICKY.length);
    for (const t of types) expect(t).toMatch(/^[A-Z][A-Za-z0-9]*$/);
  });

  it("keeps hoisted-name segments apart", () => {
    const tokens = ["a-b", "a_b", "a.b", "a b", "a_b_0123abcd", "$defs", "0"].map(identifierToken);
    expect(new Set(tokens).size).toBe(7);
    for (const t of tokens) expect(t).toMatch(/^[A-Za-z0-9_]+$/);
    expect(identifierToken("a_b")).toBe("a_b");
  });
});

/** Tools whose names and properties differ only in punctuation, each with its own pattern. */
const CONTRACT = `{
  "$defs": { "point": { "type": "object", "properties": { "x": { "type": "number" } }, "required": ["x"] } },
  "tools": {
    "get_user": { "inputSchema": { "type": "object", "properties": {
      "a-b": { "type": "string", "pattern": "^a" }, "a_b": { "type": "string", "pattern": "^b" },
      "p": { "$ref": "#/$defs/point" } } } },
    "get-user": { "inputSchema": { "type": "object", "properties": { "id": { "type": "string", "pattern": "^c" } },
      "$defs": { "P": { "type": "string" } } } },
    "getUser": { "inputSchema": { "type": "object", "properties": { "n": { "type": "number" } },
      "$defs": { "P": { "type": "number" } } } },
    "tool2go": { "inputSchema": { "type": "object" } }
  },
  "prompts": { "a b": {}, "a-b": { "arguments": [{ "name": "x", "required": true }] } },
  "resourceTemplates": { "file.read": { "uriTemplate": "f://{id}" }, "file_read": { "uriTemplate": "g://{id}" } }
}`;

it("a contract of names that differ only in punctuation generates, type-checks and serves each tool's own checks", async () => {
  const contract = await loadContractText(CONTRACT, "contract.json");
  const options = { protocolVersion: "2025-11-25", protocolDir: "../../../../generated/2025-11-25" };
  const sources = await emitContractSources(contract, options);
  const files = await emitContract(contract, options);
  mkdirSync(`${OUT}sources`, { recursive: true });
  mkdirSync(`${OUT}emitted`, { recursive: true });
  for (const [name, text] of Object.entries(sources)) writeFileSync(`${OUT}sources/${name}`, text);
  for (const [name, text] of Object.entries(files)) writeFileSync(`${OUT}emitted/${name}`, text);
  expect(typeErrors(OUT, ["./sources/*.ts"])).toEqual([]);

  const { contractHandlers } = await import(`${OUT}emitted/server.ts`);
  const answer = (n: string) => () => `tool ${n}`;
  const server = createServer({
    info: { name: "names", version: "1" },
    handlers: contractHandlers({
      tools: Object.fromEntries(contract.tools.map((t) => [t.name, answer(t.name)])),
      prompts: { "a b": () => "ab", "a-b": () => "a-b" },
      resourceTemplates: { "file.read": () => "f", file_read: () => "g" },
    }),
  });
  const [a, b] = createMemoryTransportPair();
  await server.connect(a);
  const client = createClient({ info: { name: "t", version: "1" } });
  await client.connect(b);
  try {
    const call = (name: string, args: Record<string, unknown>) => client.callTool({ name, arguments: args });
    expect((await call("get_user", { "a-b": "a1", a_b: "b1", p: { x: 1 } })).isError).toBeFalsy();
    // Each property keeps its own pattern: `a-b` must start with a, `a_b` with b.
    expect(JSON.stringify((await call("get_user", { "a-b": "b" })).content)).toContain("a-b");
    expect(JSON.stringify((await call("get_user", { a_b: "a" })).content)).toContain("a_b");
    expect((await call("get-user", { id: "c" })).content).toEqual([{ type: "text", text: "tool get-user" }]);
    expect((await call("get-user", { id: "x" })).isError).toBe(true);
    expect((await call("getUser", { n: 1 })).content).toEqual([{ type: "text", text: "tool getUser" }]);
    expect((await call("getUser", { n: "1" })).isError).toBe(true);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual([
      "get_user",
      "get-user",
      "getUser",
      "tool2go",
    ]);
  } finally {
    await client.close();
  }
});
