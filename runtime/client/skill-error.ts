/** Why a skill, or one of its files, was not handed over: nothing unverified ever is. */

/** What failed: the entry itself, a file's size or digest, the frontmatter, a path, a read, a limit. */
export type SkillRefusal =
  | "entry"
  | "limit"
  | "dynamic"
  | "size"
  | "digest"
  | "frontmatter"
  | "path"
  | "read";

export class SkillVerificationError extends Error {
  override name = "SkillVerificationError";

  constructor(
    /** The skill's `SKILL.md` URI. */
    readonly skill: string,
    /** The URI that failed (the skill's, or one of its files'). */
    readonly uri: string,
    readonly refusal: SkillRefusal,
    /** What differed, in words. */
    readonly detail: string,
  ) {
    super(uri === skill ? `skill ${skill}: ${detail}` : `skill ${skill}: ${uri}: ${detail}`);
  }
}
