import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

export const REPO = fileURLToPath(new URL("../../", import.meta.url));

/** Runs the CLI from source as a real process, the way `npx mcp-codegen` would run it. */
export function runCli(args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}) {
  const result = spawnSync(
    `${REPO}node_modules/.bin/tsx`,
    ["--conditions=mcp-codegen-source", `${REPO}generator/cli/index.ts`, ...args],
    {
      cwd: opts.cwd ?? REPO,
      env: { ...process.env, ...opts.env },
      encoding: "utf8",
      timeout: 60_000,
    },
  );
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}
