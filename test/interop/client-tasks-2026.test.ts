/**
 * This project's 2026-07-28 client calling task tools through the tasks extension over real HTTP on
 * 127.0.0.1, against a peer written from the extension's specification (test/fixtures/interop/
 * ext-tasks-peer.ts: no released server speaks it yet). The extension is declared on the requests that
 * ask for a task and on every tasks/* request, never on the others; `Mcp-Name` names the task; the
 * flat CreateTaskResult is polled with tasks/get to its inlined result or error; aborting cancels;
 * input the task asks for is answered by the client's handler through tasks/update; a held task is
 * found again from another client.
 */
import { afterAll, describe, expect, it } from "vitest";
import { createClient } from "../../generated/2026-07-28/index.js";
import { StreamableHttpClientTransport } from "../../runtime/http-client/streamable-http.js";
import { REQUEST_CANCELLED } from "../../runtime/jsonrpc/connection.js";
import { type ExtensionTasksPeer, startExtensionTasksPeer } from "../fixtures/interop/ext-tasks-peer.js";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const cleanups: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
});

async function setup(): Promise<{
  peer: ExtensionTasksPeer;
  connect: () => Promise<ReturnType<typeof createClient>>;
}> {
  const peer = await startExtensionTasksPeer();
  cleanups.push(() => peer.close());
  const connect = async () => {
    const client = createClient({
      info: { name: "ext-tasks-client", version: "1.0.0" },
      handlers: {
        elicit: (params) => ({ action: "accept", content: { sure: params.message.startsWith("Delete") } }),
      },
    });
    await client.connect(new StreamableHttpClientTransport(new URL(peer.url)));
    cleanups.push(() => client.close());
    return client;
  };
  return { peer, connect };
}

const textOf = (result: { content?: unknown[] }) =>
  (result.content as { text?: string }[]).map((b) => b.text).join("\n");

describe("2026-07-28 client, tasks extension", () => {
  it("awaits a task: declared on that request alone, polled with tasks/get (Mcp-Name) to the inlined result", async () => {
    const { peer, connect } = await setup();
    const client = await connect();
    expect(client.protocolVersion).toBe("2026-07-28");
    const plain = await client.callTool({ name: "slow", arguments: { ms: 10 } });
    expect(textOf(plain)).toBe("slept 10 ms");
    const started = Date.now();
    const result = await client.callTool({ name: "slow", arguments: { ms: 1200 } }, { task: true });
    expect(textOf(result)).toBe("slept 1200 ms");
    expect(result.resultType).toBe("complete");
    expect(Date.now() - started).toBeLessThan(3000);
    const calls = peer.seen.filter((s) => s.method === "tools/call");
    expect(calls.map((s) => s.extension)).toEqual([false, true]);
    const polls = peer.seen.filter((s) => s.method === "tasks/get");
    expect(polls.length).toBeGreaterThanOrEqual(3);
    for (const poll of polls)
      expect(poll).toMatchObject({ extension: true, name: "task-1", params: { taskId: "task-1" } });
    // Requests that are no task's say nothing of the extension.
    expect(peer.seen.filter((s) => s.method === "server/discover").every((s) => !s.extension)).toBe(true);
  });

  it("answers at once when the server does, and cancels with tasks/cancel when the call is aborted", async () => {
    const { peer, connect } = await setup();
    const client = await connect();
    expect(textOf(await client.callTool({ name: "slow", arguments: { ms: 0 } }, { task: true }))).toBe(
      "slept 0 ms",
    );
    await expect(client.startToolTask({ name: "slow", arguments: { ms: 0 } })).rejects.toThrow(
      /answered with the tool's result, not a task/,
    );
    const abort = new AbortController();
    const call = client.callTool(
      { name: "slow", arguments: { ms: 5000 } },
      { task: true, signal: abort.signal },
    );
    await sleep(300);
    abort.abort();
    await expect(call).rejects.toMatchObject({ code: REQUEST_CANCELLED });
    await sleep(100);
    const cancel = peer.seen.find((s) => s.method === "tasks/cancel");
    expect(cancel).toMatchObject({ extension: true, name: "task-1" });
    expect(peer.tasks.get("task-1")).toMatchObject({ status: "cancelled", sawCancel: true });
  });

  it("answers the task's input request with the client's handler through tasks/update", async () => {
    const { peer, connect } = await setup();
    const client = await connect();
    const result = await client.callTool({ name: "confirm" }, { task: true });
    expect(JSON.parse(textOf(result))).toEqual({ action: "accept", content: { sure: true } });
    const updates = peer.seen.filter((s) => s.method === "tasks/update");
    expect(updates).toHaveLength(1);
    expect(updates[0]).toMatchObject({
      extension: true,
      name: "task-1",
      params: {
        taskId: "task-1",
        inputResponses: { "elicit-1": { action: "accept", content: { sure: true } } },
      },
    });
  });

  it("a failed task rejects with its error; a required tool without a task is -32021", async () => {
    const { connect } = await setup();
    const client = await connect();
    await expect(client.callTool({ name: "broken" }, { task: true })).rejects.toMatchObject({
      code: -32603,
      message: "the job broke",
    });
    await expect(client.callTool({ name: "broken" })).rejects.toMatchObject({ code: -32021 });
  });

  it("holds a task, cancels it, and finds another from a second client", async () => {
    const { connect } = await setup();
    const first = await connect();
    const held = await first.startToolTask({ name: "slow", arguments: { ms: 800 } });
    expect(held.created).toMatchObject({ status: "working", ttl: 60_000, pollInterval: 100 });
    const second = await connect();
    const found = await second.toolTask(held.taskId, "slow");
    expect(textOf(await found.result())).toBe("slept 800 ms");
    const other = await first.startToolTask({ name: "slow", arguments: { ms: 3000 } });
    expect((await other.cancel()).status).toBe("cancelled");
    await expect(other.result()).rejects.toMatchObject({ code: REQUEST_CANCELLED });
  });
});
