/**
 * sampling/arbitrary.ts: for schemas covering every construct generator/protocol/load.ts accepts, each of 1000
 * samples passes the plain validator emitted for that schema (after a JSON round trip, as a server would
 * receive it); schemas nothing satisfies are refused with the place, not sampled.
 */
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { type CheckFn, compileChecks } from "../../../generator/contract/checks.js";
import { parseSchema, type SchemaNode } from "../../../generator/protocol/load.js";
import { collectRefs } from "../../../generator/protocol/model.js";
import { arbitraryOf, SampleError } from "../../../generator/sampling/arbitrary.js";

const DEFS: Record<string, unknown> = {
  Scalars: {
    type: "object",
    properties: {
      n: { type: "null" },
      b: { type: "boolean" },
      i: { type: "integer", minimum: -3, exclusiveMaximum: 7 },
      f: { type: "number", exclusiveMinimum: 0.5, maximum: 2.25 },
      big: { type: "integer", minimum: 1e12 },
      neg: { type: "number", maximum: -1e300 },
      s: { type: "string", minLength: 2, maxLength: 3 },
      any: {},
      anything: true,
    },
    required: ["n", "b", "i", "f", "big", "neg", "s", "any"],
  },
  Strings: {
    type: "object",
    properties: {
      pattern: { type: "string", pattern: "^[A-Z]{2}-\\d{3}$" },
      unanchored: { type: "string", pattern: "ab+c", maxLength: 10 },
      unicode: { type: "string", pattern: "^\\p{Lu}\\p{Ll}+$" },
      uri: { type: "string", format: "uri" },
      byte: { type: "string", format: "byte", minLength: 4 },
      template: { type: "string", format: "uri-template" },
      short: { type: "string", maxLength: 0 },
    },
    required: ["pattern", "unanchored", "unicode", "uri", "byte", "template", "short"],
    additionalProperties: false,
  },
  Choices: {
    type: "object",
    properties: {
      c: { const: { x: [1, { y: null }] } },
      e: { enum: ["a", 1, null, { k: "v" }, [1]] },
      typedEnum: { type: "string", enum: [1, "only", 2] },
      types: { type: ["string", "null", "integer"], maxLength: 1, minimum: 5 },
      numbers: { type: ["integer", "number"], maximum: 1.5 },
    },
    required: ["c", "e", "typedEnum", "types", "numbers"],
  },
  Objects: {
    type: "object",
    properties: {
      closed: {
        type: "object",
        properties: {
          constructor: { type: "string" },
          toString: { type: "number" },
          id: { type: "integer" },
        },
        required: ["id"],
        additionalProperties: false,
      },
      headers: {
        type: "object",
        properties: { fixed: { type: "integer", exclusiveMinimum: 0, maximum: 10 } },
        patternProperties: { "^x-": { type: "string" }, "^n-": { type: "number" } },
        additionalProperties: { type: "boolean" },
      },
      map: { type: "object", additionalProperties: { type: "integer" } },
      bare: { type: "object", required: ["must"] },
    },
    required: ["closed", "headers", "map", "bare"],
  },
  Arrays: {
    type: "object",
    properties: {
      list: { type: "array", items: { type: "string" }, minItems: 1, maxItems: 3 },
      exact: { type: "array", items: { type: "boolean" }, minItems: 2, maxItems: 2 },
      empty: { type: "array", maxItems: 0 },
      loose: { type: "array" },
    },
    required: ["list", "exact", "empty", "loose"],
  },
  Unions: {
    type: "object",
    properties: {
      any: {
        anyOf: [
          { type: "string", minLength: 5 },
          { type: "integer", maximum: 0 },
        ],
      },
      one: { oneOf: [{ type: "string" }, { type: "number" }, { type: "object", required: ["k"] }] },
      shapes: {
        oneOf: [
          {
            type: "object",
            properties: { kind: { const: "circle" }, r: { type: "number" } },
            required: ["kind", "r"],
          },
          {
            type: "object",
            properties: { kind: { const: "square" }, side: { type: "number" } },
            required: ["kind", "side"],
          },
        ],
      },
      sibling: {
        type: "object",
        properties: { a: { type: "string" } },
        anyOf: [
          { type: "object", required: ["a"] },
          { type: "object", required: ["b"] },
        ],
      },
    },
    required: ["any", "one", "shapes", "sibling"],
  },
  Merged: {
    allOf: [
      { type: "object", properties: { a: { type: "integer", minimum: 0 } }, required: ["a"] },
      {
        type: "object",
        properties: { a: { type: "integer", maximum: 5 }, b: { $ref: "#/$defs/Point" } },
        required: ["b"],
      },
      { $ref: "#/$defs/Named" },
    ],
  },
  Point: {
    type: "object",
    properties: { x: { type: "number" }, y: { type: "number" } },
    required: ["x", "y"],
  },
  Named: { type: "object", properties: { name: { type: "string", minLength: 1 } }, required: ["name"] },
  /** 2020-12: a `$ref` with siblings means both. */
  RefSiblings: {
    $ref: "#/$defs/Point",
    type: "object",
    required: ["label"],
    properties: { label: { type: "string" } },
  },
  Tree: {
    type: "object",
    properties: {
      label: { type: "string", minLength: 2, maxLength: 3 },
      children: { type: "array", items: { $ref: "#/$defs/Tree" } },
    },
    required: ["label"],
    additionalProperties: false,
  },
  Json: {
    anyOf: [
      { type: ["string", "number", "boolean", "null"] },
      { type: "array", items: { $ref: "#/$defs/Json" } },
      { type: "object", additionalProperties: { $ref: "#/$defs/Json" } },
    ],
  },
  Linked: {
    type: "object",
    properties: { value: { type: "integer" }, next: { $ref: "#/$defs/Linked" } },
    required: ["value"],
  },
};

/** Nothing satisfies these: sampling them is refused with the place. */
const UNSATISFIABLE: Record<string, unknown> = {
  Never: false,
  NoKey: { type: "object", required: ["id"], additionalProperties: false },
  NoMember: { type: "string", enum: [1, 2] },
  NoInteger: { type: "integer", exclusiveMinimum: 1, exclusiveMaximum: 2 },
  Crossed: { type: "array", minItems: 3, maxItems: 1 },
  Forever: { type: "object", properties: { next: { $ref: "#/$defs/Forever" } }, required: ["next"] },
};

let definitions: Record<string, SchemaNode>;
let checks: Map<string, CheckFn>;

beforeAll(() => {
  const parsed = parseSchema(
    JSON.stringify({
      $schema: "https://json-schema.org/draft/2020-12/schema",
      $defs: { ...DEFS, ...UNSATISFIABLE },
    }),
    "arbitrary-fixture.json",
  );
  definitions = parsed.definitions;
  checks = compileChecks(
    Object.entries(definitions).map(([name, schema]) => ({ name, schema, refs: [...collectRefs(schema)] })),
  );
});

describe("arbitraryOf", () => {
  for (const name of Object.keys(DEFS)) {
    it(`samples only values ${name} accepts`, () => {
      const check = checks.get(name)!;
      fc.assert(
        fc.property(arbitraryOf(definitions[name]!, definitions), (value) => {
          const received = JSON.parse(JSON.stringify(value));
          const failure = check(received);
          if (failure) throw new Error(`${JSON.stringify(received)} fails: ${JSON.stringify(failure)}`);
        }),
        { numRuns: 1000, seed: 42 },
      );
    });
  }

  it("reaches into recursive definitions, and stops", () => {
    const depths = fc
      .sample(arbitraryOf(definitions.Tree!, definitions), { numRuns: 300, seed: 7 })
      .map(depth);
    expect(Math.max(...depths)).toBeGreaterThanOrEqual(2);
    expect(Math.max(...depths)).toBeLessThanOrEqual(6);
  });

  it("samples every branch of a union and every optional member sometimes", () => {
    const samples = fc.sample(arbitraryOf(definitions.Unions!, definitions), {
      numRuns: 300,
      seed: 3,
    }) as Record<string, unknown>[];
    expect(new Set(samples.map((s) => typeof s.any))).toEqual(new Set(["string", "number"]));
    expect(new Set(samples.map((s) => (s.shapes as { kind: string }).kind))).toEqual(
      new Set(["circle", "square"]),
    );
    const headers = fc.sample(arbitraryOf(definitions.Objects!, definitions), { numRuns: 300, seed: 3 }) as {
      headers: Record<string, unknown>;
    }[];
    expect(headers.some((s) => Object.keys(s.headers).some((k) => k.startsWith("x-")))).toBe(true);
    expect(headers.some((s) => "fixed" in s.headers)).toBe(true);
  });

  it("is deterministic for a seed", () => {
    const a = fc.sample(arbitraryOf(definitions.Scalars!, definitions), { numRuns: 20, seed: 11 });
    const b = fc.sample(arbitraryOf(definitions.Scalars!, definitions), { numRuns: 20, seed: 11 });
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
  });

  for (const name of Object.keys(UNSATISFIABLE)) {
    it(`refuses ${name}, which nothing satisfies`, () => {
      let thrown: unknown;
      try {
        fc.sample(arbitraryOf(definitions[name]!, definitions), { numRuns: 5, seed: 1 });
      } catch (e) {
        thrown = e;
      }
      expect(thrown).toBeInstanceOf(SampleError);
      expect((thrown as SampleError).message).toContain(`/$defs/${name}`);
    });
  }
});

function depth(value: unknown): number {
  if (Array.isArray(value)) return 1 + Math.max(0, ...value.map(depth));
  if (typeof value === "object" && value !== null) return Math.max(0, ...Object.values(value).map(depth));
  return 0;
}
