/**
 * JSON Schema semantics both validators share (the plain checks and the zod schemas), so they judge
 * alike: the `format`s they assert, lengths in code points, JSON equality. Nothing here allocates on the
 * common path but `uniqueItems` over more than a few items, which hashes them to stay linear.
 */

import { ValueIndex } from "./value-index.js";

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

/** ASCII digits `s[start, start + n)` as a number, or -1 when any is not a digit. Allocates nothing. */
function digits(s: string, start: number, n: number): number {
  if (start + n > s.length) return -1;
  let out = 0;
  for (let i = start; i < start + n; i++) {
    const c = s.charCodeAt(i) - 48;
    if (c < 0 || c > 9) return -1;
    out = out * 10 + c;
  }
  return out;
}

const isLeapYear = (y: number) => y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
const DAYS_IN_MONTH = [0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31] as const;

/** RFC 3339 `full-date` at `start`, exactly 10 characters: YYYY-MM-DD naming a day that exists. */
function fullDate(s: string, start: number): boolean {
  if (s.charCodeAt(start + 4) !== 45 || s.charCodeAt(start + 7) !== 45) return false;
  const y = digits(s, start, 4);
  const m = digits(s, start + 5, 2);
  const d = digits(s, start + 8, 2);
  if (y < 0 || m < 1 || m > 12 || d < 1) return false;
  return d <= (m === 2 && isLeapYear(y) ? 29 : DAYS_IN_MONTH[m]!);
}

/**
 * RFC 3339 `full-time` from `start` to the end: HH:MM:SS, an optional fraction, then `Z` or ±HH:MM (the
 * offset is required). Second 60 is a leap second, valid only where the time is 23:59 in UTC.
 */
function fullTime(s: string, start: number): boolean {
  if (s.charCodeAt(start + 2) !== 58 || s.charCodeAt(start + 5) !== 58) return false;
  const h = digits(s, start, 2);
  const m = digits(s, start + 3, 2);
  const sec = digits(s, start + 6, 2);
  if (h < 0 || h > 23 || m < 0 || m > 59 || sec < 0 || sec > 60) return false;
  let i = start + 8;
  if (s.charCodeAt(i) === 46) {
    const first = ++i;
    while (digits(s, i, 1) >= 0) i++;
    if (i === first) return false;
  }
  let offset = 0;
  const c = s.charCodeAt(i);
  if ((c === 90 || c === 122) && i + 1 === s.length) offset = 0;
  else if ((c === 43 || c === 45) && i + 6 === s.length && s.charCodeAt(i + 3) === 58) {
    const oh = digits(s, i + 1, 2);
    const om = digits(s, i + 4, 2);
    if (oh < 0 || oh > 23 || om < 0 || om > 59) return false;
    offset = (c === 43 ? 1 : -1) * (oh * 60 + om);
  } else return false;
  if (sec < 60) return true;
  return (((h * 60 + m - offset) % 1440) + 1440) % 1440 === 23 * 60 + 59;
}

/** RFC 3986 `dec-octet` ×4: 0-255 without leading zeros, from `start` to the end. */
function ipv4At(s: string, start: number): boolean {
  let i = start;
  for (let part = 0; part < 4; part++) {
    if (part > 0 && s.charCodeAt(i++) !== 46) return false;
    const from = i;
    while (i - from < 3 && digits(s, i, 1) >= 0) i++;
    const n = i - from;
    if (n === 0 || (n > 1 && s.charCodeAt(from) === 48) || digits(s, from, n) > 255) return false;
  }
  return i === s.length;
}

const isHex = (c: number) => (c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);

/** RFC 4291 §2.2 text form: eight 16-bit groups, one `::` standing for one or more, an IPv4 tail. */
function ipv6(s: string): boolean {
  let groups = 0;
  let compressed = false;
  let i = 0;
  if (s.startsWith("::")) {
    compressed = true;
    i = 2;
    if (i === s.length) return true;
  }
  while (i < s.length) {
    const from = i;
    while (i - from < 4 && isHex(s.charCodeAt(i))) i++;
    if (s.charCodeAt(i) === 46) {
      if (!ipv4At(s, from)) return false;
      groups += 2;
      break;
    }
    if (i === from) return false;
    groups++;
    if (i === s.length) break;
    if (s.charCodeAt(i++) !== 58 || i === s.length) return false;
    if (s.charCodeAt(i) === 58) {
      if (compressed) return false;
      compressed = true;
      if (++i === s.length) break;
    }
  }
  return compressed ? groups <= 7 : groups === 8;
}

/** RFC 1123 host name: dot-separated labels of 1-63 letters, digits and inner hyphens, 253 at most. */
function hostname(s: string): boolean {
  const end = s.endsWith(".") ? s.length - 1 : s.length;
  if (end === 0 || end > 253) return false;
  let label = 0;
  for (let i = 0; i < end; i++) {
    const c = s.charCodeAt(i);
    if (c === 46) {
      if (label === 0 || s.charCodeAt(i - 1) === 45) return false;
      label = 0;
      continue;
    }
    const alnum = (c >= 48 && c <= 57) || ((c | 32) >= 97 && (c | 32) <= 122);
    if (!alnum && !(c === 45 && label > 0)) return false;
    if (++label > 63) return false;
  }
  return label > 0 && s.charCodeAt(end - 1) !== 45;
}

/**
 * RFC 5321 mailbox as JSON Schema validators commonly read it (ajv-formats among them): an RFC 5322
 * dot-atom, `@`, and a domain of two or more letter-digit-hyphen labels. Quoted local parts and address
 * literals (`[127.0.0.1]`) are refused.
 */
const EMAIL =
  /^[a-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*@(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/i;

/** RFC 4122 string form: 8-4-4-4-12 hexadecimal digits, any version (not the `urn:uuid:` URN). */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * RFC 3339 appendix A duration: `P` then weeks alone, or years, months, days in that order with an
 * optional `T` part of hours, minutes, seconds in that order; at least one component, all integers.
 * As ISO 8601 (and ajv-formats) do, a component may be skipped (`P1Y1D`).
 */
const DURATION = /^P(?:\d+W|(?=\d|T\d)(?:\d+Y)?(?:\d+M)?(?:\d+D)?(?:T(?=\d)(?:\d+H)?(?:\d+M)?(?:\d+S)?)?)$/;

/** RFC 3986 character classes (`pchar` without `:` and `@`, which each component adds as it allows). */
const UNRESERVED_SUB = "a-z0-9\\-._~!$&'()*+,;=";
const PCT = "%[0-9a-f]{2}";
const PCHAR = `(?:[${UNRESERVED_SUB}:@]|${PCT})`;
const SCHEME = /^[a-z][a-z0-9+.-]*$/i;
const USERINFO = new RegExp(`^(?:[${UNRESERVED_SUB}:]|${PCT})*$`, "i");
const REG_NAME = new RegExp(`^(?:[${UNRESERVED_SUB}]|${PCT})*$`, "i");
const IPVFUTURE = new RegExp(`^v[0-9a-f]+\\.[${UNRESERVED_SUB}:]+$`, "i");
const PORT = /^[0-9]*$/;
const PATH = new RegExp(`^(?:${PCHAR}|/)*$`, "i");
const QUERY = new RegExp(`^(?:${PCHAR}|[/?])*$`, "i");
/** RFC 3986 appendix B: splits any string into scheme, authority, path, query and fragment. */
const COMPONENTS = /^(?:([^:/?#]+):)?(?:\/\/([^/?#]*))?([^?#]*)(?:\?([^#]*))?(?:#(.*))?$/s;

/** RFC 3986 `URI-reference`: a URI or a relative reference, each component from its own characters. */
function uriReference(s: string): boolean {
  const m = COMPONENTS.exec(s);
  if (m === null) return false;
  const [, scheme, authority, path, query, fragment] = m;
  // Without a scheme, a first segment holding ":" would have been read as one (`path-noscheme`).
  if (scheme !== undefined && !SCHEME.test(scheme)) return false;
  if (authority !== undefined && !validAuthority(authority)) return false;
  return (
    PATH.test(path!) &&
    (query === undefined || QUERY.test(query)) &&
    (fragment === undefined || QUERY.test(fragment))
  );
}

function validAuthority(authority: string): boolean {
  const at = authority.lastIndexOf("@");
  if (at >= 0 && !USERINFO.test(authority.slice(0, at))) return false;
  let host = authority.slice(at + 1);
  if (host.startsWith("[")) {
    const close = host.indexOf("]");
    if (close < 0) return false;
    const literal = host.slice(1, close);
    if (!ipv6(literal) && !IPVFUTURE.test(literal)) return false;
    host = host.slice(close + 1);
    return host === "" || (host.startsWith(":") && PORT.test(host.slice(1)));
  }
  const colon = host.lastIndexOf(":");
  if (colon >= 0) {
    if (!PORT.test(host.slice(colon + 1))) return false;
    host = host.slice(0, colon);
  }
  return REG_NAME.test(host);
}

/**
 * The JSON Schema `format`s both validators assert, as string tests. Dates and times follow RFC 3339's
 * grammar exactly (`T` between date and time, a colon in the offset), which ajv-formats relaxes.
 */
export const formats = {
  uri: (s: string) => URI.test(s),
  "uri-reference": uriReference,
  "uri-template": (s: string) => URI_TEMPLATE.test(s),
  byte: (s: string) => BASE64.test(s),
  email: (s: string) => EMAIL.test(s),
  uuid: (s: string) => UUID.test(s),
  "date-time": (s: string) =>
    s.length >= 20 && (s.charCodeAt(10) | 32) === 116 && fullDate(s, 0) && fullTime(s, 11),
  date: (s: string) => s.length === 10 && fullDate(s, 0),
  time: (s: string) => fullTime(s, 0),
  duration: (s: string) => DURATION.test(s),
  ipv4: (s: string) => ipv4At(s, 0),
  ipv6,
  hostname,
} as const;

export type Format = keyof typeof formats;

/** JSON Schema counts string length in code points; JavaScript's `length` counts UTF-16 units. */
export const codePoints = (s: string): number => {
  let n = 0;
  for (const _ of s) n++;
  return n;
};

/**
 * Whether `s` has more than `n` code points, counting them only when the UTF-16 length (between one and
 * two units each) cannot decide.
 */
export const longerThan = (s: string, n: number): boolean =>
  s.length > n && (s.length > 2 * n || codePoints(s) > n);

/** Whether `s` has fewer than `n` code points, counted only when the UTF-16 length cannot decide. */
export const shorterThan = (s: string, n: number): boolean => s.length < 2 * n && codePoints(s) < n;

/** JSON equality, as `const`, `enum` and `uniqueItems` compare (1 and 1.0 equal, key order irrelevant). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false;
    return true;
  }
  // Counted with for…in rather than Object.keys, so comparing allocates nothing.
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  let n = 0;
  for (const k in ao) {
    if (!Object.hasOwn(ao, k)) continue;
    if (!Object.hasOwn(bo, k) || !jsonEqual(ao[k], bo[k])) return false;
    n++;
  }
  return n === ownKeyCount(bo);
}

/** How many own enumerable keys an object has, without allocating the key array. */
export function ownKeyCount(o: object): number {
  let n = 0;
  for (const k in o) if (Object.hasOwn(o, k)) n++;
  return n;
}

/**
 * `multipleOf` as JSON Schema means it, on the decimal numbers the JSON text wrote: 0.07 is a multiple of
 * 0.01 although `0.07 / 0.01` is 7.000000000000001 in binary floating point.
 */
export function isMultipleOf(value: number, divisor: number): boolean {
  // `%` is exact on binary values: this settles integers, and every divisor a power of two apart.
  if (value % divisor === 0) return true;
  if (Number.isInteger(divisor)) return false;
  const d = Math.max(decimals(value), decimals(divisor));
  if (d > 20) return false;
  const scale = 10 ** d;
  const a = Math.round(value * scale);
  const b = Math.round(divisor * scale);
  if (Number.isSafeInteger(a) && Number.isSafeInteger(b)) return a % b === 0;
  // Beyond 2^53 once scaled, no decimal digit is left to disagree on: the quotient decides.
  return Number.isInteger(value / divisor);
}

/**
 * Digits after the decimal point in a number's shortest decimal form (`1.25` has 2), found by scaling
 * rather than printing, so that the check allocates nothing. More than 20 counts as 21.
 */
function decimals(x: number): number {
  let scale = 1;
  for (let k = 0; k <= 20; k++, scale *= 10) if (Math.round(x * scale) / scale === x) return k;
  return 21;
}

/** Up to this many items, `uniqueItems` compares pairwise: no allocation, and quicker than hashing. */
const PAIRWISE_ITEMS = 8;

/**
 * `uniqueItems`: the first pair of JSON-equal items, as `[i, j]` (the smallest `j`, then the smallest
 * `i`), or undefined when all differ. Linear expected time: each item is looked up by a seeded
 * structural hash (`ValueIndex`), so a few hundred thousand items cost milliseconds, not minutes.
 */
export function duplicateItems(items: readonly unknown[]): [number, number] | undefined {
  if (items.length <= PAIRWISE_ITEMS) return duplicatePairwise(items);
  const index = new ValueIndex(items, jsonEqual);
  for (let j = 0; j < items.length; j++) {
    const i = index.firstOrAdd(j);
    if (i >= 0) return [i, j];
  }
  return undefined;
}

/** The first JSON-equal pair by pairwise comparison. */
function duplicatePairwise(items: readonly unknown[]): [number, number] | undefined {
  for (let j = 1; j < items.length; j++) {
    for (let i = 0; i < j; i++) if (jsonEqual(items[i], items[j])) return [i, j];
  }
  return undefined;
}
