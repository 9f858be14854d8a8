/**
 * Strings for every `format` the validators assert, valid and invalid, and the places where ajv-formats
 * ("full" mode) is looser than the RFC grammar that runtime/check/formats.ts follows. The samples are
 * chosen to exercise each grammar's edges; `mutate` makes many more from them.
 */
import addFormatsModule, { type FormatName } from "ajv-formats";
import type { Rng } from "./prng.js";

const formatsPlugin = addFormatsModule.default;

/** ajv-formats' check for a format: "full" mode for those the official schemas do not use, as ajv users get. */
export function ajvFormat(name: string): (s: string) => boolean {
  const mode = name === "uri" || name === "uri-template" || name === "byte" ? "fast" : "full";
  const def = formatsPlugin.get(name as FormatName, mode) as unknown;
  const check =
    typeof def === "object" && def !== null && !(def instanceof RegExp)
      ? (def as { validate: unknown }).validate
      : def;
  if (check instanceof RegExp) return (s) => check.test(s);
  if (typeof check === "function") return (s) => check(s) === true;
  throw new Error(`unexpected ajv-formats definition for "${name}"`);
}

export const SAMPLES: Record<string, readonly string[]> = {
  email: ["a@b.co", "first.last@example.org", "a+tag@sub.example.com", "x_y-z@e-x.io", "a..b@c.de", ".a@b.c"],
  uuid: [
    "123e4567-e89b-12d3-a456-426614174000",
    "00000000-0000-0000-0000-000000000000",
    "FFFFFFFF-FFFF-4FFF-BFFF-FFFFFFFFFFFF",
    "123e4567e89b12d3a456426614174000",
    "123e4567-e89b-12d3-a456-42661417400g",
  ],
  "date-time": [
    "2020-01-01T00:00:00Z",
    "2020-02-29T12:30:45.123+05:30",
    "1999-12-31t23:59:60z",
    "1998-12-31T18:59:60-05:00",
    "2019-02-29T00:00:00Z",
    "2020-01-01T24:00:00Z",
    "2020-01-01T22:59:60Z",
    "2020-04-31T00:00:00Z",
    "2020-01-01T00:00:00.Z",
    "2020-01-01T00:00:00+24:00",
  ],
  date: ["2020-01-01", "2000-02-29", "1900-02-29", "2021-12-31", "2020-02-30", "2020-1-01", "2020-13-01"],
  time: [
    "00:00:00Z",
    "23:59:60Z",
    "12:00:00.5+01:00",
    "00:29:60+00:30",
    "12:00:00",
    "12:60:00Z",
    "23:59:60+01:00",
  ],
  duration: [
    "P1Y",
    "PT1H",
    "P2W",
    "P1DT1H1M1S",
    "P1Y1D",
    "P1M",
    "P",
    "PT",
    "P1YT",
    "P1Y1W",
    "PT1.5S",
    "P1D2H",
  ],
  ipv4: ["1.2.3.4", "255.255.255.255", "0.0.0.0", "10.0.0.1", "256.1.1.1", "01.1.1.1", "1.2.3", "1.2.3.4.5"],
  ipv6: [
    "::",
    "::1",
    "1::",
    "1:2:3:4:5:6:7:8",
    "1:2:3:4:5:6:7::",
    "::2:3:4:5:6:7:8",
    "::ffff:1.2.3.4",
    "fe80::1:2",
    "1::2:3:4:5:6:7:8",
    "1:2:3:4:5:6:7",
    "1::2::3",
    "12345::",
    "fe80::1%eth0",
  ],
  hostname: [
    "a",
    "example.com",
    "a-b.c",
    "xn--ls8h.la",
    "example.com.",
    "a".repeat(63),
    "a".repeat(64),
    "-a.b",
    "a-.b",
    "a..b",
    "a_b",
  ],
  "uri-reference": [
    "",
    "a",
    "/a/b",
    "//host/p",
    "http://x.y/p?q=1#f",
    "./a:b",
    "#frag",
    "?q",
    "http://[::1]:80/",
    "http://[v1.x]/",
    "http://u@h:8/",
    "mailto:a@b.c",
    "%41",
    "http://a b",
    "%zz",
    "http://h/%",
    "a#b#c",
    "\\a",
  ],
  uri: ["https://example.com/a", "urn:isbn:0451450523", "test://static/1", "/relative", "not a uri"],
  "uri-template": ["file:///{path}", "https://x/{a}{?b,c}", "plain", "file:///{path", "{}"],
  byte: ["", "SGVsbG8=", "SGk=", "ab=c", "abc"],
};

/**
 * Where ajv-formats accepts what the RFC grammar refuses: a space for `T` and a colon-less offset in
 * date-time/time (RFC 3339 §5.6 requires `T` and `time-hour ":" time-minute`), the `urn:uuid:` URN
 * form of a UUID (RFC 4122 §3's string form has no prefix), and in uri-reference its regular expression
 * reading `scheme://h:x/` or `a@b@c` as a path, allowing `"`, or a colon in a scheme-less first segment
 * (RFC 3986 §3.3 `path-noscheme`); also its leap-second rule, which lets `24:59:60+01:00` through.
 * True when `s` is such a case, in which the validators refuse.
 */
export function ajvLooser(format: string, s: string): boolean {
  switch (format) {
    case "date-time":
      return /^\d{4}-\d\d-\d\d\s/.test(s) || ajvLooser("time", s);
    case "time":
      return /[+-]\d\d(?:\d\d)?$/.test(s) || LEAP_OUT_OF_RANGE.test(s);
    case "uuid":
      return /^urn:uuid:/i.test(s);
    case "uri-reference":
      // A colon in the first segment makes that segment a scheme, which must begin with a letter.
      return /^[^/?#]*:/.test(s) && !/^[a-z][a-z0-9+.-]*:/i.test(s);
    default:
      return false;
  }
}

/**
 * Where ajv-formats refuses what the grammar allows: a dot inside a uri-template variable name (RFC 6570
 * §2.3 `varname = varchar *( ["."] varchar )`), which the protocol's own `uri-template` check accepts.
 */
export function ajvStricter(format: string, s: string): boolean {
  return format === "uri-template" && /\{[^}]*[^{]\.[^}]*\}/.test(s);
}

/** ajv-formats' leap-second rule also lets an hour above 23 or a minute above 59 through. */
const LEAP_OUT_OF_RANGE = /(?:^|[Tt])(?:2[4-9]|[3-9]\d):\d\d:60|:[6-9]\d:60/;

/** The uri-reference strings ajv-formats accepts although RFC 3986's grammar does not. */
export const URI_REFERENCE_AJV_LOOSER: readonly string[] = ['a"b', "1a:b", "http://h:x/", "http://a@b@c/"];

const NOISE = ["", ":", "-", ".", "T", "Z", "0", "9", "a", "f", "@", "/", "%", " ", "+", "::", "60", "é"];

/** One small edit of `s`: a character deleted, replaced, inserted or duplicated. */
export function mutate(s: string, rng: Rng): string {
  const i = rng.int(s.length + 1);
  switch (rng.int(4)) {
    case 0:
      return s.slice(0, i) + s.slice(i + 1);
    case 1:
      return s.slice(0, i) + rng.pick(NOISE) + s.slice(i + 1);
    case 2:
      return s.slice(0, i) + rng.pick(NOISE) + s.slice(i);
    default:
      return s.slice(0, i) + s.slice(i, i + 2) + s.slice(i);
  }
}
