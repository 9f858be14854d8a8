/**
 * This project's client calling task tools of the official SDK v1 server (its experimental 2025-11-25
 * tasks) over real HTTP on 127.0.0.1 and over stdio: a call awaited through its task (polled at the
 * server's interval, its result fetched with tasks/result), cancelled mid-way by aborting (the server's
 * work sees its task cancelled), held as a handle, found again by id from another client after a
 * reconnect, and polled on through the server's listener going away for a while.
 */
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { createClient } from "../../generated/2025-11-25/index.js";
import { StreamableHttpClientTransport } from "../../runtime/http-client/streamable-http.js";
import { REQUEST_CANCELLED } from "../../runtime/jsonrpc/connection.js";
import type { Transport } from "../../runtime/jsonrpc/transport.js";
import { StdioClientTransport } from "../../runtime/node/stdio-client.js";
import { type SdkTaskPeer, startSdkTaskServer, type TaskEvent } from "../fixtures/interop/sdk-task-server.js";

const REPO = fileURLToPath(new URL("../../", import.meta.url));
const info = { name: "task-client", version: "1.0.0" };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const cleanups: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
});

interface Peer {
  transport(): Transport;
  /** What the server's task work saw so far. */
  events(): TaskEvent[];
}

async function httpPeer(stateless: boolean): Promise<Peer & { sdk: SdkTaskPeer }> {
  const sdk = await startSdkTaskServer({ stateless });
  cleanups.push(() => sdk.close());
  return {
    sdk,
    transport: () => new StreamableHttpClientTransport(new URL(sdk.url)),
    events: () => sdk.events,
  };
}

function stdioPeer(): Peer {
  const events: TaskEvent[] = [];
  return {
    transport() {
      const transport = new StdioClientTransport({
        command: `${REPO}node_modules/.bin/tsx`,
        args: [`${REPO}test/fixtures/interop/sdk-task-server.ts`, "stdio"],
        stderr: "pipe",
      });
      const start = transport.start.bind(transport);
      transport.start = async () => {
        await start();
        let buffered = "";
        transport.stderr?.on("data", (chunk: Buffer) => {
          buffered += chunk.toString("utf8");
          const lines = buffered.split("\n");
          buffered = lines.pop()!;
          for (const line of lines)
            if (line.startsWith("event: ")) events.push(JSON.parse(line.slice(7)) as TaskEvent);
        });
      };
      return transport;
    },
    events: () => events,
  };
}

async function connect(peer: Peer) {
  const client = createClient({ info });
  await client.connect(peer.transport());
  cleanups.push(() => client.close());
  return client;
}

const textOf = (result: { content?: unknown[] }) =>
  (result.content as { type: string; text?: string }[]).map((b) => b.text ?? b.type).join("\n");

/** The SDK tool's text: the task stages its stream saw, then the JSON result. */
function split(text: string): [string, unknown] {
  const space = text.indexOf(" ");
  return [text.slice(0, space), JSON.parse(text.slice(space + 1))];
}

async function until<T>(read: () => T | undefined, ms = 5000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = read();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error("timed out waiting");
    await sleep(20);
  }
}

describe.each([
  { name: "HTTP", peer: () => httpPeer(false) },
  { name: "stdio", peer: async () => stdioPeer() },
])("SDK v1 task server over $name", ({ peer: makePeer }) => {
  it("awaits a 2.5 s task to completion: polled at the server's interval, the result from tasks/result", async () => {
    const peer = await makePeer();
    const client = await connect(peer);
    expect(client.serverDescription?.capabilities.tasks).toMatchObject({ requests: { tools: { call: {} } } });
    const started = Date.now();
    const result = await client.callTool(
      { name: "slow", arguments: { ms: 2500 } },
      { task: { ttl: 30_000 }, onprogress: () => {} },
    );
    const took = Date.now() - started;
    expect(textOf(result)).toBe("slept 2500 ms");
    expect(result.structuredContent).toEqual({ ms: 2500 });
    // tasks/result's answer names the task it belongs to.
    const related = result._meta?.["io.modelcontextprotocol/related-task"] as { taskId: string };
    expect(related.taskId).toMatch(/^[0-9a-f]{32}$/);
    expect(took).toBeGreaterThanOrEqual(2400);
    // Polled every 100 ms (the server's pollInterval), not at the 1 s default: done soon after the work.
    expect(took).toBeLessThan(4500);
    expect((await client.getTask({ taskId: related.taskId })).status).toBe("completed");
    expect(peer.events()).toContainEqual({ tool: "slow", taskId: related.taskId, what: "finished" });
  });

  it("cancels the task mid-way when the call is aborted: tasks/cancel, the server's work sees it", async () => {
    const peer = await makePeer();
    const client = await connect(peer);
    const abort = new AbortController();
    const call = client.callTool(
      { name: "slow", arguments: { ms: 3000 } },
      { task: true, signal: abort.signal },
    );
    await sleep(600);
    abort.abort(new Error("user gave up"));
    await expect(call).rejects.toMatchObject({ code: REQUEST_CANCELLED });
    const seen = await until(() => peer.events().find((e) => e.what === "saw-cancel"));
    const task = await client.getTask({ taskId: seen.taskId });
    expect(task.status).toBe("cancelled");
    expect(peer.events().filter((e) => e.what === "finished")).toEqual([]);
  });

  it("holds a handle: status while working, result once done, cancel of another answered cancelled", async () => {
    const peer = await makePeer();
    const client = await connect(peer);
    const handle = await client.startToolTask({ name: "slow", arguments: { ms: 1500 } });
    expect(handle.created).toMatchObject({ status: "working", pollInterval: 100 });
    expect((await handle.status()).status).toBe("working");
    const result = await handle.result();
    expect(textOf(result)).toBe("slept 1500 ms");
    expect((await handle.status()).status).toBe("completed");

    const other = await client.startToolTask({ name: "slow", arguments: { ms: 3000 } });
    const cancelled = await other.cancel();
    expect(cancelled).toMatchObject({ taskId: other.taskId, status: "cancelled" });
    await expect(other.result()).rejects.toMatchObject({ code: REQUEST_CANCELLED });
    await until(() => peer.events().find((e) => e.taskId === other.taskId && e.what === "saw-cancel"));
  });

  it("a task that fails answers what the call would have: the isError result", async () => {
    const peer = await makePeer();
    const client = await connect(peer);
    const result = await client.callTool({ name: "fails" }, { task: true });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe("the job broke");
  });
});

describe("SDK v1 task server over stateless HTTP (one task store for every request)", () => {
  it("a task started by one client is found by id and its result fetched by another after a reconnect", async () => {
    const peer = await httpPeer(true);
    const first = await connect(peer);
    const handle = await first.startToolTask(
      { name: "slow", arguments: { ms: 2000 } },
      { task: { ttl: 60_000 } },
    );
    await first.close();
    await sleep(300);
    const second = await connect(peer);
    const found = await second.toolTask(handle.taskId, "slow");
    expect(found.created).toMatchObject({ taskId: handle.taskId, status: "working" });
    expect(textOf(await found.result())).toBe("slept 2000 ms");
  });

  it("an awaited task is polled on through the server's listener going away for a second", async () => {
    const peer = await httpPeer(true);
    const client = await connect(peer);
    const call = client.callTool({ name: "slow", arguments: { ms: 2500 } }, { task: true });
    await sleep(500);
    await peer.sdk.restartListener(1000);
    expect(textOf(await call)).toBe("slept 2500 ms");
  });

  it("a task id the server does not know is refused with -32602 and nothing is polled", async () => {
    const peer = await httpPeer(true);
    const client = await connect(peer);
    await expect(client.toolTask("no-such-task")).rejects.toMatchObject({ code: -32602 });
  });
});

describe.each([
  { name: "HTTP", peer: () => httpPeer(false) },
  { name: "stdio", peer: async () => stdioPeer() },
])("task-augmented requests from the SDK v1 server over $name", ({ peer: makePeer }) => {
  async function answering(peer: Peer, ms: number) {
    const seen: { method: string; aborted?: boolean }[] = [];
    const client = createClient({
      info,
      tasks: { pollIntervalMs: 100 },
      capabilities: { elicitation: { form: {} } },
      handlers: {
        async elicit(params, ctx) {
          seen.push({ method: "elicit" });
          await sleep(ms);
          seen.at(-1)!.aborted = ctx.signal.aborted;
          return { action: "accept", content: { name: `Ada (${params.message})` } };
        },
        async createMessage(params) {
          seen.push({ method: "createMessage" });
          await sleep(ms);
          const first = params.messages[0]!.content;
          const text = "text" in first ? first.text : "?";
          return { role: "assistant", model: "echo-model", content: { type: "text", text: `re: ${text}` } };
        },
      },
    });
    await client.connect(peer.transport());
    cleanups.push(() => client.close());
    return { client, seen };
  }

  it("declares tasks for sampling and elicitation and answers both as tasks the server polls", async () => {
    const peer = await makePeer();
    const { client, seen } = await answering(peer, 400);
    expect(client.capabilities.tasks).toEqual({
      list: {},
      cancel: {},
      requests: { sampling: { createMessage: {} }, elicitation: { create: {} } },
    });
    const asked = await client.callTool({ name: "ask", arguments: { question: "your name?" } });
    // The SDK's stream saw our task created, then polled it to completed, then fetched its result.
    const [stages, answer] = split(textOf(asked));
    expect(stages).toBe("created,working,completed");
    // tasks/result answered the elicitation's result, naming the task it belongs to.
    expect(answer).toEqual({
      action: "accept",
      content: { name: "Ada (your name?)" },
      _meta: { "io.modelcontextprotocol/related-task": { taskId: expect.any(String) } },
    });
    const [sampleStages, sample] = split(
      textOf(await client.callTool({ name: "sample", arguments: { prompt: "hi" } })),
    );
    expect(sampleStages).toBe("created,working,completed");
    expect(sample).toMatchObject({ model: "echo-model", content: { type: "text", text: "re: hi" } });
    expect(seen.map((s) => s.method)).toEqual(["elicit", "createMessage"]);
  });

  it("a task the server cancels aborts the handler's signal; a second cancel is -32602", async () => {
    const peer = await makePeer();
    const { client, seen } = await answering(peer, 1000);
    const result = await client.callTool({ name: "ask_cancel", arguments: { ms: 300 } });
    expect(JSON.parse(textOf(result))).toEqual({
      cancelled: "cancelled",
      after: "cancelled",
      listed: ["cancelled"],
      again: "second cancel: -32602",
    });
    await until(() => (seen[0]?.aborted === undefined ? undefined : true));
    expect(seen).toEqual([{ method: "elicit", aborted: true }]);
  });
});
