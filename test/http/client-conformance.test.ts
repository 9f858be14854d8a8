/**
 * The official conformance suite's client scenarios over Streamable HTTP, run by its own CLI against
 * test/fixtures/http-client/conformance-client.ts (the generated client on connectHttp). sse-retry checks
 * that a closed response stream is resumed with GET + Last-Event-ID no sooner than the server's `retry:`.
 */
import { execFile } from "node:child_process";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";

const REPO = fileURLToPath(new URL("../../", import.meta.url));
const CLIENT = `${REPO}node_modules/.bin/tsx --conditions=mcp-codegen-source ${REPO}test/fixtures/http-client/conformance-client.ts`;
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

async function scenario(name: string): Promise<Check[]> {
  const out = await mkdtemp(join(tmpdir(), "mcp-http-conformance-"));
  dirs.push(out);
  await run(
    `${REPO}node_modules/.bin/conformance`,
    ["client", "--command", CLIENT, "--scenario", name, "--timeout", "30000", "-o", out],
    { cwd: REPO, timeout: 60_000 },
  ).catch((error: { stdout?: string; stderr?: string }) => {
    throw new Error(`conformance ${name} failed:\n${error.stdout ?? ""}\n${error.stderr ?? ""}`);
  });
  const [dir] = await readdir(out);
  return JSON.parse(await readFile(join(out, dir!, "checks.json"), "utf8")) as Check[];
}

const verdicts = (checks: Check[]) =>
  checks
    .filter((c) => c.status !== "INFO")
    .map((c) => `${c.id}: ${c.status}${c.errorMessage ? ` (${c.errorMessage})` : ""}`);

describe("conformance client scenarios over HTTP", () => {
  it("sse-retry: reconnects after the retry delay, with Last-Event-ID", async () => {
    const checks = await scenario("sse-retry");
    expect(verdicts(checks)).toEqual([
      "client-sse-graceful-reconnect: SUCCESS",
      "client-sse-retry-timing: SUCCESS",
      "client-sse-last-event-id: SUCCESS",
    ]);
  });

  it.each(["initialize", "tools_call"])("%s passes", async (name) => {
    const checks = await scenario(name);
    expect(checks.some((c) => c.status === "SUCCESS")).toBe(true);
    expect(verdicts(checks).filter((v) => !v.includes(": SUCCESS"))).toEqual([]);
  });
});
