/**
 * The 2026-07-28 tasks extension (io.modelcontextprotocol/tasks) served by the runtime over real HTTP
 * (serveHttp on 127.0.0.1), on the raw wire: negotiation per request, the flat CreateTaskResult,
 * tasks/get's DetailedTask, input inside a task answered by tasks/update, cancel acknowledgements, the
 * -32021 gates, the Mcp-Name check, an input round before the task (a tool with a grace), and
 * notifications/tasks on a subscriptions/listen stream.
 */
import { type HttpServerHandle, serveHttp } from "@mcp-codegen/runtime/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServer, type ServerHandlers } from "../../../generated/2026-07-28/index.js";
import { answerOf } from "../../fixtures/scale/stateless-call.js";

const V = "2026-07-28";
const TASKS = "io.modelcontextprotocol/tasks";
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const text = (t: string) => ({ content: [{ type: "text" as const, text: t }] });

describe("the tasks extension over HTTP (2026-07-28)", () => {
  let http: HttpServerHandle;
  const aborted: string[] = [];
  beforeAll(async () => {
    const handlers: ServerHandlers = {
      listTools: () => ({ tools: [] }),
      callTool: async (params, ctx) => {
        const args = (params.arguments ?? {}) as Record<string, unknown>;
        switch (params.name) {
          case "slow": {
            const steps = Number(args.steps ?? 3);
            for (let i = 1; i <= steps; i++) {
              await new Promise<void>((resolve, reject) => {
                const timer = setTimeout(resolve, 100);
                ctx.signal.addEventListener("abort", () => {
                  clearTimeout(timer);
                  reject(new Error("aborted"));
                });
              }).catch((error) => {
                aborted.push(String(args.label));
                throw error;
              });
              await ctx.progress?.(i, steps);
            }
            return text(`slow ${String(args.label)} done`);
          }
          case "must":
            return text("must done");
          case "confirm": {
            const answer = await ctx.elicit(
              {
                message: "Sure?",
                requestedSchema: { type: "object", properties: { ok: { type: "boolean" } } },
              },
              { key: "sure" },
            );
            return text(`confirmed=${String(answer.content?.ok)}`);
          }
          case "ask_then_work": {
            const answer = await ctx.elicit(
              {
                message: "Name?",
                requestedSchema: { type: "object", properties: { name: { type: "string" } } },
              },
              { key: "user_name" },
            );
            await sleep(300);
            return text(`worked for ${String(answer.content?.name)}`);
          }
          default:
            return text("plain");
        }
      },
    };
    const server = createServer({
      info: { name: "tasks-extension", version: "1.0.0" },
      handlers,
      taskTools: {
        slow: "optional",
        must: "required",
        confirm: "optional",
        ask_then_work: { taskSupport: "required", graceMs: 100 },
      },
      taskPollIntervalMs: 100,
      onError: () => {},
    });
    http = await serveHttp(server);
  });
  afterAll(async () => {
    await http?.close({ timeoutMs: 0 });
  });

  let nextId = 1;
  async function call(
    method: string,
    params: Record<string, unknown> = {},
    options: { tasks?: boolean; headers?: Record<string, string> } = {},
  ) {
    const caps = { elicitation: {}, ...(options.tasks === false ? {} : { extensions: { [TASKS]: {} } }) };
    const name = typeof params.name === "string" ? params.name : params.taskId;
    const response = await fetch(http.url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": V,
        "mcp-method": method,
        ...(typeof name === "string" ? { "mcp-name": name } : {}),
        ...options.headers,
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: nextId++,
        method,
        params: {
          ...params,
          _meta: {
            "io.modelcontextprotocol/protocolVersion": V,
            "io.modelcontextprotocol/clientCapabilities": caps,
            "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
          },
        },
      }),
    });
    const answer = answerOf(response.headers.get("content-type"), await response.text());
    return {
      status: response.status,
      result: answer.result as Record<string, unknown> | undefined,
      error: answer.error as { code: number; message: string; data?: Record<string, unknown> } | undefined,
    };
  }
  const get = async (taskId: unknown) => (await call("tasks/get", { taskId })).result!;
  async function until(taskId: unknown, done: (task: Record<string, unknown>) => boolean) {
    for (let i = 0; i < 50; i++) {
      const task = await get(taskId);
      if (done(task)) return task;
      await sleep(100);
    }
    throw new Error(`task ${String(taskId)} never got there`);
  }

  it("advertises the extension in server/discover, and no capabilities.tasks", async () => {
    const { result } = await call("server/discover");
    const caps = result!.capabilities as Record<string, unknown>;
    expect(caps.extensions).toEqual({ [TASKS]: {} });
    expect(caps.tasks).toBeUndefined();
  });

  it("answers a flat CreateTaskResult, then tasks/get working and completed with the result inlined", async () => {
    const created = (await call("tools/call", { name: "slow", arguments: { label: "a", steps: 3 } })).result!;
    expect(created).toMatchObject({
      resultType: "task",
      status: "working",
      ttlMs: 600_000,
      pollIntervalMs: 100,
    });
    expect(created.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    for (const absent of ["task", "ttl", "pollInterval", "requestState", "result", "error"])
      expect(created).not.toHaveProperty(absent);
    const working = await get(created.taskId);
    expect(working).toMatchObject({ resultType: "complete", taskId: created.taskId, status: "working" });
    expect(working).not.toHaveProperty("requestState");
    const done = await until(created.taskId, (t) => t.status === "completed");
    expect(done.result).toMatchObject({ content: [{ type: "text", text: "slow a done" }] });
    expect(
      (done.result as { _meta?: Record<string, unknown> })._meta?.["io.modelcontextprotocol/related-task"],
    ).toBe(undefined);
    // Progress is the task's status message.
    expect(done.statusMessage).toBe("3/3");
  });

  it("runs a plain call without the extension, and refuses a required tool and tasks/* with -32021", async () => {
    const plain = await call(
      "tools/call",
      { name: "slow", arguments: { label: "p", steps: 1 } },
      { tasks: false },
    );
    expect(plain.result).toMatchObject({ resultType: "complete", content: [{ text: "slow p done" }] });
    const required = await call("tools/call", { name: "must" }, { tasks: false });
    expect(required.error).toMatchObject({
      code: -32021,
      data: { requiredCapabilities: { extensions: { [TASKS]: {} } } },
    });
    for (const method of ["tasks/get", "tasks/update", "tasks/cancel"])
      expect((await call(method, { taskId: "x", inputResponses: {} }, { tasks: false })).error?.code).toBe(
        -32021,
      );
    for (const method of ["tasks/result", "tasks/list"])
      expect((await call(method, { taskId: "x" })).error?.code).toBe(-32601);
    expect((await call("tasks/get", { taskId: "nope" })).error?.code).toBe(-32602);
  });

  it("refuses a tasks/get whose Mcp-Name is not its taskId (-32020, HTTP 400)", async () => {
    const created = (await call("tools/call", { name: "slow", arguments: { label: "h", steps: 1 } })).result!;
    const wrong = await call("tasks/get", { taskId: created.taskId }, { headers: { "mcp-name": "other" } });
    expect(wrong.status).toBe(400);
    expect(wrong.error?.code).toBe(-32020);
  });

  it("asks for input inside the task and goes on once tasks/update answers it", async () => {
    const created = (await call("tools/call", { name: "confirm" })).result!;
    const waiting = await until(created.taskId, (t) => t.status === "input_required");
    expect(waiting.inputRequests).toEqual({
      sure: { method: "elicitation/create", params: expect.objectContaining({ message: "Sure?" }) },
    });
    expect(waiting).not.toHaveProperty("requestState");
    const ack = await call("tasks/update", {
      taskId: created.taskId,
      inputResponses: { sure: { action: "accept", content: { ok: true } }, unknown: { ignored: true } },
    });
    expect(ack.result).toEqual({ resultType: "complete", _meta: expect.any(Object) });
    const done = await until(created.taskId, (t) => t.status === "completed");
    expect(done.result).toMatchObject({ content: [{ text: "confirmed=true" }] });
  });

  it("cancels: an empty ack, the handler sees the abort, the status says cancelled, a second cancel is acked too", async () => {
    const created = (await call("tools/call", { name: "slow", arguments: { label: "c", steps: 50 } }))
      .result!;
    await sleep(250);
    const ack = await call("tasks/cancel", { taskId: created.taskId });
    expect(Object.keys(ack.result!).sort()).toEqual(["_meta", "resultType"]);
    for (let i = 0; i < 20 && !aborted.includes("c"); i++) await sleep(50);
    expect(aborted).toContain("c");
    expect((await get(created.taskId)).status).toBe("cancelled");
    expect((await call("tasks/cancel", { taskId: created.taskId })).result?.resultType).toBe("complete");
  });

  it("answers an input round before the task, then the task (a tool with a grace)", async () => {
    const round1 = (await call("tools/call", { name: "ask_then_work" })).result!;
    expect(round1.resultType).toBe("input_required");
    expect(round1).not.toHaveProperty("taskId");
    expect(Object.keys(round1.inputRequests as object)).toEqual(["user_name"]);
    const round2 = (
      await call("tools/call", {
        name: "ask_then_work",
        inputResponses: { user_name: { action: "accept", content: { name: "Alice" } } },
        requestState: round1.requestState,
      })
    ).result!;
    expect(round2).toMatchObject({ resultType: "task", status: "working" });
    expect(round2).not.toHaveProperty("requestState");
    const done = await until(round2.taskId, (t) => t.status === "completed");
    expect(done.result).toMatchObject({ content: [{ text: "worked for Alice" }] });
  });

  it("sends notifications/tasks on a listen stream that named the task", async () => {
    const created = (await call("tools/call", { name: "slow", arguments: { label: "l", steps: 3 } })).result!;
    const controller = new AbortController();
    const response = await fetch(http.url, {
      method: "POST",
      signal: controller.signal,
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": V,
        "mcp-method": "subscriptions/listen",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: "listen-1",
        method: "subscriptions/listen",
        params: {
          notifications: { taskIds: [created.taskId] },
          _meta: {
            "io.modelcontextprotocol/protocolVersion": V,
            "io.modelcontextprotocol/clientCapabilities": { extensions: { [TASKS]: {} } },
            "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
          },
        },
      }),
    });
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    const statuses: string[] = [];
    let buffer = "";
    while (!statuses.includes("completed")) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += value;
      for (const line of buffer.split("\n")) {
        if (!line.startsWith("data:")) continue;
        const message = JSON.parse(line.slice(5)) as { method?: string; params?: Record<string, unknown> };
        if (message.method === "notifications/subscriptions/acknowledged")
          expect(message.params?.notifications).toMatchObject({ taskIds: [created.taskId] });
        if (message.method === "notifications/tasks") {
          expect(message.params?.taskId).toBe(created.taskId);
          expect(
            (message.params?._meta as Record<string, unknown> | undefined)?.[
              "io.modelcontextprotocol/subscriptionId"
            ],
          ).toBe("listen-1");
          statuses.push(String(message.params?.status));
        }
      }
      buffer = buffer.slice(buffer.lastIndexOf("\n") + 1);
    }
    controller.abort();
    expect(statuses).toContain("completed");
  });
});
