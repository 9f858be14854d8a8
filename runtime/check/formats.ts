/**
 * JSON Schema semantics both validators share (the plain checks and the zod schemas), so they judge
 * alike: the `format`s the official schemas use, lengths in code points, JSON equality.
 */

/** RFC 3986 URI: a scheme, a colon, then no white space (relative references are not URIs). */
const URI = /^[a-z][a-z0-9+.-]*:[^\s]*$/i;
/** RFC 4648 base64 with padding (JSON Schema `byte`). */
export const BASE64 = /^(?:[a-z0-9+/]{4})*(?:[a-z0-9+/]{2}==|[a-z0-9+/]{3}=)?$/i;
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
