/** Keeping a user's file before it is replaced: never overwritten silently, never a backup overwritten. */

import { constants } from "node:fs";
import { copyFile } from "node:fs/promises";

/**
 * Copies `path` to the first free name of `<path>.bak`, `<path>.bak.1`, … and returns it. The copy is
 * exclusive (a name taken meanwhile is skipped), and the original stays in place until its replacement
 * is written.
 */
export async function backupFile(path: string): Promise<string> {
  for (let n = 0; ; n++) {
    const target = n === 0 ? `${path}.bak` : `${path}.bak.${n}`;
    try {
      await copyFile(path, target, constants.COPYFILE_EXCL);
      return target;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
    }
  }
}
