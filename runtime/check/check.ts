/**
 * What every generated validators.ts builds on: a check is a plain function that returns `undefined` for a
 * valid value and a `Fail` (where and why) otherwise. Checks allocate nothing on success and load no
 * library, so the method tables cost nothing at startup and little per message; they use no code
 * generation at run time, so they also run where `eval` is forbidden.
 * JSON Schema semantics shared with the zod schemas (formats, lengths in code points, JSON equality) live
 * here too, so both validators judge alike.
 */

/** A failed check: the path of the failing value below the checked one, and what was wrong with it. */
export interface Fail {
  path: (string | number)[];
  message: string;
}

/** A generated validator: `undefined` when `value` is valid. */
export type Check = (value: unknown) => Fail | undefined;

export const fail = (message: string, path: (string | number)[] = []): Fail => ({ path, message });

/** `fail` found below `prefix`: the prefix goes in front of its path. */
export function at(failure: Fail, ...prefix: (string | number)[]): Fail {
  failure.path.unshift(...prefix);
  return failure;
}

export { isObject } from "../jsonrpc/messages.js";

/** The failure that got furthest into the value: the most useful one to report for a union. */
const deepest = (a: Fail | undefined, b: Fail): Fail =>
  a === undefined || b.path.length > a.path.length ? b : a;

/** `anyOf`: valid when one check passes; otherwise the failure that got furthest. */
export function anyOf(value: unknown, checks: readonly Check[]): Fail | undefined {
  let best: Fail | undefined;
  for (const check of checks) {
    const f = check(value);
    if (f === undefined) return undefined;
    best = deepest(best, f);
  }
  return best;
}

/** `oneOf`: valid when exactly one check passes. */
export function oneOf(value: unknown, checks: readonly Check[]): Fail | undefined {
  let best: Fail | undefined;
  let passed = 0;
  for (const check of checks) {
    const f = check(value);
    if (f === undefined) passed++;
    else best = deepest(best, f);
  }
  if (passed === 1) return undefined;
  return passed > 1 ? fail(`Expected exactly one schema to match, ${passed} did`) : best;
}

/** `enum` or `const` with object or array members, compared as JSON. */
export const inJson = (value: unknown, members: readonly unknown[]): boolean =>
  members.some((m) => jsonEqual(value, m));

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

/** The JSON Schema `format`s the official schemas use, as string tests. */
export const formats = {
  uri: (s: string) => URI.test(s),
  byte: (s: string) => BASE64.test(s),
  "uri-template": (s: string) => URI_TEMPLATE.test(s),
} as const;

export type Format = keyof typeof formats;

/** JSON Schema counts string length in code points; JavaScript's `length` counts UTF-16 units. */
export const codePoints = (s: string): number => {
  let n = 0;
  for (const _ of s) n++;
  return n;
};

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
