/**
 * The 2026-07-28 tasks extension on two instances (in-process servers, each with its own Redis
 * connection: RedisTaskStore and RedisMessageBus on one real redis-server, serveHttp on 127.0.0.1): a task
 * created on A is read on B, the input it asks for on A is answered with tasks/update on B, and a cancel
 * sent to B stops the handler running on A.
 */
import { randomUUID } from "node:crypto";
import { connectRedis, RedisMessageBus, RedisTaskStore } from "@mcp-codegen/redis";
import { type HttpServerHandle, serveHttp } from "@mcp-codegen/runtime/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServer, type ServerHandlers } from "../../generated/2026-07-28/index.js";
import { redisSuite, startRedis, type TestRedis, withoutRedis } from "../fixtures/redis/redis-server.js";
import { answerOf } from "../fixtures/scale/stateless-call.js";

const V = "2026-07-28";
const TASKS = "io.modelcontextprotocol/tasks";
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(withoutRedis)(redisSuite("the tasks extension on two instances sharing Redis"), () => {
  let redis: TestRedis;
  const cleanups: (() => Promise<unknown>)[] = [];
  const instances: Record<string, { url: string; aborted: string[] }> = {};

  beforeAll(async () => {
    redis = await startRedis();
    cleanups.push(() => redis.dispose());
    const prefix = `tasks-ext-${randomUUID()}:`;
    for (const name of ["A", "B"]) {
      const connection = await connectRedis(redis.url, { log: () => {} });
      const aborted: string[] = [];
      const handlers: ServerHandlers = {
        listTools: () => ({ tools: [] }),
        callTool: async (params, ctx) => {
          if (params.name === "confirm") {
            const answer = await ctx.elicit(
              { message: `asked on ${name}`, requestedSchema: { type: "object", properties: {} } },
              { key: "go" },
            );
            return { content: [{ type: "text", text: `${answer.action} on ${name}` }] };
          }
          await new Promise<void>((resolve) => ctx.signal.addEventListener("abort", () => resolve()));
          aborted.push(String((params.arguments as { label?: unknown } | undefined)?.label));
          throw new Error("aborted");
        },
      };
      const server = createServer({
        info: { name: `ext-${name}`, version: "1.0.0" },
        handlers,
        taskTools: { confirm: "optional", forever: "required" },
        taskStore: new RedisTaskStore(connection, { prefix }),
        bus: new RedisMessageBus(connection, { prefix }),
        onError: () => {},
      });
      const http: HttpServerHandle = await serveHttp(server);
      cleanups.push(
        () => connection.close(),
        () => http.close({ timeoutMs: 0 }),
      );
      instances[name] = { url: http.url, aborted };
    }
  });
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
  });

  let nextId = 1;
  async function call(on: string, method: string, params: Record<string, unknown>) {
    const name = typeof params.name === "string" ? params.name : params.taskId;
    const response = await fetch(instances[on]!.url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": V,
        "mcp-method": method,
        ...(typeof name === "string" ? { "mcp-name": name } : {}),
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: nextId++,
        method,
        params: {
          ...params,
          _meta: {
            "io.modelcontextprotocol/protocolVersion": V,
            "io.modelcontextprotocol/clientCapabilities": { elicitation: {}, extensions: { [TASKS]: {} } },
            "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
          },
        },
      }),
    });
    const answer = answerOf(response.headers.get("content-type"), await response.text());
    if (answer.error) throw Object.assign(new Error(JSON.stringify(answer.error)), answer.error);
    return answer.result as Record<string, unknown>;
  }
  async function until(on: string, taskId: unknown, status: string) {
    for (let i = 0; i < 50; i++) {
      const task = await call(on, "tasks/get", { taskId });
      if (task.status === status) return task;
      await sleep(100);
    }
    throw new Error(`task ${String(taskId)} never ${status} on ${on}`);
  }

  it("answers on B the input a task running on A asked for", async () => {
    const created = await call("A", "tools/call", { name: "confirm", arguments: {} });
    expect(created.resultType).toBe("task");
    const waiting = await until("B", created.taskId, "input_required");
    expect(waiting.inputRequests).toMatchObject({ go: { method: "elicitation/create" } });
    expect(
      await call("B", "tasks/update", {
        taskId: created.taskId,
        inputResponses: { go: { action: "accept" } },
      }),
    ).toMatchObject({ resultType: "complete" });
    const done = await until("B", created.taskId, "completed");
    expect(done.result).toMatchObject({ content: [{ type: "text", text: "accept on A" }] });
  });

  it("stops on A the handler of a task cancelled on B", async () => {
    const created = await call("A", "tools/call", { name: "forever", arguments: { label: "x" } });
    expect((await call("B", "tasks/get", { taskId: created.taskId })).status).toBe("working");
    expect(await call("B", "tasks/cancel", { taskId: created.taskId })).toMatchObject({
      resultType: "complete",
    });
    for (let i = 0; i < 40 && !instances.A!.aborted.includes("x"); i++) await sleep(50);
    expect(instances.A!.aborted).toEqual(["x"]);
    expect((await call("A", "tasks/get", { taskId: created.taskId })).status).toBe("cancelled");
  });
});
