/** Stubs for what a contract adds, written into the user's `contract` object in the file's own style. */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { loadContract } from "../../../generator/contract/load.js";
import { addContractStubs } from "../../../generator/project/stubs.js";

const dir = mkdtempSync(join(tmpdir(), "mcp-contract-stubs-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function contract() {
  writeFileSync(
    join(dir, "c.yaml"),
    "tools:\n  add: { inputSchema: { type: object } }\n  mul: { inputSchema: { type: object } }\nprompts:\n  p: {}\n",
  );
  return loadContract(join(dir, "c.yaml"), "c.yaml");
}

it("adds a stub per missing tool and a missing category, in the file's quotes and semicolons, once", async () => {
  const text = [
    "import type { Contract } from './generated/contract/server.js'",
    "",
    "export const contract: Contract = {",
    "  tools: {",
    "    add: () => ({ sum: 1 }),",
    "  },",
    "}",
    "",
  ].join("\n");
  const c = await contract();
  const first = addContractStubs(text, c);
  expect(first.added).toEqual(["tools.mul", "prompts.p"]);
  expect(first.text).toBe(
    [
      "import type { Contract } from './generated/contract/server.js'",
      "",
      "export const contract: Contract = {",
      "  tools: {",
      "    add: () => ({ sum: 1 }),",
      "    // tool mul: new in the contract; write it.",
      "    mul: (_args, _ctx) => { throw new Error('tool mul is not implemented yet') },",
      "  },",
      "  // prompts: new in the contract; write them.",
      "  prompts: { p: (_args, _ctx) => { throw new Error('prompt p is not implemented yet') } },",
      "}",
      "",
    ].join("\n"),
  );
  expect(addContractStubs(first.text, c)).toEqual({ text: first.text, added: [] });
});

it("leaves a file without `export const contract = { … }` alone", async () => {
  const text = "export const handlers = {};\n";
  expect(addContractStubs(text, await contract())).toEqual({ text, added: [] });
});

it("reads back the names it wrote escaped or computed, so a second generate adds no stub again", async () => {
  writeFileSync(
    join(dir, "odd.json"),
    // As JSON text: `__proto__` is an own key there, as a contract file holds it.
    '{"prompts": {"__proto__": {}, "say \\"hi\\"": {}, "line\\u2028break": {}}}',
  );
  const c = await loadContract(join(dir, "odd.json"), "odd.json");
  const text = "export const contract = {\n  prompts: {},\n};\n";
  const first = addContractStubs(text, c);
  expect(first.added).toEqual(["prompts.__proto__", 'prompts.say "hi"', "prompts.line\u2028break"]);
  expect(first.text).toContain('["__proto__"]: ');
  expect(addContractStubs(first.text, c)).toEqual({ text: first.text, added: [] });
});
