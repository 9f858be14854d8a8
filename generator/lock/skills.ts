/**
 * Skills in a lock: each entry a server lists (`skills/list`, the Skills extension) in canonical form with
 * its sha256, keyed by its `SKILL.md` URI; never a file's content (pulling is listing, not loading: the
 * entry's digests stand for the files). Compared between locks, a new skill is compatible; a skill removed
 * or changed (its frontmatter, or its set of files and digests) is breaking, since a host's approval of a
 * skill is bound to that content.
 */

import { canonicalJson, canonicalSha256 } from "../contract/load.js";
import type { JsonObject } from "../contract/model.js";
import { isObject } from "../protocol/load.js";

export interface SkillLockItem {
  /** The skill's frontmatter name. */
  name: string;
  /** sha256 of the entry's canonical JSON. */
  sha256: string;
  /** The entry as listed: `{ uri, frontmatter, resources }`. */
  definition: JsonObject;
}

export interface SkillChange {
  level: "breaking" | "compatible";
  /** The skill's `SKILL.md` URI. */
  uri: string;
  change: string;
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const uriOf = (item: SkillLockItem) => String(item.definition.uri);

/** Lock items of entries the client has checked already (`Client.listSkills`), sorted by URI. */
export function skillLockItems(
  skills: readonly { uri: string; frontmatter: { name: string } }[],
): SkillLockItem[] {
  return skills
    .map((skill) => {
      // Round-tripped through canonical JSON: keys sorted at every level.
      const definition = JSON.parse(canonicalJson(skill)) as JsonObject;
      return { name: skill.frontmatter.name, sha256: canonicalSha256(definition), definition };
    })
    .sort((a, b) => cmp(uriOf(a), uriOf(b)));
}

/** Why a lock's `skills` is not what `pull` writes (the first problem, with its place), or undefined. */
export function skillLockProblem(value: unknown): { place: string; problem: string } | undefined {
  if (!Array.isArray(value)) return { place: "skills", problem: "must be an array" };
  for (const [i, item] of value.entries()) {
    const place = `skills[${i}]`;
    if (!isObject(item) || typeof item.name !== "string" || !isObject(item.definition))
      return { place, problem: "must be { name, sha256, definition }" };
    if (typeof item.definition.uri !== "string") return { place, problem: "its definition has no uri" };
    if (item.sha256 !== canonicalSha256(item.definition))
      return { place, problem: "its sha256 does not match its definition (edited by hand?)" };
  }
  return undefined;
}

interface File {
  uri: string;
  digest: string;
}

const filesOf = (definition: JsonObject): Map<string, string> | "dynamic" => {
  const resources = definition.resources;
  if (!Array.isArray(resources)) return "dynamic";
  return new Map(
    resources
      .filter(isObject)
      .map((f) => [String((f as unknown as File).uri), String((f as unknown as File).digest)]),
  );
};

/** Changes from the skills of `before` (the lock) to those of `after` (the live server), sorted by URI. */
export function compareSkills(
  before: readonly SkillLockItem[],
  after: readonly SkillLockItem[],
): SkillChange[] {
  const changes: SkillChange[] = [];
  const old = new Map(before.map((i) => [uriOf(i), i]));
  const now = new Map(after.map((i) => [uriOf(i), i]));
  for (const [uri, item] of old) {
    const next = now.get(uri);
    if (!next) changes.push({ level: "breaking", uri, change: "skill removed" });
    else if (item.sha256 !== next.sha256)
      for (const change of skillDifferences(item.definition, next.definition))
        changes.push({ level: "breaking", uri, change });
  }
  for (const uri of now.keys())
    if (!old.has(uri)) changes.push({ level: "compatible", uri, change: "new skill" });
  return changes.sort((a, b) => cmp(a.uri, b.uri) || cmp(a.level, b.level) || cmp(a.change, b.change));
}

/** What differs between two entries of one skill: frontmatter fields, files added, removed or changed. */
function skillDifferences(before: JsonObject, after: JsonObject): string[] {
  const out: string[] = [];
  const a = isObject(before.frontmatter) ? before.frontmatter : {};
  const b = isObject(after.frontmatter) ? after.frontmatter : {};
  const fields = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort(cmp);
  const changed = fields.filter((k) => canonicalJson(a[k]) !== canonicalJson(b[k]));
  if (changed.length > 0)
    out.push(`frontmatter changed: ${changed.map((k) => JSON.stringify(k)).join(", ")}`);
  const was = filesOf(before);
  const is = filesOf(after);
  if (was === "dynamic" || is === "dynamic") {
    if (was !== is) out.push(is === "dynamic" ? 'resources now "dynamic"' : 'resources no longer "dynamic"');
    return out;
  }
  for (const [uri, digest] of was) {
    const next = is.get(uri);
    if (next === undefined) out.push(`file removed: ${uri}`);
    else if (next !== digest) out.push(`file changed (digest): ${uri}`);
  }
  for (const uri of is.keys()) if (!was.has(uri)) out.push(`file added: ${uri}`);
  // Same files and digests, same frontmatter: only a size (or another field) moved.
  if (out.length === 0) out.push("entry changed");
  return out;
}
