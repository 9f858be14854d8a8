/**
 * The pieces of `pull` without a server: the lock (canonical, order-independent, tamper-evident), the
 * breaking/compatible classifier on given/want tables, `$defs` hoisting, loose tools, and the emitted
 * client module.
 */
import { describe, expect, it } from "vitest";
import { ContractError } from "../../../generator/contract/load.js";
import { compareLocks, compareSchemas, renderComparison } from "../../../generator/lock/compat.js";
import { emitContractClient } from "../../../generator/lock/emit-client.js";
import { contractFromLock, hoistSchema } from "../../../generator/lock/from-lock.js";
import { buildLock, type PulledLists, parseLock, renderLock } from "../../../generator/lock/lock.js";

const obj = (properties: Record<string, unknown>, required: string[] = [], extra = {}) => ({
  type: "object",
  properties,
  ...(required.length ? { required } : {}),
  ...extra,
});

const pulled = (tools: unknown[], more: Partial<PulledLists> = {}): PulledLists => ({
  server: { name: "s", version: "1" },
  protocolVersion: "2025-11-25",
  tools,
  prompts: [],
  resources: [],
  resourceTemplates: [],
  ...more,
});

describe("lock", () => {
  const tools = [
    { name: "b", inputSchema: obj({ y: { type: "string" }, x: { type: "number" } }) },
    { inputSchema: { type: "object" }, name: "a", description: "first" },
  ];

  it("is the same text whatever order the server lists things and keys in", () => {
    const one = renderLock(buildLock(pulled(tools)).lock);
    const two = renderLock(
      buildLock(pulled([...tools].reverse().map((t) => Object.fromEntries(Object.entries(t).reverse()))))
        .lock,
    );
    expect(two).toBe(one);
    const lock = JSON.parse(one);
    expect(lock.tools.map((t: { name: string }) => t.name)).toEqual(["a", "b"]);
    expect(Object.keys(lock.tools[1].definition.inputSchema.properties)).toEqual(["x", "y"]);
    expect(lock.sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it("hashes the contract, not the server's version", () => {
    const a = buildLock(pulled(tools)).lock;
    const b = buildLock(pulled(tools, { server: { name: "s", version: "2" } })).lock;
    expect(b.sha256).toBe(a.sha256);
    const c = buildLock(pulled([tools[0]!])).lock;
    expect(c.sha256).not.toBe(a.sha256);
  });

  it("leaves out entries without a name and repeated ones, with warnings", () => {
    const { lock, warnings } = buildLock(pulled([...tools, { inputSchema: {} }, tools[0]]));
    expect(lock.tools).toHaveLength(2);
    expect(warnings).toEqual([
      "tools: an entry without a name is left out",
      'tools: "b" is listed twice; the first is kept',
    ]);
  });

  it("reads back what it wrote, and refuses an edited definition", () => {
    const text = renderLock(buildLock(pulled(tools)).lock);
    expect(parseLock(text, "x.lock.json")).toEqual(JSON.parse(text));
    const edited = JSON.parse(text);
    edited.tools[0].definition.description = "changed";
    expect(() => parseLock(JSON.stringify(edited), "x.lock.json")).toThrow(
      /tools\[0\].*sha256 does not match/,
    );
    expect(() => parseLock("{", "x.lock.json")).toThrow(ContractError);
  });
});

describe("compareSchemas: arguments", () => {
  const base = obj(
    {
      n: { type: "number", maximum: 10 },
      unit: { type: "string", enum: ["c", "f", "k"] },
      s: { type: "string" },
      tags: { type: "array", items: { type: "string" } },
    },
    ["n"],
  );
  const cases: { name: string; after: Record<string, unknown>; want: [string, string][] }[] = [
    { name: "unchanged", after: base, want: [] },
    {
      name: "new required argument",
      after: { ...base, properties: { ...base.properties, c: { type: "number" } }, required: ["n", "c"] },
      want: [["breaking", 'new required argument "c"']],
    },
    {
      name: "new optional argument",
      after: { ...base, properties: { ...base.properties, c: { type: "number" } } },
      want: [["compatible", 'new optional argument "c"']],
    },
    {
      name: "new required arguments named like Object.prototype members",
      after: {
        ...base,
        properties: { ...base.properties, constructor: { type: "number" }, toString: { type: "string" } },
        required: ["n", "constructor", "toString"],
      },
      want: [
        ["breaking", 'new required argument "constructor"'],
        ["breaking", 'new required argument "toString"'],
      ],
    },
    {
      name: "argument made required",
      after: { ...base, required: ["n", "s"] },
      want: [["breaking", 'argument "s" is now required']],
    },
    {
      name: "argument made optional",
      after: { ...base, required: undefined },
      want: [["compatible", 'argument "n" is now optional']],
    },
    {
      name: "enum value removed",
      after: { ...base, properties: { ...base.properties, unit: { type: "string", enum: ["c", "f"] } } },
      want: [["breaking", 'argument "unit": enum value "k" removed']],
    },
    {
      name: "enum value added",
      after: {
        ...base,
        properties: { ...base.properties, unit: { type: "string", enum: ["c", "f", "k", "r"] } },
      },
      want: [["compatible", 'argument "unit": enum value "r" added']],
    },
    {
      name: "type narrowed",
      after: { ...base, properties: { ...base.properties, n: { type: "integer", maximum: 10 } } },
      want: [["breaking", 'argument "n": type number → integer']],
    },
    {
      name: "type widened",
      after: { ...base, properties: { ...base.properties, s: { type: ["string", "null"] } } },
      want: [["compatible", 'argument "s": type string → string | null']],
    },
    {
      name: "smaller maximum",
      after: { ...base, properties: { ...base.properties, n: { type: "number", maximum: 5 } } },
      want: [["breaking", 'argument "n": maximum 10 → 5']],
    },
    {
      name: "larger maximum",
      after: { ...base, properties: { ...base.properties, n: { type: "number", maximum: 50 } } },
      want: [["compatible", 'argument "n": maximum 10 → 50']],
    },
    {
      name: "new pattern",
      after: { ...base, properties: { ...base.properties, s: { type: "string", pattern: "^a" } } },
      want: [["breaking", 'argument "s": new pattern "^a"']],
    },
    {
      name: "new minLength in array items",
      after: {
        ...base,
        properties: { ...base.properties, tags: { type: "array", items: { type: "string", minLength: 1 } } },
      },
      want: [["breaking", 'argument "tags[]": minLength none → 1']],
    },
    {
      name: "additionalProperties now false",
      after: { ...base, additionalProperties: false },
      want: [["breaking", "arguments: additionalProperties now false"]],
    },
    {
      name: "description change",
      after: { ...base, properties: { ...base.properties, s: { type: "string", description: "a text" } } },
      want: [["compatible", 'argument "s": description changed']],
    },
    {
      name: "argument removed from an open object",
      after: {
        ...base,
        properties: { n: base.properties.n, unit: base.properties.unit, tags: base.properties.tags },
      },
      want: [["compatible", 'argument "s" removed (no longer declared)']],
    },
    {
      name: "a keyword not analysed",
      after: {
        ...base,
        properties: { ...base.properties, s: { anyOf: [{ type: "string" }, { type: "number" }] } },
      },
      want: [
        ["compatible", 'argument "s": type restriction removed'],
        ["breaking", 'argument "s": anyOf changed (not analysed; assumed breaking)'],
      ],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      expect(compareSchemas(base, c.after, "input").map((f) => [f.level, f.change])).toEqual(c.want);
    });
  }

  it("follows $refs into each schema's own $defs", () => {
    const withDefs = (max: number) => ({
      ...obj({ p: { $ref: "#/$defs/Point" } }, ["p"]),
      $defs: { Point: obj({ x: { type: "number", maximum: max } }, ["x"]) },
    });
    expect(compareSchemas(withDefs(10), withDefs(10), "input")).toEqual([]);
    expect(compareSchemas(withDefs(10), withDefs(3), "input")).toEqual([
      { level: "breaking", change: 'argument "p.x": maximum 10 → 3' },
    ]);
  });
});

describe("compareSchemas: outputs", () => {
  const base = obj({ sum: { type: "number" }, note: { type: "string" } }, ["sum"]);
  const cases: { name: string; after: Record<string, unknown>; want: [string, string][] }[] = [
    {
      name: "property removed",
      after: obj({ sum: { type: "number" } }, ["sum"]),
      want: [["breaking", 'output property "note" removed']],
    },
    {
      name: "property retyped",
      after: obj({ sum: { type: "string" }, note: { type: "string" } }, ["sum"]),
      want: [["breaking", 'output property "sum": type number → string']],
    },
    {
      name: "required property made optional",
      after: obj({ sum: { type: "number" }, note: { type: "string" } }),
      want: [["breaking", 'output property "sum" is now optional']],
    },
    {
      name: "new optional property",
      after: obj({ sum: { type: "number" }, note: { type: "string" }, extra: { type: "boolean" } }, ["sum"]),
      want: [["compatible", 'new optional output property "extra"']],
    },
    {
      name: "narrowed output type",
      after: obj({ sum: { type: "integer" }, note: { type: "string" } }, ["sum"]),
      want: [["compatible", 'output property "sum": type number → integer']],
    },
  ];
  it("a new property where the old schema was closed breaks old clients' checks", () => {
    const closed = { ...base, additionalProperties: false };
    const after = { ...closed, properties: { ...closed.properties, extra: { type: "boolean" } } };
    expect(compareSchemas(closed, after, "output")).toEqual([
      { level: "breaking", change: 'new optional output property "extra"' },
    ]);
    expect(compareSchemas(closed, base, "output")).toEqual([
      { level: "breaking", change: "output: additionalProperties no longer false" },
    ]);
  });

  for (const c of cases) {
    it(c.name, () => {
      expect(compareSchemas(base, c.after, "output").map((f) => [f.level, f.change])).toEqual(c.want);
    });
  }
});

describe("compareLocks", () => {
  const lockOf = (tools: unknown[], prompts: unknown[] = [], resourceTemplates: unknown[] = []) =>
    buildLock(pulled(tools, { prompts, resourceTemplates })).lock;
  const add = { name: "add", inputSchema: obj({ a: { type: "number" } }, ["a"]) };

  it("classifies items removed and added, prompts and templates", () => {
    const before = lockOf(
      [add, { name: "old", inputSchema: { type: "object" } }],
      [{ name: "greet", arguments: [{ name: "who", required: true }, { name: "tone" }] }],
      [{ name: "file", uriTemplate: "file:///{path}" }],
    );
    const after = lockOf(
      [
        { ...add, title: "Add" },
        { name: "new", inputSchema: { type: "object" } },
      ],
      [
        {
          name: "greet",
          arguments: [
            { name: "who", required: true },
            { name: "lang", required: true },
          ],
        },
      ],
      [{ name: "file", uriTemplate: "file:///{+path}" }],
    );
    const c = compareLocks(before, after);
    expect(c.changes.map((x) => `${x.level} ${x.kind} ${x.name}: ${x.change}`)).toEqual([
      "compatible tools add: title changed",
      "compatible tools new: new tool",
      "breaking tools old: tool removed",
      'breaking prompts greet: argument "tone" removed',
      'breaking prompts greet: new required argument "lang"',
      'breaking resourceTemplates file: uriTemplate changed: "file:///{path}" → "file:///{+path}"',
    ]);
    expect([c.breaking, c.compatible]).toEqual([4, 2]);
    expect(renderComparison(c)).toContain("tool old\n  BREAKING   tool removed\n");
    expect(renderComparison(compareLocks(before, before))).toBe("no changes: the server matches the lock\n");
  });

  it("an output schema removed is breaking, one added compatible", () => {
    const out = { ...add, outputSchema: obj({ r: { type: "number" } }) };
    expect(compareLocks(lockOf([out]), lockOf([add])).changes[0]!.level).toBe("breaking");
    expect(compareLocks(lockOf([add]), lockOf([out])).changes[0]!.level).toBe("compatible");
  });
});

describe("contractFromLock", () => {
  it("hoists a schema's $defs under the tool's names and rewrites its refs", () => {
    const schema = {
      $schema: "http://json-schema.org/draft-07/schema#",
      type: "object",
      properties: { p: { $ref: "#/definitions/point" }, q: { $ref: "#/properties/p" }, self: { $ref: "#" } },
      definitions: { point: obj({ x: { type: "number" } }) },
    };
    expect(hoistSchema(schema, "MoveInput")).toEqual({
      root: {
        type: "object",
        properties: {
          p: { $ref: "#/$defs/MoveInputPoint" },
          q: { $ref: "#/$defs/MoveInput$properties$p" },
          self: { $ref: "#/$defs/MoveInput" },
        },
      },
      defs: {
        MoveInputPoint: obj({ x: { type: "number" } }),
        MoveInput$properties$p: { $ref: "#/$defs/MoveInputPoint" },
      },
    });
  });

  it("compiles what it can and types the rest loosely, naming tool and keyword", () => {
    const lock = buildLock(
      pulled([
        {
          name: "move",
          inputSchema: {
            ...obj({ p: { $ref: "#/$defs/Point" } }, ["p"]),
            $defs: { Point: obj({ x: { type: "number" } }, ["x"]) },
          },
          outputSchema: obj({ ok: { type: "boolean" } }, ["ok"]),
        },
        {
          name: "odd",
          inputSchema: obj({ when: { type: "string", contentSchema: { type: "string" } } }),
          outputSchema: obj({ r: { type: "string", format: "iri" } }),
        },
      ]),
    ).lock;
    const { model, loose, warnings } = contractFromLock(lock, "s.lock.json");
    expect(model.tools.map((t) => [t.name, t.input, t.output])).toEqual([
      ["move", "MoveInput", "MoveOutput"],
      ["odd", "OddInput", null],
    ]);
    expect(model.definitions.map((d) => d.name)).toEqual([
      "MoveInput",
      "MoveInputPoint",
      "MoveOutput",
      "OddInput",
    ]);
    expect(Object.keys(loose)).toEqual(["odd"]);
    expect(warnings).toEqual([
      expect.stringMatching(
        /^tool "odd": its inputSchema is typed as Record<string, unknown> and not checked \(.*unsupported keyword `contentSchema`/,
      ),
      expect.stringMatching(/^tool "odd": its outputSchema is typed as unknown and not checked \(.*format/),
    ]);
  });

  it("emits a client module typing each tool, loose ones as Record<string, unknown> / unknown", async () => {
    const lock = buildLock(
      pulled(
        [
          {
            name: "add",
            inputSchema: obj({ a: { type: "number" } }, ["a"]),
            outputSchema: obj({ s: { type: "number" } }),
          },
          {
            name: "odd",
            inputSchema: obj({ x: { type: "string", contentSchema: {} } }),
            outputSchema: obj({ y: { type: "string", format: "iri" } }),
          },
          { name: "ping", inputSchema: { type: "object" } },
        ],
        {
          prompts: [{ name: "greet", arguments: [{ name: "who", required: true }] }],
          resources: [{ name: "about", uri: "info://about" }],
          resourceTemplates: [{ name: "item", uriTemplate: "items://{id}{?lang}" }],
        },
      ),
    ).lock;
    const contract = contractFromLock(lock, "s.lock.json");
    const files = await emitContractClient({ lock, lockFile: "s.lock.json", ...contract });
    expect(Object.keys(files)).toEqual(["types.ts", "validators.ts", "client.ts"]);
    const client = files["client.ts"]!;
    // Compared without the formatter's line breaks.
    const flat = client.replace(/\s+/g, " ").replaceAll("( ", "(").replaceAll(", )", ")");
    expect(client).toMatch(
      /^\/\/ Code generated by mcp-codegen .* from s\.lock\.json \(sha256 [0-9a-f]{64}\): s 1, protocol 2025-11-25\. DO NOT EDIT\./,
    );
    expect(flat).toContain(
      'add(args: C.AddInput, options?: Options<Client["callTool"]>): Promise<C.AddOutput>;',
    );
    expect(flat).toContain(
      'odd(args?: Record<string, unknown>, options?: Options<Client["callTool"]>): Promise<unknown>;',
    );
    expect(flat).toContain(
      'ping(args?: C.PingInput, options?: Options<Client["callTool"]>): Promise<Result<Client["callTool"]>>;',
    );
    expect(flat).toContain("greet(args: C.GreetPromptArguments");
    expect(flat).toContain("about(options?:");
    expect(flat).toContain("item(variables: C.ItemTemplateVariables");
    expect(flat).toContain('odd: { name: "odd", structured: true }');
    // Deterministic.
    expect(
      await emitContractClient({ lock, lockFile: "s.lock.json", ...contractFromLock(lock, "s.lock.json") }),
    ).toEqual(files);
  });
});

describe("contractFromLock: names", () => {
  it("keeps items whose names share a type-name form, told apart by a suffix (mangle.ts)", () => {
    const lock = buildLock(
      pulled([
        { name: "get-sum", inputSchema: { type: "object" } },
        { name: "get_sum", inputSchema: { type: "object" } },
      ]),
    ).lock;
    const { model, warnings } = contractFromLock(lock);
    expect(warnings).toEqual([]);
    expect(model.tools.map((t) => [t.name, t.typeName])).toEqual([
      ["get-sum", "GetSum"],
      ["get_sum", expect.stringMatching(/^GetSumX[0-9A-F]{8}$/)],
    ]);
  });
});
