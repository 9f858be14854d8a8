/**
 * Tools run as tasks across instances behind the real balancer (haproxy round robin over three server
 * processes sharing a real redis-server: tasks in a RedisTaskStore, cancels and status over the
 * RedisMessageBus; test/fixtures/scale/), with the official SDK v1 client (2025-11-25 core tasks, its
 * experimental tasks API) and this project's client in both generations (2025-11-25 core tasks,
 * 2026-07-28 the tasks extension):
 * - a 3-second task created through the balancer and polled to completion, its polls served by several
 *   instances (x-served-by), its status notifications (2025-11-25) reaching the session's GET stream;
 * - cancelled by a request served by another instance than the one running it: that instance's handler
 *   sees its ctx.signal abort, and the task says cancelled;
 * - its result fetched after the client reconnected (SDK v1: the same session again; this project's
 *   client: a new client of the same subject);
 * - input asked inside a task (elicitation) on the instance running it, answered by a request served by
 *   another;
 * - refused to another owner (another session, another subject) on every instance; forgotten after the
 *   TTL its client asked for (2025-11-25), on every instance;
 * - the instance running a task killed with SIGKILL: once its lease lapses the next poll, on a
 *   survivor, says failed (never left working), and the result is the lease's error, also for a
 *   client that was waiting for it through the kill; drained with SIGTERM instead, the instance fails the
 *   task itself before it exits (its handler aborted), with no lease to wait out.
 */
import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as TransportV1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  CallToolResultSchema,
  CreateTaskResultSchema,
  ElicitRequestSchema,
  TaskStatusNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient as createClient2025 } from "../../generated/2025-11-25/index.js";
import { createClient as createClient2026 } from "../../generated/2026-07-28/index.js";
import type { ToolTask } from "../../runtime/client/tool-task.js";
import { StreamableHttpClientTransport } from "../../runtime/http-client/streamable-http.js";
import { withoutRedis } from "../fixtures/redis/redis-server.js";
import { type ScaleBed, startScaleBed } from "../fixtures/scale/bed.js";
import { withoutHaproxy } from "../fixtures/scale/haproxy.js";
import { textOf } from "../fixtures/scale/text-of.js";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Short, so that a killed instance's task is reported failed soon; renewed every third of it. */
const LEASE_MS = 2000;
/** The server's code for a task whose instance went away (LEASE_LAPSED). */
const LEASE_LAPSED = -32603;

/** A request that went through the balancer and the instance that served it. */
interface Sent {
  method: string;
  taskId: string | undefined;
  servedBy: string | null;
}

function recordingFetch(sent: Sent[]): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    if (typeof init?.body === "string") {
      const body = JSON.parse(init.body) as { method?: string; id?: unknown; params?: { taskId?: unknown } };
      // A body without a method is the client's answer to a request of the server's.
      if (body.method || body.id !== undefined)
        sent.push({
          method: body.method ?? "(answer)",
          taskId: typeof body.params?.taskId === "string" ? body.params.taskId : undefined,
          servedBy: response.headers.get("x-served-by"),
        });
    }
    return response;
  };
}

interface TaskState {
  status: string;
  statusMessage?: string | undefined;
}

/** One client connected through the balancer, driving tasks of `slow_task`. */
interface Peer {
  readonly sent: Sent[];
  /** 2025-11-25: the statuses `notifications/tasks/status` brought (on the session's GET stream); else undefined. */
  readonly notified: string[] | undefined;
  /** The call awaited through its task: the result's text; each progress reported to `onprogress`. */
  await(args: Record<string, unknown>, onprogress?: (progress: number) => void): Promise<string>;
  /** The call as a task (asking it be kept `ttl` ms, where the era lets the client ask): its id. */
  start(args: Record<string, unknown>, ttl?: number): Promise<string>;
  status(taskId: string): Promise<TaskState>;
  cancel(taskId: string): Promise<void>;
  /** `confirm_task` awaited as a task, its question answered "accept ok=true": the result's text. */
  confirm(): Promise<string>;
  /** Waits for the task's end: the result's text, or rejects with its error. */
  result(taskId: string): Promise<string>;
  /** Closes this client and connects another that may fetch this one's tasks. */
  reconnect(): Promise<Peer>;
  /** Connects a client of another owner (another session, another subject). */
  stranger(): Promise<Peer>;
  close(): Promise<void>;
}

/** The official SDK v1 client: the session owns its tasks; reconnecting resumes that session. */
async function sdkV1(url: string, sessionId?: string): Promise<Peer> {
  const sent: Sent[] = [];
  const client = new ClientV1(
    { name: "sdk-v1-scale-tasks", version: "1.0.0" },
    { capabilities: { elicitation: {} } },
  );
  client.setRequestHandler(ElicitRequestSchema, async () => {
    // The SDK sends tools/call, tasks/get, tasks/result, then the answer: on three instances round robin
    // the answer would always land where the call did. One request more puts it on another.
    await client.listTools();
    return { action: "accept", content: { ok: true } };
  });
  const notified: string[] = [];
  client.setNotificationHandler(TaskStatusNotificationSchema, (n) => void notified.push(n.params.status));
  const transport = new TransportV1(new URL(url), {
    fetch: recordingFetch(sent),
    ...(sessionId ? { sessionId } : {}),
  });
  await client.connect(transport);
  const tasks = client.experimental.tasks;
  /** A tool awaited through its task (the SDK's stream of it): the result's text. */
  const streamed = async (
    name: string,
    args: Record<string, unknown>,
    onprogress?: (progress: number) => void,
  ): Promise<string> => {
    let result: unknown;
    for await (const message of tasks.callToolStream({ name, arguments: args }, CallToolResultSchema, {
      task: { ttl: 60_000 },
      ...(onprogress ? { onprogress: (p) => onprogress(p.progress) } : {}),
    })) {
      if (message.type === "result") result = message.result;
      if (message.type === "error") throw message.error;
    }
    return textOf(result as { content: unknown });
  };
  return {
    sent,
    notified,
    await: (args, onprogress) => streamed("slow_task", args, onprogress),
    confirm: () => streamed("confirm_task", {}),
    async start(args, ttl = 60_000) {
      const { task } = await client.request(
        { method: "tools/call", params: { name: "slow_task", arguments: args, task: { ttl } } },
        CreateTaskResultSchema,
      );
      return task.taskId;
    },
    status: (taskId) => tasks.getTask(taskId),
    async cancel(taskId) {
      expect((await tasks.cancelTask(taskId)).status).toBe("cancelled");
    },
    result: async (taskId) => textOf(await tasks.getTaskResult(taskId, CallToolResultSchema)),
    async reconnect() {
      const session = transport.sessionId!;
      await client.close();
      return sdkV1(url, session);
    },
    stranger: () => sdkV1(url),
    close: () => client.close(),
  };
}

/** This project's client of either generation: a subject (x-user) owns its tasks. */
async function own(url: string, era: "2025-11-25" | "2026-07-28", user: string): Promise<Peer> {
  const sent: Sent[] = [];
  const info = { name: `own-scale-tasks-${era}`, version: "1.0.0" };
  const notified: string[] = [];
  const elicit = () => ({ action: "accept" as const, content: { ok: true } });
  const client =
    era === "2025-11-25"
      ? createClient2025({
          info,
          handlers: { elicit, onTaskStatus: (params) => void notified.push(params.status) },
        })
      : createClient2026({ info, handlers: { elicit } });
  await client.connect(
    new StreamableHttpClientTransport(new URL(url), {
      fetch: recordingFetch(sent),
      headers: { "x-user": user },
    }),
  );
  expect(client.protocolVersion).toBe(era);
  const held = new Map<string, ToolTask<{ content?: unknown }>>();
  const task = async (taskId: string) => {
    const known = held.get(taskId) ?? (await client.toolTask(taskId));
    held.set(taskId, known);
    return known;
  };
  return {
    sent,
    notified: era === "2025-11-25" ? notified : undefined,
    await: async (args, onprogress) =>
      textOf(
        await client.callTool(
          { name: "slow_task", arguments: args },
          { task: true, ...(onprogress ? { onprogress: (p) => onprogress(p.progress) } : {}) },
        ),
      ),
    confirm: async () =>
      textOf(await client.callTool({ name: "confirm_task", arguments: {} }, { task: true })),
    async start(args, ttl) {
      const started = await client.startToolTask(
        { name: "slow_task", arguments: args },
        { task: ttl === undefined ? true : { ttl } },
      );
      held.set(started.taskId, started);
      return started.taskId;
    },
    status: async (taskId) => (await task(taskId)).status(),
    async cancel(taskId) {
      await (await task(taskId)).cancel();
    },
    result: async (taskId) => textOf(await (await task(taskId)).result()),
    async reconnect() {
      await client.close();
      return own(url, era, user);
    },
    stranger: () => own(url, era, `not-${user}`),
    close: () => client.close(),
  };
}

const peers: { name: string; id: string; connect(url: string): Promise<Peer> }[] = [
  { name: "the official SDK v1 client (2025-11-25 core tasks)", id: "sdk-v1", connect: (url) => sdkV1(url) },
  {
    name: "this project's client, 2025-11-25",
    id: "own-2025",
    connect: (url) => own(url, "2025-11-25", "alice"),
  },
  {
    name: "this project's client, 2026-07-28",
    id: "own-2026",
    connect: (url) => own(url, "2026-07-28", "bob"),
  },
];

/** The instance a status message names ("step 3/40 on b"). */
const runnerIn = (message: string | undefined) => / on ([a-z])$/.exec(message ?? "")?.[1];

describe.skipIf(withoutRedis || withoutHaproxy)("tasks across three instances behind haproxy", () => {
  let bed: ScaleBed;
  const open: Peer[] = [];
  beforeAll(async () => {
    bed = await startScaleBed({ instances: 3, taskLeaseMs: LEASE_MS });
  });
  afterAll(async () => {
    await Promise.all(open.map((p) => p.close().catch(() => {})));
    await bed?.close();
  });

  async function connect(kind: (typeof peers)[number]) {
    const peer = await kind.connect(bed.url);
    open.push(peer);
    return peer;
  }

  /** Polls until a status message names the instance running the task. */
  async function runnerOf(peer: Peer, taskId: string): Promise<string> {
    for (let i = 0; i < 50; i++) {
      const runner = runnerIn((await peer.status(taskId)).statusMessage);
      if (runner) return runner;
      await sleep(100);
    }
    throw new Error(`no status message named the instance running ${taskId}`);
  }

  it("the instance running a task drained (SIGTERM): the task is failed at once, its handler aborted", async () => {
    const peer = await connect(peers[2]!);
    const label = "drained-own-2026";
    const taskId = await peer.start({ seconds: 30, label });
    const runner = await runnerOf(peer, taskId);
    const running = bed.instances.find((i) => i.name === runner)!;
    await running.terminate();
    try {
      // No lease to wait out: the instance recorded the end itself before it exited.
      expect((await peer.status(taskId)).status).toBe("failed");
      await expect(peer.result(taskId)).rejects.toMatchObject({
        code: -32603,
        message: expect.stringMatching(/closed before it finished/),
      });
      expect(running.log.some((line) => line.endsWith(`ABORTED ${label}`))).toBe(true);
    } finally {
      await running.restart();
      await bed.proxy.waitFor(runner, "UP");
    }
  });

  describe.each(peers)("$name", (kind) => {
    it("polls a 3-second task created through the balancer to completion, its polls served by several instances", async () => {
      const peer = await connect(kind);
      const label = `three-${kind.id}`;
      const started = Date.now();
      const progress: number[] = [];
      const text = await peer.await({ seconds: 3, label }, (p) => progress.push(p));
      expect(Date.now() - started).toBeGreaterThanOrEqual(2900);
      expect(text).toMatch(new RegExp(`^${label} done on [abc]$`));
      const polls = peer.sent.filter((s) => s.method === "tasks/get");
      expect(polls.length).toBeGreaterThan(5);
      expect(new Set(polls.map((p) => p.taskId)).size).toBe(1);
      expect(new Set(polls.map((p) => p.servedBy)).size).toBeGreaterThanOrEqual(2);
      // 2025-11-25: the runner's status changes reach the session's GET stream, wherever it is open.
      if (peer.notified) await expect.poll(() => peer.notified).toContain("completed");
      // 2025-11-25: its progress, on the call's token, from the runner to the session's GET stream, in
      // order (the last may come after the poll that saw the end: not awaited).
      if (peer.notified) {
        expect(progress.length).toBeGreaterThanOrEqual(10);
        expect(progress).toEqual(Array.from({ length: progress.length }, (_, i) => i + 1));
      }
    });

    it("asks for input inside a task: the question raised on the runner is answered through the balancer", async () => {
      const peer = await connect(kind);
      // The answer goes in a POST of its own (2025: the JSON-RPC response; 2026: tasks/update).
      const answerMethod = kind.id === "own-2026" ? "tasks/update" : "(answer)";
      // Calls until a question and its answer landed on different instances (round robin: soon).
      const crossed: { askedOn: string; answeredOn: string | null }[] = [];
      for (let i = 0; i < 6 && !crossed.some((c) => c.askedOn !== c.answeredOn); i++) {
        const answer = await peer.confirm();
        expect(answer).toMatch(/^accept ok=true \(asked on [abc]\)$/);
        const answers = peer.sent.filter((s) => s.method === answerMethod);
        expect(answers).toHaveLength(i + 1);
        crossed.push({ askedOn: /on ([abc])\)$/.exec(answer)![1]!, answeredOn: answers.at(-1)!.servedBy });
      }
      expect(crossed.some((c) => c.askedOn !== c.answeredOn)).toBe(true);
    });

    it("cancels from a request served by another instance: the running handler sees the abort", async () => {
      const peer = await connect(kind);
      // Round robin puts the request after one the runner served on another instance, unless another
      // client's request (a stream reconnecting) comes between: then the scenario is run again.
      let crossed = false;
      for (let attempt = 0; attempt < 3 && !crossed; attempt++) {
        const label = `cancel-${kind.id}-${attempt}`;
        const taskId = await peer.start({ seconds: 20, label });
        const runner = await runnerOf(peer, taskId);
        const running = bed.instances.find((i) => i.name === runner)!;
        for (let i = 0; i < 6 && peer.sent.at(-1)!.servedBy !== runner; i++) await peer.status(taskId);
        await peer.cancel(taskId);
        const cancel = peer.sent.findLast((s) => s.method === "tasks/cancel")!;
        expect(cancel.taskId).toBe(taskId);
        await expect
          .poll(() => running.log.some((line) => line.endsWith(`ABORTED ${label}`)), { timeout: 5000 })
          .toBe(true);
        expect((await peer.status(taskId)).status).toBe("cancelled");
        crossed = cancel.servedBy !== runner;
      }
      expect(crossed).toBe(true);
    });

    it("fetches a task's result after the client reconnected", async () => {
      const first = await connect(kind);
      const label = `reconnect-${kind.id}`;
      const taskId = await first.start({ seconds: 1.5, label });
      const again = await first.reconnect();
      open.push(again);
      expect(await again.result(taskId)).toMatch(new RegExp(`^${label} done on [abc]$`));
      expect((await again.status(taskId)).status).toBe("completed");
      expect(new Set(again.sent.map((s) => s.servedBy)).size).toBeGreaterThanOrEqual(2);
    });

    it("refuses another owner's task as not found on every instance", async () => {
      const peer = await connect(kind);
      const label = `mine-${kind.id}`;
      const taskId = await peer.start({ seconds: 1, label });
      const stranger = await peer.stranger();
      open.push(stranger);
      // Until every instance refused once (round robin: three tries, more if other requests come between).
      const servedBy = () =>
        new Set(stranger.sent.filter((s) => s.method === "tasks/get").map((s) => s.servedBy));
      for (let i = 0; i < 9 && servedBy().size < 3; i++)
        await expect(stranger.status(taskId)).rejects.toMatchObject({ code: -32602 });
      expect(servedBy()).toEqual(new Set(["a", "b", "c"]));
      expect(await peer.result(taskId)).toMatch(new RegExp(`^${label} done on [abc]$`));
    });

    // 2026-07-28 clients cannot ask for a TTL: the server's (ten minutes here) is proven in
    // test/interop/tasks-own.test.ts on a server keeping tasks one second.
    if (kind.id !== "own-2026")
      it("forgets a task after the TTL its client asked for, on every instance", async () => {
        const peer = await connect(kind);
        const label = `short-${kind.id}`;
        const taskId = await peer.start({ seconds: 0.25, label }, 1000);
        expect(await peer.result(taskId)).toMatch(new RegExp(`^${label} done on [abc]$`));
        await sleep(1100);
        const before = peer.sent.length;
        const servedBy = () =>
          new Set(
            peer.sent
              .slice(before)
              .filter((s) => s.method === "tasks/get")
              .map((s) => s.servedBy),
          );
        for (let i = 0; i < 9 && servedBy().size < 3; i++)
          await expect(peer.status(taskId)).rejects.toMatchObject({ code: -32602 });
        expect(servedBy()).toEqual(new Set(["a", "b", "c"]));
      });

    it("the instance running a task killed with SIGKILL: the next poll after its lease says failed", async () => {
      const peer = await connect(kind);
      const taskId = await peer.start({ seconds: 30, label: `killed-${kind.id}` });
      const runner = await runnerOf(peer, taskId);
      const running = bed.instances.find((i) => i.name === runner)!;
      // Waiting through the kill: this project's client polls on (a poll lost with the instance is sent
      // again); the SDK's tasks/result is one request held open on a survivor (round robin: the request
      // after one served by the runner goes elsewhere), which answers once the lease lapses.
      for (let i = 0; i < 6 && peer.sent.at(-1)!.servedBy !== runner; i++) await peer.status(taskId);
      const waiting = peer.result(taskId).catch((e: unknown) => e);
      await running.kill();
      try {
        const killedAt = Date.now();
        const seen: TaskState[] = [];
        while (Date.now() - killedAt < LEASE_MS + 8000) {
          const state = await peer.status(taskId);
          seen.push(state);
          if (state.status !== "working") break;
          await sleep(200);
        }
        // Working until the lease lapsed, then failed: never completed, never left working.
        expect(seen.at(-1)!.status).toBe("failed");
        expect(seen.slice(0, -1).every((s) => s.status === "working")).toBe(true);
        expect(Date.now() - killedAt).toBeGreaterThanOrEqual(LEASE_MS / 2);
        const polls = peer.sent.filter((s) => s.method === "tasks/get" && s.taskId === taskId);
        expect(polls.at(-1)!.servedBy).not.toBe(runner);
        const lapsed = { code: LEASE_LAPSED, message: expect.stringMatching(/went away/) };
        await expect(peer.result(taskId)).rejects.toMatchObject(lapsed);
        expect(await waiting).toMatchObject(lapsed);
      } finally {
        await running.restart();
        await bed.proxy.waitFor(runner, "UP");
      }
    });
  });
});
