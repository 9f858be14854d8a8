/**
 * This project's client against this project's server, tool calls run as tasks in both protocol
 * generations from one server (the generated 2026-07-28 server: 2025-11-25 sessions with the core
 * tasks, 2026-07-28 requests with the tasks extension), over real HTTP on 127.0.0.1: a 3-second task
 * awaited to its result; cancelled mid-way through the call's AbortSignal (the handler sees its
 * ctx.signal abort, tasks/get says cancelled); a held task's result fetched by a new client after the
 * first closed; expiry after its TTL; another subject's tasks/get refused; a required tool called
 * plainly refused and an optional tool called plainly answered. Closing the HTTP handler fails the
 * tasks still running (their handlers aborted) rather than leaving them working; so does closing the
 * legacy HTTP+SSE handler served alone.
 */
import { createServer as createNodeServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createLegacySseHandler } from "@mcp-codegen/runtime/http";
import { type HttpServerHandle, serveHttp, toNodeListener } from "@mcp-codegen/runtime/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient as createClient2025 } from "../../generated/2025-11-25/index.js";
import {
  createClient as createClient2026,
  createServer,
  type ServerHandlers,
} from "../../generated/2026-07-28/index.js";
import { SseClientTransport } from "../../runtime/http-client/legacy-sse.js";
import { StreamableHttpClientTransport } from "../../runtime/http-client/streamable-http.js";
import { REQUEST_CANCELLED } from "../../runtime/jsonrpc/connection.js";
import { McpError } from "../../runtime/jsonrpc/messages.js";
import { InMemoryTaskStore } from "../../runtime/mcp/task-store.js";
import { TASK_TOOLS, taskHandlers } from "../fixtures/tasks/task-tools.js";

/**
 * The task tools' handlers (written against the 2025-11-25 types) served by the 2026-07-28 server: they
 * use only what both eras' contexts have (signal, status, progress, elicit).
 */
const handlers2026 = (instance: string, aborted: string[]) =>
  taskHandlers(instance, aborted) as unknown as ServerHandlers;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const EXTENSION = "io.modelcontextprotocol/tasks";

/** A request the client sent: its method, params, and whether it declared the tasks extension. */
interface Sent {
  method: string;
  params: Record<string, unknown>;
  extension: boolean;
}

/** A fetch that notes every JSON-RPC request going out. */
function recordingFetch(sent: Sent[]): typeof fetch {
  return async (input, init) => {
    if (typeof init?.body === "string") {
      const body = JSON.parse(init.body) as { method?: string; params?: Record<string, unknown> };
      if (body.method) {
        const params = body.params ?? {};
        const caps = (params._meta as Record<string, unknown> | undefined)?.[
          "io.modelcontextprotocol/clientCapabilities"
        ] as { extensions?: Record<string, unknown> } | undefined;
        sent.push({ method: body.method, params, extension: caps?.extensions?.[EXTENSION] !== undefined });
      }
    }
    return fetch(input, init);
  };
}

const textOf = (result: { content?: unknown }) =>
  (result.content as { type: string; text: string }[]).map((c) => c.text).join("");

type AnyClient = ReturnType<typeof createClient2025> | ReturnType<typeof createClient2026>;
/** The client's answer to an elicitation. */
type Elicit = (params: { message: string }) => { action: "accept"; content: { ok: boolean } };

const eras = [
  {
    era: "2025-11-25 (core tasks, a session)",
    version: "2025-11-25",
    make: (elicit?: Elicit) =>
      createClient2025({
        info: { name: "own-tasks-2025", version: "1.0.0" },
        ...(elicit ? { handlers: { elicit } } : {}),
      }) as AnyClient,
    /** Tasks are asked for with `params.task`. */
    asked: (s: Sent) => s.params.task !== undefined,
    requiredPlainly: -32601,
  },
  {
    era: "2026-07-28 (the tasks extension)",
    version: "2026-07-28",
    make: (elicit?: Elicit) =>
      createClient2026({
        info: { name: "own-tasks-2026", version: "1.0.0" },
        ...(elicit ? { handlers: { elicit } } : {}),
      }) as AnyClient,
    /** Tasks are asked for by declaring the extension on the request. */
    asked: (s: Sent) => s.extension,
    requiredPlainly: -32021,
  },
];

describe("this project's client → this project's server: tools as tasks over HTTP", () => {
  let http: HttpServerHandle;
  /** A server keeping tasks one second unless asked otherwise (2026-07-28 clients cannot ask). */
  let shortLived: HttpServerHandle;
  const aborted: string[] = [];
  const clients: AnyClient[] = [];
  // A caller's subject is what its x-user header says.
  const authenticate = (request: Request) => request.headers.get("x-user") ?? undefined;
  beforeAll(async () => {
    const serve = (taskTtlMs?: number) =>
      serveHttp(
        createServer({
          info: { name: "own-task-server", version: "1.0.0" },
          handlers: handlers2026("A", aborted),
          taskTools: TASK_TOOLS,
          taskPollIntervalMs: 100,
          ...(taskTtlMs === undefined ? {} : { taskTtlMs }),
          onError: () => {},
        }),
        { authenticate },
      );
    http = await serve();
    shortLived = await serve(1000);
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => {})));
    await http?.close({ timeoutMs: 0 });
    await shortLived?.close({ timeoutMs: 0 });
  });

  describe.each(eras)("$era", ({ version, make, asked, requiredPlainly }) => {
    async function connect(
      options: { user?: string; url?: string; elicit?: Elicit; noGetStream?: boolean } = {},
    ) {
      const sent: Sent[] = [];
      const client = make(options.elicit);
      await client.connect(
        new StreamableHttpClientTransport(new URL(options.url ?? http.url), {
          fetch: recordingFetch(sent),
          ...(options.user ? { headers: { "x-user": options.user } } : {}),
          ...(options.noGetStream ? { openStandaloneStream: false } : {}),
        }),
      );
      clients.push(client);
      expect(client.protocolVersion).toBe(version);
      return { client, sent };
    }

    it("awaits a 3-second task: asked as a task, polled with tasks/get, its result returned", async () => {
      const { client, sent } = await connect();
      const started = Date.now();
      const result = await client.callTool(
        { name: "slow_compute", arguments: { seconds: 3, label: `three-${version}` } },
        { task: true },
      );
      expect(Date.now() - started).toBeGreaterThanOrEqual(2900);
      expect(textOf(result)).toBe(`three-${version} done on A`);
      const call = sent.find((s) => s.method === "tools/call")!;
      expect(asked(call)).toBe(true);
      const polls = sent.filter((s) => s.method === "tasks/get");
      // At the server's 100 ms interval over three seconds.
      expect(polls.length).toBeGreaterThan(10);
      expect(new Set(polls.map((p) => p.params.taskId)).size).toBe(1);
    });

    // 2026-07-28 sends no progress for tasks (the server makes it the status message).
    if (version === "2025-11-25")
      it("reports the task's progress to the awaited call's onprogress, after the call was answered with the task", async () => {
        const { client, sent } = await connect();
        const seen: { progress: number; total?: number }[] = [];
        const result = await client.callTool(
          { name: "slow_compute", arguments: { seconds: 1, label: "progress" } },
          { task: true, onprogress: (p) => void seen.push({ progress: p.progress, total: p.total! }) },
        );
        expect(textOf(result)).toBe("progress done on A");
        const token = (sent.find((s) => s.method === "tools/call")!.params._meta as Record<string, unknown>)
          .progressToken;
        expect(token).toBeDefined();
        // One a step, each 100 ms, all sent after the CreateTaskResult answered the call.
        expect(seen).toEqual(Array.from({ length: 10 }, (_, i) => ({ progress: i + 1, total: 10 })));
      });

    it("asks for input inside the task: the client's elicit handler answers, the task completes", async () => {
      const questions: string[] = [];
      const { client, sent } = await connect({
        elicit: (params) => {
          questions.push(params.message);
          return { action: "accept", content: { ok: true } };
        },
      });
      const result = await client.callTool({ name: "confirm", arguments: {} }, { task: true });
      expect(textOf(result)).toBe("accept ok=true");
      expect(questions).toEqual(["Go ahead?"]);
      expect(asked(sent.find((s) => s.method === "tools/call")!)).toBe(true);
    });

    // 2025-11-25: the input request goes out on the stream of the client's pending tasks/result.
    if (version === "2025-11-25")
      it("asks for input inside the task of a client without a GET stream: on its tasks/result stream", async () => {
        const questions: string[] = [];
        const { client, sent } = await connect({
          noGetStream: true,
          elicit: (params) => {
            questions.push(params.message);
            return { action: "accept", content: { ok: true } };
          },
        });
        const result = await client.callTool({ name: "confirm", arguments: {} }, { task: true });
        expect(textOf(result)).toBe("accept ok=true");
        expect(questions).toEqual(["Go ahead?"]);
        expect(sent.filter((s) => s.method === "tasks/result").length).toBeGreaterThanOrEqual(1);
      });

    // 2026-07-28: status notifications come on a subscriptions/listen stream naming the task.
    if (version === "2026-07-28")
      it("listens to a held task's status (subscriptions/listen taskIds): each change, then its result", async () => {
        const { client, sent } = await connect();
        const held = await client.startToolTask({
          name: "slow_compute",
          arguments: { seconds: 1, label: "listened" },
        });
        const seen: { status: string; result?: unknown }[] = [];
        const done = new Promise<void>((resolve) => {
          void (client as ReturnType<typeof createClient2026>)
            .listen(
              { taskIds: [held.taskId] },
              {
                onTaskStatus: (task: { info: { status: string }; result?: unknown }) => {
                  seen.push({ status: task.info.status, ...(task.result ? { result: task.result } : {}) });
                  if (task.info.status === "completed") resolve();
                },
              },
            )
            .then((sub) => {
              expect(sub.notifications).toMatchObject({ taskIds: [held.taskId] });
              clients.push({ close: () => sub.close() } as unknown as AnyClient);
            });
        });
        await done;
        expect(seen.at(-1)).toMatchObject({
          status: "completed",
          result: { content: [{ type: "text", text: "listened done on A" }] },
        });
        const listen = sent.find((s) => s.method === "subscriptions/listen")!;
        expect(listen.extension).toBe(true);
      });

    it("cancels mid-way through the call's signal: the handler sees the abort, tasks/get says cancelled", async () => {
      const { client, sent } = await connect();
      const label = `cancel-${version}`;
      const abort = new AbortController();
      const call = client.callTool(
        { name: "slow_compute", arguments: { seconds: 5, label } },
        { task: true, signal: abort.signal },
      );
      await expect.poll(() => sent.some((s) => s.method === "tasks/get")).toBe(true);
      await sleep(300);
      abort.abort();
      await expect(call).rejects.toMatchObject({ code: REQUEST_CANCELLED });
      await expect.poll(() => aborted.includes(label), { timeout: 3000 }).toBe(true);
      const cancel = sent.find((s) => s.method === "tasks/cancel");
      expect(cancel).toBeDefined();
      const taskId = String(cancel!.params.taskId);
      expect(sent.find((s) => s.method === "tasks/get")!.params.taskId).toBe(taskId);
      expect((await (await client.toolTask(taskId)).status()).status).toBe("cancelled");
    });

    it("holds a task whose result a new client fetches after the first closed", async () => {
      const first = await connect({ user: "carol" });
      const task = await first.client.startToolTask({
        name: "slow_compute",
        arguments: { seconds: 1, label: `held-${version}` },
      });
      expect(task.created.status).toBe("working");
      await first.client.close();
      const second = await connect({ user: "carol" });
      const found = await second.client.toolTask(task.taskId);
      expect(textOf(await found.result())).toBe(`held-${version} done on A`);
      expect((await found.status()).status).toBe("completed");
    });

    it("forgets a task after its TTL: tasks/get is -32602", async () => {
      // 2025-11-25 asks for the TTL; 2026-07-28 gets the server's (one second on this one).
      const { client } = await connect(version === "2026-07-28" ? { url: shortLived.url } : {});
      const task = await client.startToolTask(
        { name: "slow_compute", arguments: { seconds: 0.2, label: `short-${version}` } },
        { task: { ttl: 1000 } },
      );
      expect(task.created.ttl).toBe(1000);
      expect(textOf(await task.result())).toBe(`short-${version} done on A`);
      await sleep(1100);
      await expect(task.status()).rejects.toMatchObject({ code: -32602 });
      await expect(client.toolTask(task.taskId)).rejects.toMatchObject({ code: -32602 });
    });

    it("refuses another subject's tasks/get as not found", async () => {
      const alice = await connect({ user: "alice" });
      const bob = await connect({ user: "bob" });
      const task = await alice.client.startToolTask({
        name: "slow_compute",
        arguments: { seconds: 0.5, label: `alice-${version}` },
      });
      const refused = await bob.client.toolTask(task.taskId).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(McpError);
      expect(refused).toMatchObject({ code: -32602 });
      expect(textOf(await (await alice.client.toolTask(task.taskId)).result())).toBe(
        `alice-${version} done on A`,
      );
    });

    it("refuses a required tool called plainly, and answers an optional tool called without a task", async () => {
      const { client, sent } = await connect();
      await expect(client.callTool({ name: "failing_job", arguments: {} })).rejects.toMatchObject({
        code: requiredPlainly,
      });
      const plain = await client.callTool({
        name: "slow_compute",
        arguments: { seconds: 0.1, label: "plain" },
      });
      expect(textOf(plain)).toBe("plain done on A");
      expect(sent.filter((s) => s.method === "tools/call").some(asked)).toBe(false);
      expect(sent.some((s) => s.method.startsWith("tasks/"))).toBe(false);
      // Called as a task, the required tool runs (an isError result: failed in 2025, completed in 2026).
      const job = await client.startToolTask({ name: "failing_job", arguments: {} });
      const outcome = await job.result().catch((e: unknown) => e);
      expect(outcome).toMatchObject({ isError: true, content: [{ type: "text", text: "the job failed" }] });
    });
  });
});

describe("closing the HTTP handler while a tool runs as a task", () => {
  it("fails the task at once (SERVER_CLOSED) and aborts its handler, in both generations", async () => {
    // Two servers sharing one store: the second reads what the first recorded as it closed.
    const taskStore = new InMemoryTaskStore();
    const aborted: string[] = [];
    const serve = () =>
      serveHttp(
        createServer({
          info: { name: "own-task-server", version: "1.0.0" },
          handlers: handlers2026("A", aborted),
          taskTools: TASK_TOOLS,
          taskStore,
          taskPollIntervalMs: 100,
          onError: () => {},
        }),
        { authenticate: (request) => request.headers.get("x-user") ?? undefined },
      );
    const closing = await serve();
    const survivor = await serve();
    const connect = async (make: () => AnyClient, url: string) => {
      const client = make();
      await client.connect(
        new StreamableHttpClientTransport(new URL(url), { headers: { "x-user": "dora" } }),
      );
      return client;
    };
    const started: { taskId: string; label: string }[] = [];
    const clients: AnyClient[] = [];
    try {
      for (const { version, make } of eras) {
        const client = await connect(make, closing.url);
        clients.push(client);
        const label = `closing-${version}`;
        const task = await client.startToolTask({
          name: "slow_compute",
          arguments: { seconds: 30, label },
        });
        started.push({ taskId: task.taskId, label });
      }
      await closing.close({ timeoutMs: 100 });
      expect(aborted.sort()).toEqual(started.map((s) => s.label).sort());
      for (const { version, make } of eras) {
        const reader = await connect(make, survivor.url);
        clients.push(reader);
        // The subject owns its tasks whichever generation it asks in.
        for (const { taskId } of started) {
          const task = await reader.toolTask(taskId);
          expect((await task.status()).status, version).toBe("failed");
          await expect(task.result()).rejects.toMatchObject({
            code: -32603,
            message: expect.stringMatching(/closed before it finished/),
          });
        }
      }
    } finally {
      await Promise.all(clients.map((c) => c.close().catch(() => {})));
      await closing.close({ timeoutMs: 0 });
      await survivor.close({ timeoutMs: 0 });
    }
  });

  it("the legacy HTTP+SSE handler, served alone, fails its tasks the same way when it closes", async () => {
    const taskStore = new InMemoryTaskStore();
    const aborted: string[] = [];
    const server = createServer({
      info: { name: "own-task-server", version: "1.0.0" },
      handlers: handlers2026("A", aborted),
      taskTools: TASK_TOOLS,
      taskStore,
      taskPollIntervalMs: 100,
      onError: () => {},
    });
    const legacy = createLegacySseHandler(server, { authenticate: () => "dora" });
    const listener = createNodeServer(toNodeListener(legacy));
    await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve));
    const client = createClient2025({ info: { name: "legacy-tasks", version: "1.0.0" } });
    try {
      const { port } = listener.address() as AddressInfo;
      await client.connect(new SseClientTransport(new URL(`http://127.0.0.1:${port}/sse`)));
      expect(client.protocolVersion).toBe("2025-11-25");
      const task = await client.startToolTask({
        name: "slow_compute",
        arguments: { seconds: 30, label: "legacy" },
      });
      await legacy.close({ timeoutMs: 100 });
      expect(aborted).toEqual(["legacy"]);
      // Its owner is the authenticated subject; the store holds it failed, not working.
      const stored = await taskStore.get(task.taskId, "sub:dora");
      expect(stored).toMatchObject({ status: "failed", error: { message: expect.stringMatching(/closed/) } });
    } finally {
      await client.close().catch(() => {});
      await legacy.close({ timeoutMs: 0 });
      listener.close();
    }
  });
});
