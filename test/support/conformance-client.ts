/**
 * Runs one client scenario of the official conformance suite through its own CLI (its mock servers on
 * localhost) against a client command, and returns the checks it wrote and its output.
 */
import { execFile } from "node:child_process";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

export const REPO = fileURLToPath(new URL("../../", import.meta.url));
const run = promisify(execFile);

export interface Check {
  id: string;
  status: "SUCCESS" | "FAILURE" | "WARNING" | "INFO" | "SKIPPED";
  errorMessage?: string;
}

/** `command` is split on spaces by the suite; `version` adds `--spec-version`. Output folders are removed. */
export async function conformanceClient(
  command: string,
  scenario: string,
  version?: string,
): Promise<{ checks: Check[]; output: string }> {
  const out = await mkdtemp(join(tmpdir(), "mcp-conformance-client-"));
  try {
    // The suite needs Node 22: node_modules/.bin first on PATH gives it the `node` dev dependency.
    const env = { ...process.env, PATH: `${REPO}node_modules/.bin:${process.env.PATH ?? ""}` };
    const args = ["client", "--command", command, "--scenario", scenario];
    if (version) args.push("--spec-version", version);
    const { stdout, stderr } = await run(
      `${REPO}node_modules/.bin/conformance`,
      [...args, "--timeout", "30000", "-o", out],
      { cwd: REPO, env, timeout: 60_000 },
    ).catch((error: { stdout?: string; stderr?: string }) => {
      throw new Error(`conformance ${scenario} failed:\n${error.stdout ?? ""}\n${error.stderr ?? ""}`);
    });
    const [dir] = await readdir(out);
    const checks = JSON.parse(await readFile(join(out, dir!, "checks.json"), "utf8")) as Check[];
    return { checks, output: `${stdout}\n${stderr}` };
  } finally {
    await rm(out, { recursive: true, force: true });
  }
}
