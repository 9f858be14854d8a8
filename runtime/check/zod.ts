/**
 * The JSON Schema semantics zod does not have built in, used by every generated schemas.ts.
 * Pure (no Node APIs, no code generation at run time) so validators also run on edge runtimes and under
 * zod's jitless mode.
 */

import * as z from "zod";
import { codePoints, type Format, formats, jsonEqual } from "./formats.js";

/** JSON Schema `integer`: any integral number. zod's `int()` also caps at 2^53, which JSON Schema does not. */
export const integer = (): z.ZodNumber => z.number().check(z.refine(Number.isInteger, "Expected an integer"));

/**
 * Any object, its members kept: the specification's TypeScript `object` (schema.json's object with no
 * properties and `additionalProperties: true`), typed as types.ts types it rather than with the index
 * signature `z.looseObject({})` would infer.
 */
export const anyObject = (): z.ZodType<object> => z.looseObject({});

/** A string check for a JSON Schema `format`. */
export const format = (name: Format) => z.refine<string>(formats[name], `Invalid ${name}`);

export const minLength = (n: number) =>
  z.refine<string>((s) => codePoints(s) >= n, `Expected at least ${n} characters`);
export const maxLength = (n: number) =>
  z.refine<string>((s) => codePoints(s) <= n, `Expected at most ${n} characters`);

/** `const` with an object or array value (primitive constants use `z.literal`). */
export const constant = <T>(value: T) =>
  z.custom<T>((v) => jsonEqual(v, value), `Expected ${JSON.stringify(value)}`);

/** `oneOf`: the union's type, plus the check that exactly one branch matches. */
export function oneOf<const T extends readonly [z.ZodType, z.ZodType, ...z.ZodType[]]>(options: T) {
  return z
    .union(options)
    .check(
      z.refine(
        (v) => options.filter((o) => o.safeParse(v).success).length === 1,
        "Expected exactly one schema to match",
      ),
    );
}

/**
 * `patternProperties` (with `additionalProperties` for keys no property or pattern names), as a check on
 * an object whose declared properties are validated by its shape.
 */
export function patternProperties(
  declared: readonly string[],
  patterns: ReadonlyArray<readonly [RegExp, z.ZodType]>,
  additional: z.ZodType | false | undefined,
) {
  const known = new Set(declared);
  return z.superRefine<Record<string, unknown>>((obj, ctx) => {
    for (const [key, value] of Object.entries(obj)) {
      let matched = known.has(key);
      for (const [re, schema] of patterns) {
        if (!re.test(key)) continue;
        matched = true;
        if (!schema.safeParse(value).success) {
          ctx.addIssue({
            code: "custom",
            path: [key],
            message: `Property does not match pattern ${re.source}`,
          });
        }
      }
      if (matched || additional === undefined) continue;
      if (additional === false) ctx.addIssue({ code: "custom", path: [key], message: "Unexpected property" });
      else if (!additional.safeParse(value).success) {
        ctx.addIssue({ code: "custom", path: [key], message: "Invalid additional property" });
      }
    }
  });
}
