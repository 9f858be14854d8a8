/** Reading contracts: layouts, $refs across files, and every mistake refused with the file and the place. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { emitContract } from "../../../generator/contract/emit.js";
import { loadContract } from "../../../generator/contract/load.js";

const root = mkdtempSync(join(tmpdir(), "mcp-contract-load-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
/** Writes `files` into a new folder and returns its path. */
function folder(files: Record<string, string>): string {
  const dir = join(root, String(n++));
  mkdirSync(dir);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}
const OBJECT = "{ type: object, properties: { a: { type: number } }, required: [a] }";
const one = (yaml: string) => join(folder({ "contract.yaml": yaml }), "contract.yaml");

describe("loadContract", () => {
  it("reads YAML and JSON, and a folder of both merged", async () => {
    const dir = folder({
      "a.yaml": `tools:\n  first:\n    inputSchema: ${OBJECT}\n`,
      "b.json": JSON.stringify({
        tools: { second: { inputSchema: { type: "object" } } },
        prompts: { p: {} },
      }),
      "notes.txt": "not a contract file",
    });
    const contract = await loadContract(dir, "contract");
    expect(contract.tools.map((t) => t.name)).toEqual(["first", "second"]);
    expect(contract.prompts.map((p) => p.name)).toEqual(["p"]);
    expect(contract.tools[0]!.definition).toEqual({
      name: "first",
      inputSchema: { type: "object", properties: { a: { type: "number" } }, required: ["a"] },
    });
  });

  it("hashes the declarations, not their spelling", async () => {
    const a = await loadContract(one(`tools:\n  t:\n    description: x\n    inputSchema: ${OBJECT}\n`));
    const b = await loadContract(
      join(
        folder({
          "c.json": JSON.stringify({
            tools: {
              t: {
                inputSchema: { required: ["a"], properties: { a: { type: "number" } }, type: "object" },
                description: "x",
              },
            },
          }),
        }),
        "c.json",
      ),
    );
    expect(a.sha256).toBe(b.sha256);
    const c = await loadContract(one(`tools:\n  t:\n    description: y\n    inputSchema: ${OBJECT}\n`));
    expect(c.sha256).not.toBe(a.sha256);
  });

  it("brings a $ref into another file's $defs under its name, and carries $defs inside the wire schema", async () => {
    const dir = folder({
      "shapes.yaml":
        "$defs:\n  Point: { type: object, properties: { x: { type: number } }, required: [x] }\n  Line: { type: object, properties: { from: { $ref: '#/$defs/Point' } } }\n",
      "contract.yaml":
        "tools:\n  draw:\n    inputSchema: { type: object, properties: { line: { $ref: './shapes.yaml#/$defs/Line' } } }\n",
    });
    const contract = await loadContract(join(dir, "contract.yaml"));
    expect(contract.definitions.map((d) => d.name)).toEqual(["DrawInput", "Line", "Point"]);
    expect(contract.tools[0]!.definition.inputSchema).toEqual({
      type: "object",
      properties: { line: { $ref: "#/$defs/Line" } },
      $defs: {
        Line: { type: "object", properties: { from: { $ref: "#/$defs/Point" } } },
        Point: { type: "object", properties: { x: { type: "number" } }, required: ["x"] },
      },
    });
    const files = await emitContract(contract, { protocolVersion: "2025-11-25", protocolErrorVersions: [] });
    expect(files["types.ts"]).toMatch(/export (interface|type) DrawInput/);
    expect(files["validators.js"]).toContain("export function checkLine(");
  });

  it("keeps the $schema zod's toJSONSchema writes at each root on the wire, as written", async () => {
    const input = z.toJSONSchema(z.object({ email: z.string().max(100), n: z.number().min(0) }));
    const path = join(
      folder({ "c.json": JSON.stringify({ tools: { t: { inputSchema: input } } }) }),
      "c.json",
    );
    const contract = await loadContract(path);
    expect(contract.tools[0]!.definition.inputSchema).toEqual(input);
  });

  it("sends a schema with its own $defs as written: $schema, $defs names, $anchor and applicators kept", async () => {
    const input = {
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "object",
      $defs: { address: { $anchor: "addressDef", type: "object", properties: { city: { type: "string" } } } },
      properties: {
        address: { $ref: "#/$defs/address" },
        phone: { type: "string" },
        email: { type: "string" },
      },
      anyOf: [{ required: ["phone"] }, { required: ["email"] }],
      additionalProperties: false,
    };
    const path = join(
      folder({ "c.json": JSON.stringify({ tools: { t: { inputSchema: input } } }) }),
      "c.json",
    );
    const contract = await loadContract(path);
    expect(contract.tools[0]!.definition.inputSchema).toEqual(input);
    const files = await emitContract(contract, { protocolVersion: "2025-11-25", protocolErrorVersions: [] });
    expect(files["types.ts"]).toContain("address?: TInputAddress;");
  });

  it('reads a zod schema\'s own $defs and recursion ($ref: "#") inside the schema, not the file', async () => {
    const Node: z.ZodType = z.object({
      name: z.string(),
      get children() {
        return z.array(Node);
      },
    });
    const Point = z.object({ x: z.number() }).meta({ id: "Point" });
    const input = z.toJSONSchema(z.object({ tree: Node, at: Point, also: Point }), { reused: "ref" });
    const tree = z.toJSONSchema(Node);
    expect(JSON.stringify(tree)).toContain('"$ref":"#"');
    const path = join(
      folder({
        "c.json": JSON.stringify({ tools: { plant: { inputSchema: input }, grow: { inputSchema: tree } } }),
      }),
      "c.json",
    );
    const contract = await loadContract(path);
    const names = contract.definitions.map((d) => d.name);
    expect(names).toContain("GrowInput");
    expect(names.some((n) => n.startsWith("PlantInput") && n !== "PlantInput")).toBe(true);
    const grow = contract.tools.find((t) => t.name === "grow")!.definition.inputSchema as Record<
      string,
      unknown
    >;
    // On the wire the schema points at itself again, as zod wrote it.
    expect(JSON.stringify(grow)).toContain('"items":{"$ref":"#"}');
    expect(JSON.stringify(grow)).not.toContain("GrowInput");
    const files = await emitContract(contract, { protocolVersion: "2025-11-25", protocolErrorVersions: [] });
    expect(files["validators.js"]).toContain("export function checkGrowInput(");
  });

  const refused: [string, string | Record<string, string>, RegExp][] = [
    [
      "a keyword the emitters cannot check",
      `tools:\n  t:\n    inputSchema: { type: object, properties: { a: { type: string, contentSchema: {} } } }\n`,
      /contract\.yaml: tools\.t\.inputSchema\/properties\/a\/contentSchema: unsupported keyword/,
    ],
    ["an unknown section", "tool:\n  t: {}\n", /contract\.yaml: tool: unknown section/],
    ["an empty file as empty", "", /^contract\.yaml: is empty: declare at least one of tools, prompts/],
    [
      "a file of comments alone as empty",
      "# my tools, soon\n\n---\n",
      /^contract\.yaml: is empty: declare at least one of tools, prompts/,
    ],
    ["a number as no object", "5\n", /^contract\.yaml: must hold an object \(tools, prompts/],
    ["null as no object", "null\n", /^contract\.yaml: must hold an object \(tools, prompts/],
    [
      "an unknown field of a tool",
      `tools:\n  t:\n    inputSchema: ${OBJECT}\n    outputschema: {}\n`,
      /tools\.t\.outputschema: unknown field/,
    ],
    ["a tool without inputSchema", "tools:\n  t: { description: x }\n", /tools\.t: needs an inputSchema/],
    [
      "a task support the protocol does not name",
      `tools:\n  t:\n    inputSchema: ${OBJECT}\n    execution: { taskSupport: sometimes }\n`,
      /contract\.yaml: tools\.t\.execution\.taskSupport: must be one of forbidden, optional, required \(got "sometimes"\)/,
    ],
    [
      "an execution that is not an object",
      `tools:\n  t:\n    inputSchema: ${OBJECT}\n    execution: optional\n`,
      /contract\.yaml: tools\.t\.execution: must be an object, \{ taskSupport: forbidden \| optional \| required \}/,
    ],
    [
      "an input that is not an object schema",
      "tools:\n  t:\n    inputSchema: { type: string }\n",
      /tools\.t\.inputSchema: must be a JSON Schema with `type: "object"`/,
    ],
    [
      "a name the specification does not allow",
      `tools:\n  "bad name":\n    inputSchema: ${OBJECT}\n`,
      /tools\.bad name: a tool name is 1 to 128/,
    ],
    [
      "a dangling $ref",
      "tools:\n  t:\n    inputSchema: { type: object, properties: { a: { $ref: '#/$defs/Nope' } } }\n",
      /dangling/,
    ],
    ["a missing file", "tools:\n  t:\n    inputSchema: { $ref: './missing.yaml' }\n", /contract\.yaml/],
    ["YAML that does not parse", "tools:\n  t: [\n", /contract\.yaml/],
    [
      "a prompt argument without a name",
      "prompts:\n  p:\n    arguments: [{ description: x }]\n",
      /prompts\.p\.arguments\[0\]: must be an object with a name/,
    ],
    [
      "a bad URI template",
      "resourceTemplates:\n  r: { uriTemplate: 'x://{a b}' }\n",
      /resourceTemplates\.r\.uriTemplate: not an RFC 6570 URI template/,
    ],
    [
      "a variable the template does not have",
      "resourceTemplates:\n  r:\n    uriTemplate: 'x://{a}'\n    variables: { b: { type: string } }\n",
      /resourceTemplates\.r\.variables\.b: the template x:\/\/\{a\} has no variable b/,
    ],
    [
      "a resource without a URI",
      "resources:\n  r: { mimeType: text/plain }\n",
      /resources\.r\.uri: must be a URI/,
    ],
  ];
  for (const [what, text, message] of refused) {
    it(`refuses ${what}`, async () => {
      const path = typeof text === "string" ? one(text) : join(folder(text), "contract.yaml");
      await expect(loadContract(path, "contract.yaml")).rejects.toThrow(message);
    });
  }

  it("refuses a name declared in two files of a folder", async () => {
    const dir = folder({
      "a.yaml": `tools:\n  t:\n    inputSchema: ${OBJECT}\n`,
      "b.yaml": `tools:\n  t:\n    inputSchema: ${OBJECT}\n`,
    });
    await expect(loadContract(dir, "contract")).rejects.toThrow(
      /contract\/b\.yaml: tools\.t: declared twice \(also in contract\/a\.yaml\)/,
    );
  });
});
