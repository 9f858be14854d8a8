/**
 * Text from a server, a lock or a contract reaches generated source and the terminal only through these
 * functions, one per context, so that no string can end a comment, a string literal or a line, redefine a
 * prototype, or move the cursor. Identifiers are the other context: `mangle.ts` derives them.
 */

import { isPrototypeName } from "../util/records.js";
import { isIdentifier } from "./naming.js";

/**
 * What is never shown raw: C0 controls and DEL, C1 controls, the line and paragraph separators (line
 * terminators in JavaScript), bidirectional formatting (which can make code read other than it runs),
 * zero-width and byte-order marks, and lone surrogates (not text: a UTF-8 writer would replace them).
 */
const INVISIBLE =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point.
  /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

const SHORT: Record<string, string> = { "\n": "\\n", "\r": "\\r", "\t": "\\t" };

const escapeChar = (c: string): string => SHORT[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`;

/**
 * `text` with every invisible or line-breaking character written as a JSON-style escape (`\n`, `\u001b`,
 * `\u202e`): one line that shows what it holds. `lines: true` keeps line feeds (and tabs), for messages
 * of several lines; a carriage return, which would overwrite a line, is still escaped.
 */
export function visible(text: string, options: { lines?: boolean } = {}): string {
  return text.replace(INVISIBLE, (c) => (options.lines && (c === "\n" || c === "\t") ? c : escapeChar(c)));
}

/** Text inside a `//` line comment or on one line of a `/* … *\/` block: one line that cannot close it. */
export const commentText = (text: string): string => visible(text).replaceAll("*/", "*\\/");

/** The body of a JSDoc block: lines kept (any line terminator starts one), each as `commentText`. */
export const docText = (text: string): string =>
  text
    .split(/\r\n|[\n\r\u2028\u2029]/)
    .map(commentText)
    .join("\n");

/** A JSDoc block of `text` at `indent` (`""` when there is no text), its body as `docText`. */
export function docComment(text: unknown, indent = ""): string {
  if (typeof text !== "string" || text.trim() === "") return "";
  return `${indent}/** ${docText(text.trim()).replaceAll("\n", `\n${indent} * `)} */\n`;
}

/**
 * TypeScript another library printed (json-schema-to-typescript's types.ts), whose string literals and
 * comments may hold what `visible` escapes: outside them there is none (names are ASCII, layout is
 * spaces and line feeds), and inside them the escape means the same character.
 */
export const printedSource = (code: string): string => visible(code, { lines: true });

/** A JavaScript (and TypeScript) string literal of `value`, in `quote`s, with what is invisible escaped. */
export function stringLiteral(value: string, quote: '"' | "'" = '"'): string {
  const double = JSON.stringify(value).replace(INVISIBLE, escapeChar);
  if (quote === '"') return double;
  // JSON's escapes are JavaScript's; only which quote needs one changes.
  const body = double.slice(1, -1).replace(/\\.|'/g, (m) => (m === "'" ? "\\'" : m === '\\"' ? '"' : m));
  return `'${body}'`;
}

/** A union type of `names` as string literal types (each through `stringLiteral`); `never` for none. */
export const literalUnion = (names: readonly string[]): string =>
  names.length === 0 ? "never" : names.map((name) => stringLiteral(name)).join(" | ");

/**
 * A JavaScript expression whose value is the JSON value `value`, own keys exactly: a key `__proto__` is
 * written computed (`["__proto__"]`), since a literal `"__proto__":` sets the prototype instead.
 */
export function dataLiteral(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(dataLiteral).join(",")}]`;
  if (value !== null && typeof value === "object")
    return `{${Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `${k === "__proto__" ? objectKey(k) : stringLiteral(k)}:${dataLiteral(v)}`)
      .join(",")}}`;
  if (typeof value === "string") return stringLiteral(value);
  const json = JSON.stringify(value);
  if (json === undefined) throw new Error(`not JSON: ${String(value)}`);
  return json;
}

/** A key in an object literal: bare when an identifier, quoted, or computed for `__proto__`. */
export function objectKey(name: string): string {
  if (name === "__proto__") return `[${stringLiteral(name)}]`;
  return isIdentifier(name) ? name : stringLiteral(name);
}

/**
 * An entry `key: value` of an object literal typed `Record<string, type>`. TypeScript types the value of
 * a key named like an Object.prototype member (`constructor`) by that member, not by the index
 * signature, so such an entry states its type itself.
 */
export const tableEntry = (key: string, value: string, type: string): string =>
  `${objectKey(key)}: ${isPrototypeName(key) ? `${value} satisfies ${type}` : value}`;

/** A member name in a type literal or interface (where `__proto__` is an ordinary name). */
export const memberKey = (name: string): string => (isIdentifier(name) ? name : stringLiteral(name));

/** Reading the member `name` of the expression `target`: `x.a`, `x["a-b"]`. */
export const memberAccess = (target: string, name: string): string =>
  isIdentifier(name) && name !== "__proto__" ? `${target}.${name}` : `${target}[${stringLiteral(name)}]`;
