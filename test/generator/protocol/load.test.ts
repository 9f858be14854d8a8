import { describe, expect, it } from "vitest";
import { parseSchema, parseSchemaDocument, SchemaLoadError } from "../../../generator/protocol/load.js";

const doc = (defs: object, dialect = "https://json-schema.org/draft/2020-12/schema") =>
  JSON.stringify({ $schema: dialect, $defs: defs });

describe("parseSchema rejects what it cannot honour, naming file and pointer", () => {
  const cases: { name: string; text: string; pointer: string; reason: RegExp }[] = [
    { name: "not JSON", text: "{ nope", pointer: "", reason: /not valid JSON/ },
    { name: "a JSON array", text: "[1]", pointer: "", reason: /not a JSON Schema/ },
    {
      name: "no $schema",
      text: JSON.stringify({ $defs: {} }),
      pointer: "/$schema",
      reason: /`\$schema` is missing/,
    },
    {
      name: "unknown dialect",
      text: JSON.stringify({ $schema: "http://json-schema.org/draft-04/schema#", definitions: {} }),
      pointer: "/$schema",
      reason: /unsupported JSON Schema dialect/,
    },
    {
      name: "no definitions",
      text: JSON.stringify({ $schema: "https://json-schema.org/draft/2020-12/schema" }),
      pointer: "/$defs",
      reason: /no `\$defs`/,
    },
    {
      name: "dangling $ref",
      text: doc({ A: { type: "object", properties: { b: { $ref: "#/$defs/Nope" } } } }),
      pointer: "/$defs/A/properties/b/$ref",
      reason: /dangling `\$ref`/,
    },
    {
      name: "ref in the other dialect's folder",
      text: doc({ A: { $ref: "#/definitions/A" } }),
      pointer: "/$defs/A/$ref",
      reason: /unsupported `\$ref`/,
    },
    {
      name: "unsupported keyword",
      text: doc({ A: { type: "object", unevaluatedProperties: false } }),
      pointer: "/$defs/A/unevaluatedProperties",
      reason: /unsupported keyword `unevaluatedProperties`/,
    },
    {
      name: "unsupported format (zod's z.base64())",
      text: doc({ A: { type: "string", format: "base64", contentEncoding: "base64" } }),
      pointer: "/$defs/A/format",
      reason: /unsupported format "base64" \(supported: .*email.*\)/,
    },
    {
      name: "unsupported format (zod's startsWith)",
      text: doc({ A: { type: "string", format: "starts_with", pattern: "^a.*" } }),
      pointer: "/$defs/A/format",
      reason: /unsupported format "starts_with"/,
    },
    {
      name: "$schema below a definition's root",
      text: doc({
        A: { type: "object", properties: { a: { $schema: "https://json-schema.org/draft/2020-12/schema" } } },
      }),
      pointer: "/$defs/A/properties/a/$schema",
      reason: /only allowed at the root of a definition/,
    },
    {
      name: "$schema of another dialect at a definition's root",
      text: doc({ A: { $schema: "http://json-schema.org/draft-07/schema#", type: "string" } }),
      pointer: "/$defs/A/$schema",
      reason: /differs from the document's 2020-12 dialect/,
    },
    {
      name: "$id above a $ref",
      text: doc({ A: { $id: "urn:a", type: "object", properties: { b: { $ref: "#/$defs/B" } } }, B: {} }),
      pointer: "/$defs/A/$id",
      reason: /`\$id` above a `\$ref` is not supported/,
    },
    {
      name: "recursion through the document root (zod's z.toJSONSchema of a recursive schema)",
      text: doc({ A: { type: "array", items: { $ref: "#" } } }),
      pointer: "/$defs/A/items/$ref",
      reason: /unsupported `\$ref` "#"/,
    },
    {
      name: "then without if",
      // biome-ignore lint/suspicious/noThenProperty: JSON Schema's keyword, in a fixture nothing awaits
      text: doc({ A: { then: { type: "string" } } }),
      pointer: "/$defs/A/then",
      reason: /`then` without `if` has no effect/,
    },
    {
      name: "a 2020-12 keyword in draft-07",
      text: doc(
        { A: { type: "array", prefixItems: [{}] } },
        "http://json-schema.org/draft-07/schema#",
      ).replace('"$defs"', '"definitions"'),
      pointer: "/definitions/A/prefixItems",
      reason: /2020-12 keyword, which draft-07 validators ignore/,
    },
    {
      name: "tuple items",
      text: doc({ A: { type: "array", items: [{}] } }),
      pointer: "/$defs/A/items",
      reason: /spells tuples `prefixItems`/,
    },
    {
      name: "multipleOf 0",
      text: doc({ A: { type: "number", multipleOf: 0 } }),
      pointer: "/$defs/A/multipleOf",
      reason: /greater than 0/,
    },
    {
      name: "uniqueItems not a boolean",
      text: doc({ A: { type: "array", uniqueItems: "yes" } }),
      pointer: "/$defs/A/uniqueItems",
      reason: /must be a boolean/,
    },
    {
      name: "dependentRequired not naming strings",
      text: doc({ A: { type: "object", dependentRequired: { a: "b" } } }),
      pointer: "/$defs/A/dependentRequired/a",
      reason: /must be an array of strings/,
    },
    {
      name: "uniqueItems without type array",
      text: doc({ A: { uniqueItems: true } }),
      pointer: "/$defs/A/uniqueItems",
      reason: /without `type: array`/,
    },
    {
      name: "propertyNames without type object",
      text: doc({ A: { propertyNames: { maxLength: 3, type: "string" } } }),
      pointer: "/$defs/A/propertyNames",
      reason: /without `type: object`/,
    },
    {
      name: "multipleOf without a numeric type",
      text: doc({ A: { type: "string", multipleOf: 2 } }),
      pointer: "/$defs/A/multipleOf",
      reason: /without `type: number \| integer`/,
    },
    {
      name: "unknown type",
      text: doc({ A: { type: "float" } }),
      pointer: "/$defs/A/type",
      reason: /unknown type/,
    },
    {
      name: "properties without type object",
      text: doc({ A: { properties: { a: {} } } }),
      pointer: "/$defs/A/properties",
      reason: /without `type: object`/,
    },
    {
      name: "bad pattern",
      text: doc({ A: { type: "string", pattern: "(" } }),
      pointer: "/$defs/A/pattern",
      reason: /invalid regular expression/,
    },
    {
      name: "escaped pointer token",
      text: doc({ "A/b": { type: "string", nope: 1 } }),
      pointer: "/$defs/A~1b/nope",
      reason: /unsupported keyword/,
    },
  ];
  it.each(cases)("$name", ({ text, pointer, reason }) => {
    let error: unknown;
    try {
      parseSchema(text, "bad.json");
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(SchemaLoadError);
    const e = error as SchemaLoadError;
    expect(e.file).toBe("bad.json");
    expect(e.pointer).toBe(pointer);
    expect(e.message).toMatch(reason);
    expect(e.message.startsWith(`bad.json#${pointer}: `)).toBe(true);
  });
});

describe("parseSchema keeps the semantics the emitters need", () => {
  it("drops $ref siblings in draft-07 and keeps them in 2020-12", () => {
    const node = { $ref: "#/X/B", type: "string", description: "d" };
    const d7 = parseSchema(
      JSON.stringify({
        $schema: "http://json-schema.org/draft-07/schema#",
        definitions: { A: { ...node, $ref: "#/definitions/B" }, B: {} },
      }),
      "f",
    );
    expect(d7.definitions.A).toEqual({ pointer: "/definitions/A", ref: "B", description: "d" });
    const d12 = parseSchema(doc({ A: { ...node, $ref: "#/$defs/B" }, B: {} }), "f");
    expect(d12.definitions.A).toMatchObject({ ref: "B", type: ["string"] });
  });

  it("records const, including a null const", () => {
    const parsed = parseSchema(doc({ A: { const: null } }), "f");
    expect(parsed.definitions.A).toMatchObject({ hasConst: true, const: null });
  });
});

describe("parseSchemaDocument parses users' definitions", () => {
  const D = "https://json-schema.org/draft/2020-12/schema";

  it("accepts a definition's own $schema and the annotations, and keeps none of them", () => {
    const parsed = parseSchemaDocument(
      {
        $defs: {
          A: {
            $schema: D,
            $id: "urn:a",
            $anchor: "a",
            type: "string",
            readOnly: true,
            writeOnly: false,
            contentEncoding: "base64",
            contentMediaType: "image/png",
          },
        },
      },
      "contract.json",
      "2020-12",
    );
    expect(parsed).toEqual({
      file: "contract.json",
      dialect: "2020-12",
      defsKey: "$defs",
      definitions: { A: { pointer: "/$defs/A", type: ["string"] } },
      fixes: [],
    });
  });

  it("takes a document without definitions as one with none", () => {
    expect(parseSchemaDocument({}, "c.json", "draft-07").definitions).toEqual({});
  });

  it("parses the same nodes parseSchema does", () => {
    const defs = { A: { type: "object", properties: { b: { $ref: "#/$defs/B" } } }, B: { type: "integer" } };
    expect(parseSchemaDocument({ $defs: defs }, "f", "2020-12").definitions).toEqual(
      parseSchema(doc(defs), "f").definitions,
    );
  });

  const refusals: { name: string; value: object; pointer: string; reason: RegExp }[] = [
    {
      name: "a $schema of another dialect",
      value: { $schema: D },
      pointer: "/$schema",
      reason: /expected the draft-07/,
    },
    {
      name: "definitions not an object",
      value: { definitions: [] },
      pointer: "/definitions",
      reason: /must be an object/,
    },
    {
      name: "an unknown top-level keyword",
      value: { type: "object" },
      pointer: "/type",
      reason: /top-level keyword/,
    },
    {
      name: "an unsupported keyword in a definition",
      value: { definitions: { A: { contains: {} } } },
      pointer: "/definitions/A/contains",
      reason: /unsupported keyword `contains`/,
    },
  ];
  it.each(refusals)("refuses $name, naming file and pointer", ({ value, pointer, reason }) => {
    let error: unknown;
    try {
      parseSchemaDocument(value, "contract.json", "draft-07");
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(SchemaLoadError);
    expect((error as SchemaLoadError).pointer).toBe(pointer);
    expect((error as SchemaLoadError).message).toMatch(reason);
    expect((error as SchemaLoadError).message.startsWith(`contract.json#${pointer}: `)).toBe(true);
  });
});
