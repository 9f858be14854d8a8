/**
 * The Skills extension (SEP-2640) on the client: entries listed (`skills/list`, every page, bounded)
 * and got (`skills/get`) without reading any file, and a skill loaded on demand: its `SKILL.md` read
 * then, checked against the entry (size, digest, the parsed frontmatter field by field) and handed back
 * as a HeldSkill. Nothing is prefetched and nothing unverified is returned; every refusal is a
 * SkillVerificationError naming the URI and what differed.
 */

import type { RequestOptions } from "../jsonrpc/connection.js";
import { ErrorCode, isObject, McpError } from "../jsonrpc/messages.js";
import { MAX_SKILL_BYTES, SKILLS_GET, SKILLS_LIST, type Skill } from "../mcp/skills.js";
import { HeldSkill } from "./held-skill.js";
import { readSkillEntry } from "./skill-entry.js";
import { SkillVerificationError } from "./skill-error.js";
import { type FrontmatterParser, frontmatterOf, parseFrontmatter } from "./skill-frontmatter.js";
import { type ReadResource, readSkillFile } from "./skill-read.js";

/** What the skills functions need of a client. */
export interface SkillsPeer {
  /** A request of the extension, answered complete. */
  request(
    method: string,
    params: Record<string, unknown>,
    options: RequestOptions,
  ): Promise<Record<string, unknown>>;
  read: ReadResource;
  /** Where an entry left out of a listing is reported. */
  report(error: Error): void;
}

export interface LoadSkillOptions extends RequestOptions {
  /** Load a skill whose `resources` is "dynamic" (no digests to check; reads bounded by 16 MiB in all). */
  allowDynamic?: boolean;
  /** A full YAML parser for the frontmatter, instead of the runtime's subset. */
  frontmatterParser?: FrontmatterParser;
}

/** Bounds a server whose cursors never end. */
const MAX_SKILL_PAGES = 1000;

/** Every entry of every page; a malformed or repeated entry is left out and reported. */
export async function listSkills(peer: SkillsPeer, options: RequestOptions): Promise<Skill[]> {
  const skills: Skill[] = [];
  const seen = new Set<string>();
  const cursors = new Set<string>();
  let cursor: string | undefined;
  for (let page = 1; page <= MAX_SKILL_PAGES; page++) {
    const result = await peer.request(SKILLS_LIST, cursor === undefined ? {} : { cursor }, options);
    if (!Array.isArray(result.skills))
      throw new McpError(ErrorCode.InvalidParams, `${SKILLS_LIST}: the result has no skills array`);
    for (const raw of result.skills) {
      try {
        const skill = readSkillEntry(raw);
        if (seen.has(skill.uri))
          throw new SkillVerificationError(skill.uri, skill.uri, "entry", "listed twice; the first is kept");
        seen.add(skill.uri);
        skills.push(skill);
      } catch (error) {
        if (!(error instanceof SkillVerificationError)) throw error;
        peer.report(new Error(`${SKILLS_LIST}: left out ${error.message}`));
      }
    }
    const next = result.nextCursor;
    if (next === undefined || next === null) return skills;
    if (typeof next !== "string")
      throw new McpError(ErrorCode.InvalidParams, `${SKILLS_LIST}: nextCursor is not a string`);
    if (cursors.has(next))
      throw new McpError(
        ErrorCode.InvalidParams,
        `${SKILLS_LIST} repeats the cursor ${JSON.stringify(next)}`,
      );
    cursors.add(next);
    cursor = next;
  }
  throw new McpError(ErrorCode.InvalidParams, `${SKILLS_LIST} has more than ${MAX_SKILL_PAGES} pages`);
}

/** The entry of one skill by its `SKILL.md` URI (listed or not). */
export async function getSkill(peer: SkillsPeer, uri: string, options: RequestOptions): Promise<Skill> {
  const result = await peer.request(SKILLS_GET, { uri }, options);
  const skill = readSkillEntry(result.skill);
  if (skill.uri !== uri)
    throw new SkillVerificationError(uri, uri, "entry", `${SKILLS_GET} answered the entry of ${skill.uri}`);
  return skill;
}

/** Reads the skill's `SKILL.md` now, verifies it against `entry`, and holds the skill. */
export async function loadSkill(
  peer: SkillsPeer,
  entry: Skill,
  options: LoadSkillOptions,
): Promise<HeldSkill> {
  const { allowDynamic, frontmatterParser, ...request } = options;
  // Checked (and bounded) again: the caller may have built or changed the entry; nothing is read before.
  const skill = readSkillEntry(entry);
  const refuse = (refusal: "dynamic" | "frontmatter" | "read", detail: string) =>
    new SkillVerificationError(skill.uri, skill.uri, refusal, detail);
  if (skill.resources === "dynamic" && !allowDynamic)
    throw refuse(
      "dynamic",
      'its resources are "dynamic" (nothing to verify against); pass allowDynamic to load it',
    );
  const listed =
    skill.resources === "dynamic" ? { uri: skill.uri } : skill.resources.find((f) => f.uri === skill.uri)!;
  const content = await readSkillFile(peer.read, skill.uri, listed, MAX_SKILL_BYTES, request);
  let text: string;
  try {
    text = content.text ?? new TextDecoder("utf-8", { fatal: true }).decode(content.bytes);
  } catch {
    throw refuse("read", "SKILL.md is not UTF-8 text");
  }
  const yaml = frontmatterOf(text);
  if (yaml === undefined) throw refuse("frontmatter", "SKILL.md has no frontmatter (--- lines at its top)");
  let parsed: unknown;
  try {
    parsed = (frontmatterParser ?? parseFrontmatter)(yaml);
  } catch (error) {
    throw refuse(
      "frontmatter",
      `SKILL.md's frontmatter was not read: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  if (!isObject(parsed)) throw refuse("frontmatter", "SKILL.md's frontmatter is not a mapping");
  const differing = differences(skill.frontmatter, parsed);
  if (differing.length > 0)
    throw refuse(
      "frontmatter",
      `SKILL.md's frontmatter differs from the entry's in ${differing.map((k) => JSON.stringify(k)).join(", ")}`,
    );
  return new HeldSkill(skill, { ...content, text }, peer.read);
}

/** The top-level fields whose values differ (or exist on one side only), sorted. */
function differences(entry: Record<string, unknown>, parsed: Record<string, unknown>): string[] {
  const keys = new Set([...Object.keys(entry), ...Object.keys(parsed)]);
  return [...keys]
    .filter((k) => !(Object.hasOwn(entry, k) && Object.hasOwn(parsed, k) && sameJson(entry[k], parsed[k])))
    .sort();
}

function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((x, i) => sameJson(x, b[i]));
  }
  if (!isObject(a) || !isObject(b)) return false;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every((k) => Object.hasOwn(b, k) && sameJson(a[k], b[k]));
}
