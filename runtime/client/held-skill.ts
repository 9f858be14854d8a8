/**
 * A loaded skill: its entry, verified `SKILL.md`, and `readFile` for the rest. While a host acts on a
 * skill it reads only what the held entry lists, each read verified again (the server may change a file
 * after the entry was taken); a "dynamic" skill (loaded only when asked for) reads what lies under its
 * root, within the extension's 16 MiB for the whole skill.
 */

import type { RequestOptions } from "../jsonrpc/connection.js";
import { MAX_SKILL_BYTES, type Skill, type SkillFile, type SkillFrontmatter } from "../mcp/skills.js";
import { skillRoot } from "./skill-entry.js";
import { SkillVerificationError } from "./skill-error.js";
import { type ReadResource, readSkillFile, type SkillFileContent } from "./skill-read.js";

export class HeldSkill {
  /** The skill's folder URI (ends with `/`): what `readFile` paths are relative to. */
  readonly root: string;
  readonly frontmatter: SkillFrontmatter;
  /** Bytes a "dynamic" skill has read so far. */
  #spent: number;
  readonly #files: ReadonlyMap<string, SkillFile> | undefined;
  readonly #read: ReadResource;

  constructor(
    /** The entry the skill was verified against (a copy: the caller's object can no longer change it). */
    readonly entry: Skill,
    /** The verified `SKILL.md`, frontmatter included. */
    readonly content: SkillFileContent & { text: string },
    read: ReadResource,
  ) {
    this.root = skillRoot(entry.uri);
    this.frontmatter = entry.frontmatter;
    this.#read = read;
    this.#spent = entry.resources === "dynamic" ? content.bytes.length : 0;
    this.#files = entry.resources === "dynamic" ? undefined : new Map(entry.resources.map((f) => [f.uri, f]));
  }

  get uri(): string {
    return this.entry.uri;
  }

  /** The skill's files as paths relative to its root (`SKILL.md`, `references/FORMS.md`); none for a dynamic skill. */
  get files(): string[] {
    return this.#files ? [...this.#files.keys()].map((uri) => uri.slice(this.root.length)) : [];
  }

  /**
   * A file of the skill by its path relative to the root (or its full URI), read and verified; a path
   * outside the skill, or one its entry does not list, is refused before anything is read.
   */
  async readFile(path: string, options: RequestOptions = {}): Promise<SkillFileContent> {
    const uri = this.#resolve(path);
    const file = this.#files ? this.#files.get(uri) : { uri };
    if (!file) throw new SkillVerificationError(this.uri, uri, "path", "not a file the skill's entry lists");
    const content = await readSkillFile(this.#read, this.uri, file, MAX_SKILL_BYTES - this.#spent, options);
    if (!this.#files) this.#spent += content.bytes.length;
    return content;
  }

  #resolve(path: string): string {
    const refuse = (why: string) => new SkillVerificationError(this.uri, path, "path", why);
    if (path.startsWith(this.root)) path = path.slice(this.root.length);
    else if (/^[A-Za-z][A-Za-z0-9+.-]*:/.test(path)) throw refuse(`not under the skill's root ${this.root}`);
    if (path.startsWith("/") || path.includes("\\")) throw refuse("not a relative path");
    // Encoded dots and slashes would let a server's own decoding step outside the root.
    if (/%(2e|2f|5c)/i.test(path)) throw refuse("an encoded '.', '/' or '\\' in the path");
    const segments: string[] = [];
    for (const segment of path.split("/")) {
      if (segment === "" || segment === ".") continue;
      if (segment !== "..") segments.push(segment);
      else if (segments.pop() === undefined) throw refuse("it leaves the skill's root");
    }
    if (segments.length === 0) throw refuse("it names the skill's root, not a file");
    return this.root + segments.join("/");
  }
}
