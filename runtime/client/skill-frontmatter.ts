/**
 * A `SKILL.md`'s YAML frontmatter, read by a small YAML subset: block mappings and block sequences of
 * plain, single-quoted and double-quoted one-line scalars, resolved as YAML 1.2's core schema does
 * (null, booleans, integers, floats, else strings). Anything else (flow collections, block scalars,
 * multi-line scalars, anchors, aliases, tags, tabs in indentation, duplicate keys) is refused: the
 * runtime has no YAML dependency, and not loading a skill is always allowed, so the subset fails closed.
 * A client that must read more passes a full parser (`frontmatterParser`).
 */

import { MAX_DEPTH } from "../check/depth.js";

/** A full YAML parser a client may pass instead (`yaml`'s `parse`, js-yaml's `load` with its core schema). */
export type FrontmatterParser = (yaml: string) => unknown;

/** YAML this subset does not read, or a `SKILL.md` without frontmatter. */
export class FrontmatterError extends Error {
  override name = "FrontmatterError";
}

/** The YAML between a Markdown document's opening `---` line and the next `---` line, or undefined. */
export function frontmatterOf(markdown: string): string | undefined {
  const lines = markdown.split(/\r?\n/);
  if (lines[0] !== "---") return undefined;
  const end = lines.indexOf("---", 1);
  return end < 0 ? undefined : lines.slice(1, end).join("\n");
}

interface Line {
  /** 1-based, within the frontmatter. */
  number: number;
  indent: number;
  text: string;
}

/** The subset's reading of `yaml` as JSON; a FrontmatterError naming the line for anything beyond it. */
export function parseFrontmatter(yaml: string): unknown {
  const lines: Line[] = [];
  yaml.split("\n").forEach((raw, i) => {
    const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    const body = line.trimStart();
    if (body === "" || body.startsWith("#")) return;
    const lead = line.slice(0, line.length - body.length);
    if (lead.includes("\t")) throw fail(i + 1, "a tab in indentation");
    if (body === "---" || body === "...") throw fail(i + 1, "a second YAML document");
    lines.push({ number: i + 1, indent: lead.length, text: body.trimEnd() });
  });
  if (lines.length === 0) return null;
  const reader = { lines, at: 0 };
  const value = readBlock(reader, lines[0]!.indent, 1);
  const extra = reader.lines[reader.at];
  if (extra) throw fail(extra.number, "unexpected indentation");
  return value;
}

const fail = (line: number, what: string) =>
  new FrontmatterError(
    `frontmatter line ${line}: ${what} (the runtime reads a YAML subset: block mappings and sequences of one-line plain or quoted scalars)`,
  );

interface Reader {
  lines: Line[];
  at: number;
}

/** Nesting the subset reads (as deep as the runtime checks any message): recursion stays bounded. */
const MAX_NESTING = MAX_DEPTH;

const isItem = (text: string) => text === "-" || text.startsWith("- ");

function readBlock(reader: Reader, indent: number, depth: number): unknown {
  const first = reader.lines[reader.at]!;
  if (depth > MAX_NESTING) throw fail(first.number, `nesting deeper than ${MAX_NESTING} levels`);
  return isItem(first.text) ? readSequence(reader, indent, depth) : readMapping(reader, indent, depth);
}

/** The value after `key:` or `-` with nothing on its line: the block below it, or null. */
function readNested(reader: Reader, parent: number, depth: number, sequenceAtSameIndent: boolean): unknown {
  const next = reader.lines[reader.at];
  if (next && next.indent > parent) return readBlock(reader, next.indent, depth + 1);
  // `key:` followed by `- item` at the key's own indentation is a sequence (YAML allows it).
  if (next && sequenceAtSameIndent && next.indent === parent && isItem(next.text))
    return readBlock(reader, parent, depth + 1);
  return null;
}

function readMapping(reader: Reader, indent: number, depth: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (let line = reader.lines[reader.at]; line && line.indent === indent; line = reader.lines[reader.at]) {
    if (isItem(line.text)) throw fail(line.number, "a sequence item where a mapping key was expected");
    const { key, rest } = splitKey(line);
    if (Object.hasOwn(out, key)) throw fail(line.number, `the key "${key}" twice`);
    reader.at++;
    const value = rest === "" ? readNested(reader, indent, depth, true) : scalar(rest, line.number);
    Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
    const next = reader.lines[reader.at];
    if (next && next.indent > indent)
      throw fail(next.number, "unexpected indentation (a multi-line scalar?)");
  }
  return out;
}

function readSequence(reader: Reader, indent: number, depth: number): unknown[] {
  const out: unknown[] = [];
  for (let line = reader.lines[reader.at]; line && line.indent === indent; line = reader.lines[reader.at]) {
    if (!isItem(line.text)) break;
    const rest = line.text.slice(1).trimStart();
    if (rest === "") {
      reader.at++;
      out.push(readNested(reader, indent, depth, false));
    } else if (isItem(rest) || startsMapping(rest)) {
      // `- key: value` (or `- - x`): the rest of the line opens a block at its own column.
      line.indent += line.text.length - rest.length;
      line.text = rest;
      out.push(readBlock(reader, line.indent, depth + 1));
    } else {
      reader.at++;
      out.push(scalar(rest, line.number));
    }
    const next = reader.lines[reader.at];
    if (next && next.indent > indent)
      throw fail(next.number, "unexpected indentation (a multi-line scalar?)");
  }
  return out;
}

/** Whether a line's text is `key: …` (a plain or quoted key followed by a colon). */
function startsMapping(text: string): boolean {
  if (text.startsWith('"') || text.startsWith("'")) {
    const end = quotedEnd(text);
    return end > 0 && /^:(\s|$)/.test(text.slice(end));
  }
  return /^[^#]*?:(\s|$)/.test(text) && !/^[[{&*!|>%@`]/.test(text);
}

function splitKey(line: Line): { key: string; rest: string } {
  const text = line.text;
  let key: string;
  let after: string;
  if (text.startsWith('"') || text.startsWith("'")) {
    const end = quotedEnd(text);
    if (end < 0) throw fail(line.number, "an unterminated quoted key");
    key = unquote(text.slice(0, end), line.number);
    after = text.slice(end);
  } else {
    const colon = text.search(/:(\s|$)/);
    if (colon < 0) throw fail(line.number, "a line that is not `key: value`");
    const plain = text.slice(0, colon).trimEnd();
    if (plain === "" || /^[[\]{}&*!|>%@`?,#'"-]/.test(plain) || plain.includes(" #"))
      throw fail(line.number, `the key ${JSON.stringify(plain)}`);
    if (typeof resolvePlain(plain, line.number) !== "string" || plain === "<<")
      throw fail(line.number, `the key ${JSON.stringify(plain)} (not a string)`);
    key = plain;
    after = text.slice(colon);
  }
  if (!/^:(\s|$)/.test(after)) throw fail(line.number, "a key not followed by `: `");
  const rest = after.slice(1).trim();
  return { key, rest: rest.startsWith("#") ? "" : rest };
}

/** The index just past the closing quote of the quoted scalar `text` starts with, or -1. */
function quotedEnd(text: string): number {
  const quote = text[0];
  for (let i = 1; i < text.length; i++) {
    if (quote === '"' && text[i] === "\\") i++;
    else if (text[i] === quote) {
      if (quote === "'" && text[i + 1] === "'") i++;
      else return i + 1;
    }
  }
  return -1;
}

/** A value on the line of its key or item. */
function scalar(text: string, line: number): unknown {
  if (text.startsWith("#")) return null;
  if (text.startsWith('"') || text.startsWith("'")) {
    const end = quotedEnd(text);
    if (end < 0) throw fail(line, "an unterminated (or multi-line) quoted scalar");
    const tail = text.slice(end).trim();
    if (tail !== "" && !tail.startsWith("#")) throw fail(line, "text after a quoted scalar");
    if (tail.startsWith("#") && !/\s/.test(text[end] ?? "")) throw fail(line, "text after a quoted scalar");
    return unquote(text.slice(0, end), line);
  }
  const comment = text.search(/\s#/);
  const plain = (comment < 0 ? text : text.slice(0, comment)).trimEnd();
  if (/^[[\]{}&*!|>%@`,]/.test(plain) || /^[?:-](\s|$)/.test(plain))
    throw fail(
      line,
      `the value ${JSON.stringify(plain)} (flow collections, block scalars, anchors, aliases and tags are not read)`,
    );
  if (/:(\s|$)/.test(plain)) throw fail(line, `the value ${JSON.stringify(plain)} (a mapping on one line)`);
  return resolvePlain(plain, line);
}

/** YAML 1.2 core schema resolution of a plain scalar. */
function resolvePlain(plain: string, line: number): unknown {
  if (/^(~|null|Null|NULL)?$/.test(plain)) return null;
  if (/^(true|True|TRUE)$/.test(plain)) return true;
  if (/^(false|False|FALSE)$/.test(plain)) return false;
  if (/^[-+]?[0-9]+$/.test(plain)) return exactNumber(Number(plain), plain, line);
  if (/^0o[0-7]+$/.test(plain)) return exactNumber(Number.parseInt(plain.slice(2), 8), plain, line);
  if (/^0x[0-9a-fA-F]+$/.test(plain)) return exactNumber(Number.parseInt(plain.slice(2), 16), plain, line);
  if (/^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/.test(plain)) {
    const n = Number(plain);
    if (!Number.isFinite(n)) throw fail(line, `the number ${plain} (out of range)`);
    return n;
  }
  if (/^[-+]?\.(inf|Inf|INF)$|^\.(nan|NaN|NAN)$/.test(plain))
    throw fail(line, `${plain} (not a JSON number)`);
  return plain;
}

function exactNumber(n: number, plain: string, line: number): number {
  if (!Number.isSafeInteger(n)) throw fail(line, `the integer ${plain} (beyond what JSON keeps exactly)`);
  return n;
}

const ESCAPES: Readonly<Record<string, string>> = {
  "0": "\0",
  a: "\x07",
  b: "\b",
  t: "\t",
  "\t": "\t",
  n: "\n",
  v: "\v",
  f: "\f",
  r: "\r",
  e: "\x1b",
  " ": " ",
  '"': '"',
  "/": "/",
  "\\": "\\",
  N: "\x85",
  _: "\xa0",
  L: "\u2028",
  P: "\u2029",
};
const HEX_ESCAPES: Readonly<Record<string, number>> = { x: 2, u: 4, U: 8 };

/** A quoted scalar's value (`text` is the whole of it, quotes included). */
function unquote(text: string, line: number): string {
  const inner = text.slice(1, -1);
  if (text[0] === "'") return inner.replaceAll("''", "'");
  let out = "";
  for (let i = 0; i < inner.length; i++) {
    const c = inner[i]!;
    if (c !== "\\") {
      out += c;
      continue;
    }
    const e = inner[++i] ?? "";
    const digits = Object.hasOwn(HEX_ESCAPES, e) ? HEX_ESCAPES[e]! : 0;
    if (digits > 0) {
      const hex = inner.slice(i + 1, i + 1 + digits);
      const code = /^[0-9a-fA-F]+$/.test(hex) && hex.length === digits ? Number.parseInt(hex, 16) : -1;
      if (code < 0 || code > 0x10ffff) throw fail(line, `the escape \\${e}${hex}`);
      out += String.fromCodePoint(code);
      i += digits;
    } else if (Object.hasOwn(ESCAPES, e)) out += ESCAPES[e];
    else throw fail(line, `the escape \\${e}`);
  }
  return out;
}
