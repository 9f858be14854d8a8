import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { REPO } from "./run.js";

const TSX_LOADER = import.meta.resolve("tsx");
const TRACE = `${REPO}test/support/module-trace.mjs`;

/** The libraries only generation needs: what a command that generates nothing must not load. */
export const HEAVY = [
  "ts-morph",
  "json-schema-to-typescript",
  "@dprint",
  "handlebars",
  "recheck",
  "fast-check",
];

/**
 * Runs the CLI from source as a real process, as `runCli` does, and says which modules it loaded: every
 * URL resolved by `import` or `require` (test/support/module-trace.mjs).
 */
export function runCliTraced(args: string[], opts: { cwd?: string } = {}) {
  const dir = mkdtempSync(join(tmpdir(), "mcp-codegen-trace-"));
  try {
    const file = join(dir, "modules.txt");
    const result = spawnSync(
      process.execPath,
      [
        "--import",
        TRACE,
        "--import",
        TSX_LOADER,
        "--conditions=mcp-codegen-source",
        `${REPO}generator/cli/index.ts`,
        ...args,
      ],
      {
        cwd: opts.cwd ?? REPO,
        env: { ...process.env, MODULE_TRACE_FILE: file },
        encoding: "utf8",
        timeout: 60_000,
      },
    );
    const modules = readFileSync(file, "utf8").split("\n").filter(Boolean);
    return { code: result.status, stdout: result.stdout, stderr: result.stderr, modules };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The packages among `modules` (URLs), by name: `ts-morph`, `@dprint/formatter`. */
export function packagesOf(modules: string[]): Set<string> {
  const names = modules.flatMap((url) => {
    const m = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
    return m ? [m[1]!] : [];
  });
  return new Set(names);
}

/** The heavy libraries (`HEAVY`) among `modules`. */
export const heavyIn = (modules: string[]): string[] =>
  [...packagesOf(modules)].filter((p) => HEAVY.some((h) => p === h || p.startsWith(`${h}/`)));

/** The generator's own source files among `modules`, relative to the repository (`generator/cli/generate.ts`). */
export const ownFilesIn = (modules: string[]): string[] =>
  modules
    .filter((url) => url.startsWith(`file://${REPO}`) && !url.includes("/node_modules/"))
    .map((url) => url.slice(`file://${REPO}`.length));

export const packageVersion = (): string =>
  (JSON.parse(readFileSync(`${REPO}package.json`, "utf8")) as { version: string }).version;
