/**
 * Watches a project for `dev`: its top folder and each folder in it (recursively) but the ones named in
 * `skip` (node_modules, the output folder, …). Events are debounced, and a file whose content is the
 * same as last seen (an editor's second write, a file `dev` wrote itself and `remember`ed) is dropped.
 */

import { createHash } from "node:crypto";
import { type FSWatcher, watch } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";

export interface ProjectWatcher {
  /** Records a file's current content as seen, so the write `dev` just made is not reported back. */
  remember(path: string): Promise<void>;
  close(): void;
}

export interface WatchOptions {
  /** Top-level folder names not watched. */
  skip: readonly string[];
  debounceMs?: number;
}

/** Editors' swap and backup files. */
const SCRATCH = /(?:\.swp|\.swx|~|\.tmp|\.DS_Store)$|(?:^|\/)\.#|\.tmp-\d+/;

/** A file's content hash; "missing" once deleted; undefined for a folder (its files are reported). */
const fingerprint = (path: string) =>
  readFile(path).then(
    (b): string | undefined => createHash("sha256").update(b).digest("hex"),
    (e: NodeJS.ErrnoException) => (e.code === "EISDIR" ? undefined : "missing"),
  );

export async function watchProject(
  root: string,
  options: WatchOptions,
  onChange: (paths: string[]) => void,
): Promise<ProjectWatcher> {
  const seen = new Map<string, string>();
  const pending = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  const flush = async () => {
    timer = undefined;
    const paths = [...pending];
    pending.clear();
    const changed: string[] = [];
    for (const path of paths) {
      const print = await fingerprint(path);
      if (print === undefined || seen.get(path) === print) continue;
      seen.set(path, print);
      changed.push(path);
    }
    if (changed.length > 0) onChange(changed.sort());
  };
  const note = (dir: string) => (_event: string, name: string | Buffer | null) => {
    if (name === null) return;
    const path = join(dir, name.toString());
    if (SCRATCH.test(path)) return;
    pending.add(path);
    clearTimeout(timer);
    timer = setTimeout(flush, options.debounceMs ?? 30);
  };
  const watchers: FSWatcher[] = [watch(root, note(root))];
  for (const entry of await readdir(root, { withFileTypes: true })) {
    if (!entry.isDirectory() || entry.name.startsWith(".") || options.skip.includes(entry.name)) continue;
    const dir = join(root, entry.name);
    watchers.push(watch(dir, { recursive: true }, note(dir)));
  }
  return {
    remember: async (path) => {
      const print = await fingerprint(path);
      if (print !== undefined) seen.set(path, print);
    },
    close: () => {
      clearTimeout(timer);
      for (const w of watchers) w.close();
    },
  };
}
