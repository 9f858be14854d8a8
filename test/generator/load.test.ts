import { describe, expect, it } from "vitest";
import { parseSchema, SchemaLoadError } from "../../generator/load.js";

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
      text: doc({ A: { type: "object", if: {} } }),
      pointer: "/$defs/A/if",
      reason: /unsupported keyword `if`/,
    },
    {
      name: "unsupported format",
      text: doc({ A: { type: "string", format: "email" } }),
      pointer: "/$defs/A/format",
      reason: /unsupported format "email"/,
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
