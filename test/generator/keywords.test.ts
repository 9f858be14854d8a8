/**
 * The JSON Schema keywords users' tool schemas use beyond the official MCP schemas (formats, multipleOf,
 * uniqueItems, tuples, property counts and names, dependentRequired, not, if/then/else, annotations),
 * on a fixture of hand-written definitions plus the real `z.toJSONSchema` output of a set of zod schemas:
 * the plain checks and the zod schemas judge thousands of generated instances exactly as ajv 2020 with
 * ajv-formats does, and failures name the rule.
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { Ajv2020 } from "ajv/dist/2020.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as z from "zod";
import { emitTypes } from "../../generator/emit/types.js";
import { emitValidators } from "../../generator/emit/validators.js";
import { emitZod } from "../../generator/emit/zod.js";
import { parseSchemaDocument, SUPPORTED_FORMATS } from "../../generator/protocol/load.js";
import { collectRefs, type ProtocolModel } from "../../generator/protocol/model.js";
import { formats, isMultipleOf } from "../../runtime/check/formats.js";
import {
  ajvFormat,
  ajvLooser,
  ajvStricter,
  mutate,
  SAMPLES,
  URI_REFERENCE_AJV_LOOSER,
} from "../support/format-samples.js";
import { NodeInstances } from "../support/node-instances.js";
import { hashString, Rng } from "../support/prng.js";
import { typeErrors } from "../support/typecheck.js";
import { REPO } from "./paths.js";

const TMP = `${REPO}test/.tmp/keywords-fixture`;
const PER_DEFINITION = 400;

/** Definition names in PascalCase, as json-schema-to-typescript names the types it emits. */
const pascal = (s: string) => s.replace(/(?:^|[-_])([a-z])/g, (_, c: string) => c.toUpperCase());

const integer = { type: "integer" } as const;
const string = { type: "string" } as const;

const HAND_WRITTEN: Record<string, object> = {
  Money: { type: "number", multipleOf: 0.01, minimum: -5, maximum: 5 },
  Fives: { type: "integer", multipleOf: 5 },
  Unique: {
    type: "array",
    uniqueItems: true,
    maxItems: 5,
    items: {
      anyOf: [integer, { type: "object", properties: { a: integer } }, { type: "array", items: integer }],
    },
  },
  Counted: {
    type: "object",
    minProperties: 1,
    maxProperties: 3,
    propertyNames: { type: "string", pattern: "^[a-z]+$", maxLength: 4 },
    additionalProperties: integer,
  },
  NoKeys: { type: "object", propertyNames: false },
  Payment: {
    type: "object",
    properties: { card: string, billing: string, cvv: string },
    dependentRequired: { card: ["billing", "cvv"], billing: [] },
  },
  Triple: {
    type: "array",
    prefixItems: [string, { type: "integer", minimum: 0 }, { type: "boolean" }],
    minItems: 1,
  },
  Pair: { type: ["array", "null"], prefixItems: [string, { type: "number" }], items: false },
  Command: {
    type: "array",
    prefixItems: [{ const: "cmd" }],
    items: { type: "string", format: "hostname" },
    minItems: 1,
    maxItems: 4,
  },
  Empty: { type: "array", items: false },
  User: { type: "string", not: { enum: ["admin", "root"] } },
  Something: { not: { type: "null" } },
  Shape: {
    type: "object",
    properties: { kind: { enum: ["a", "b"] }, n: integer },
    required: ["kind"],
    if: { type: "object", properties: { kind: { const: "a" } } },
    // biome-ignore lint/suspicious/noThenProperty: JSON Schema's keyword, in a fixture nothing awaits
    then: { type: "object", required: ["n"] },
    else: { not: { type: "object", required: ["n"] } },
  },
  StringElseNumber: { if: string, else: { type: "number" } },
  // Object keywords without `type` under an object's applicators (the conformance suite's 2020-12 tool).
  Contact: {
    type: "object",
    properties: {
      name: string,
      contactMethod: { type: "string", enum: ["phone", "email"] },
      phone: string,
      email: string,
    },
    allOf: [{ anyOf: [{ required: ["phone"] }, { required: ["email"] }] }],
    if: { properties: { contactMethod: { const: "phone" } }, required: ["contactMethod"] },
    // biome-ignore lint/suspicious/noThenProperty: JSON Schema's keyword, in a fixture nothing awaits
    then: { required: ["phone"] },
    else: { required: ["email"] },
    additionalProperties: false,
  },
  Unnamed: { type: "object", properties: { name: string, n: integer }, not: { required: ["name"] } },
  Annotated: {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    $id: "urn:example:annotated",
    $anchor: "annotated",
    type: "object",
    readOnly: true,
    properties: {
      image: { type: "string", contentEncoding: "base64", contentMediaType: "image/png", writeOnly: true },
    },
  },
  Refs: {
    type: "object",
    properties: { when: { $ref: "#/$defs/FormatDateTime" }, fives: { $ref: "#/$defs/Fives" } },
    propertyNames: { not: { const: "forbidden" } },
  },
  ...Object.fromEntries(
    [...SUPPORTED_FORMATS].map((format) => [`Format${pascal(format)}`, { type: "string", format }]),
  ),
};

/** What users get from zod 4: `z.toJSONSchema` output, `$schema` at each root included. */
const ZOD: Record<string, z.ZodType> = {
  email: z.email(),
  uuid: z.uuid(),
  guid: z.guid(),
  datetime: z.iso.datetime(),
  date: z.iso.date(),
  time: z.iso.time(),
  duration: z.iso.duration(),
  ipv4: z.ipv4(),
  ipv6: z.ipv6(),
  url: z.url(),
  hostname: z.hostname(),
  int: z.int(),
  multipleOf: z.number().multipleOf(5),
  tuple: z.tuple([z.string(), z.number()]),
  tupleRest: z.tuple([z.string()], z.boolean()),
  record: z.record(z.string(), z.number()),
  recordEnum: z.record(z.enum(["a", "b"]), z.number()),
  nullable: z.string().nullable(),
  withDefault: z.object({ d: z.string().default("x") }),
  enum: z.enum(["a", "b"]),
  literal: z.literal(3),
  nonempty: z.array(z.string()).nonempty(),
  lengths: z.array(z.number()).min(1).max(3),
  object: z.object({ a: z.string(), b: z.number().optional() }),
  loose: z.looseObject({ a: z.string() }),
  intersection: z.intersection(z.object({ a: z.string() }), z.object({ b: z.string() })),
  discriminated: z.discriminatedUnion("k", [
    z.object({ k: z.literal("a") }),
    z.object({ k: z.literal("b"), n: z.number() }),
  ]),
  nullish: z.object({ x: z.string().nullish() }),
  exclusive: z.number().gt(1).lt(5),
  readonly: z.object({ a: z.string() }).readonly(),
  described: z
    .string()
    .min(2)
    .max(4)
    .describe("d")
    .meta({ title: "T", examples: ["xy"] }),
};

const SCHEMA = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  $defs: {
    ...HAND_WRITTEN,
    ...Object.fromEntries(
      Object.entries(ZOD).map(([name, schema]) => [`Zod${pascal(name)}`, z.toJSONSchema(schema)]),
    ),
  },
};

type Check = (value: unknown) => { path: (string | number)[]; message: string } | undefined;
type Validator = { safeParse(v: unknown): { success: boolean } };
let checks: Record<string, Check>;
let schemas: Record<string, Validator>;
let types: string;

beforeAll(async () => {
  const parsed = parseSchemaDocument(structuredClone(SCHEMA), "fixture.json", "2020-12");
  const model = {
    definitions: Object.entries(parsed.definitions).map(([name, schema]) => ({
      name,
      schema,
      refs: [...collectRefs(schema)].sort(),
    })),
    methods: [],
    schemaFixes: [],
  } as unknown as ProtocolModel;
  rmSync(TMP, { recursive: true, force: true });
  mkdirSync(TMP, { recursive: true });
  writeFileSync(`${TMP}/validators.ts`, emitValidators(model)["validators.ts"]!);
  writeFileSync(`${TMP}/schemas.ts`, emitZod(model)["schemas.ts"]!);
  types = (await emitTypes(model))["types.ts"]!;
  writeFileSync(`${TMP}/types.ts`, types);
  checks = (await import(`${TMP}/validators.ts`)) as Record<string, Check>;
  schemas = (await import(`${TMP}/schemas.ts`)) as Record<string, Validator>;
});
afterAll(() => rmSync(TMP, { recursive: true, force: true }));

/**
 * ajv 2020 with ajv-formats ("full" mode for the formats the official schemas do not use). Decimal
 * `multipleOf` needs `multipleOfPrecision`: ajv alone divides in binary floating point and so refuses
 * 0.07 as a multiple of 0.01, which JSON Schema (and zod) accept.
 */
function oracle(): (name: string) => (v: unknown) => boolean {
  const ajv = new Ajv2020({ strict: false, ownProperties: true, multipleOfPrecision: 9 });
  for (const format of SUPPORTED_FORMATS) ajv.addFormat(format, ajvFormat(format));
  ajv.addSchema(structuredClone(SCHEMA), "fixture");
  return (name) => {
    const validate = ajv.getSchema(`fixture#/$defs/${name}`);
    if (!validate) throw new Error(`ajv found no definition ${name}`);
    return (v) => validate(v) === true;
  };
}

describe("user schema keywords: checks ≡ zod ≡ ajv", () => {
  it("judges every generated instance of every definition as ajv does", () => {
    const ajvFor = oracle();
    const parsed = parseSchemaDocument(structuredClone(SCHEMA), "fixture.json", "2020-12");
    const disagreements: string[] = [];
    const tally: Record<string, [number, number]> = {};
    for (const name of Object.keys(parsed.definitions)) {
      const ajv = ajvFor(name);
      const check = checks[`check${name}`];
      const schema = schemas[`${name}Schema`];
      expect(check, name).toBeTypeOf("function");
      expect(schema, name).toBeDefined();
      const gen = new NodeInstances(parsed.definitions, new Rng(hashString(name)));
      const counts: [number, number] = [0, 0];
      for (let i = 0; i < PER_DEFINITION; i++) {
        const value = gen.value(parsed.definitions[name]!);
        const want = ajv(value);
        counts[want ? 0 : 1]++;
        const checked = check!(value) === undefined;
        const zod = schema!.safeParse(value).success;
        // A definition that is one format: where ajv-formats is looser than the RFC (see format-samples.ts).
        const format = parsed.definitions[name]!.format;
        const excused = format && typeof value === "string" && want && ajvLooser(format, value);
        if (excused && !checked && !zod) continue;
        if (checked !== want || zod !== want) {
          disagreements.push(`${name} ajv=${want} check=${checked} zod=${zod}: ${JSON.stringify(value)}`);
        }
      }
      tally[name] = counts;
    }
    expect(disagreements.slice(0, 20)).toEqual([]);
    // Every definition that can refuse anything saw both verdicts, each often enough to mean something.
    const lopsided = Object.entries(tally).filter(([, [valid, invalid]]) => valid < 10 || invalid < 10);
    expect(lopsided).toEqual([]);
  });

  it("names the rule that failed, and where", () => {
    expect(checks.checkFives!(7)).toEqual({ path: [], message: "Expected a multiple of 5" });
    expect(checks.checkMoney!(0.07)).toBeUndefined();
    // Decimal, as written: 0.6799999999999999 is no multiple of 0.01 (ajv's multipleOfPrecision says it is).
    expect(checks.checkMoney!(0.6799999999999999)).toEqual({
      path: [],
      message: "Expected a multiple of 0.01",
    });
    expect(schemas.MoneySchema!.safeParse(0.6799999999999999).success).toBe(false);
    expect(checks.checkMoney!(0.075)).toEqual({ path: [], message: "Expected a multiple of 0.01" });
    expect(checks.checkUnique!([1, { a: 1 }, 2, { a: 1.0 }])).toEqual({
      path: [],
      message: "Expected unique items (items 1 and 3 are equal)",
    });
    expect(checks.checkCounted!({ a: 1, b: 2, c: 3, d: 4 })).toEqual({
      path: [],
      message: "Expected at most 3 properties",
    });
    expect(checks.checkCounted!({})).toEqual({ path: [], message: "Expected at least 1 property" });
    expect(checks.checkCounted!({ Ab: 1 })).toEqual({
      path: ["Ab"],
      message: 'Invalid property name "Ab": Expected to match ^[a-z]+$',
    });
    expect(checks.checkRefs!({ forbidden: 1 })).toEqual({
      path: ["forbidden"],
      message: 'Invalid property name "forbidden": Expected not to match the `not` schema',
    });
    expect(checks.checkPayment!({ card: "4111", billing: "x" })).toEqual({
      path: ["cvv"],
      message: 'Required (because "card" is present)',
    });
    expect(checks.checkTriple!(["a", -1])).toEqual({ path: [1], message: "Expected at least 0" });
    expect(checks.checkPair!(["a", 1, 2])).toEqual({ path: [], message: "Expected at most 2 items" });
    expect(checks.checkCommand!(["cmd", "a..b"])).toEqual({ path: [1], message: "Invalid hostname" });
    expect(checks.checkUser!("root")).toEqual({
      path: [],
      message: "Expected not to match the `not` schema",
    });
    expect(checks.checkShape!({ kind: "a" })).toEqual({ path: ["n"], message: "Required" });
    expect(checks.checkShape!({ kind: "b", n: 1 })).toEqual({
      path: [],
      message: "Expected not to match the `not` schema",
    });
    expect(checks.checkFormatEmail!("a@b")).toEqual({ path: [], message: "Invalid email" });
    expect(checks.checkRefs!({ when: "2020-01-01" })).toEqual({
      path: ["when"],
      message: "Invalid date-time",
    });
  });

  it("names every failure at once, the checks in check order and zod at each place", () => {
    const counted = { Ab: "x", toolong: 1, c: 2, d: 3 };
    expect(checks.checkCounted!(counted)).toEqual({
      path: ["Ab"],
      message: "Expected integer",
      more: [
        { path: [], message: "Expected at most 3 properties" },
        { path: ["Ab"], message: 'Invalid property name "Ab": Expected to match ^[a-z]+$' },
        { path: ["toolong"], message: 'Invalid property name "toolong": Expected at most 4 characters' },
      ],
    });
    expect(checks.checkPayment!({ card: 1 })).toEqual({
      path: ["card"],
      message: "Expected string",
      more: [
        { path: ["billing"], message: 'Required (because "card" is present)' },
        { path: ["cvv"], message: 'Required (because "card" is present)' },
      ],
    });
    const issues = (name: string, value: unknown) =>
      (schemas[`${name}Schema`] as unknown as z.ZodType)
        .safeParse(value)
        .error?.issues.map((i) => [i.path.join("."), i.message]);
    // zod checks a whole object even when a property failed, and passes on a subschema's issues.
    expect(issues("Counted", counted)).toEqual([
      ["Ab", "Invalid input: expected number, received string"],
      ["", "Expected at most 3 properties"],
      ["Ab", 'Invalid property name "Ab": Expected to match ^[a-z]+$'],
      ["toolong", 'Invalid property name "toolong": Expected at most 4 characters'],
      // zod's pattern() bounds itself by maxLength and says so, beside maxLength's own issue.
      [
        "toolong",
        'Invalid property name "toolong": Expected at most 4 characters (the most a pattern is checked on)',
      ],
    ]);
    expect(issues("Payment", { card: 1 })).toEqual([
      ["card", "Invalid input: expected string, received number"],
      ["billing", 'Required (because "card" is present)'],
      ["cvv", 'Required (because "card" is present)'],
    ]);
    expect(issues("Contact", { phone: 1, extra: true })).toEqual([
      ["phone", "Invalid input: expected string, received number"],
      ["extra", "Unexpected property"],
      ["email", "Invalid input: expected nonoptional, received undefined"],
    ]);
  });

  it("emits TypeScript that compiles under --strict", () => {
    expect(typeErrors(TMP, ["./*.ts"], { strict: true, skipLibCheck: true })).toEqual([]);
  }, 60_000);

  it("gives a closed object (additionalProperties: false) no index signature", () => {
    const body = types.match(/export type Contact = \{[^}]*\};/)?.[0];
    expect(body).toContain('contactMethod?: "phone" | "email";');
    expect(body).not.toContain("[k: string]");
    // Without contactMethod the `if` fails, so `else` requires email too.
    expect(checks.checkContact!({ phone: "1", extra: true })).toEqual({
      path: ["extra"],
      message: "Unexpected property",
      more: [{ path: ["email"], message: "Required" }],
    });
    expect(schemas.ContactSchema!.safeParse({ phone: "1", extra: true }).success).toBe(false);
  });

  it("types tuples as TypeScript tuples, one per length they allow", () => {
    const line = (name: string) =>
      types.match(new RegExp(`export type ${name} =[^;]*;`))?.[0].replace(/\s+/g, " ");
    expect(line("ZodTuple")).toBe("export type ZodTuple = [string, number];");
    expect(line("ZodTupleRest")).toBe("export type ZodTupleRest = [string, ...(boolean)[]];");
    expect(line("Triple")).toBe(
      "export type Triple = [string] | [string, number] | [string, number, boolean, ...(unknown)[]];",
    );
    expect(line("Pair")).toBe("export type Pair = null | [] | [string] | [string, number];");
    expect(line("Command")).toBe('export type Command = ["cmd", ...(string)[]];');
    expect(line("Empty")).toBe("export type Empty = never[];");
  });
});

describe("multipleOf on the decimal numbers JSON writes", () => {
  it.each([
    [0.07, 0.01, true],
    [0.075, 0.01, false],
    [0.0075, 0.0001, true],
    [0.6799999999999999, 0.01, false],
    [-0.3, 0.1, true],
    [1.5e-7, 5e-8, true],
    [1.7e-7, 5e-8, false],
    [123456789.12, 0.01, true],
    [1e308, 0.5, true],
    [1e21, 3, false],
    [1e21, 5, true],
    [7, 5, false],
  ])("%d is a multiple of %d: %s", (value, divisor, want) => {
    expect(isMultipleOf(value, divisor)).toBe(want);
  });
});

describe("formats: runtime/check/formats.ts ≡ ajv-formats", () => {
  it("agrees on the samples and thousands of mutations of them, except where ajv-formats is looser than the RFC", () => {
    const rng = new Rng(0xf0f0);
    const disagreements: string[] = [];
    let judged = 0;
    for (const [format, samples] of Object.entries(SAMPLES)) {
      const ajv = ajvFormat(format);
      const ours = formats[format as keyof typeof formats];
      const strings = [...samples];
      if (format !== "uri-reference")
        for (let i = 0; i < 1500; i++) strings.push(mutate(rng.pick(samples), rng));
      for (const s of strings) {
        judged++;
        const want = ajv(s);
        const got = ours(s);
        if (got === want) continue;
        if (want && !got && ajvLooser(format, s)) continue;
        if (!want && got && ajvStricter(format, s)) continue;
        disagreements.push(`${format} ${JSON.stringify(s)}: ajv=${want} ours=${got}`);
      }
    }
    expect(judged).toBeGreaterThan(15_000);
    expect(disagreements).toEqual([]);
  });

  it("every sample list holds valid and invalid strings", () => {
    for (const [format, samples] of Object.entries(SAMPLES)) {
      const ours = formats[format as keyof typeof formats];
      expect(samples.some(ours), format).toBe(true);
      expect(
        samples.some((s) => !ours(s)),
        format,
      ).toBe(true);
    }
    expect(Object.keys(SAMPLES).sort()).toEqual([...SUPPORTED_FORMATS].sort());
  });

  it("refuses what ajv-formats accepts against the RFC grammar", () => {
    const cases: [string, string][] = [
      ["date-time", "2020-01-01 00:00:00Z"],
      ["date-time", "2020-01-01T00:00:00+0100"],
      ["time", "12:00:00+01"],
      ["time", "24:59:60+01:00"],
      ["uuid", "urn:uuid:123e4567-e89b-12d3-a456-426614174000"],
      ...URI_REFERENCE_AJV_LOOSER.map((s): [string, string] => ["uri-reference", s]),
    ];
    for (const [format, s] of cases) {
      expect(ajvFormat(format)(s), `${format} ${s}`).toBe(true);
      expect(formats[format as keyof typeof formats](s), `${format} ${s}`).toBe(false);
    }
  });

  it("does the RFC 3339 arithmetic: leap days and leap seconds", () => {
    expect(formats.date("2000-02-29")).toBe(true);
    expect(formats.date("1900-02-29")).toBe(false);
    expect(formats["date-time"]("1998-12-31T23:59:60Z")).toBe(true);
    expect(formats["date-time"]("1998-12-31T18:59:60-05:00")).toBe(true);
    expect(formats["date-time"]("1998-12-31T23:58:60Z")).toBe(false);
    expect(formats.time("00:29:60+00:30")).toBe(true);
  });
});

// Keep the fixture honest about what zod emits: a zod upgrade that changes its output shows up here.
describe("z.toJSONSchema output in the fixture", () => {
  it("uses the keywords this file is about", () => {
    const text = JSON.stringify(SCHEMA.$defs);
    for (const keyword of [
      "prefixItems",
      "propertyNames",
      "multipleOf",
      '"items":false',
      '"$schema"',
      '"format":"email"',
    ]) {
      expect(text, keyword).toContain(keyword);
    }
  });
});
