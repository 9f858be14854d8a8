/**
 * TypeScript the generator emitted, as JavaScript: types erased by the TypeScript compiler itself,
 * optionally remembered by the sha256 of the source. Compiling is most of what regenerating a changed
 * contract costs, and most edits leave most modules' code as it was.
 */

import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ts } from "../util/ts-morph.js";

/** Compiled JavaScript by `sourceKey` of what it was compiled from; a run adds what it compiles. */
export interface CompiledMemo {
  get(key: string): string | undefined;
  set(key: string, js: string): unknown;
}

/**
 * A memo in a folder of this user's (the schema cache), one file per source: for code the generator runs
 * itself, which must not come from a project's files (a checkout's stamp could hold anything). The
 * compiler's version is in each name. A folder that cannot be written only means compiling again.
 */
export function folderMemo(dir: string): CompiledMemo {
  const path = (key: string) => join(dir, `${key}.${ts.version}.js`);
  return {
    get: (key) => {
      try {
        return readFileSync(path(key), "utf8");
      } catch {
        return undefined;
      }
    },
    set: (key, js) => {
      try {
        mkdirSync(dir, { recursive: true });
        const tmp = `${path(key)}.${process.pid}.tmp`;
        writeFileSync(tmp, js);
        renameSync(tmp, path(key));
      } catch {
        // Not cached: the next run compiles it again.
      }
    },
  };
}

/** `esm`: a module to ship (`validators.js`); `cjs`: code to run in memory with a `require` of one's own. */
export type ModuleKind = "esm" | "cjs";

/** How a memo names a source compiled as `kind`. */
export const sourceKey = (source: string, kind: ModuleKind): string =>
  createHash("sha256").update(`${kind}\0${source}`).digest("hex");

/** The compiler's version: what a memo kept across runs is valid for. */
export const compilerVersion = (): string => ts.version;

/** The generator's own code only, so there are no diagnostics to report. */
export function transpile(source: string, kind: ModuleKind, memo?: CompiledMemo): string {
  const key = memo && sourceKey(source, kind);
  const known = key === undefined ? undefined : memo!.get(key);
  if (known !== undefined) return known;
  const js = ts.transpileModule(source, {
    compilerOptions:
      kind === "esm"
        ? { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, newLine: ts.NewLineKind.LineFeed }
        : { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 },
  }).outputText;
  if (key !== undefined) memo!.set(key, js);
  return js;
}
