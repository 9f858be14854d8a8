/**
 * The JSON Schema semantics zod does not have built in, used by every generated schemas.ts.
 * Pure (no Node APIs, no code generation at run time) so validators also run on edge runtimes and under
 * zod's jitless mode.
 */

import * as z from "zod";

/** JSON Schema `integer`: any integral number. zod's `int()` also caps at 2^53, which JSON Schema does not. */
export const integer = (): z.ZodNumber => z.number().check(z.refine(Number.isInteger, "Expected an integer"));

/** RFC 3986 URI: a scheme, a colon, then no white space (relative references are not URIs). */
const URI = /^[a-z][a-z0-9+.-]*:[^\s]*$/i;
/** RFC 4648 base64 with padding (JSON Schema `byte`). */
const BASE64 = /^(?:[a-z0-9+/]{4})*(?:[a-z0-9+/]{2}==|[a-z0-9+/]{3}=)?$/i;
/** RFC 6570 URI Template: literals, pct-encodings and `{op? varspec,...}` expressions. */
const VARCHAR = "(?:[a-z0-9_]|%[0-9a-f]{2})";
const VARSPEC = `${VARCHAR}+(?:\\.${VARCHAR}+)*(?::[1-9][0-9]{0,3}|\\*)?`;
const URI_TEMPLATE = new RegExp(
  `^(?:[^\\x00-\\x20"'%<>\\\\^\`{|}]|%[0-9a-f]{2}|\\{[+#./;?&=,!@|]?${VARSPEC}(?:,${VARSPEC})*\\})*$`,
  "iu",
);

export const formats = {
  uri: (s: string) => URI.test(s),
  byte: (s: string) => BASE64.test(s),
  "uri-template": (s: string) => URI_TEMPLATE.test(s),
} as const;

export type Format = keyof typeof formats;

/** A string check for a JSON Schema `format`. */
export const format = (name: Format) => z.refine<string>(formats[name], `Invalid ${name}`);

/** JSON Schema counts string length in code points; JavaScript's `length` counts UTF-16 units. */
const codePoints = (s: string): number => {
  let n = 0;
  for (const _ of s) n++;
  return n;
};
export const minLength = (n: number) =>
  z.refine<string>((s) => codePoints(s) >= n, `Expected at least ${n} characters`);
export const maxLength = (n: number) =>
  z.refine<string>((s) => codePoints(s) <= n, `Expected at most ${n} characters`);

/** JSON equality, as `const` and `enum` compare (1 and 1.0 equal, key order irrelevant). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((x, i) => jsonEqual(x, b[i]));
  }
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  const bo = b as Record<string, unknown>;
  return (
    ka.length === kb.length &&
    ka.every((k) => Object.hasOwn(bo, k) && jsonEqual((a as Record<string, unknown>)[k], bo[k]))
  );
}

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
