/**
 * `mcp-codegen pull` of a server with task tools (the official SDK v1 server with experimental tasks,
 * over real HTTP on 127.0.0.1): the generated client names them (`TaskTools`, `RequiredTaskTools`, a
 * `tasks` method per task tool, which tsc holds to the tool's types), and through this project's runtime
 * client a required tool's plain method runs it as a task and awaits it, a task is held and its result
 * checked as the plain method checks it, and a held task is cancelled.
 */
import { execFile } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient } from "../../generated/2025-11-25/client.js";
import { StreamableHttpClientTransport } from "../../runtime/http-client/streamable-http.js";
import { REQUEST_CANCELLED } from "../../runtime/jsonrpc/connection.js";
import { type SdkTaskPeer, startSdkTaskServer } from "../fixtures/interop/sdk-task-server.js";
import { REPO } from "./run.js";

const TSX = `${REPO}node_modules/.bin/tsx`;
const TMP = join(REPO, "test/.tmp", `pull-tasks-${process.pid}`);

function run(command: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd: REPO, encoding: "utf8", timeout: 120_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

let peer: SdkTaskPeer;
beforeAll(async () => {
  mkdirSync(TMP, { recursive: true });
  peer = await startSdkTaskServer();
  const pulled = await run(TSX, [
    "--conditions=mcp-codegen-source",
    `${REPO}generator/cli/index.ts`,
    "pull",
    "--out",
    TMP,
    "--name",
    "tasks",
    peer.url,
  ]);
  expect(pulled.stderr).not.toMatch(/error/i);
  expect(pulled.code).toBe(0);
}, 120_000);
afterAll(async () => {
  await peer?.close();
  rmSync(TMP, { recursive: true, force: true });
});

describe("pull of a server with task tools", () => {
  it("keeps execution.taskSupport in the lock and names the task tools in the client's types", async () => {
    const lock = JSON.parse(readFileSync(join(TMP, "tasks.lock.json"), "utf8"));
    const support = Object.fromEntries(
      lock.tools.map((t: { name: string; definition: { execution?: { taskSupport?: string } } }) => [
        t.name,
        t.definition.execution?.taskSupport ?? "(none)",
      ]),
    );
    expect(support).toMatchObject({ slow: "optional", fails: "required" });
    const client = readFileSync(join(TMP, "tasks/client.ts"), "utf8").replace(/\s+/g, " ");
    expect(client).toContain('export type TaskTools = "fails" | "slow";');
    expect(client).toContain('export type RequiredTaskTools = "fails";');
    expect(client).toContain('slow: { name: "slow", input: V.checkSlowInput, taskSupport: "optional" }');

    writeFileSync(
      join(TMP, "use.ts"),
      `import type { ToolTask } from "@mcp-codegen/runtime/client";
import { createClient } from "../../../generated/2025-11-25/client.js";
import { bindClient, type RequiredTaskTools, type TaskTools } from "./tasks/client.js";
const bound = bindClient(createClient({ info: { name: "t", version: "1" } }));
export async function use(): Promise<void> {
  const held: ToolTask = await bound.tasks.slow({ ms: 1 });
  void held;
  // @ts-expect-error ms is a number
  await bound.tasks.slow({ ms: "1" });
  // @ts-expect-error echo is no task tool
  await bound.tasks.echo({ text: "x" });
  const names: TaskTools[] = ["slow", "fails"];
  const required: RequiredTaskTools = "fails";
  // @ts-expect-error slow is optional, not required
  const wrong: RequiredTaskTools = "slow";
  void names; void required; void wrong;
}
`,
    );
    writeFileSync(
      join(TMP, "tsconfig.json"),
      JSON.stringify({
        extends: "../../../tsconfig.json",
        compilerOptions: { noEmit: true },
        include: ["./use.ts", "./tasks/*.ts"],
        exclude: [],
      }),
    );
    const tsc = await run(`${REPO}node_modules/.bin/tsc`, ["-p", join(TMP, "tsconfig.json")]);
    expect(tsc.stdout.split("\n").filter((l) => l.includes("error TS"))).toEqual([]);
  }, 120_000);

  it("calls them through the runtime client: a required tool awaited as a task, a held task's result checked, a held task cancelled", async () => {
    const { bindClient, ToolCallError } = await import(join(TMP, "tasks/client.ts"));
    const client = createClient({ info: { name: "pull-tasks", version: "1.0.0" } });
    await client.connect(new StreamableHttpClientTransport(new URL(peer.url)));
    try {
      const bound = bindClient(client);
      // `fails` is required: its plain method runs it as a task; its isError result rejects as a tool error.
      const failed = await bound.tools.fails().catch((e: unknown) => e);
      expect(failed).toBeInstanceOf(ToolCallError);
      expect(failed).toMatchObject({ kind: "isError", message: 'Tool "fails" failed: the job broke' });

      const held = await bound.tasks.slow({ ms: 800 });
      expect((await held.status()).status).toBe("working");
      const result = await held.result();
      expect(result.content).toEqual([{ type: "text", text: "slept 800 ms" }]);

      const cancelled = await bound.tasks.slow({ ms: 3000 });
      expect((await cancelled.cancel()).status).toBe("cancelled");
      await expect(cancelled.result()).rejects.toMatchObject({ code: REQUEST_CANCELLED });
      // Wrong arguments fail before anything is sent.
      await expect(bound.tasks.slow({ ms: "soon" })).rejects.toMatchObject({
        target: "tasks.slow",
        field: "ms",
      });
    } finally {
      await client.close();
    }
  }, 60_000);
});
