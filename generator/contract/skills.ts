/**
 * A folder of skills (the Skills extension, SEP-2640) read into the table a server serves: each folder
 * holding a `SKILL.md` is a skill, the folders above it its prefix (`acme/billing/refunds/SKILL.md` is
 * `skill://acme/billing/refunds/SKILL.md`); its entry lists every file below it (nested skills' too) with
 * the SHA-256 digest and size of the raw bytes. The generator calls it for a contract's `skills:`, and a
 * handwritten Node server may call it at start, so both serve the same table. Symbolic links are refused
 * (a skill is what is in its folder), as are skills over the extension's limits (512 files, 16 MiB), a
 * `SKILL.md` without frontmatter, name and description, and a name that is not its folder's: each a
 * ContractError naming the file and the field.
 */

import { createHash } from "node:crypto";
import { lstat, readdir, readFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import {
  DIRECTORY_MIME_TYPE,
  MAX_SKILL_BYTES,
  MAX_SKILL_FILES,
  SKILL_MD_MIME_TYPE,
  type Skill,
} from "@mcp-codegen/runtime";
import type { SkillDirectoryChild, SkillFileContent, SkillsTable } from "@mcp-codegen/runtime/server";
import { ContractError } from "./load.js";
import { contentOf, mimeTypeOf } from "./skill-content.js";
import { skillFrontmatter } from "./skill-frontmatter.js";

const SKILL_MD = "SKILL.md";

export interface SkillsTableOptions {
  /** Serve `resources/directory/read` (default true). */
  directoryRead?: boolean;
  /** How messages name the folder (default: `dir` as given). */
  label?: string;
  /** Receives the absolute path of every file read and folder listed (for the stamp of a project's `generate`). */
  read?: Set<string>;
}

/** A file found by the walk: its path below the folder as segments, and its size when listed. */
interface Found {
  segments: string[];
  size: number;
}

/** The skills under `dir`, read, checked and digested. */
export async function skillsTable(dir: string, options: SkillsTableOptions = {}): Promise<SkillsTable> {
  const label = options.label ?? dir;
  const root = resolve(dir);
  const info = await lstat(root).catch(() => undefined);
  if (!info) throw new ContractError(label, "", "skills folder not found");
  if (info.isSymbolicLink()) throw new ContractError(label, "", "is a symbolic link: name the folder itself");
  if (!info.isDirectory()) throw new ContractError(label, "", "must be a folder of skills (<name>/SKILL.md)");
  const files: Found[] = [];
  const folders: string[][] = [];
  await walk(root, [], label, files, folders);
  for (const f of [[], ...folders]) options.read?.add(join(root, ...f));
  const at = (segments: string[]) => `${label}/${segments.join("/")}`;

  const skillDirs = files.filter((f) => f.segments.at(-1) === SKILL_MD).map((f) => f.segments.slice(0, -1));
  if (skillDirs.some((d) => d.length === 0))
    throw new ContractError(
      at([SKILL_MD]),
      "",
      "the skills folder itself is no skill: put each skill in a folder named after it",
    );
  if (skillDirs.length === 0)
    throw new ContractError(label, "", "holds no skill: a skill is a folder with a SKILL.md in it");

  const inside = (file: string[], folder: string[]) =>
    file.length > folder.length && folder.every((s, i) => file[i] === s);
  const served = files.filter((f) => skillDirs.some((d) => inside(f.segments, d)));
  // Checked on the listed sizes before anything is read, and on the bytes after.
  for (const d of skillDirs)
    overLimits(
      served.filter((f) => inside(f.segments, d)),
      at([...d, SKILL_MD]),
    );

  const bytes = new Map<string, Uint8Array>();
  for (const f of served) {
    const path = join(root, ...f.segments);
    bytes.set(f.segments.join("/"), await readFile(path));
    options.read?.add(path);
  }
  const uriOf = (segments: string[]) => `skill://${segments.map(encodeURIComponent).join("/")}`;
  const contents: Record<string, SkillFileContent> = {};
  const resources = new Map<string, { uri: string; digest: string; size: number }>();
  for (const f of served) {
    const data = bytes.get(f.segments.join("/"))!;
    f.size = data.length;
    const uri = uriOf(f.segments);
    contents[uri] = { mimeType: mimeTypeOf(f.segments.at(-1)!), ...contentOf(data) };
    resources.set(f.segments.join("/"), {
      uri,
      digest: `sha256:${createHash("sha256").update(data).digest("hex")}`,
      size: data.length,
    });
  }

  const skills: Skill[] = [];
  for (const d of skillDirs) {
    const where = at([...d, SKILL_MD]);
    const md = contents[uriOf([...d, SKILL_MD])]!;
    if (!("text" in md)) throw new ContractError(where, "", "is not UTF-8 text");
    const read = skillFrontmatter(md.text);
    if ("problem" in read)
      throw new ContractError(
        where,
        read.problem.where && `frontmatter.${read.problem.where}`,
        read.problem.reason,
      );
    const { frontmatter } = read;
    if (frontmatter.name !== d.at(-1))
      throw new ContractError(
        where,
        "frontmatter.name",
        `${JSON.stringify(frontmatter.name)} must be the name of the skill's folder, ${JSON.stringify(d.at(-1))}`,
      );
    contents[uriOf([...d, SKILL_MD])] = { ...md, mimeType: SKILL_MD_MIME_TYPE };
    const own = served.filter((f) => inside(f.segments, d)).map((f) => resources.get(f.segments.join("/"))!);
    overLimits(own, where);
    skills.push({ uri: uriOf([...d, SKILL_MD]), frontmatter, resources: byUri(own) });
  }

  return {
    directoryRead: options.directoryRead ?? true,
    skills: byUri(skills),
    files: sortedRecord(contents),
    directories: directoriesOf(served, folders, skillDirs, contents, uriOf, inside),
  };
}

/** Every file and folder below `dir`, in name order; a link or anything but a file or folder refused. */
async function walk(dir: string, segments: string[], label: string, files: Found[], folders: string[][]) {
  const entries = (await readdir(dir, { withFileTypes: true })).sort((a, b) =>
    a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
  );
  for (const entry of entries) {
    const path = [...segments, entry.name];
    const where = `${label}/${path.join("/")}`;
    if (entry.isSymbolicLink())
      throw new ContractError(where, "", "is a symbolic link: a skill serves only what is in its folder");
    if (entry.isDirectory()) {
      folders.push(path);
      await walk(join(dir, entry.name), path, label, files, folders);
    } else if (entry.isFile()) {
      files.push({ segments: path, size: (await lstat(join(dir, entry.name))).size });
    } else throw new ContractError(where, "", "is neither a file nor a folder");
  }
}

/** A ContractError when `files` (one skill's) exceed the extension's limits. */
function overLimits(files: readonly { size: number }[], where: string): void {
  if (files.length > MAX_SKILL_FILES)
    throw new ContractError(
      where,
      "",
      `the skill has ${files.length} files, more than the ${MAX_SKILL_FILES} the Skills extension allows`,
    );
  const total = files.reduce((sum, f) => sum + f.size, 0);
  if (total > MAX_SKILL_BYTES)
    throw new ContractError(
      where,
      "",
      `the skill's files hold ${total} bytes, more than the ${MAX_SKILL_BYTES} (16 MiB) the Skills extension allows`,
    );
}

/**
 * The directory resources: each skill's root and the folders in it, and the folders above skills. Each
 * lists its served files and its folders; files that belong to no skill are neither.
 */
function directoriesOf(
  served: readonly Found[],
  folders: readonly string[][],
  skillDirs: readonly string[][],
  contents: Readonly<Record<string, SkillFileContent>>,
  uriOf: (segments: string[]) => string,
  inside: (path: string[], folder: string[]) => boolean,
): Record<string, SkillDirectoryChild[]> {
  const isDirectory = (f: string[]) =>
    skillDirs.some((d) => d.every((s, i) => f[i] === s) && f.length >= d.length) ||
    skillDirs.some((d) => inside(d, f));
  const directories = folders.filter(isDirectory);
  const children: Record<string, SkillDirectoryChild[]> = {};
  for (const d of directories) children[uriOf(d)] = [];
  const parentOf = (path: string[]) => children[uriOf(path.slice(0, -1))];
  for (const d of directories)
    parentOf(d)?.push({ uri: uriOf(d), name: d.at(-1)!, mimeType: DIRECTORY_MIME_TYPE });
  for (const f of served) {
    const uri = uriOf(f.segments);
    parentOf(f.segments)?.push({
      uri,
      name: f.segments.at(-1)!,
      mimeType: contents[uri]!.mimeType,
      size: f.size,
    });
  }
  for (const list of Object.values(children)) list.sort(compareUri);
  return sortedRecord(children);
}

const compareUri = (a: { uri: string }, b: { uri: string }) => (a.uri < b.uri ? -1 : a.uri > b.uri ? 1 : 0);
const byUri = <T extends { uri: string }>(items: T[]): T[] => [...items].sort(compareUri);

function sortedRecord<T>(record: Record<string, T>): Record<string, T> {
  const out: Record<string, T> = {};
  for (const key of Object.keys(record).sort()) out[key] = record[key]!;
  return out;
}
