/**
 * The server's entry bundled with esbuild (the scaffold's own build tool, from the project's
 * node_modules), kept as an incremental context: a rebuild after an edit takes milliseconds. Output
 * stays in memory until `write`, so a bundle that fails the type check never reaches disk.
 */

import { mkdir, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join, relative } from "node:path";

/** The subset of esbuild's API used here (esbuild is the project's dependency, not ours). */
interface Esbuild {
  context(options: Record<string, unknown>): Promise<{
    rebuild(): Promise<{
      errors: { text: string; location?: { file: string; line: number; column: number } | null }[];
      outputFiles?: { path: string; contents: Uint8Array }[];
    }>;
    dispose(): Promise<void>;
  }>;
}

export interface Bundle {
  /** The written files' contents, by path relative to the output folder. */
  files: Map<string, Uint8Array>;
}

export interface Bundler {
  /** Bundles the entry; throws a BundleError naming each place that does not build. */
  build(): Promise<Bundle>;
  /** Writes a bundle into `<outDir>/<slot>/`; returns the path of its main file. */
  write(bundle: Bundle, slot: string): Promise<string>;
  dispose(): Promise<void>;
}

export class BundleError extends Error {
  constructor(readonly errors: string[]) {
    super(errors.join("\n"));
    this.name = "BundleError";
  }
}

function loadEsbuild(root: string): Esbuild {
  for (const from of [join(root, "package.json"), import.meta.url]) {
    try {
      return createRequire(from)("esbuild") as Esbuild;
    } catch {
      // not resolvable from here: try the next place
    }
  }
  throw new Error("esbuild is not installed in the project: npm install -D esbuild");
}

const MAIN = "main.js";

/**
 * Every bundle is written one level below `outDir` (`<outDir>/<slot>/main.js`), so the relative paths in
 * its source map hold in any slot.
 */
export async function createBundler(
  root: string,
  entry: string,
  outDir: string,
  conditions: readonly string[],
): Promise<Bundler> {
  const esbuild = loadEsbuild(root);
  const ctx = await esbuild.context({
    absWorkingDir: root,
    entryPoints: [entry],
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node22",
    outfile: join(outDir, "slot", MAIN),
    sourcemap: "linked",
    conditions: [...conditions],
    write: false,
    logLevel: "silent",
  });
  return {
    async build() {
      const result = await ctx.rebuild().catch((e: { errors?: Parameters<typeof describe>[0] }) => {
        throw new BundleError(describe(e.errors ?? [{ text: String(e) }]));
      });
      if (result.errors.length > 0) throw new BundleError(describe(result.errors));
      const files = new Map<string, Uint8Array>();
      const slotDir = join(outDir, "slot");
      for (const f of result.outputFiles ?? []) files.set(relative(slotDir, f.path), f.contents);
      return { files };
    },
    async write(bundle, slot) {
      const dir = join(outDir, slot);
      await mkdir(dir, { recursive: true });
      for (const [name, contents] of bundle.files) {
        await mkdir(dirname(join(dir, name)), { recursive: true });
        await writeFile(join(dir, name), contents);
      }
      return join(dir, MAIN);
    },
    dispose: () => ctx.dispose(),
  };
}

function describe(
  errors: { text: string; location?: { file: string; line: number; column: number } | null }[],
) {
  return errors.map((e) =>
    e.location ? `${e.location.file}:${e.location.line}:${e.location.column + 1} ${e.text}` : e.text,
  );
}
