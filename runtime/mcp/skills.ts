/**
 * The Skills extension (`io.modelcontextprotocol/skills`, SEP-2640) on the wire, shared by server and client.
 * The extension publishes no JSON Schema, so these shapes are written from its specification
 * (`specification/stable/skills.mdx` in modelcontextprotocol/ext-skills) and held to the conformance
 * suite's `sep-2640-*` checks. It binds to the stateless era (2026-07-28 on).
 */

export const SKILLS_EXTENSION = "io.modelcontextprotocol/skills";

/** The extension's methods. */
export const SKILLS_LIST = "skills/list";
export const SKILLS_GET = "skills/get";
export const DIRECTORY_READ = "resources/directory/read";

/** The URI scheme skill files SHOULD use. */
export const SKILL_SCHEME = "skill:";
/** The mime type of a directory resource (a skill root or one of its folders). */
export const DIRECTORY_MIME_TYPE = "inode/directory";
/** The mime type `SKILL.md` SHOULD be served with. */
export const SKILL_MD_MIME_TYPE = "text/markdown";
/** The prefix of `_meta` (and frontmatter `metadata`) keys the extension reserves. */
export const RESERVED_META_PREFIX = "io.modelcontextprotocol.skills/";

/** A skill's `resources` entry list is complete and bounded: at most this many files ... */
export const MAX_SKILL_FILES = 512;
/** ... of at most this many bytes in total. */
export const MAX_SKILL_BYTES = 16 * 1024 * 1024;

/** What a server declares under `capabilities.extensions[SKILLS_EXTENSION]` (settings inline). */
export interface SkillsCapability {
  /** The server answers `resources/directory/read`. */
  readonly directoryRead?: boolean;
}

/** One file of a skill, as its entry lists it: the client checks what it reads against both. */
export interface SkillFile {
  readonly uri: string;
  /** `sha256:` and 64 lowercase hex digits, over the file's bytes. */
  readonly digest: string;
  /** The file's size in bytes. */
  readonly size: number;
}

/** The skill's YAML frontmatter, as JSON, verbatim; `name` and `description` are always there. */
export interface SkillFrontmatter {
  readonly name: string;
  readonly description: string;
  readonly [field: string]: unknown;
}

/** A `skills/list` or `skills/get` entry. */
export interface Skill {
  /** The URI of the skill's `SKILL.md`. */
  readonly uri: string;
  readonly frontmatter: SkillFrontmatter;
  /** Every file of the skill (SKILL.md included, nested skills' files too), or "dynamic" when not fixed. */
  readonly resources: readonly SkillFile[] | "dynamic";
}

/** Digest format of a skill file: `sha256:` and 64 lowercase hex digits. */
export const SKILL_DIGEST = /^sha256:[0-9a-f]{64}$/;

/**
 * The Agent Skills naming rules for a skill's `name` (and the last segment of its path): 1–64 characters,
 * lowercase letters, digits and hyphens, neither starting nor ending with a hyphen, no two in a row.
 */
export const isSkillName = (name: string): boolean =>
  name.length >= 1 && name.length <= 64 && /^[a-z0-9]+(?:-[a-z0-9]+)*$/.test(name);
