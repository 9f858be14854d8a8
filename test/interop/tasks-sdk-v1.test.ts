/**
 * The 2025-11-25 core tasks served by the runtime (tools written as generated ServerHandlers with the
 * `taskTools` option), driven by the official SDK v1 client and its experimental tasks API over real
 * HTTP on 127.0.0.1: a 3-second task polled to completion, one cancelled mid-way, a result fetched after
 * the client reconnected, expiry after the TTL, another subject's task refused, and the
 * `execution.taskSupport` gating; over stdio (test/fixtures/tasks/task-server.ts as a child process),
 * a task polled to completion and one cancelled.
 */

import { fileURLToPath } from "node:url";
import { type HttpServerHandle, serveHttp } from "@mcp-codegen/runtime/node";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  CallToolResultSchema,
  CreateTaskResultSchema,
  ElicitRequestSchema,
  McpError,
  TaskStatusNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServer } from "../../generated/2025-11-25/index.js";
import { TASK_TOOLS, taskHandlers } from "../fixtures/tasks/task-tools.js";

const REPO = fileURLToPath(new URL("../../", import.meta.url));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("official SDK v1 client → runtime core tasks over HTTP (2025-11-25)", () => {
  let http: HttpServerHandle;
  const aborted: string[] = [];
  const clients: Client[] = [];
  beforeAll(async () => {
    const server = createServer({
      info: { name: "task-server", version: "1.0.0" },
      handlers: taskHandlers("A", aborted),
      taskTools: TASK_TOOLS,
      taskPollIntervalMs: 100,
      onError: () => {},
    });
    // A caller's subject is what its x-user header says (none: the session owns its tasks).
    http = await serveHttp(server, { authenticate: (request) => request.headers.get("x-user") ?? undefined });
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => {})));
    await http?.close({ timeoutMs: 0 });
  });

  async function connect(options: { user?: string; sessionId?: string } = {}) {
    const client = new Client({ name: "sdk-v1-tasks", version: "1.0.0" });
    const transport = new StreamableHTTPClientTransport(new URL(http.url), {
      ...(options.user ? { requestInit: { headers: { "x-user": options.user } } } : {}),
      ...(options.sessionId ? { sessionId: options.sessionId } : {}),
    });
    await client.connect(transport);
    clients.push(client);
    return { client, transport };
  }

  const createTask = (client: Client, name: string, args: Record<string, unknown>, ttl?: number) =>
    client.request(
      { method: "tools/call", params: { name, arguments: args, task: ttl === undefined ? {} : { ttl } } },
      CreateTaskResultSchema,
    );

  it("advertises tasks and each tool's taskSupport", async () => {
    const { client } = await connect();
    expect(client.getServerCapabilities()?.tasks).toEqual({
      list: {},
      cancel: {},
      requests: { tools: { call: {} } },
    });
    const { tools } = await client.listTools();
    expect(tools.find((t) => t.name === "slow_compute")?.execution).toEqual({ taskSupport: "optional" });
  });

  it("polls a 3-second task to completion, with status messages and notifications on the way", async () => {
    const { client } = await connect();
    const notified: string[] = [];
    client.setNotificationHandler(TaskStatusNotificationSchema, (n) => void notified.push(n.params.status));
    const started = Date.now();
    const seen: { type: string; status?: string; message?: string }[] = [];
    let result: unknown;
    for await (const message of client.experimental.tasks.callToolStream(
      { name: "slow_compute", arguments: { seconds: 3, label: "three" } },
      CallToolResultSchema,
      { task: { ttl: 60_000 } },
    )) {
      if (message.type === "taskCreated") seen.push({ type: "created", status: message.task.status });
      if (message.type === "taskStatus")
        seen.push({ type: "status", status: message.task.status, message: message.task.statusMessage });
      if (message.type === "result") result = message.result;
      if (message.type === "error") throw message.error;
    }
    expect(Date.now() - started).toBeGreaterThanOrEqual(2900);
    expect(result).toMatchObject({ content: [{ type: "text", text: "three done on A" }] });
    expect(
      (result as { _meta?: Record<string, unknown> })._meta?.["io.modelcontextprotocol/related-task"],
    ).toMatchObject({
      taskId: expect.any(String),
    });
    expect(seen[0]).toEqual({ type: "created", status: "working" });
    const working = seen.filter((s) => s.status === "working" && s.message?.startsWith("step "));
    expect(working.length).toBeGreaterThan(5);
    expect(seen.at(-1)).toMatchObject({ type: "status", status: "completed" });
    expect(notified).toContain("completed");
  });

  it("cancels a task mid-way: the handler sees the abort, the status says cancelled, there is no result", async () => {
    const { client } = await connect();
    const { task } = await createTask(client, "slow_compute", { seconds: 5, label: "cancel-me" });
    await sleep(500);
    const cancelled = await client.experimental.tasks.cancelTask(task.taskId);
    expect(cancelled.status).toBe("cancelled");
    for (let i = 0; i < 20 && !aborted.includes("cancel-me"); i++) await sleep(50);
    expect(aborted).toContain("cancel-me");
    expect((await client.experimental.tasks.getTask(task.taskId)).status).toBe("cancelled");
    await expect(client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema)).rejects.toThrow(
      /cancelled/,
    );
    // A terminal task cannot be cancelled again.
    await expect(client.experimental.tasks.cancelTask(task.taskId)).rejects.toMatchObject({ code: -32602 });
  });

  it("fetches a task's result after the client reconnected to its session", async () => {
    const first = await connect();
    const { task } = await createTask(first.client, "slow_compute", { seconds: 1, label: "reconnect" });
    const sessionId = first.transport.sessionId!;
    await first.client.close();
    const again = await connect({ sessionId });
    const result = await again.client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    expect(result.content).toEqual([{ type: "text", text: "reconnect done on A" }]);
    const listed = await again.client.experimental.tasks.listTasks();
    expect(listed.tasks.map((t) => t.taskId)).toContain(task.taskId);
  });

  it("forgets a task after its TTL", async () => {
    const { client } = await connect();
    const { task } = await createTask(client, "slow_compute", { seconds: 0.2, label: "short" }, 1000);
    expect(task.ttl).toBe(1000);
    expect(
      (await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema)).content,
    ).toEqual([{ type: "text", text: "short done on A" }]);
    await sleep(1100);
    await expect(client.experimental.tasks.getTask(task.taskId)).rejects.toMatchObject({ code: -32602 });
  });

  it("refuses another subject's task as not found", async () => {
    const alice = await connect({ user: "alice" });
    const bob = await connect({ user: "bob" });
    const { task } = await createTask(alice.client, "slow_compute", { seconds: 0.3, label: "alice" });
    const error = await bob.client.experimental.tasks.getTask(task.taskId).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpError);
    expect(error).toMatchObject({ code: -32602 });
    await expect(bob.client.experimental.tasks.cancelTask(task.taskId)).rejects.toMatchObject({
      code: -32602,
    });
    expect((await bob.client.experimental.tasks.listTasks()).tasks).toEqual([]);
    expect((await alice.client.experimental.tasks.getTask(task.taskId)).taskId).toBe(task.taskId);
  });

  it("fails an isError result and a protocol error; tasks/result answers what the call would have", async () => {
    const { client } = await connect();
    const failing = (await createTask(client, "failing_job", {})).task;
    const result = await client.experimental.tasks.getTaskResult(failing.taskId, CallToolResultSchema);
    expect(result).toMatchObject({ isError: true, content: [{ type: "text", text: "the job failed" }] });
    expect((await client.experimental.tasks.getTask(failing.taskId)).status).toBe("failed");
    const broken = (await createTask(client, "protocol_error_job", {})).task;
    await expect(
      client.experimental.tasks.getTaskResult(broken.taskId, CallToolResultSchema),
    ).rejects.toMatchObject({ code: -32602, message: expect.stringContaining("refuses its arguments") });
    expect((await client.experimental.tasks.getTask(broken.taskId)).status).toBe("failed");
  });

  it("asks for input inside a task: the task says input_required, the client's answer lets it complete", async () => {
    const client = new Client(
      { name: "sdk-v1-tasks", version: "1.0.0" },
      { capabilities: { elicitation: {} } },
    );
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      expect(request.params._meta?.["io.modelcontextprotocol/related-task"]).toMatchObject({
        taskId: expect.any(String),
      });
      return { action: "accept", content: { ok: true } };
    });
    await client.connect(new StreamableHTTPClientTransport(new URL(http.url)));
    clients.push(client);
    let result: unknown;
    for await (const message of client.experimental.tasks.callToolStream(
      { name: "confirm", arguments: {} },
      CallToolResultSchema,
      { task: {} },
    )) {
      if (message.type === "result") result = message.result;
      if (message.type === "error") throw message.error;
    }
    expect(result).toMatchObject({ content: [{ type: "text", text: "accept ok=true" }] });
  });

  it("gates by execution.taskSupport: -32601 for a task of a forbidden tool and a plain call of a required one", async () => {
    const { client } = await connect();
    await expect(createTask(client, "greet", { name: "Ada" })).rejects.toMatchObject({ code: -32601 });
    await expect(
      client.request(
        { method: "tools/call", params: { name: "failing_job", arguments: {} } },
        CallToolResultSchema,
      ),
    ).rejects.toMatchObject({ code: -32601 });
    // An optional tool still answers a plain call.
    const plain = await client.callTool({
      name: "slow_compute",
      arguments: { seconds: 0.1, label: "plain" },
    });
    expect(plain.content).toEqual([{ type: "text", text: "plain done on A" }]);
  });
});

describe("official SDK v1 client → runtime core tasks over stdio (2025-11-25)", () => {
  let client: Client;
  const stderr: string[] = [];
  beforeAll(async () => {
    client = new Client({ name: "sdk-v1-tasks-stdio", version: "1.0.0" });
    const transport = new StdioClientTransport({
      command: `${REPO}node_modules/.bin/tsx`,
      args: ["--conditions=mcp-codegen-source", `${REPO}test/fixtures/tasks/task-server.ts`, "stdio"],
      stderr: "pipe",
    });
    transport.stderr?.on("data", (d: Buffer) => void stderr.push(d.toString()));
    await client.connect(transport);
  }, 30_000);
  afterAll(async () => {
    await client?.close();
  });

  it("polls a task to completion", async () => {
    const statuses: string[] = [];
    let result: unknown;
    for await (const message of client.experimental.tasks.callToolStream(
      { name: "slow_compute", arguments: { seconds: 1, label: "stdio" } },
      CallToolResultSchema,
      { task: { ttl: 30_000 } },
    )) {
      if (message.type === "taskStatus") statuses.push(message.task.status);
      if (message.type === "result") result = message.result;
      if (message.type === "error") throw message.error;
    }
    expect(statuses).toContain("working");
    expect(statuses.at(-1)).toBe("completed");
    expect(result).toMatchObject({ content: [{ type: "text", text: "stdio done on A" }] });
  });

  it("cancels a task mid-way: the handler sees the abort", async () => {
    const { task } = await client.request(
      {
        method: "tools/call",
        params: { name: "slow_compute", arguments: { seconds: 5, label: "stdio-cancel" }, task: {} },
      },
      CreateTaskResultSchema,
    );
    await sleep(300);
    expect((await client.experimental.tasks.cancelTask(task.taskId)).status).toBe("cancelled");
    for (let i = 0; i < 40 && !stderr.join("").includes("ABORTED stdio-cancel"); i++) await sleep(50);
    expect(stderr.join("")).toContain("ABORTED stdio-cancel");
    expect((await client.experimental.tasks.getTask(task.taskId)).status).toBe("cancelled");
  });
});
