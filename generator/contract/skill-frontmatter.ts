/**
 * A `SKILL.md`'s YAML frontmatter, read as the Skills extension needs it: the block between a leading
 * `---` line and the next `---` line (the conformance suite's own rule), parsed with YAML 1.2's core
 * schema (no timestamps: `2024-01-01` stays a string, so the entry's frontmatter is the file's, verbatim),
 * duplicate keys refused, every value JSON (no `.inf` or `.nan`). `name` and `description` are required.
 */

import { isSkillName, RESERVED_META_PREFIX, type SkillFrontmatter } from "@mcp-codegen/runtime";
import { parseDocument } from "yaml";

/** `metadata` keys under this prefix are reserved for MCP extensions (none is defined yet). */
const RESERVED_METADATA_PREFIX = RESERVED_META_PREFIX.replace(".skills/", "/");

const BLOCK = /^---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;

/** The Agent Skills specification's bound on `description`. */
const MAX_DESCRIPTION = 1024;

/** Why the frontmatter is refused, and where in it (a dotted path, "" for the whole). */
export interface FrontmatterProblem {
  where: string;
  reason: string;
}

/** The frontmatter of `text` as JSON, or what is wrong with it. */
export function skillFrontmatter(
  text: string,
): { frontmatter: SkillFrontmatter } | { problem: FrontmatterProblem } {
  const read = readFrontmatter(text);
  return "where" in read ? { problem: read } : { frontmatter: read.value };
}

function readFrontmatter(text: string): { value: SkillFrontmatter } | FrontmatterProblem {
  const block = BLOCK.exec(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text)?.[1];
  if (block === undefined)
    return {
      where: "",
      reason:
        "has no frontmatter: it must begin with a `---` line, YAML with name and description, and a `---` line",
    };
  const doc = parseDocument(block, { version: "1.2", schema: "core", uniqueKeys: true });
  const error = doc.errors[0] ?? doc.warnings[0];
  if (error) return { where: "", reason: `frontmatter is not YAML: ${error.message.split("\n")[0]}` };
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: 100 });
  } catch (e) {
    return { where: "", reason: `frontmatter: ${(e as Error).message.split("\n")[0]}` };
  }
  if (!isPlainObject(value))
    return { where: "", reason: "frontmatter must be a mapping (name: …, description: …)" };
  const notJson = nonJson(value, "");
  if (notJson) return notJson;
  if (typeof value.name !== "string" || value.name === "")
    return { where: "name", reason: "is required: the skill's name" };
  if (!isSkillName(value.name))
    return {
      where: "name",
      reason: `${JSON.stringify(value.name)} breaks the Agent Skills naming rules: 1 to 64 of a-z 0-9 and -, no leading, trailing or double -`,
    };
  if (typeof value.description !== "string" || value.description.trim() === "")
    return { where: "description", reason: "is required: what the skill does and when to use it" };
  if (value.description.length > MAX_DESCRIPTION)
    return {
      where: "description",
      reason: `is longer than ${MAX_DESCRIPTION} characters (Agent Skills rule)`,
    };
  if (isPlainObject(value.metadata))
    for (const key of Object.keys(value.metadata))
      if (key.startsWith(RESERVED_METADATA_PREFIX))
        return {
          where: `metadata.${key}`,
          reason: `keys under ${RESERVED_METADATA_PREFIX} are reserved for MCP extensions`,
        };
  return { value: value as SkillFrontmatter };
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" &&
  v !== null &&
  [Object.prototype, null].includes(Object.getPrototypeOf(v) as object | null);

/**
 * The first value JSON cannot carry as it is, with its path: a non-finite number, or what an explicit tag
 * made (`!!binary` bytes, `!!set`, `!!omap`).
 */
function nonJson(value: unknown, at: string): FrontmatterProblem | undefined {
  if (typeof value === "number" && !Number.isFinite(value))
    return { where: at, reason: `${String(value)} is not a JSON number` };
  if (typeof value === "object" && value !== null && !Array.isArray(value) && !isPlainObject(value))
    return { where: at, reason: "is not a JSON value (a YAML tag made it something else): write plain YAML" };
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) {
      const problem = nonJson(item, `${at}[${i}]`);
      if (problem) return problem;
    }
  } else if (isPlainObject(value)) {
    for (const [key, item] of Object.entries(value)) {
      const problem = nonJson(item, at ? `${at}.${key}` : key);
      if (problem) return problem;
    }
  }
  return undefined;
}
