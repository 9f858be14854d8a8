/**
 * `tsc --noEmit` over a project in a child process (the event loop stays free for the proxy), its
 * errors as one concise line each: `file:line:col message`. Incremental: the build info is kept in
 * `cacheDir`, so a check after an edit re-reads only what changed.
 */

import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

export interface TypeCheck {
  ok: boolean;
  /** `file:line:col message`, in tsc's order. */
  errors: string[];
  /** Set when the check was stopped before it finished (a newer edit, dev exiting). */
  cancelled?: boolean;
}

/** The project's own `tsc` (its typescript devDependency), else the one mcp-codegen resolves. */
export function findTsc(root: string): string {
  for (const from of [join(root, "package.json"), import.meta.url]) {
    try {
      const pkgPath = createRequire(from).resolve("typescript/package.json");
      const pkg = JSON.parse(readFileSync(pkgPath, "utf8")) as { bin?: { tsc?: string } };
      if (pkg.bin?.tsc) return join(dirname(pkgPath), pkg.bin.tsc);
    } catch {
      // not resolvable from here: try the next place
    }
  }
  throw new Error("typescript is not installed in the project: npm install -D typescript");
}

/** tsc's plain (`--pretty false`) diagnostics: `file(line,col): error TSnnnn: message`. */
const DIAGNOSTIC = /^(.+?)\((\d+),(\d+)\): error (TS\d+): (.*)$/;

export function parseDiagnostics(output: string): string[] {
  const errors: string[] = [];
  for (const line of output.split("\n")) {
    const m = DIAGNOSTIC.exec(line.trimEnd());
    if (m) errors.push(`${m[1]}:${m[2]}:${m[3]} ${m[5]} (${m[4]})`);
    else if (/^error TS\d+:/.test(line)) errors.push(line.trimEnd());
  }
  return errors;
}

export interface TypeCheckOptions {
  tsc: string;
  cacheDir: string;
  /** Module resolution conditions (`--customConditions`); none: the tsconfig's. */
  conditions: readonly string[];
  signal?: AbortSignal;
}

export function typeCheck(root: string, options: TypeCheckOptions): Promise<TypeCheck> {
  const args = [
    options.tsc,
    "--noEmit",
    "-p",
    "tsconfig.json",
    "--pretty",
    "false",
    "--incremental",
    "--tsBuildInfoFile",
    join(options.cacheDir, "tsconfig.tsbuildinfo"),
    ...(options.conditions.length > 0 ? ["--customConditions", options.conditions.join(",")] : []),
  ];
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd: root, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (s: string) => {
      out += s;
    });
    child.stderr.setEncoding("utf8").on("data", (s: string) => {
      out += s;
    });
    const abort = () => child.kill("SIGKILL");
    options.signal?.addEventListener("abort", abort, { once: true });
    child.on("error", (e) => resolve({ ok: false, errors: [`tsc: ${e.message}`] }));
    child.on("close", (code) => {
      options.signal?.removeEventListener("abort", abort);
      if (options.signal?.aborted) return resolve({ ok: false, errors: [], cancelled: true });
      const errors = parseDiagnostics(out);
      if (code !== 0 && errors.length === 0)
        errors.push(`tsc exited with ${code}: ${out.trim().split("\n")[0] ?? ""}`);
      resolve({ ok: code === 0, errors });
    });
  });
}
