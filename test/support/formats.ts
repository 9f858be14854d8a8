/**
 * String formats used by the MCP schemas: sample values that should pass and fail, and the checks
 * ajv-formats applies in "fast" mode (so the generator can aim mutations without compiling ajv).
 */
import addFormatsModule, { type FormatName } from "ajv-formats";

// ajv-formats is CommonJS; under NodeNext its default import is typed as the module object.
const formatsPlugin = addFormatsModule.default;

/** The exact check ajv applies ("fast" mode), so the generator's view of formats matches the oracle's. */
function fastFormat(name: FormatName): (s: string) => boolean {
  const format = formatsPlugin.get(name, "fast");
  if (format instanceof RegExp) return (s) => format.test(s);
  if (typeof format === "function") return (s) => format(s) === true;
  throw new Error(`unexpected ajv-formats definition for "${name}"`);
}

const CHECKS: Record<string, (s: string) => boolean> = {
  uri: fastFormat("uri"),
  "uri-template": fastFormat("uri-template"),
  byte: fastFormat("byte"),
};

export const FORMAT_SAMPLES: Record<string, readonly string[]> = {
  uri: [
    "https://example.com/a",
    "file:///tmp/x",
    "test://static/resource/1",
    "http://localhost:8080/path?q=1#frag",
    "urn:isbn:0451450523",
    "mailto:someone@example.com",
    "data:text/plain;base64,SGk=",
  ],
  byte: ["", "SGVsbG8=", "SGk=", "AAAA", "YWJjZA==", "/+8=", "SGVsbG8gd29ybGQh"],
  "uri-template": [
    "file:///{path}",
    "https://x/{a}{?b,c}",
    "test://static/resource/{id}",
    "db://{+table}/rows{/id*}",
    "plain-no-vars",
    "",
  ],
};

export const FORMAT_VIOLATIONS: Record<string, readonly string[]> = {
  uri: ["not a uri", "%%%", "", "/relative/path", "://missing-scheme", "1http://digit-scheme"],
  byte: ["ab=c", "%%%", "abc", "a===", "SGVsbG8", "SGVs bG8="],
  "uri-template": ["file:///{path", "%%%", "https://x/{a b}", "{}", "x/{a:0}"],
};

/** True when `format` is unknown (ajv with strict: false ignores unknown formats). */
export function formatAccepts(format: string, value: string): boolean {
  const check = CHECKS[format];
  return check ? check(value) : true;
}

export function isKnownFormat(format: string): boolean {
  return Object.hasOwn(CHECKS, format);
}
