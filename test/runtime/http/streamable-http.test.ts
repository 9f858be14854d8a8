/**
 * Streamable HTTP by its wire rules, calling the web-standard handler with Request objects (no sockets):
 * status codes and bodies for every refusal, sessions and their expiry, JSON or SSE answers, batches,
 * the standalone GET stream, resumption with Last-Event-ID, authentication.
 */
import { describe, expect, it } from "vitest";
import { createServer } from "../../../generated/2025-11-25/index.js";
import { AcceptMemo } from "../../../runtime/http/content-types.js";
import { InMemoryEventStore } from "../../../runtime/http/event-store.js";
import {
  createStreamableHttpHandler,
  HttpError,
  type McpHttpHandler,
  type StreamableHttpOptions,
} from "../../../runtime/http/streamable-http.js";
import { featureServer } from "../../fixtures/http/feature-server.js";
import { initializeBody, messagesOf, POST_HEADERS, readSse } from "../../fixtures/http/helpers.js";

const URL_ = "http://127.0.0.1:3999/mcp";

async function setup(options: StreamableHttpOptions = {}) {
  const server = await featureServer();
  const handler = createStreamableHttpHandler(server, options);
  return { server, handler };
}

function post(handler: McpHttpHandler, body: unknown, headers: Record<string, string> = {}) {
  const text = typeof body === "string" ? body : JSON.stringify(body);
  return handler(new Request(URL_, { method: "POST", headers: { ...POST_HEADERS, ...headers }, body: text }));
}

/** Initializes a session; resolves to its id and the headers later requests carry. */
async function open(handler: McpHttpHandler, protocolVersion = "2025-11-25") {
  const response = await post(handler, initializeBody(protocolVersion));
  expect(response.status).toBe(200);
  const id = response.headers.get("mcp-session-id")!;
  await response.body?.cancel();
  const headers = { "mcp-session-id": id, "mcp-protocol-version": protocolVersion };
  expect((await post(handler, { jsonrpc: "2.0", method: "notifications/initialized" }, headers)).status).toBe(
    202,
  );
  return { id, headers };
}

/** The JSON-RPC messages a POST's answer carries, whether JSON or SSE. */
async function answer(response: Response) {
  if (response.headers.get("content-type") === "application/json") {
    const body = (await response.json()) as unknown;
    return Array.isArray(body) ? body : [body];
  }
  return messagesOf((await readSse(response.body!)).events);
}

const call = (id: number, name: string, args: Record<string, unknown> = {}, meta?: object) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name, arguments: args, ...(meta ? { _meta: meta } : {}) },
});

async function expectError(response: Response, status: number, code: number) {
  expect(response.status).toBe(status);
  const body = (await response.json()) as {
    jsonrpc: string;
    id: unknown;
    error: { code: number; message: string };
  };
  expect(body).toMatchObject({ jsonrpc: "2.0", id: null, error: { code } });
  expect(JSON.stringify(body)).not.toMatch(/\bat .*\.(ts|js):\d+/); // no stack frames
  return body.error.message;
}

describe("POST", () => {
  it("initialize answers on SSE with an Mcp-Session-Id", async () => {
    const { handler } = await setup();
    const response = await post(handler, initializeBody());
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    expect(response.headers.get("mcp-session-id")).toMatch(/^[\x21-\x7e]{32,}$/);
    const [result] = await answer(response);
    expect(result).toMatchObject({ id: 0, result: { protocolVersion: "2025-11-25" } });
    expect(handler.sessionCount).toBe(1);
  });

  it("a failed initialize leaves no session", async () => {
    const { handler, server } = await setup();
    const response = await post(handler, { jsonrpc: "2.0", id: 1, method: "initialize", params: {} });
    expect((await answer(response))[0]).toMatchObject({ id: 1, error: { code: -32602 } });
    await expect.poll(() => handler.sessionCount).toBe(0);
    await expect.poll(() => server.sessions.size).toBe(0);
  });

  it("notifications and responses → 202 without a body", async () => {
    const { handler } = await setup();
    const { headers } = await open(handler);
    const response = await post(
      handler,
      { jsonrpc: "2.0", method: "notifications/roots/list_changed" },
      headers,
    );
    expect(response.status).toBe(202);
    expect(await response.text()).toBe("");
  });

  it("refuses: no session id 400, unknown 404, content type 415, Accept 406, version 400 (unsupported or not the session's)", async () => {
    const { handler } = await setup();
    const { headers } = await open(handler);
    const ping = { jsonrpc: "2.0", id: 9, method: "ping" };
    await expectError(await post(handler, ping), 400, -32600);
    await expectError(await post(handler, ping, { "mcp-session-id": "nope" }), 404, -32000);
    await expectError(await post(handler, ping, { ...headers, "content-type": "text/plain" }), 415, -32000);
    await expectError(await post(handler, ping, { ...headers, accept: "application/json" }), 406, -32000);
    await expectError(await post(handler, ping, { ...headers, accept: "text/event-stream" }), 406, -32000);
    const message = await expectError(
      await post(handler, ping, { ...headers, "mcp-protocol-version": "1999-01-01" }),
      400,
      -32600,
    );
    expect(message).toContain("1999-01-01");
    // A supported version that is not the one this session negotiated is refused too, on every method;
    // the negotiated one passes, and so does none (the session's own applies).
    const older = { ...headers, "mcp-protocol-version": "2025-06-18" };
    const mismatch = await expectError(await post(handler, ping, older), 400, -32600);
    expect(mismatch).toContain("MCP-Protocol-Version 2025-06-18 does not match");
    expect(mismatch).toContain("(2025-11-25)");
    const get = (h: Record<string, string>, method = "GET") =>
      handler(new Request(URL_, { method, headers: { accept: "text/event-stream", ...h } }));
    await expectError(await get(older), 400, -32600);
    await expectError(await get(older, "DELETE"), 400, -32600);
    expect((await answer(await post(handler, ping, headers)))[0]).toEqual({
      jsonrpc: "2.0",
      id: 9,
      result: {},
    });
    const { "mcp-protocol-version": _, ...noVersion } = headers;
    expect((await answer(await post(handler, ping, noVersion)))[0]).toMatchObject({ id: 9, result: {} });
  });

  it("malformed JSON and invalid UTF-8 → 400 with a -32700 body", async () => {
    const { handler } = await setup();
    const { headers } = await open(handler);
    await expectError(await post(handler, '{"jsonrpc":"2.0",', headers), 400, -32700);
    const bytes = new Uint8Array([0x7b, 0x22, 0xff, 0x22, 0x7d]);
    const invalid = await handler(
      new Request(URL_, { method: "POST", headers: { ...POST_HEADERS, ...headers }, body: bytes }),
    );
    await expectError(invalid, 400, -32700);
  });

  it("oversize bodies → 413, declared or streamed, never read past the limit", async () => {
    const { handler } = await setup({ maxBodyBytes: 1024 });
    const { headers } = await open(handler);
    const big = JSON.stringify({
      jsonrpc: "2.0",
      method: "notifications/x",
      params: { pad: "x".repeat(4096) },
    });
    await expectError(await post(handler, big, headers), 413, -32000);
    let pulled = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++;
        controller.enqueue(new Uint8Array(512).fill(0x20));
        if (pulled > 1000) controller.close();
      },
    });
    const streamed = await handler(
      new Request(URL_, {
        method: "POST",
        headers: { ...POST_HEADERS, ...headers },
        body: endless,
        duplex: "half",
      } as RequestInit),
    );
    await expectError(streamed, 413, -32000);
    expect(pulled).toBeLessThan(10);
  });

  it("answers a tool call on SSE: progress, then the response, then the stream ends", async () => {
    const { handler } = await setup();
    const { headers } = await open(handler);
    const response = await post(handler, call(1, "progress", { steps: 2 }, { progressToken: "p" }), headers);
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    expect(response.headers.get("mcp-session-id")).toBe(headers["mcp-session-id"]);
    const read = await readSse(response.body!);
    expect(read.ended).toBe(true);
    // The newest version primes the stream: an event id before any message.
    expect(read.events[0]).toMatchObject({ data: "" });
    expect(read.events[0]!.id).toBeTruthy();
    const messages = messagesOf(read.events);
    expect(messages.map((m) => m.method ?? m.id)).toEqual([
      "notifications/progress",
      "notifications/progress",
      1,
    ]);
    expect(new Set(read.events.map((e) => e.id)).size).toBe(read.events.length);
  });

  it("an older version's stream is not primed (empty data trips its clients)", async () => {
    const { handler } = await setup();
    const { headers } = await open(handler, "2025-06-18");
    const read = await readSse((await post(handler, call(1, "echo", { text: "a" }), headers)).body!);
    expect(read.events.map((e) => e.data === "")).toEqual([false]);
  });

  it("jsonResponse: JSON when only the response comes, SSE when anything comes first", async () => {
    const { handler } = await setup({ jsonResponse: true });
    const { headers } = await open(handler);
    const plain = await post(handler, call(1, "echo", { text: "j" }), headers);
    expect(plain.headers.get("content-type")).toBe("application/json");
    expect(await plain.json()).toMatchObject({ id: 1, result: { content: [{ text: "j" }] } });
    const streamed = await post(handler, call(2, "progress", { steps: 1 }, { progressToken: 7 }), headers);
    expect(streamed.headers.get("content-type")).toBe("text/event-stream");
    expect((await answer(streamed)).map((m) => m.method ?? m.id)).toEqual(["notifications/progress", 2]);
  });

  it("batches: refused where the version has none, answered together where it has", async () => {
    const { handler } = await setup({ jsonResponse: true });
    const batch = [call(1, "echo", { text: "a" }), { jsonrpc: "2.0", id: 2, method: "ping" }];
    const current = await open(handler);
    const refused = await post(handler, batch, current.headers);
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject([{ id: null, error: { code: -32600 } }]);
    const old = await open(handler, "2025-03-26");
    const answered = await post(handler, batch, old.headers);
    expect(await answered.json()).toMatchObject([{ id: 1 }, { id: 2, result: {} }]);
    await expectError(await post(handler, [], old.headers), 400, -32600);
    await expectError(await post(handler, [initializeBody(), initializeBody("2025-11-25", 2)]), 400, -32600);
  });

  it("a request id still in flight cannot be reused (400)", async () => {
    const { handler } = await setup();
    const { headers } = await open(handler);
    const slow = await post(handler, call(5, "slow"), headers);
    await expectError(await post(handler, call(5, "echo"), headers), 400, -32600);
    await post(
      handler,
      { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 5 } },
      headers,
    );
    await slow.body?.cancel();
  });
});

describe("GET and DELETE", () => {
  it("one standalone stream per session (409 for another), 406 without event-stream", async () => {
    const { handler } = await setup({ keepAliveMs: 10 });
    const { headers } = await open(handler);
    const get = () => handler(new Request(URL_, { headers: { ...headers, accept: "text/event-stream" } }));
    const first = await get();
    expect(first.status).toBe(200);
    expect(first.headers.get("content-type")).toBe("text/event-stream");
    await expectError(await get(), 409, -32000);
    await expectError(
      await handler(new Request(URL_, { headers: { ...headers, accept: "application/json" } })),
      406,
      -32000,
    );
    // Keep-alive comments flow, and a list change arrives on it.
    const reading = readSse(first.body!, (e) => e.data.includes("list_changed"), 5000);
    await answer(await post(handler, call(1, "notify"), headers));
    const read = await reading;
    expect(messagesOf(read.events)).toEqual([
      { jsonrpc: "2.0", method: "notifications/tools/list_changed", params: {} },
    ]);
    // Once the client drops it, it may open it again.
    expect((await get()).status).toBe(200);
  });

  it("what the server sends before the GET stream opens waits for it", async () => {
    const { handler } = await setup();
    const { headers } = await open(handler);
    await answer(await post(handler, call(1, "notify"), headers));
    const get = await handler(new Request(URL_, { headers: { ...headers, accept: "text/event-stream" } }));
    const read = await readSse(get.body!, () => true, 5000);
    expect(messagesOf(read.events)[0]).toMatchObject({ method: "notifications/tools/list_changed" });
  });

  it("DELETE ends the session (204); then 404", async () => {
    const { handler, server } = await setup();
    const { headers } = await open(handler);
    expect(server.sessions.size).toBe(1);
    const deleted = await handler(new Request(URL_, { method: "DELETE", headers }));
    expect(deleted.status).toBe(204);
    expect(handler.sessionCount).toBe(0);
    expect(server.sessions.size).toBe(0);
    await expectError(await post(handler, { jsonrpc: "2.0", id: 1, method: "ping" }, headers), 404, -32000);
    await expectError(await handler(new Request(URL_, { method: "DELETE", headers })), 404, -32000);
  });

  it("other methods → 405 with Allow; stateless: GET and DELETE → 405 Allow: POST", async () => {
    const { handler } = await setup();
    const put = await handler(new Request(URL_, { method: "PUT", body: "{}" }));
    expect(put.status).toBe(405);
    expect(put.headers.get("allow")).toBe("GET, POST, DELETE");
    const stateless = (await setup({ stateless: true })).handler;
    for (const method of ["GET", "DELETE"]) {
      const r = await stateless(new Request(URL_, { method, headers: { accept: "text/event-stream" } }));
      expect(r.status).toBe(405);
      expect(r.headers.get("allow")).toBe("POST");
    }
  });
});

describe("stateless", () => {
  it("serves a POST at the header's version, 400 for an unsupported one, keeps nothing", async () => {
    const { handler, server } = await setup({ stateless: true, jsonResponse: true });
    const r = await post(handler, call(1, "whoami"), { "mcp-protocol-version": "2025-06-18" });
    expect(r.headers.get("mcp-session-id")).toBeNull();
    expect((await answer(r)).at(-1)).toMatchObject({
      result: { content: [{ text: "2025-06-18 unknown undefined" }] },
    });
    const batch = [call(1, "echo", { text: "a" }), call(2, "echo", { text: "b" })];
    const old = await post(handler, batch, { "mcp-protocol-version": "2025-03-26" });
    expect(await old.json()).toMatchObject([{ id: 1 }, { id: 2 }]);
    // A version it does not speak: UnsupportedProtocolVersion, naming the request and the versions it does.
    const unsupported = await post(handler, call(1, "echo"), { "mcp-protocol-version": "0.1" });
    expect(unsupported.status).toBe(400);
    expect(await unsupported.json()).toMatchObject({
      id: 1,
      error: { code: -32022, data: { requested: "0.1", supported: expect.arrayContaining(["2025-06-18"]) } },
    });
    await expect.poll(() => server.sessions.size).toBe(0);
    expect(handler.sessionCount).toBe(0);
  });

  it("turns to SSE when progress comes before the response; its events are numbered in send order", async () => {
    const { handler, server } = await setup({ stateless: true, jsonResponse: true });
    const plain = await post(handler, call(1, "echo", { text: "j" }));
    expect(plain.headers.get("content-type")).toBe("application/json");
    const r = await post(handler, call(2, "progress", { steps: 2 }, { progressToken: "p" }));
    expect(r.headers.get("content-type")).toBe("text/event-stream");
    const read = await readSse(r.body!);
    expect(messagesOf(read.events).map((m) => m.method ?? m.id)).toEqual([
      "notifications/progress",
      "notifications/progress",
      2,
    ]);
    // Not resumable (no session), but every event still has its own id, counting up as they went out.
    const numbers = read.events.map((e) => Number(e.id!.split("#")[1]));
    expect(numbers).toEqual([...numbers].sort((a, b) => a - b));
    expect(new Set(numbers).size).toBe(3);
    await expect.poll(() => server.sessions.size).toBe(0);
  });
});

describe("resumability", () => {
  it("a handler closes its stream (SSE polling); GET with Last-Event-ID brings the rest", async () => {
    const { handler } = await setup({ retryMs: 25 });
    const { headers } = await open(handler);
    await post(
      handler,
      { jsonrpc: "2.0", id: 0, method: "logging/setLevel", params: { level: "info" } },
      headers,
    );
    const first = await readSse((await post(handler, call(1, "reconnect", { ms: 50 }), headers)).body!);
    // As the conformance scenario server-sse-polling checks: retry, a priming event first, then an
    // end without the response.
    expect(first.retry).toBe(25);
    expect(first.ended).toBe(true);
    expect(first.events).toHaveLength(1);
    expect(first.events[0]).toMatchObject({ data: "" });
    const resumed = await handler(
      new Request(URL_, {
        headers: { ...headers, accept: "text/event-stream", "last-event-id": first.events[0]!.id! },
      }),
    );
    expect(resumed.status).toBe(200);
    const rest = await readSse(resumed.body!);
    expect(rest.ended).toBe(true);
    expect(messagesOf(rest.events)).toMatchObject([
      { method: "notifications/message", params: { data: "after the stream closed" } },
      { id: 1, result: { content: [{ text: "reconnected (closed: true)" }] } },
    ]);
  });

  it("a client that drops a POST stream resumes it; the request was not cancelled", async () => {
    const { handler } = await setup();
    const { headers } = await open(handler);
    const response = await post(handler, call(1, "progress", { steps: 3 }, { progressToken: "t" }), headers);
    const start = await readSse(response.body!, (e) => e.data.includes("progress"));
    const last = start.events.at(-1)!.id!;
    const resumed = await handler(
      new Request(URL_, { headers: { ...headers, accept: "text/event-stream", "last-event-id": last } }),
    );
    const rest = messagesOf((await readSse(resumed.body!)).events);
    expect(rest.at(-1)).toMatchObject({ id: 1, result: { content: [{ text: "done in 3 steps" }] } });
    expect(rest.filter((m) => m.method === "notifications/progress")).toHaveLength(2);
  });

  it("unknown or foreign Last-Event-IDs → 400", async () => {
    const { handler } = await setup();
    const a = await open(handler);
    const b = await open(handler);
    const streamOfA = await readSse((await post(handler, call(1, "echo"), a.headers)).body!);
    const get = (headers: Record<string, string>, last: string) =>
      handler(
        new Request(URL_, { headers: { ...headers, accept: "text/event-stream", "last-event-id": last } }),
      );
    await expectError(await get(b.headers, streamOfA.events[0]!.id!), 400, -32600);
    await expectError(await get(a.headers, "garbage"), 400, -32600);
  });

  it("InMemoryEventStore: ids per stream, replay after an id, bounded events and streams", async () => {
    const store = new InMemoryEventStore({ maxEventsPerStream: 3, maxStreams: 2 });
    const m = (n: number) => ({ jsonrpc: "2.0" as const, method: "n", params: { n } });
    const ids = [];
    for (let n = 0; n < 5; n++) ids.push(await store.append("s", m(n)));
    await store.append("t", {});
    const replay = async (id: string) => {
      const seen: unknown[] = [];
      const stream = await store.replayAfter(id, async (_id, message) => void seen.push(message));
      return { stream, seen };
    };
    // Events 0 and 1 fell out: replay from the oldest kept one. The priming event {} is never sent.
    expect(await replay(ids[0]!)).toEqual({ stream: "s", seen: [m(2), m(3), m(4)] });
    expect(await replay(ids[3]!)).toEqual({ stream: "s", seen: [m(4)] });
    expect(await replay("t#0")).toEqual({ stream: "t", seen: [] });
    expect((await replay("s#99")).stream).toBeUndefined();
    await store.append("u", m(9)); // a third stream: "s", the least recently written, goes
    expect((await replay(ids[3]!)).stream).toBeUndefined();
    expect(store.streamCount).toBe(2);
  });
});

describe("event stores", () => {
  it("InMemoryEventStore: writing a stream makes it the most recent, so the idlest one goes", () => {
    const store = new InMemoryEventStore({ maxStreams: 2 });
    const m = { jsonrpc: "2.0" as const, method: "n" };
    expect(store.append("s", m)).toBe("s#0"); // in memory: the id at once, no promise
    store.append("t", m);
    store.append("s", m); // "s" is written again: "t" is now the least recently written
    store.append("u", m);
    expect(store.streamCount).toBe(2);
    expect(store.append("s", m)).toBe("s#2");
    expect(store.append("t", m)).toBe("t#0"); // "t" was dropped: it starts over
  });

  it("a store that answers with promises keeps send order, and its ids resume the stream", async () => {
    const memory = new InMemoryEventStore();
    const appended: string[] = [];
    let turn = 0;
    // Writes elsewhere: every append settles later, some after a timer, some after a microtask.
    const slow = {
      append: async (streamId: string, message: Parameters<InMemoryEventStore["append"]>[1]) => {
        if (++turn % 2 === 0) await new Promise((resolve) => setTimeout(resolve, 2));
        else await Promise.resolve();
        const id = memory.append(streamId, message);
        appended.push(id);
        return id;
      },
      replayAfter: (...args: Parameters<InMemoryEventStore["replayAfter"]>) => memory.replayAfter(...args),
      deleteStream: (streamId: string) => memory.deleteStream(streamId),
    };
    const { handler } = await setup({ eventStore: slow });
    const { headers } = await open(handler);
    const response = await post(handler, call(1, "progress", { steps: 3 }, { progressToken: "p" }), headers);
    const read = await readSse(response.body!);
    expect(messagesOf(read.events).map((m) => m.method ?? m.id)).toEqual([
      "notifications/progress",
      "notifications/progress",
      "notifications/progress",
      1,
    ]);
    // Every event carries the id the store gave it, in the order the store gave them.
    const ids = read.events.map((e) => e.id!);
    expect(ids.every((id) => appended.includes(id))).toBe(true);
    expect(ids.map((id) => Number(id.split("#")[1]))).toEqual([0, 1, 2, 3, 4]);
    const resumed = await handler(
      new Request(URL_, { headers: { ...headers, accept: "text/event-stream", "last-event-id": ids[0]! } }),
    );
    // The stream ended with its response delivered: its events are forgotten, so it cannot be resumed.
    await expectError(resumed, 400, -32600);
  });
  it("a store that fails mid-stream ends the POST's stream (the client resumes or fails), never leaves it hanging", async () => {
    const memory = new InMemoryEventStore();
    // Appends fail from the `failFrom`-th on: the POST's priming event is stored, what follows is not.
    let appends = 0;
    let failFrom = Number.POSITIVE_INFINITY;
    const reports: unknown[] = [];
    const flaky = {
      append: async (streamId: string, message: Parameters<InMemoryEventStore["append"]>[1]) => {
        if (++appends >= failFrom) throw new Error("store unreachable");
        return memory.append(streamId, message);
      },
      replayAfter: (...args: Parameters<InMemoryEventStore["replayAfter"]>) => memory.replayAfter(...args),
      deleteStream: (streamId: string) => memory.deleteStream(streamId),
    };
    const server = await featureServer();
    (server.options as { onError?: (error: unknown) => void }).onError = (error) => void reports.push(error);
    const handler = createStreamableHttpHandler(server, { eventStore: flaky });
    const { headers } = await open(handler);
    failFrom = appends + 2;
    const response = await post(handler, call(1, "progress", { steps: 3 }, { progressToken: "p" }), headers);
    expect(response.status).toBe(200);
    // The stream ends (readSse resolves) instead of staying open with nothing the client could resume.
    const read = await Promise.race([
      readSse(response.body!),
      new Promise<"hung">((resolve) => setTimeout(() => resolve("hung"), 2_000)),
    ]);
    expect(read).not.toBe("hung");
    expect(reports.some((e) => e instanceof Error && e.message === "store unreachable")).toBe(true);
  });
});

describe("sessions", () => {
  it("1,000 sessions abandoned after initialize are pending: freed after pendingSessionTtlMs (default 10 s)", async () => {
    let now = 0;
    const { handler, server } = await setup({ now: () => now, sessionIdleTtlMs: 60_000 });
    const kept = await open(handler); // named by a request after its initialize: established
    for (let i = 0; i < 1000; i++) {
      const r = await post(handler, initializeBody());
      await r.body?.cancel();
    }
    expect(handler.sessionCount).toBe(1001);
    expect(server.sessions.size).toBe(1001);
    now = 9_000;
    handler.sweep();
    expect(handler.sessionCount).toBe(1001); // not yet expired
    now = 10_001;
    handler.sweep();
    expect(handler.sessionCount).toBe(1);
    await expect.poll(() => server.sessions.size).toBe(1);
    expect(
      (await answer(await post(handler, { jsonrpc: "2.0", id: 2, method: "ping" }, kept.headers)))[0],
    ).toMatchObject({ id: 2, result: {} });
    now = 70_002;
    handler.sweep();
    expect(handler.sessionCount).toBe(0); // the established one after sessionIdleTtlMs
  });

  it("a session in use is not expired; its idle time counts from its last use", async () => {
    let now = 0;
    const { handler } = await setup({ now: () => now, sessionIdleTtlMs: 1000 });
    const { headers } = await open(handler);
    const slow = await post(handler, call(1, "slow"), headers);
    now = 5000;
    handler.sweep();
    expect(handler.sessionCount).toBe(1); // a request in flight
    await post(
      handler,
      { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1 } },
      headers,
    );
    await slow.body?.cancel();
    now = 5500;
    handler.sweep();
    expect(handler.sessionCount).toBe(1);
    now = 6600;
    handler.sweep();
    expect(handler.sessionCount).toBe(0);
  });

  it("maxSessions: a flood of initialize calls takes only pending places; established sessions are never evicted (503)", async () => {
    const { handler } = await setup({ maxSessions: 3 });
    const ping = (id: number) => ({ jsonrpc: "2.0", id, method: "ping" });
    const a = await open(handler);
    // 50 initialize calls nobody comes back to: each takes the place of the oldest pending one.
    for (let i = 0; i < 50; i++) {
      const r = await post(handler, initializeBody());
      expect(r.status).toBe(200);
      await r.body?.cancel();
    }
    expect(handler.sessionCount).toBe(3);
    expect((await answer(await post(handler, ping(1), a.headers)))[0]).toMatchObject({ id: 1, result: {} });
    const b = await open(handler);
    const c = await open(handler);
    // Full of established sessions, idle ones included: refused, nothing evicted.
    const refused = await post(handler, initializeBody());
    expect(refused.status).toBe(503);
    expect(refused.headers.get("retry-after")).toBe("5");
    await refused.body?.cancel();
    for (const [i, s] of [a, b, c].entries())
      expect((await answer(await post(handler, ping(10 + i), s.headers)))[0]).toMatchObject({ result: {} });
    await handler.close();
    await expectError(await post(handler, initializeBody()), 503, -32000);
  });
});

describe("Host, Origin and authentication", () => {
  it("Host outside allowedHosts → 403; a bare host name allows any port", async () => {
    const { handler } = await setup({ allowedHosts: ["127.0.0.1:3999", "localhost"] });
    const withHost = (host: string) => post(handler, initializeBody(), { host });
    expect((await withHost("127.0.0.1:3999")).status).toBe(200);
    expect((await withHost("localhost:1234")).status).toBe(200);
    await expectError(await withHost("evil.example:3999"), 403, -32000);
    await expectError(await withHost("127.0.0.1:4000"), 403, -32000);
    await expectError(await post(handler, initializeBody()), 403, -32000); // no Host at all
  });

  it("Origin: allowlisted or same-origin passes, anything else → 403", async () => {
    const listed = (await setup({ allowedOrigins: ["https://app.example"] })).handler;
    expect((await post(listed, initializeBody(), { origin: "https://app.example" })).status).toBe(200);
    await expectError(await post(listed, initializeBody(), { origin: "https://evil.example" }), 403, -32000);
    const plain = (await setup()).handler;
    const host = { host: "127.0.0.1:3999" };
    expect((await post(plain, initializeBody(), { ...host, origin: "http://127.0.0.1:3999" })).status).toBe(
      200,
    );
    expect((await post(plain, initializeBody(), host)).status).toBe(200); // no Origin: not a browser
    await expectError(
      await post(plain, initializeBody(), { ...host, origin: "http://evil.example" }),
      403,
      -32000,
    );
    await expectError(await post(plain, initializeBody(), { ...host, origin: "null" }), 403, -32000);
  });

  it("authenticate: its result is ctx.auth; HttpError refuses with its headers; other throws → bare 500", async () => {
    const errors: unknown[] = [];
    const server = createServer({
      info: { name: "auth", version: "1" },
      handlers: {
        callTool: (_params, ctx) => ({ content: [{ type: "text", text: JSON.stringify(ctx.auth) }] }),
      },
      onError: (e) => errors.push(e),
    });
    const handler = createStreamableHttpHandler(server, {
      jsonResponse: true,
      authenticate: (request) => {
        const token = request.headers.get("authorization");
        if (token === "Bearer crash") throw new Error("database down at /srv/secret.ts:42");
        if (token !== "Bearer good")
          throw new HttpError(401, "Unauthorized", { "www-authenticate": "Bearer" });
        return { user: "ada" };
      },
    });
    const refused = await post(handler, initializeBody());
    await expectError(refused.clone(), 401, -32000);
    expect(refused.headers.get("www-authenticate")).toBe("Bearer");
    const crashed = await post(handler, initializeBody(), { authorization: "Bearer crash" });
    expect(await expectError(crashed, 500, -32603)).toBe("Internal error");
    expect(errors).toHaveLength(1);
    const auth = { authorization: "Bearer good" };
    const init = await post(handler, initializeBody(), auth);
    const headers = { ...auth, "mcp-session-id": init.headers.get("mcp-session-id")! };
    await post(handler, { jsonrpc: "2.0", method: "notifications/initialized" }, headers);
    const result = await post(handler, call(1, "x"), headers);
    expect(await result.json()).toMatchObject({ result: { content: [{ text: '{"user":"ada"}' }] } });
  });
});

describe("Accept negotiation", () => {
  it("admits JSON and SSE together by type, wildcard and q, and answers a repeated header alike", () => {
    const cases: [string | null, boolean][] = [
      ["application/json, text/event-stream", true],
      ["text/event-stream, application/json;q=0.5", true],
      ["*/*", true],
      ["application/*, text/*", true],
      ["application/json", false],
      ["application/json, text/event-stream;q=0", false],
      ["application/json, text/event-stream; q=0.000", false],
      ["", false],
      [null, false],
      [`application/json, text/event-stream, ${"x/y, ".repeat(100)}a/b`, true],
    ];
    const memo = new AcceptMemo();
    const acceptsJsonAndSse = (header: string | null) => memo.jsonAndSse(header);
    // Twice over: the second round is answered from what the first remembered.
    for (let round = 0; round < 2; round++) {
      for (const [header, want] of cases) expect(acceptsJsonAndSse(header), String(header)).toBe(want);
    }
    // More distinct headers than are remembered: still answered right.
    for (let i = 0; i < 200; i++) {
      expect(acceptsJsonAndSse(`application/json, text/event-stream, x/${i}`)).toBe(true);
      expect(acceptsJsonAndSse(`application/json, x/${i}`)).toBe(false);
    }
  });
});
