/**
 * The runtime's YAML subset for SKILL.md frontmatter, held to the `yaml` package (the parser the
 * conformance suite compares frontmatter with, YAML 1.2 core schema): what the subset reads it reads as
 * `yaml` does; what it refuses it refuses with a FrontmatterError naming the line.
 */
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import {
  FrontmatterError,
  frontmatterOf,
  parseFrontmatter,
} from "../../../runtime/client/skill-frontmatter.js";

const READ: Record<string, string> = {
  minimal: "name: pdf-processing\ndescription: Extract, fill, and assemble PDF documents",
  quoted: `name: "git-basics"\ndescription: 'It''s "quoted": a, b # not a comment'`,
  escapes: `a: "tab\\there \\u00e9 \\x41 \\U0001F600 \\\\ \\" \\/ \\n"`,
  "core schema scalars":
    "n1: ~\nn2: null\nn3:\nb1: true\nb2: FALSE\ni1: 42\ni2: -7\ni3: +12\ni4: 012\no: 0o17\nh: 0xFf\nf1: 1.5\nf2: -.5e3\nf3: 1.\nd: 2024-01-01\nv: 1.0.0\ns: yes\nt: C#",
  comments: "# leading\nname: x # trailing\n\n  # indented comment\ndescription: y",
  "nested mapping": 'metadata:\n  author: example\n  version: "1.0"\n  deeper:\n    k: v\nafter: 1',
  sequences: "tags:\n  - pdf\n  - 'forms'\n  -\n    k: v\nsame-indent:\n- a\n- b\nlast: z",
  "compact mappings in a sequence":
    "items:\n  - name: a\n    size: 1\n  - name: b\n    size: 2\n  - - x\n    - y",
  "empty values": "a:\nb: ''\nc: \"\"\nlist:\n  -\n  - # comment\n",
  "colons and hashes in plain scalars": "url: https://example.com/a#b\ntime: 12:30\nratio: a:b",
  "quoted keys": `"a b": 1\n'c: d': 2\nplain key: 3`,
  "crlf line ends": "name: x\r\ndescription: y\r\n",
  "trailing spaces": "name: x   \ndescription: y\t",
  "allowed-tools": "allowed-tools: Bash(git:*) Read Write",
};

const REFUSED: Record<string, string> = {
  "flow sequence": "tags: [a, b]",
  "flow mapping": "meta: {a: 1}",
  "literal block scalar": "description: |\n  two\n  lines",
  "folded block scalar": "description: >\n  folded",
  "multi-line plain scalar": "description: one\n  two",
  anchor: "a: &x 1\nb: 2",
  alias: "a: 1\nb: *x",
  tag: "a: !!str 1",
  "duplicate key": "name: a\nname: b",
  "tab indentation": "m:\n\tk: v",
  "unterminated quote": 'a: "open',
  "multi-line quoted": 'a: "one\n  two"',
  "bad escape": 'a: "\\q"',
  "second document": "a: 1\n---\nb: 2",
  "merge key": "<<: 1",
  "non-string key": "1: a",
  infinity: "a: .inf",
  "huge integer": "a: 123456789012345678901234567890",
  "mapping on one line": "a: b: c",
  "text after a quoted scalar": 'a: "x" y',
  "bad indentation": "a: 1\n  b: 2",
};

describe("parseFrontmatter (the runtime's YAML subset)", () => {
  for (const [name, text] of Object.entries(READ))
    it(`reads ${name} as yaml does`, () => {
      expect(parseFrontmatter(text)).toEqual(parse(text));
    });

  for (const [name, text] of Object.entries(REFUSED))
    it(`refuses ${name}`, () => {
      expect(() => parseFrontmatter(text)).toThrow(FrontmatterError);
      expect(() => parseFrontmatter(text)).toThrow(/frontmatter line \d+/);
    });

  it("reads nesting up to the runtime's depth bound, and refuses deeper (recursion stays bounded)", () => {
    const nested = (levels: number) =>
      `${Array.from({ length: levels }, (_, i) => `${" ".repeat(i)}k${i}:`).join("\n")} leaf`;
    expect(parseFrontmatter(nested(256))).toEqual(parse(nested(256)));
    expect(() => parseFrontmatter(nested(257))).toThrow(/nesting deeper than 256 levels/);
    const items = `${"- ".repeat(100_000)}x`;
    expect(() => parseFrontmatter(items)).toThrow(FrontmatterError);
  });

  it("keeps __proto__ as an own key, not the object's prototype", () => {
    const value = parseFrontmatter("__proto__: x\nname: y") as Record<string, unknown>;
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.keys(value)).toEqual(["__proto__", "name"]);
  });
});

describe("frontmatterOf", () => {
  it("is the YAML between the first two --- lines", () => {
    expect(frontmatterOf("---\nname: a\ndescription: b\n---\n\nBody\n---\n")).toBe("name: a\ndescription: b");
    expect(frontmatterOf("---\r\nname: a\r\n---\r\nbody")).toBe("name: a");
  });
  it("is undefined without an opening or a closing line", () => {
    expect(frontmatterOf("name: a\n---\n")).toBeUndefined();
    expect(frontmatterOf("---\nname: a\n")).toBeUndefined();
    expect(frontmatterOf(" ---\nname: a\n---\n")).toBeUndefined();
  });
});
