/**
 * `mcp-codegen test` of task tools, against a real server over stdio (the official SDK v1 server with
 * experimental tasks): a tool whose contract says `optional` or `required` is called as a task, polled
 * to its end with its result held to the contract, and called again and cancelled (tasks/get must then
 * say cancelled); a required tool's sampled calls all go as tasks; a task support the server lists
 * otherwise than the contract is a tools/list failure; a tool that creates no task when asked fails.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { REPO, runCli } from "./run.js";

const dir = mkdtempSync(join(tmpdir(), "mcp-test-tasks-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SERVER = [`${REPO}node_modules/.bin/tsx`, `${REPO}test/fixtures/interop/sdk-task-server.ts`, "stdio"];
const DRAFT7 = "http://json-schema.org/draft-07/schema#";

/** The SDK server's tools as it lists them, with `taskSupport` per tool as given. */
function contract(support: { slow: string; fails: string; echo: string }): string {
  const file = join(dir, `${support.slow}-${support.fails}-${support.echo}.json`);
  const tools = {
    slow: {
      inputSchema: {
        $schema: DRAFT7,
        type: "object",
        properties: { ms: { default: 1500, type: "integer", minimum: 0, maximum: 3000 } },
      },
      execution: { taskSupport: support.slow },
    },
    fails: { inputSchema: { type: "object", properties: {} }, execution: { taskSupport: support.fails } },
    echo: {
      inputSchema: {
        $schema: DRAFT7,
        type: "object",
        properties: { text: { type: "string" } },
        required: ["text"],
      },
      execution: { taskSupport: support.echo },
    },
  };
  writeFileSync(file, JSON.stringify({ tools }));
  return file;
}

const test = (file: string) =>
  runCli([
    "test",
    "--contract",
    file,
    "--runs",
    "2",
    "--seed",
    "7",
    "--only",
    "slow,fails,echo",
    "--",
    ...SERVER,
  ]);

describe("mcp-codegen test of task tools (SDK v1 server over stdio)", () => {
  it("creates each task tool's task, polls it to its end, and cancels a second one", () => {
    const r = test(contract({ slow: "optional", fails: "required", echo: "forbidden" }));
    expect(r.stderr).not.toMatch(/error/i);
    expect(r.stdout).toContain("✓ tools/list: the contract's 3 tools, same schemas");
    expect(r.stdout).toMatch(/✓ slow: \d+ runs, \d+ passed; as a task: completed, cancelled\n/);
    // Required: every sampled call went as a task (a plain call is refused), and it fails as it should.
    expect(r.stdout).toMatch(
      /✓ fails: \d+ runs, \d+ passed \(\d+ answered isError\)[^\n]*; as a task: failed, cancelled\n/,
    );
    // The server's own record (its stderr): each of the 2 runs, and the first task check, ran a fails task.
    const failsRan = r.stderr
      .split("\n")
      .filter((l) => l.includes('"tool":"fails"') && l.includes('"finished"'));
    expect(failsRan).toHaveLength(3);
    const echo = r.stdout.split("\n").find((line) => line.startsWith("✓ echo: "));
    expect(echo).toMatch(/^✓ echo: \d+ runs, \d+ passed; 2 of 2 wrong arguments refused$/);
    expect(r.code).toBe(0);
  }, 120_000);

  it("fails a task support the server lists otherwise, and a tool that creates no task when asked", () => {
    const r = test(contract({ slow: "required", fails: "required", echo: "optional" }));
    expect(r.stdout).toContain("✗ tool slow: execution.taskSupport: contract required, server optional");
    expect(r.stdout).toContain("✗ tool echo: execution.taskSupport: contract optional, server forbidden");
    expect(r.stdout).toMatch(/✗ echo: [^\n]*\n {2}as a task: tools\/call with params\.task created no task/);
    expect(r.code).toBe(1);
  }, 120_000);
});
