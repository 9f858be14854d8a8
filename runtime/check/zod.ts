/**
 * The JSON Schema semantics zod does not have built in, used by every generated schemas.ts.
 * Pure (no Node APIs, no code generation at run time) so validators also run on edge runtimes and under
 * zod's jitless mode.
 *
 * Every failure is reported, as the plain checks do: zod skips a refinement once an earlier part of the
 * value failed, so the checks of a whole object or array (property counts, names, dependencies, patterns,
 * unique items) say `when` they apply, and a subschema's issues (a pattern property's, `then`'s) are
 * passed on each at its own path rather than summed up in one. Unlike the plain checks, zod's issue list
 * is not bounded.
 */

import * as z from "zod";
import { isObject } from "../jsonrpc/messages.js";
import {
  duplicateItems,
  type Format,
  formats,
  isMultipleOf,
  jsonEqual,
  longerThan,
  ownKeyCount,
  shorterThan,
} from "./formats.js";

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

/** `multipleOf` on decimal values, as the plain checks judge it (zod's own uses another tolerance). */
export const multipleOf = (n: number) =>
  z.refine<number>((v) => isMultipleOf(v, n), `Expected a multiple of ${n}`);

/** A whole-object check runs on an object even when one of its properties failed. */
const onObjects = Object.freeze({ when: (payload: { value: unknown }) => isObject(payload.value) });
/** A whole-array check runs on an array even when one of its items failed. */
const onArrays = Object.freeze({ when: (payload: { value: unknown }) => Array.isArray(payload.value) });
/** A check that judges any value (`not`, `if`) runs whatever else failed. */
const always = Object.freeze({ when: () => true });

type Ctx = { addIssue(issue: { code: "custom"; path?: PropertyKey[]; message: string }): void };

/** `schema`'s issues for `value`, each added at its own path below `path`; whether there were any. */
function passOn(ctx: Ctx, schema: z.ZodType, value: unknown, path: PropertyKey[], prefix = ""): boolean {
  const result = schema.safeParse(value);
  if (result.success) return false;
  for (const issue of result.error.issues)
    ctx.addIssue({ code: "custom", path: [...path, ...issue.path], message: `${prefix}${issue.message}` });
  return true;
}

/** `uniqueItems` with JSON equality (zod has no such check). */
export const uniqueItems = () =>
  z.refine<unknown[]>((v) => duplicateItems(v) === undefined, {
    message: "Expected unique items",
    ...onArrays,
  });

export const minProperties = (n: number) =>
  z.refine<Record<string, unknown>>((o) => ownKeyCount(o) >= n, {
    message: `Expected at least ${n} properties`,
    ...onObjects,
  });
export const maxProperties = (n: number) =>
  z.refine<Record<string, unknown>>((o) => ownKeyCount(o) <= n, {
    message: `Expected at most ${n} properties`,
    ...onObjects,
  });

/** `propertyNames`: every key of the object matches `schema`. */
export const propertyNames = (schema: z.ZodType) =>
  z.superRefine<Record<string, unknown>>((obj, ctx) => {
    for (const key of Object.keys(obj))
      passOn(ctx, schema, key, [key], `Invalid property name ${JSON.stringify(key)}: `);
  }, onObjects);

/** `dependentRequired`: when a key is present, the keys it lists must be too. */
export const dependentRequired = (deps: Readonly<Record<string, readonly string[]>>) =>
  z.superRefine<Record<string, unknown>>((obj, ctx) => {
    for (const [key, needed] of Object.entries(deps)) {
      if (!Object.hasOwn(obj, key)) continue;
      for (const n of needed) {
        if (!Object.hasOwn(obj, n)) {
          ctx.addIssue({
            code: "custom",
            path: [n],
            message: `Required (because ${JSON.stringify(key)} is present)`,
          });
        }
      }
    }
  }, onObjects);

/** `not`: the value must fail `schema`. */
export const not = (schema: z.ZodType) =>
  z.refine<unknown>((v) => !schema.safeParse(v).success, {
    message: "Expected not to match the `not` schema",
    ...always,
  });

/**
 * `additionalProperties: false` beside `allOf`/`anyOf`/`oneOf`: zod's intersection lets through a key
 * that its other side accepts, JSON Schema refuses every key `properties` does not declare.
 */
export const onlyProperties = (declared: readonly string[]) => {
  const known = new Set(declared);
  return z.superRefine<unknown>((v, ctx) => {
    if (typeof v !== "object" || v === null || Array.isArray(v)) return;
    for (const key of Object.keys(v)) {
      if (!known.has(key)) ctx.addIssue({ code: "custom", path: [key], message: "Unexpected property" });
    }
  }, onObjects);
};

/** `if`/`then`/`else`: `then` must hold where `if` does, `else` where it does not (either may be absent). */
export const ifThenElse = (
  condition: z.ZodType,
  then: z.ZodType | undefined,
  otherwise: z.ZodType | undefined,
) =>
  z.superRefine<unknown>((v, ctx) => {
    const branch = condition.safeParse(v).success ? then : otherwise;
    if (branch !== undefined) passOn(ctx, branch, v, []);
  }, always);

/**
 * `pattern`, run only on a string of at most `most` characters (the schema's `maxLength`, else the
 * generator's limit): a backtracking expression never sees more than that.
 */
export const pattern = (re: RegExp, most: number) =>
  z.superRefine<string>((s, ctx) => {
    if (longerThan(s, most)) {
      ctx.addIssue({
        code: "custom",
        message: `Expected at most ${most} characters (the most a pattern is checked on)`,
      });
    } else if (!re.test(s)) ctx.addIssue({ code: "custom", message: `Expected to match ${re.source}` });
  });

export const minLength = (n: number) =>
  z.refine<string>((s) => !shorterThan(s, n), `Expected at least ${n} characters`);
export const maxLength = (n: number) =>
  z.refine<string>((s) => !longerThan(s, n), `Expected at most ${n} characters`);

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
 * an object whose declared properties are validated by its shape. A key longer than `most` characters
 * is refused before any pattern runs on it.
 */
export function patternProperties(
  declared: readonly string[],
  patterns: ReadonlyArray<readonly [RegExp, z.ZodType]>,
  additional: z.ZodType | false | undefined,
  most: number,
) {
  const known = new Set(declared);
  return z.superRefine<Record<string, unknown>>((obj, ctx) => {
    for (const [key, value] of Object.entries(obj)) {
      if (longerThan(key, most)) {
        ctx.addIssue({
          code: "custom",
          path: [key],
          message: `Expected at most ${most} characters in a property name (the most a pattern is checked on)`,
        });
        continue;
      }
      let matched = known.has(key);
      for (const [re, schema] of patterns) {
        if (!re.test(key)) continue;
        matched = true;
        passOn(ctx, schema, value, [key]);
      }
      if (matched || additional === undefined) continue;
      if (additional === false) ctx.addIssue({ code: "custom", path: [key], message: "Unexpected property" });
      else passOn(ctx, additional, value, [key]);
    }
  }, onObjects);
}
