/**
 * The server sending task-augmented `sampling/createMessage` and `elicitation/create` (2025-11-25) from a
 * tool's handler (`ctx.createMessage(params, { task })`, `ctx.elicit(params, { task })`), answered by
 * real clients that run them as tasks of their own: the official SDK v1 client (its experimental task
 * store) and this project's client (`tasks` option), over Streamable HTTP on 127.0.0.1 and over stdio
 * (the server a child process). The handler awaits the same result a plain request gives; aborting the
 * tool call cancels the client's task; a failed client task rejects clearly; a client that does not
 * declare the tasks capability is sent a plain request.
 */

import { fileURLToPath } from "node:url";
import { Client as SdkClient } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport as SdkStdioTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { InMemoryTaskStore } from "@modelcontextprotocol/sdk/experimental/tasks";
import { CreateMessageRequestSchema, ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, describe, expect, it } from "vitest";
import { createClient } from "../../generated/2025-11-25/index.js";
import { StreamableHttpClientTransport } from "../../runtime/http-client/streamable-http.js";
import { McpError } from "../../runtime/jsonrpc/messages.js";
import type { Transport } from "../../runtime/jsonrpc/transport.js";
import { type HttpServerHandle, serveHttp } from "../../runtime/node/http.js";
import { StdioClientTransport } from "../../runtime/node/stdio-client.js";
import { clientTaskServer } from "../fixtures/interop/client-task-server.js";

const REPO = fileURLToPath(new URL("../../", import.meta.url));
const FIXTURE = `${REPO}test/fixtures/interop/client-task-server.ts`;
const TSX = `${REPO}node_modules/.bin/tsx`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const cleanups: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
});

async function until<T>(read: () => T | undefined | Promise<T | undefined>, ms = 5000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error("timed out waiting");
    await sleep(20);
  }
}

/** The tool's JSON answer. */
function answerOf(result: { content?: unknown[] }): {
  answer?: Record<string, unknown>;
  tasks?: string[];
  error?: { code: number; message: string };
} {
  const [block] = result.content as { type: string; text: string }[];
  return JSON.parse(block!.text);
}

async function httpServer(onAbort?: (tool: string) => void): Promise<HttpServerHandle> {
  const http = await serveHttp(clientTaskServer({}, onAbort));
  cleanups.push(() => http.close({ timeoutMs: 0 }));
  return http;
}

const TASKS_CAPABILITY = {
  list: {},
  cancel: {},
  requests: { sampling: { createMessage: {} }, elicitation: { create: {} } },
};

interface Seen {
  method: string;
  task?: unknown;
  taskId?: string;
}

/**
 * The official SDK v1 client answering sampling and elicitation after `ms`, as tasks in its task store
 * when asked (and when it declares tasks); `outcome: "failed"` stores the work as failed.
 */
function sdkReceiver(options: {
  tasks: boolean;
  ms: number;
  /** `cancelled`: the client cancels its own task instead of storing a result. */
  outcome?: "completed" | "failed" | "cancelled";
  pollInterval?: number;
}) {
  const store = new InMemoryTaskStore();
  const seen: Seen[] = [];
  const client = new SdkClient(
    { name: "sdk-v1-receiver", version: "1.0.0" },
    {
      capabilities: {
        sampling: {},
        elicitation: { form: {} },
        ...(options.tasks ? { tasks: TASKS_CAPABILITY } : {}),
      },
      ...(options.tasks ? { taskStore: store } : {}),
    },
  );
  const answer = async <R>(
    method: string,
    params: { task?: { ttl?: number } },
    extra: { taskStore?: { createTask(o: object): Promise<{ taskId: string }> } },
    work: () => R,
  ) => {
    const entry: Seen = { method, ...(params.task ? { task: params.task } : {}) };
    seen.push(entry);
    if (!params.task || !extra.taskStore) {
      await sleep(options.ms);
      return work();
    }
    const task = await extra.taskStore.createTask({
      ttl: params.task.ttl ?? 60_000,
      pollInterval: options.pollInterval ?? 100,
    });
    entry.taskId = task.taskId;
    const taskStore = extra.taskStore as unknown as InMemoryTaskStore;
    void sleep(options.ms)
      .then(() =>
        options.outcome === "cancelled"
          ? taskStore.updateTaskStatus(task.taskId, "cancelled", "the user declined")
          : taskStore.storeTaskResult(task.taskId, options.outcome ?? "completed", work() as never),
      )
      .catch(() => {
        // A cancelled task keeps its status: storing a result for it is refused.
      });
    return { task };
  };
  client.setRequestHandler(CreateMessageRequestSchema, (request, extra) =>
    answer("sampling/createMessage", request.params, extra as never, () => {
      const first = request.params.messages[0]!.content;
      const text = "text" in first ? first.text : "?";
      return { role: "assistant", model: "sdk-model", content: { type: "text", text: `re: ${text}` } };
    }),
  );
  client.setRequestHandler(ElicitRequestSchema, (request, extra) =>
    answer("elicitation/create", request.params, extra as never, () => ({
      action: "accept",
      content: { name: `Ada (${request.params.message})` },
    })),
  );
  cleanups.push(() => client.close());
  return { client, store, seen };
}

describe.each([
  {
    name: "Streamable HTTP",
    transport: async () => new StreamableHTTPClientTransport(new URL((await httpServer()).url)),
  },
  {
    name: "stdio",
    transport: async () =>
      new SdkStdioTransport({
        command: TSX,
        args: ["--conditions=mcp-codegen-source", FIXTURE],
        stderr: "ignore",
      }),
  },
])("official SDK v1 client answering the server's task-augmented requests over $name", ({ transport }) => {
  it("samples as a task: the client's task created, polled to completion, its result the awaited one", async () => {
    const { client, store, seen } = sdkReceiver({ tasks: true, ms: 600 });
    await client.connect(await transport());
    const started = Date.now();
    const result = await client.callTool({ name: "sample", arguments: { prompt: "hi", ttl: 30_000 } });
    const { answer, tasks } = answerOf(result as { content: unknown[] });
    expect(answer).toEqual({
      role: "assistant",
      model: "sdk-model",
      content: { type: "text", text: "re: hi" },
    });
    expect(Date.now() - started).toBeGreaterThanOrEqual(550);
    // The request carried the task the handler asked for, and the client ran it as one.
    expect(seen).toEqual([
      { method: "sampling/createMessage", task: { ttl: 30_000 }, taskId: expect.any(String) },
    ]);
    expect(store.getAllTasks()).toEqual([
      expect.objectContaining({ taskId: seen[0]!.taskId, status: "completed", ttl: 30_000 }),
    ]);
    expect(tasks).toEqual(["completed"]);
  });

  it("elicits as a task (no ttl asked: the client's)", async () => {
    const { client, seen } = sdkReceiver({ tasks: true, ms: 300 });
    await client.connect(await transport());
    const result = await client.callTool({ name: "ask", arguments: { message: "your name?" } });
    expect(answerOf(result as { content: unknown[] }).answer).toEqual({
      action: "accept",
      content: { name: "Ada (your name?)" },
    });
    expect(seen).toEqual([{ method: "elicitation/create", task: {}, taskId: expect.any(String) }]);
  });

  it("cancels the client's task when the tool call is cancelled", async () => {
    const { client, store, seen } = sdkReceiver({ tasks: true, ms: 5000 });
    await client.connect(await transport());
    const abort = new AbortController();
    const call = client.callTool({ name: "sample", arguments: { prompt: "long" } }, undefined, {
      signal: abort.signal,
    });
    const taskId = await until(() => seen[0]?.taskId);
    await sleep(300);
    expect(store.getAllTasks()[0]?.status).toBe("working");
    abort.abort(new Error("user gave up"));
    await expect(call).rejects.toThrow();
    const status = await until(async () => {
      const task = await store.getTask(taskId);
      return task?.status === "working" ? undefined : task?.status;
    });
    expect(status).toBe("cancelled");
  });

  it("a task the client records failed rejects the handler's await with a clear error", async () => {
    const { client } = sdkReceiver({ tasks: true, ms: 200, outcome: "failed" });
    await client.connect(await transport());
    const result = await client.callTool({ name: "sample", arguments: { prompt: "x" } });
    const { error } = answerOf(result as { content: unknown[] });
    expect(error?.code).toBe(-32603);
    expect(error?.message).toMatch(/^sampling\/createMessage: the client's task [0-9a-f]+ failed/);
  });

  it("a task the client cancels itself rejects the handler's await with -32800", async () => {
    const { client } = sdkReceiver({ tasks: true, ms: 200, outcome: "cancelled" });
    await client.connect(await transport());
    const result = await client.callTool({ name: "ask", arguments: { message: "x" } });
    const { error } = answerOf(result as { content: unknown[] });
    expect(error).toEqual({
      code: -32800,
      message: expect.stringMatching(
        /^elicitation\/create: the client cancelled its task [0-9a-f]+: the user declined$/,
      ),
    });
  });

  it("the client's notifications/tasks/status wakes the poll before its 10 s pollInterval", async () => {
    const { client, store } = sdkReceiver({ tasks: true, ms: 300, pollInterval: 10_000 });
    await client.connect(await transport());
    const started = Date.now();
    const result = await client.callTool({ name: "sample", arguments: { prompt: "quick" } });
    expect(answerOf(result as { content: unknown[] }).answer).toMatchObject({
      content: { type: "text", text: "re: quick" },
    });
    expect(store.getAllTasks()[0]).toMatchObject({ status: "completed", pollInterval: 10_000 });
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it("a client task that outlives its ttl rejects the await, bounded by the ttl", async () => {
    const { client } = sdkReceiver({ tasks: true, ms: 10_000 });
    await client.connect(await transport());
    const started = Date.now();
    const result = await client.callTool({ name: "sample", arguments: { prompt: "slow", ttl: 1000 } });
    const { error } = answerOf(result as { content: unknown[] });
    expect(error?.message).toMatch(/the client's task [0-9a-f]+ did not finish within its ttl \(1000 ms\)/);
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it("a request no client runs as a task is refused before anything is sent", async () => {
    const { client } = sdkReceiver({ tasks: true, ms: 0 });
    await client.connect(await transport());
    const result = await client.callTool({ name: "roots", arguments: {} });
    expect(answerOf(result as { content: unknown[] }).error).toEqual({
      code: -32603,
      message: "roots/list cannot be sent as a task: only sampling/createMessage and elicitation/create can",
    });
  });

  it("a client without the tasks capability is sent a plain request, with the same result", async () => {
    const { client, seen } = sdkReceiver({ tasks: false, ms: 100 });
    await client.connect(await transport());
    const result = await client.callTool({ name: "sample", arguments: { prompt: "plain", ttl: 30_000 } });
    expect(answerOf(result as { content: unknown[] })).toEqual({
      answer: { role: "assistant", model: "sdk-model", content: { type: "text", text: "re: plain" } },
    });
    expect(seen).toEqual([{ method: "sampling/createMessage" }]);
  });
});

describe.each([
  {
    name: "Streamable HTTP",
    transport: async (onAbort?: (tool: string) => void): Promise<Transport> =>
      new StreamableHttpClientTransport(new URL((await httpServer(onAbort)).url)),
  },
  {
    name: "stdio",
    transport: async (): Promise<Transport> =>
      new StdioClientTransport({
        command: TSX,
        args: ["--conditions=mcp-codegen-source", FIXTURE],
        stderr: "ignore",
      }),
  },
])(
  "this project's client (tasks option) answering the server's task-augmented requests over $name",
  ({ transport }) => {
    async function ourReceiver(tasks: boolean, ms: number, onAbort?: (tool: string) => void) {
      const seen: { method: string; aborted?: boolean }[] = [];
      const client = createClient({
        info: { name: "own-receiver", version: "1.0.0" },
        ...(tasks ? { tasks: { pollIntervalMs: 100 } } : {}),
        capabilities: { elicitation: { form: {} } },
        handlers: {
          async elicit(params, ctx) {
            const entry: { method: string; aborted?: boolean } = { method: "elicit" };
            seen.push(entry);
            await new Promise<void>((resolve) => {
              const timer = setTimeout(resolve, ms);
              ctx.signal.addEventListener("abort", () => {
                clearTimeout(timer);
                resolve();
              });
            });
            entry.aborted = ctx.signal.aborted;
            return { action: "accept", content: { name: `Ada (${params.message})` } };
          },
          async createMessage(params) {
            seen.push({ method: "createMessage" });
            await sleep(ms);
            const first = params.messages[0]!.content;
            const text = "text" in first ? first.text : "?";
            if (text === "fail") throw new McpError(-32602, "no model takes this prompt", { prompt: text });
            return { role: "assistant", model: "own-model", content: { type: "text", text: `re: ${text}` } };
          },
        },
      });
      await client.connect(await transport(onAbort));
      cleanups.push(() => client.close());
      return { client, seen };
    }

    it("samples and elicits as tasks the client runs, the awaited results the plain ones", async () => {
      const { client, seen } = await ourReceiver(true, 400);
      expect(client.capabilities.tasks).toEqual(TASKS_CAPABILITY);
      const sampled = answerOf(
        await client.callTool({ name: "sample", arguments: { prompt: "hi", ttl: 20_000 } }),
      );
      expect(sampled).toEqual({
        answer: { role: "assistant", model: "own-model", content: { type: "text", text: "re: hi" } },
        tasks: ["completed"],
      });
      const asked = answerOf(await client.callTool({ name: "ask", arguments: { message: "your name?" } }));
      expect(asked).toEqual({
        answer: { action: "accept", content: { name: "Ada (your name?)" } },
        tasks: ["completed", "completed"],
      });
      expect(seen.map((s) => s.method)).toEqual(["createMessage", "elicit"]);
    });

    it("a task whose handler threw rejects with the client's error, named as the task's", async () => {
      const { client } = await ourReceiver(true, 100);
      const { error } = answerOf(await client.callTool({ name: "sample", arguments: { prompt: "fail" } }));
      expect(error).toEqual({
        code: -32602,
        message: expect.stringMatching(
          /^sampling\/createMessage: the client's task \S+ failed: no model takes this prompt$/,
        ),
      });
    });

    it("a tool called as a task of the server's samples as a task of the client's", async () => {
      const { client, seen } = await ourReceiver(true, 400);
      const result = await client.callTool(
        { name: "sample", arguments: { prompt: "nested" } },
        { task: true },
      );
      expect(result._meta?.["io.modelcontextprotocol/related-task"]).toEqual({ taskId: expect.any(String) });
      expect(answerOf(result)).toEqual({
        answer: { role: "assistant", model: "own-model", content: { type: "text", text: "re: nested" } },
        tasks: ["completed"],
      });
      expect(seen.map((s) => s.method)).toEqual(["createMessage"]);
    });

    it("cancelling the tool call cancels the client's task: its handler's signal aborts", async () => {
      const { client, seen } = await ourReceiver(true, 5000);
      const abort = new AbortController();
      const call = client.callTool({ name: "ask", arguments: { message: "wait" } }, { signal: abort.signal });
      await until(() => seen[0]);
      await sleep(300);
      abort.abort(new Error("user gave up"));
      await expect(call).rejects.toMatchObject({ code: -32800 });
      expect(await until(() => seen[0]!.aborted)).toBe(true);
    });

    it("a client without the tasks option is asked plainly, with the same result", async () => {
      const { client, seen } = await ourReceiver(false, 100);
      expect(client.capabilities.tasks).toBeUndefined();
      const asked = answerOf(
        await client.callTool({ name: "ask", arguments: { message: "plain?", ttl: 20_000 } }),
      );
      expect(asked).toEqual({ answer: { action: "accept", content: { name: "Ada (plain?)" } } });
      expect(seen).toEqual([{ method: "elicit", aborted: false }]);
    });
  },
);
