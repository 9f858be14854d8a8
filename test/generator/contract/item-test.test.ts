/**
 * What a contract tells `mcp-codegen test` beyond the wire: `test: { timeoutMs, runs }` and the JSON
 * Schema `examples`/`default` of inputs, arguments and variables, read into the model, kept off the wire
 * and out of generated code, every mistake refused naming its place; and the seeds made from them.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { emitContract } from "../../../generator/contract/emit.js";
import { loadContract } from "../../../generator/contract/load.js";
import { seedsOf } from "../../../generator/sampling/seeds.js";

const root = mkdtempSync(join(tmpdir(), "mcp-contract-item-test-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
const one = (yaml: string) => {
  const file = join(root, `c${n++}.yaml`);
  writeFileSync(file, yaml);
  return file;
};

const CONTRACT = `
tools:
  export:
    inputSchema:
      type: object
      properties:
        format: { type: string, enum: [csv, json], default: csv }
        id: { type: string, examples: [a1, a2] }
      required: [id]
      examples: [{ id: z9, format: json }]
    test: { timeoutMs: 30000, runs: 5 }
prompts:
  review:
    arguments:
      - { name: code, required: true, examples: ["x = 1"], default: "pass" }
    test: { runs: 3 }
resources:
  readme: { uri: "docs://readme", test: { timeoutMs: 100 } }
resourceTemplates:
  task:
    uriTemplate: "task://{id}"
    variables:
      id: { type: string, examples: [t1], default: t0 }
`;

describe("test hints and examples in a contract", () => {
  it("are read into the model, and stay off the wire and out of generated code", async () => {
    const c = await loadContract(one(CONTRACT), "contract.yaml");
    const [tool] = c.tools;
    expect(tool!.test).toEqual({
      timeoutMs: 30000,
      runs: 5,
      examples: [{ id: "z9", format: "json" }],
      fields: { format: { default: "csv" }, id: { examples: ["a1", "a2"] } },
    });
    expect(tool!.definition).not.toHaveProperty("test");
    expect(c.prompts[0]!.test).toEqual({
      runs: 3,
      fields: { code: { examples: ["x = 1"], default: "pass" } },
    });
    expect(c.prompts[0]!.definition).toEqual({
      name: "review",
      arguments: [{ name: "code", required: true }],
    });
    expect(c.resources[0]!.test).toEqual({ timeoutMs: 100 });
    expect(c.resources[0]!.definition).toEqual({ name: "readme", uri: "docs://readme" });
    expect(c.resourceTemplates[0]!.test).toEqual({ fields: { id: { examples: ["t1"], default: "t0" } } });
    const files = await emitContract(c, { protocolVersion: "2025-11-25", protocolErrorVersions: [] });
    for (const [name, text] of Object.entries(files)) {
      expect(text, name).not.toContain("timeoutMs");
      expect(text, name).not.toContain("x = 1");
    }
    // Hints are not part of what the server declares: the contract's hash ignores them.
    const bare = await loadContract(
      one(
        CONTRACT.replace(/^ {4}test: .*\n/gm, "").replace(
          '  readme: { uri: "docs://readme", test: { timeoutMs: 100 } }',
          '  readme: { uri: "docs://readme" }',
        ),
      ),
      "contract.yaml",
    );
    expect(bare.sha256).toBe(c.sha256);
  });

  const refused: [string, string, RegExp][] = [
    [
      "a test block that is not an object",
      "tools:\n  t:\n    inputSchema: { type: object }\n    test: 5000\n",
      /contract\.yaml: tools\.t\.test: must be an object/,
    ],
    [
      "an unknown test field",
      "tools:\n  t:\n    inputSchema: { type: object }\n    test: { timeout: 5000 }\n",
      /tools\.t\.test\.timeout: unknown field \(allowed: timeoutMs, runs\)/,
    ],
    [
      "a timeout of 0",
      "prompts:\n  p:\n    test: { timeoutMs: 0 }\n",
      /prompts\.p\.test\.timeoutMs: must be a whole number of milliseconds from 1 to 2147483647, not 0/,
    ],
    [
      "a timeout in text",
      "resources:\n  r: { uri: 'x://r', test: { timeoutMs: 5s } }\n",
      /resources\.r\.test\.timeoutMs: must be a whole number of milliseconds .* not "5s"/,
    ],
    [
      "a fractional run count",
      "resourceTemplates:\n  r: { uriTemplate: 'x://{a}', test: { runs: 1.5 } }\n",
      /resourceTemplates\.r\.test\.runs: must be a whole number of inputs from 1/,
    ],
    [
      "examples that are not an array",
      "tools:\n  t:\n    inputSchema: { type: object, properties: { a: { type: string, examples: a1 } } }\n",
      /tools\.t\.inputSchema\.properties\.a\.examples: must be an array of example values/,
    ],
    [
      "a whole-input example that is not an object",
      "tools:\n  t:\n    inputSchema: { type: object, examples: [1] }\n",
      /tools\.t\.inputSchema\.examples\[0\]: an example of the whole input must be an object/,
    ],
    [
      "a prompt argument example that is not a string",
      "prompts:\n  p:\n    arguments: [{ name: a }, { name: n, examples: [1] }]\n",
      /prompts\.p\.arguments\[1\]\.examples: must be strings/,
    ],
    [
      "a template variable's examples that are not an array",
      "resourceTemplates:\n  r:\n    uriTemplate: 'x://{a}'\n    variables: { a: { type: string, examples: x } }\n",
      /resourceTemplates\.r\.variables\.a\.examples: must be an array/,
    ],
  ];
  for (const [what, text, message] of refused)
    it(`refuses ${what}`, async () => {
      await expect(loadContract(one(text), "contract.yaml")).rejects.toThrow(message);
    });
});

describe("seedsOf", () => {
  it("gives whole examples, one input per example position, then defaults, without repeats", () => {
    const seeds = seedsOf(
      {
        examples: [{ id: "z9" }],
        fields: {
          id: { examples: ["a1", "a2"] },
          tag: { examples: ["x"], default: "none" },
          n: { default: 1 },
        },
      },
      { id: "", n: 0 },
      ["id"],
    );
    expect(seeds).toEqual([
      { value: { id: "z9" }, fromExamples: true, origin: "examples[0]" },
      { value: { id: "a1", n: 0, tag: "x" }, fromExamples: true, origin: "examples of id, tag" },
      { value: { id: "a2", n: 0, tag: "x" }, fromExamples: true, origin: "examples of id, tag" },
      { value: { id: "", n: 1, tag: "none" }, fromExamples: false, origin: "defaults of tag, n" },
    ]);
  });

  it("marks an input as from examples only when every required field came from them", () => {
    const seeds = seedsOf({ fields: { format: { examples: ["csv"] } } }, { id: "q" }, ["id"]);
    expect(seeds).toEqual([
      { value: { id: "q", format: "csv" }, fromExamples: false, origin: "examples of format" },
    ]);
    expect(seedsOf(undefined, { id: "q" }, ["id"])).toEqual([]);
  });
});
