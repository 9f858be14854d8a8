/**
 * `mcp-codegen generate` through the real CLI on a project (`init`, then its contract replaced) whose
 * contract is odd: prototype names as tool, prompt and property names, a lone surrogate in a property
 * name, a `$ref` into the contract's own places, nesting past the generator's limit (in the contract and in
 * a protocol schema given with --schema). Names are ordinary names; what is too deep is refused with exit 2
 * naming the file and the place, never an internal error or a stack, and nothing is written.
 */
import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { typeErrors } from "../support/typecheck.js";
import { REPO, runCli } from "./run.js";

const TMP = join(REPO, "test/.tmp", `generate-odd-${process.pid}`);
const PROJECT = join(TMP, "project");

/** Every file under `dir` but the contract, with its hash, to prove "nothing written". */
function tree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!e.isFile() || e.name === "contract.json") continue;
    const path = join(e.parentPath, e.name);
    out[path.slice(dir.length + 1)] = createHash("sha256").update(readFileSync(path)).digest("hex");
  }
  return out;
}

/** `generate` in the project with `contract` (JSON text, written as is) as its contract. */
function generate(contract: string) {
  writeFileSync(join(PROJECT, "contract.json"), contract);
  const run = runCli(["generate", "-q"], { cwd: PROJECT });
  expect(run.stderr).not.toContain("internal error");
  expect(run.stderr).not.toMatch(/\n\s+at /);
  return run;
}

const read = (file: string) => readFileSync(join(PROJECT, "generated/contract", file), "utf8");

/** `levels` objects nested through `properties.a`, innermost a string. */
function nested(levels: number): string {
  let schema = '{"type":"string"}';
  for (let i = 0; i < levels; i++) schema = `{"type":"object","properties":{"a":${schema}}}`;
  return schema;
}

/** tsc over files of the generated contract with the repository's settings (and a canary); the error lines. */
const typecheck = async (files: string[]): Promise<string[]> =>
  typeErrors(
    TMP,
    files.map((f) => `./project/generated/contract/${f}`),
  );

beforeAll(() => {
  mkdirSync(TMP, { recursive: true });
  const init = runCli(["init", PROJECT, "-q"]);
  expect(init.code, init.stderr).toBe(0);
  const config = JSON.parse(readFileSync(join(PROJECT, "mcp-codegen.json"), "utf8"));
  writeFileSync(
    join(PROJECT, "mcp-codegen.json"),
    JSON.stringify({ ...config, contract: "contract.json" }, null, 2),
  );
}, 60_000);
afterAll(() => rmSync(TMP, { recursive: true, force: true }));

describe("generate: odd contracts", () => {
  it("tools and prompts named constructor, toString and __proto__ are declared like any other", () => {
    const run = generate(`{
      "tools": {
        "constructor": { "inputSchema": { "type": "object" } },
        "toString": { "inputSchema": { "type": "object" } },
        "__proto__": { "inputSchema": { "type": "object", "properties": { "x": { "type": "number" } } } }
      },
      "prompts": {
        "constructor": {},
        "__proto__": { "arguments": [{ "name": "__proto__" }, { "name": "constructor", "required": true }] }
      }
    }`);
    expect(run.code, run.stderr).toBe(0);
    const types = read("types.ts");
    expect(types).toContain("export type ProtoInput = {\n  x?: number;\n};");
    expect(types).toContain("export type ConstructorInput = {");
    expect(types).toContain("export type ToStringInput = {");
    expect(types).toContain("export type ConstructorPromptArguments = {");
    expect(types).toContain(
      'export type ProtoPromptArguments = {\n  "__proto__"?: string;\n  "constructor": string;\n};',
    );
  });

  it("properties named hasOwnProperty and __proto__, and one with a lone surrogate, are typed and checked", async () => {
    const run = generate(`{
      "tools": {
        "odd": {
          "inputSchema": {
            "type": "object",
            "properties": {
              "hasOwnProperty": { "type": "string" },
              "__proto__": { "type": "number" },
              "a\\ud800b": { "type": "boolean" }
            },
            "required": ["hasOwnProperty", "__proto__", "a\\ud800b"]
          }
        }
      }
    }`);
    expect(run.code, run.stderr).toBe(0);
    const types = read("types.ts");
    expect(types).toContain('  "hasOwnProperty": string;');
    expect(types).toContain('  "__proto__": number;');
    expect(types).toContain('  "a\\ud800b": boolean;');
    expect(await typecheck(["types.ts", "validators.d.ts"])).toEqual([]);
    const { checkOddInput } = await import(join(PROJECT, "generated/contract/validators.js"));
    const valid = JSON.parse('{"hasOwnProperty":"h","__proto__":1,"a\\ud800b":true}');
    expect(checkOddInput(valid)).toBeUndefined();
    expect(checkOddInput({ ...valid, hasOwnProperty: 1 })).toMatchObject({ path: ["hasOwnProperty"] });
  }, 60_000);

  it("a $ref to a place in the contract gets a definition whose type and check share its name", async () => {
    const run = generate(`{
      "tools": {
        "refs": {
          "inputSchema": {
            "type": "object",
            "properties": { "a": { "type": "string" }, "b": { "$ref": "#/tools/refs/inputSchema/properties/a" } },
            "required": ["b"]
          }
        }
      }
    }`);
    expect(run.code, run.stderr).toBe(0);
    expect(read("types.ts")).toContain("  b: RefToolsRefsInputSchemaPropertiesA;");
    expect(await typecheck(["types.ts", "validators.d.ts"])).toEqual([]);
  }, 60_000);

  it.each([
    ["a schema", 70],
    ["a schema the ref resolver would recurse through", 20_000],
  ])(
    "%s nested past the limit (%i levels) is refused naming the file and the place; nothing is written",
    (_, levels) => {
      const before = tree(PROJECT);
      const run = generate(`{"tools":{"deep":{"inputSchema":${nested(levels)}}}}`);
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(
        /^error: contract\.json: \/tools\/deep\/inputSchema\/properties\/a\/properties\/a\/\S*: nested deeper than 128 levels/m,
      );
      expect(tree(PROJECT)).toEqual(before);
    },
  );

  it("a value nested past the limit (a default) is refused the same way", () => {
    let value = "1";
    for (let i = 0; i < 500; i++) value = `[${value}]`;
    const run = generate(
      `{"tools":{"deep":{"inputSchema":{"type":"object","properties":{"a":{"default":${value}}}}}}}`,
    );
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      /^error: contract\.json: \/tools\/deep\/inputSchema\/properties\/a\/default\/0\/0\S*: nested deeper than 128 levels/m,
    );
  });

  it.each([
    [
      '"tools":{"x":{"annotations":{"readOnlyHint":"yes"},"inputSchema":{"type":"object"}}}',
      "tools.x.annotations.readOnlyHint: Expected boolean (the protocol's Tool)",
    ],
    [
      '"tools":{"x":{"icons":[{"mimeType":"image/png"}],"inputSchema":{"type":"object"}}}',
      "tools.x.icons.0.src: Required (the protocol's Tool)",
    ],
    ['"prompts":{"p":{"title":5}}', "prompts.p.title: Expected string (the protocol's Prompt)"],
    [
      '"resources":{"r":{"uri":"note://r","size":"big"}}',
      "resources.r.size: Expected integer (the protocol's Resource)",
    ],
  ])(
    "a field the protocol types otherwise is refused naming the item and the place: %s",
    (contract, message) => {
      const before = tree(PROJECT);
      const run = generate(`{${contract}}`);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(`error: contract.json: ${message}`);
      expect(tree(PROJECT)).toEqual(before);
    },
  );

  it("a protocol schema (--schema) nested past the limit is refused naming the file and the pointer", () => {
    const file = join(TMP, "deep-schema.json");
    writeFileSync(
      file,
      `{"$schema":"https://json-schema.org/draft/2020-12/schema","$defs":{"Deep":${nested(5_000)}}}`,
    );
    const out = join(TMP, "out");
    const run = runCli(["generate", "--schema", file, "-p", "custom-version", "-o", out]);
    expect(run.stderr).not.toContain("internal error");
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      new RegExp(`^error: ${file}#/\\$defs/Deep/properties/a/\\S*: nested deeper than 128 levels`, "m"),
    );
  });
});
