/**
 * Watches a project for `dev`: its top folder and every folder below it but the top-level ones named in
 * `skip` (node_modules, the output folder, …) and hidden ones; folders created later are added. Events are debounced, and a file whose content is the
 * same as last seen (an editor's second write, a file `dev` wrote itself and `remember`ed) is dropped.
 */

import { createHash } from "node:crypto";
import { type FSWatcher, watch } from "node:fs";
import { readdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";

export interface ProjectWatcher {
  /** Records a file's current content as seen, so the write `dev` just made is not reported back. */
  remember(path: string): Promise<void>;
  close(): void;
}

export interface WatchOptions {
  /** Top-level folder names not watched (node_modules is not watched at any depth). */
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
  // One non-recursive watcher per folder: a folder's watcher sees a file replaced by rename (an atomic
  // save), which Node's recursive mode on Linux, watching each file, loses track of.
  const watchers = new Map<string, FSWatcher>();
  const skipped = (name: string, depth: number) =>
    name === "node_modules" || (depth === 0 && options.skip.includes(name));
  const add = async (dir: string, depth: number) => {
    if (watchers.has(dir)) return;
    const watcher = watch(dir, (_event, name) => {
      if (name === null) return;
      const path = join(dir, name.toString());
      if (SCRATCH.test(path)) return;
      if (!skipped(name.toString(), depth))
        void stat(path).then(
          (info) =>
            info.isDirectory() && !name.toString().startsWith(".") ? add(path, depth + 1) : undefined,
          () => undefined,
        );
      pending.add(path);
      clearTimeout(timer);
      timer = setTimeout(flush, options.debounceMs ?? 30);
    });
    watcher.on("error", () => {
      watcher.close();
      watchers.delete(dir);
    });
    watchers.set(dir, watcher);
    for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
      if (!entry.isDirectory() || entry.name.startsWith(".") || skipped(entry.name, depth)) continue;
      await add(join(dir, entry.name), depth + 1);
    }
  };
  await add(root, 0);
  return {
    remember: async (path) => {
      const print = await fingerprint(path);
      if (print !== undefined) seen.set(path, print);
    },
    close: () => {
      clearTimeout(timer);
      for (const w of watchers.values()) w.close();
      watchers.clear();
    },
  };
}
