/**
 * emit/validators.ts on a fixture schema with the constructs the official schemas use rarely or not at all
 * (patternProperties, oneOf, allOf, object const and enum members, type lists, code-point lengths, closed
 * objects, properties named like Object.prototype members): every instance judged as ajv judges it, and
 * failures name the path of the failing value.
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { emitValidators } from "../../generator/emit/validators.js";
import { parseSchema } from "../../generator/protocol/load.js";
import type { ProtocolModel } from "../../generator/protocol/model.js";
import { createOracle } from "../support/oracle.js";
import { REPO } from "./paths.js";

const TMP = `${REPO}test/.tmp/validators-fixture`;

const SCHEMA = {
  $schema: "http://json-schema.org/draft-07/schema#",
  definitions: {
    Tree: {
      type: "object",
      properties: {
        label: { type: "string", minLength: 2, maxLength: 3 },
        children: { type: "array", items: { $ref: "#/definitions/Tree" } },
      },
      required: ["label"],
      additionalProperties: false,
    },
    Headers: {
      type: "object",
      properties: { fixed: { type: "integer", exclusiveMinimum: 0, maximum: 10 } },
      patternProperties: { "^x-": { type: "string" }, "^n-": { type: "number" } },
      additionalProperties: { type: "boolean" },
    },
    Closed: {
      type: "object",
      properties: { constructor: { type: "string" }, toString: { type: "number" }, id: { type: "integer" } },
      required: ["id"],
      additionalProperties: false,
    },
    // `required` alone does not declare a property: with additionalProperties false nothing is valid.
    Unsatisfiable: { type: "object", required: ["id"], additionalProperties: false },
    Exactly: { oneOf: [{ type: "string" }, { type: "string", minLength: 3 }, { type: "number" }] },
    Both: {
      allOf: [
        { type: "object", required: ["a"] },
        { type: "object", required: ["b"] },
      ],
    },
    Point: { const: { x: 1, y: [2, 3] } },
    Choice: { enum: ["a", 1, null, { k: "v" }, [1]] },
    Nullable: { type: ["string", "null", "integer"], maxLength: 1, minimum: 5 },
    Numbers: { type: ["integer", "number"], maximum: 1.5 },
    Nothing: { type: "string", enum: [1, 2] },
    Uri: { type: "string", format: "uri", pattern: "^h" },
  },
};

type Check = (value: unknown) => { path: (string | number)[]; message: string } | undefined;
let checks: Record<string, Check>;

beforeAll(async () => {
  const parsed = parseSchema(JSON.stringify(SCHEMA), "fixture.json");
  const model = {
    definitions: Object.entries(parsed.definitions).map(([name, schema]) => ({ name, schema, refs: [] })),
    methods: [],
  } as unknown as ProtocolModel;
  rmSync(TMP, { recursive: true, force: true });
  mkdirSync(TMP, { recursive: true });
  writeFileSync(`${TMP}/validators.ts`, emitValidators(model)["validators.ts"]!);
  checks = (await import(`${TMP}/validators.ts`)) as Record<string, Check>;
});
afterAll(() => rmSync(TMP, { recursive: true, force: true }));

const INSTANCES: Record<string, unknown[]> = {
  Tree: [
    { label: "ab" },
    { label: "a" },
    { label: "abcd" },
    { label: "😀😀" },
    { label: "😀😀😀😀" },
    { label: "ab", children: [{ label: "cd" }, { label: "ef", children: [] }] },
    { label: "ab", children: [{ label: "cd", extra: 1 }] },
    { label: "ab", children: {} },
    { children: [] },
    [],
    null,
  ],
  Headers: [
    {},
    { fixed: 1, "x-a": "s", "n-b": 2.5, other: true },
    { fixed: 0 },
    { fixed: 10 },
    { fixed: 11 },
    { fixed: 1.5 },
    { "x-a": 1 },
    { "n-b": "1" },
    { other: "no" },
    { fixed: 3, "x-fixed": "both apply" },
  ],
  Closed: [
    { id: 1 },
    { id: 1, constructor: "c" },
    { id: 1, constructor: 5 },
    { id: 1, toString: 1 },
    {},
    { id: 1, z: 0 },
  ],
  Unsatisfiable: [{ id: 1 }, {}],
  Exactly: ["ab", "abc", 5, true, null],
  Both: [{ a: 1, b: 2 }, { a: 1 }, { b: 1 }, 3],
  Point: [{ x: 1, y: [2, 3] }, { y: [2, 3], x: 1.0 }, { x: 1, y: [3, 2] }, { x: 1 }, "p"],
  Choice: ["a", 1, null, { k: "v" }, [1], "b", { k: "w" }, [1, 2], 1.5],
  Nullable: [null, "", "a", "ab", 5, 6, 4, 5.5, true],
  Numbers: [1, 1.5, 2, -3.25, "1"],
  Nothing: ["x", 1, 2],
  Uri: ["https://x", "h", "ftp://x", "http://a b", 5],
};

describe("validators.ts on a fixture schema", () => {
  it("judges every instance as ajv does", () => {
    const oracle = createOracle(SCHEMA, "draft-07");
    let judged = 0;
    const disagreements: string[] = [];
    for (const [name, values] of Object.entries(INSTANCES)) {
      const ajv = oracle(name);
      const check = checks[`check${name}`];
      expect(check, name).toBeTypeOf("function");
      for (const value of values) {
        judged++;
        const want = ajv(value);
        const got = check!(value) === undefined;
        if (got !== want) disagreements.push(`${name} ${JSON.stringify(value)}: ajv=${want} check=${got}`);
      }
    }
    expect(judged).toBeGreaterThan(70);
    expect(disagreements).toEqual([]);
  });

  it("names the failing value's path and what is wrong with it", () => {
    expect(
      checks.checkTree!({ label: "ab", children: [{ label: "cd" }, { label: "ef", children: [{}] }] }),
    ).toEqual({
      path: ["children", 1, "children", 0, "label"],
      message: "Required",
    });
    expect(checks.checkTree!({ label: "ab", children: [{ label: "cd", extra: 1 }] })).toEqual({
      path: ["children", 0, "extra"],
      message: "Unexpected property",
    });
    expect(checks.checkHeaders!({ "x-a": 1 })).toEqual({ path: ["x-a"], message: "Expected string" });
    expect(checks.checkHeaders!({ fixed: 0 })).toEqual({ path: ["fixed"], message: "Expected more than 0" });
    expect(checks.checkExactly!("abc")).toEqual({
      path: [],
      message: "Expected exactly one schema to match, 2 did",
    });
    expect(checks.checkNullable!(true)).toEqual({ path: [], message: "Expected string or null or integer" });
    expect(checks.checkUri!("http://a b")).toEqual({ path: [], message: "Invalid uri" });
    expect(checks.checkClosed!({ id: 1, constructor: 5 })).toEqual({
      path: ["constructor"],
      message: "Expected string",
    });
  });

  it("reads a property named like an Object.prototype member only when the object has it", () => {
    // `{}.constructor` is Object itself; a check that read it blindly would refuse every object.
    expect(checks.checkClosed!({ id: 1 })).toBeUndefined();
    expect(checks.checkClosed!({})).toEqual({ path: ["id"], message: "Required" });
  });
});
