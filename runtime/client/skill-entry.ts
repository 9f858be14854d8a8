/**
 * A `skills/list` or `skills/get` entry as a client takes it: its shape checked, its bounds checked
 * before anything of the skill is read, and copied, so what a caller later does to the object it was
 * handed cannot change what a held skill verifies against.
 */

import { MAX_DEPTH, tooDeep } from "../check/depth.js";
import { isObject } from "../jsonrpc/messages.js";
import {
  MAX_SKILL_BYTES,
  MAX_SKILL_FILES,
  SKILL_DIGEST,
  type Skill,
  type SkillFile,
  type SkillFrontmatter,
} from "../mcp/skills.js";
import { SkillVerificationError } from "./skill-error.js";

const SKILL_MD = "/SKILL.md";

/** The folder URI a skill's relative paths resolve against: its `SKILL.md` URI without `SKILL.md`. */
export const skillRoot = (uri: string): string => uri.slice(0, uri.length - SKILL_MD.length + 1);

/** `value` as a Skill entry, or a SkillVerificationError naming the entry's URI and the field. */
export function readSkillEntry(value: unknown): Skill {
  const uri = isObject(value) && typeof value.uri === "string" ? value.uri : undefined;
  if (!isObject(value) || uri === undefined)
    throw new SkillVerificationError("(no uri)", "(no uri)", "entry", "an entry without a uri string");
  const bad = (detail: string, refusal: "entry" | "limit" = "entry") =>
    new SkillVerificationError(uri, uri, refusal, detail);
  if (!uri.endsWith(SKILL_MD) || uri.length === SKILL_MD.length)
    throw bad("the uri does not name a SKILL.md (…/<skill-name>/SKILL.md)");
  const frontmatter = value.frontmatter;
  if (!isObject(frontmatter)) throw bad("frontmatter is not an object");
  if (typeof frontmatter.name !== "string" || typeof frontmatter.description !== "string")
    throw bad("frontmatter lacks a name or description string");
  // Comparing, copying and locking it recurse: a bound as every checked message has.
  if (tooDeep(frontmatter) !== undefined)
    throw bad(`frontmatter is nested more than ${MAX_DEPTH} levels deep`);
  const root = skillRoot(uri);
  const folder = root.slice(0, -1).split("/").at(-1);
  if (folder !== frontmatter.name)
    throw bad(
      `frontmatter name ${JSON.stringify(frontmatter.name)} is not the skill's folder name ${JSON.stringify(folder)}`,
    );
  const resources = value.resources;
  if (resources === "dynamic") return { uri, frontmatter: copy(frontmatter), resources };
  if (!Array.isArray(resources)) throw bad('resources is neither a list nor "dynamic"');
  // Bounds first: a list this long is refused before anything in it is looked at.
  if (resources.length > MAX_SKILL_FILES)
    throw bad(`resources lists ${resources.length} files, over the limit of ${MAX_SKILL_FILES}`, "limit");
  const files: SkillFile[] = [];
  const seen = new Set<string>();
  let total = 0;
  resources.forEach((file, i) => {
    if (!isObject(file) || typeof file.uri !== "string") throw bad(`resources[${i}] has no uri string`);
    const where = `resources[${i}] (${file.uri})`;
    if (typeof file.digest !== "string" || !SKILL_DIGEST.test(file.digest))
      throw bad(`${where}: digest is not sha256: and 64 lowercase hex digits`);
    if (typeof file.size !== "number" || !Number.isSafeInteger(file.size) || file.size < 0)
      throw bad(`${where}: size is not a whole number of bytes`);
    if (!file.uri.startsWith(root) || file.uri.length === root.length)
      throw bad(`${where}: not a file of the skill (outside ${root})`);
    if (seen.has(file.uri)) throw bad(`${where}: listed twice`);
    seen.add(file.uri);
    total += file.size;
    files.push({ uri: file.uri, digest: file.digest, size: file.size });
  });
  if (total > MAX_SKILL_BYTES)
    throw bad(`resources add up to ${total} bytes, over the limit of ${MAX_SKILL_BYTES}`, "limit");
  if (!seen.has(uri)) throw bad("resources does not list the SKILL.md itself");
  return { uri, frontmatter: copy(frontmatter), resources: files };
}

const copy = (frontmatter: Record<string, unknown>) => structuredClone(frontmatter) as SkillFrontmatter;
