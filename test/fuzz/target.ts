/**
 * The fuzz campaign's target (test/fixtures/fuzz/server.ts) as a child process with --expose-gc, from
 * the TypeScript sources; `flags`: `--stdio`, or `--http [--stateless]`.
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const REPO = fileURLToPath(new URL("../../", import.meta.url));
const ARGS = [
  "--expose-gc",
  "--import",
  "tsx",
  "--conditions=mcp-codegen-source",
  "test/fixtures/fuzz/server.ts",
];

export function spawnTarget(flags: string[]): ChildProcessWithoutNullStreams {
  return spawn(process.execPath, [...ARGS, ...flags], { cwd: REPO, stdio: ["pipe", "pipe", "pipe"] });
}
