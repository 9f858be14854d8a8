/**
 * What a server serves of the Skills extension: every skill's entry, every file's content and every
 * directory's children, computed before the server starts (by the generator from a contract's `skills:`
 * folder, or by `skillsTable(dir)` for a handwritten server) so what is served is what was digested, and
 * no file is read at run time.
 */

import type { Skill } from "../mcp/skills.js";

/** One file of a skill tree as `resources/read` answers it: its text when it is UTF-8, else base64. */
export type SkillFileContent =
  | { readonly mimeType: string; readonly text: string }
  | { readonly mimeType: string; readonly blob: string };

/** A directory's child as `resources/directory/read` lists it (a folder has `mimeType: inode/directory`). */
export interface SkillDirectoryChild {
  readonly uri: string;
  readonly name: string;
  readonly mimeType: string;
  /** A file's size in bytes. */
  readonly size?: number;
}

export interface SkillsTable {
  /** The server answers `resources/directory/read` (declared as `directoryRead: true`). */
  readonly directoryRead: boolean;
  /** Every skill's entry (`skills/list`, `skills/get`), sorted by URI. */
  readonly skills: readonly Skill[];
  /** Every file of every skill, by URI. */
  readonly files: Readonly<Record<string, SkillFileContent>>;
  /** Every directory (skill roots, their folders, and the folders above them), by URI: its children, sorted. */
  readonly directories: Readonly<Record<string, readonly SkillDirectoryChild[]>>;
}

/** Where `serveContract` puts a contract's skills table on each handler it makes, for the server to find. */
export const SKILLS_TABLE: unique symbol = Symbol.for("mcp-codegen.skillsTable");

/** The `skills` option, else the table a contract's handlers carry, else none. */
export function skillsTableOf(
  option: SkillsTable | undefined,
  handlers: Readonly<Record<string, unknown>>,
): SkillsTable | undefined {
  if (option) return option;
  for (const handler of Object.values(handlers)) {
    const table =
      typeof handler === "function" && (handler as { [SKILLS_TABLE]?: SkillsTable })[SKILLS_TABLE];
    if (table) return table;
  }
  return undefined;
}
