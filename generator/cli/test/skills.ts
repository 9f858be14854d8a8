/**
 * The contract's skills (`skills:`, the Skills extension) under `mcp-codegen test`. What the contract's
 * table computed now (frontmatter, every file with its digest and size) is what the server must serve:
 * a server built from another table, or generated before a skill file changed, fails naming the skill
 * and the file.
 *
 * - `skills/list` (compareSkills): exactly the contract's skills, each entry equal to the contract's.
 * - Each skill (testSkill), in the handshake era (2025-11-25), where skill files are plain resources:
 *   `resources/list` holds its `SKILL.md` (text/markdown, the frontmatter's name and description), and
 *   the runtime client's `loadSkill` with the contract's entry, then `readFile` of every file, verifies
 *   each read (size, digest, frontmatter). When the server speaks the extension (2026-07-28, or a
 *   declaration in `initialize`): `skills/get` answers the contract's entry, the same loading runs on
 *   that session, and (with `directoryRead`) `resources/directory/read` of the skill's root and of each
 *   folder in it lists the children the contract's table holds.
 */

import { SKILL_MD_MIME_TYPE, SKILLS_EXTENSION, type Skill } from "@mcp-codegen/runtime";
import type { SkillDirectoryChild, SkillsTable } from "@mcp-codegen/runtime/server";
import { type ItemOutcome, type ItemRun, printItem } from "./run.js";
import type { ServerSession } from "./session.js";
import { show } from "./verdicts.js";

/** `everything-demo` for `skill://everything-demo/SKILL.md`: the skill's path, its name in `--only`. */
export const skillPath = (uri: string): string => uri.replace(/^skill:\/\//, "").replace(/\/SKILL\.md$/, "");

/** Whether the server offers `skills/*` on this session (it declared the extension). */
export const speaksSkills = (session: ServerSession): boolean => {
  const declared = session.extensions[SKILLS_EXTENSION];
  return typeof declared === "object" && declared !== null;
};

/** Whether the server declared `directoryRead: true` with the extension. */
export const readsDirectories = (session: ServerSession): boolean =>
  (session.extensions[SKILLS_EXTENSION] as { directoryRead?: unknown } | undefined)?.directoryRead === true;

/**
 * `resources/directory/read` of the skill's root and each folder in it against the contract's table:
 * the same children (uri, mimeType, a file's size), one line per difference.
 */
async function directoryProblems(
  session: ServerSession,
  skill: Skill,
  table: SkillsTable,
): Promise<{ folders: number; problems: string[] }> {
  const root = skill.uri.slice(0, -"/SKILL.md".length);
  const folders = Object.keys(table.directories).filter((d) => d === root || d.startsWith(`${root}/`));
  const out: string[] = [];
  for (const folder of folders) {
    let listed: Record<string, unknown>[];
    try {
      listed = await session.readDirectory(folder);
    } catch (e) {
      out.push(`resources/directory/read ${folder} failed: ${(e as Error).message}`);
      continue;
    }
    const served = new Map(listed.map((c) => [c.uri, c]));
    const declared: readonly SkillDirectoryChild[] = table.directories[folder] ?? [];
    for (const child of declared) {
      const other = served.get(child.uri);
      const at = `resources/directory/read ${folder}: ${child.uri}`;
      if (!other) out.push(`${at}: missing`);
      else
        for (const key of ["mimeType", "size"] as const)
          if (child[key] !== undefined && other[key] !== child[key])
            out.push(`${at}: ${key}: contract ${show(child[key])}, server ${show(other[key])}`);
    }
    const uris = new Set(declared.map((c) => c.uri));
    for (const uri of served.keys())
      if (!uris.has(uri as string))
        out.push(`resources/directory/read ${folder}: ${show(uri)}: listed, not in the contract's skill`);
  }
  return { folders: folders.length, problems: out };
}

/** What differs between the contract's entry of a skill and the server's, one line each. */
export function entryDifferences(declared: Skill, served: Skill): string[] {
  const out: string[] = [];
  const fields = new Set([...Object.keys(declared.frontmatter), ...Object.keys(served.frontmatter)]);
  for (const field of [...fields].sort()) {
    const [a, b] = [declared.frontmatter[field], served.frontmatter[field]];
    if (show(a) !== show(b)) out.push(`frontmatter.${field}: contract ${show(a)}, server ${show(b)}`);
  }
  if (served.resources === "dynamic" || declared.resources === "dynamic") {
    if (served.resources !== declared.resources)
      out.push(`resources: contract ${show(declared.resources)}, server ${show(served.resources)}`);
    return out;
  }
  const theirs = new Map(served.resources.map((f) => [f.uri, f]));
  const ours = new Set(declared.resources.map((f) => f.uri));
  for (const file of declared.resources) {
    const other = theirs.get(file.uri);
    if (!other) out.push(`${file.uri}: in the contract's skill, missing from the server's entry`);
    else {
      if (other.digest !== file.digest)
        out.push(`${file.uri}: digest: contract ${file.digest}, server ${other.digest}`);
      if (other.size !== file.size)
        out.push(`${file.uri}: size: contract ${file.size}, server ${other.size}`);
    }
  }
  for (const file of served.resources)
    if (!ours.has(file.uri))
      out.push(`${file.uri}: in the server's entry, not a file of the contract's skill`);
  return out;
}

/**
 * `skills/list` against the chosen skills of the contract: each declared skill listed with an equal
 * entry, and no skill the contract does not declare (`kept` leaves out the ones --only/--skip left out).
 */
export function compareSkills(
  declared: readonly Skill[],
  listed: readonly Skill[],
  kept: (uri: string) => boolean,
): string[] {
  const out: string[] = [];
  const served = new Map(listed.map((s) => [s.uri, s]));
  for (const skill of declared) {
    const other = served.get(skill.uri);
    const at = `skill ${skillPath(skill.uri)}`;
    if (!other) out.push(`skills/list: ${at}: declared in the contract (${skill.uri}), missing`);
    else for (const line of entryDifferences(skill, other)) out.push(`skills/list: ${at}: ${line}`);
  }
  const uris = new Set(declared.map((s) => s.uri));
  for (const skill of listed)
    if (!uris.has(skill.uri) && kept(skill.uri))
      out.push(
        `skills/list: skill ${skillPath(skill.uri)}: listed (${skill.uri}), not in the contract's skills`,
      );
  return out;
}

/** The skill's `SKILL.md` in `resources/list`: listed, text/markdown, named and described by its frontmatter. */
async function listedProblems(session: ServerSession, skill: Skill): Promise<string[]> {
  let listed: unknown[];
  try {
    listed = await session.listResources();
  } catch (e) {
    return [`resources/list failed: ${(e as Error).message}`];
  }
  const entry = listed.find((r) => (r as { uri?: unknown } | null)?.uri === skill.uri) as
    | Record<string, unknown>
    | undefined;
  if (!entry) return [`${skill.uri}: missing from resources/list`];
  const want = {
    mimeType: SKILL_MD_MIME_TYPE,
    name: skill.frontmatter.name,
    description: skill.frontmatter.description,
  };
  return Object.entries(want)
    .filter(([key, value]) => entry[key] !== value)
    .map(([key, value]) => `${skill.uri}: resources/list ${key}: ${show(entry[key])}, not ${show(value)}`);
}

/**
 * The runtime client's loading of the contract's entry on `session`: `SKILL.md` (size, digest,
 * frontmatter), then every other file. How many files were verified, or the first refusal.
 */
async function loadProblems(
  session: ServerSession,
  skill: Skill,
): Promise<{ verified: number; problems: string[] }> {
  let verified = 0;
  try {
    const client = await session.client();
    const held = await client.loadSkill(skill);
    verified++;
    for (const path of held.files) {
      if (path === "SKILL.md") continue;
      await held.readFile(path);
      verified++;
    }
    return { verified, problems: [] };
  } catch (e) {
    return { verified, problems: [(e as Error).message] };
  }
}

/** One skill: see the file's comment. `stateless` is the session that speaks the extension, if any. */
export async function testSkill(
  skill: Skill,
  table: SkillsTable,
  run: ItemRun,
  stateless: ServerSession | undefined,
): Promise<ItemOutcome> {
  const files = skill.resources === "dynamic" ? 0 : skill.resources.length;
  const problems: string[] = [];
  const said: string[] = [];
  run.tick?.();
  problems.push(...(await listedProblems(run.session, skill)));
  const asResources = await loadProblems(run.session, skill);
  problems.push(...asResources.problems.map((p) => `${run.session.protocolVersion}: ${p}`));
  const eras = [run.session.protocolVersion];
  if (stateless) {
    run.tick?.();
    eras.push(stateless.protocolVersion);
    try {
      const client = await stateless.client();
      const served = await client.getSkill(skill.uri);
      const differing = entryDifferences(skill, served);
      for (const line of differing) problems.push(`skills/get: ${line}`);
      // What a host holding the server's own entry gets: its files checked against that entry.
      if (differing.length > 0)
        for (const p of (await loadProblems(stateless, served)).problems)
          problems.push(`loading the server's entry: ${p}`);
    } catch (e) {
      problems.push(`skills/get ${skill.uri} failed: ${(e as Error).message}`);
    }
    const loaded = await loadProblems(stateless, skill);
    problems.push(...loaded.problems.map((p) => `${stateless.protocolVersion}: ${p}`));
    if (table.directoryRead) {
      if (readsDirectories(stateless)) {
        const listed = await directoryProblems(stateless, skill, table);
        problems.push(...listed.problems);
        said.push(
          `${listed.folders} ${listed.folders === 1 ? "folder" : "folders"} read with resources/directory/read`,
        );
      } else
        problems.push(
          "the contract serves resources/directory/read (skills.directoryRead), but the server does not declare directoryRead: true",
        );
    }
  }
  const ok = problems.length === 0;
  return printItem(run, `skill ${skillPath(skill.uri)}`, {
    summary: ok
      ? `${files} ${files === 1 ? "file" : "files"} verified (size, digest, frontmatter) in ${[...new Set(eras)].join(" and ")}${stateless ? "; skills/get answers its entry" : ""}${said.map((x) => `; ${x}`).join("")}`
      : `not served as the contract's skills folder holds it (regenerate the server after a skill changes)`,
    problems: problems.map((p) => `    problem:   ${p}`),
  });
}
