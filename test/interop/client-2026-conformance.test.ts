/**
 * The official conformance suite's 2026-07-28 client scenarios, run by its own CLI (real mock servers on
 * localhost) against examples/everything-client at `--spec-version 2026-07-28`: every check passes (or is
 * skipped as not applicable), none warns, and the client exits 0. test/conformance/run.ts runs the same
 * scenarios as part of the whole suite.
 */
import { execFile } from "node:child_process";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";

const REPO = fileURLToPath(new URL("../../", import.meta.url));
// Relative to REPO: the suite splits the command on spaces.
const CLIENT = "node_modules/.bin/tsx --conditions=mcp-codegen-source examples/everything-client/main.ts";
const run = promisify(execFile);
const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

interface Check {
  id: string;
  status: "SUCCESS" | "FAILURE" | "WARNING" | "INFO" | "SKIPPED";
  errorMessage?: string;
}

async function scenario(name: string): Promise<{ checks: Check[]; output: string }> {
  const out = await mkdtemp(join(tmpdir(), "mcp-2026-conformance-"));
  dirs.push(out);
  // The suite needs Node 22: node_modules/.bin first on PATH gives it the `node` dev dependency.
  const env = { ...process.env, PATH: `${REPO}node_modules/.bin:${process.env.PATH ?? ""}` };
  const args = ["client", "--command", CLIENT, "--scenario", name, "--spec-version", "2026-07-28"];
  const { stdout, stderr } = await run(
    `${REPO}node_modules/.bin/conformance`,
    [...args, "--timeout", "30000", "-o", out],
    { cwd: REPO, env, timeout: 60_000 },
  ).catch((error: { stdout?: string; stderr?: string }) => {
    throw new Error(`conformance ${name} failed:\n${error.stdout ?? ""}\n${error.stderr ?? ""}`);
  });
  const [dir] = await readdir(out);
  const checks = JSON.parse(await readFile(join(out, dir!, "checks.json"), "utf8")) as Check[];
  return { checks, output: `${stdout}\n${stderr}` };
}

/** Scenario → how many checks succeed (the rest are skipped as not applicable, or INFO). */
const SCENARIOS: ReadonlyArray<readonly [string, number]> = [
  ["tools_call", 2],
  // Roots and elicitation declared; sampling not (this client cannot sample), so its check is skipped.
  ["request-metadata", 7],
  ["sep-2322-client-request-state", 5],
  ["http-standard-headers", 9],
  ["http-custom-headers", 18],
  ["http-invalid-tool-headers", 12],
  ["json-schema-ref-no-deref", 1],
  ["json-schema-2020-12-preservation", 9],
];

describe("conformance client scenarios at 2026-07-28", () => {
  it.each(SCENARIOS)("%s: %i checks pass, none fails or warns", async (name, successes) => {
    const { checks, output } = await scenario(name);
    const bad = checks.filter((c) => c.status === "FAILURE" || c.status === "WARNING");
    expect(bad.map((c) => `${c.id}: ${c.status} ${c.errorMessage ?? ""}`)).toEqual([]);
    expect(checks.filter((c) => c.status === "SUCCESS")).toHaveLength(successes);
    expect(output).toContain("OVERALL: PASSED");
  });
});
