import { afterEach, describe, expect, it, vi } from "vitest";
import {
  Connection,
  type IncomingRequestContext,
  REQUEST_CANCELLED,
} from "../../../runtime/jsonrpc/connection.js";
import { ErrorCode, type JsonRpcRequest, McpError } from "../../../runtime/jsonrpc/messages.js";
import type { Transport } from "../../../runtime/jsonrpc/transport.js";
import { connectedPair, deferred, Inbox, notification, responseTo, withRawPeer } from "../helpers.js";

const req = (id: unknown, method: string, params?: Record<string, unknown>) =>
  params === undefined ? { jsonrpc: "2.0", id, method } : { jsonrpc: "2.0", id, method, params };

/** A round trip through the connection: everything sent before it has been processed. */
async function settle(
  { inbox, send }: { inbox: Inbox<unknown>; send: (m: unknown) => Promise<void> },
  id: string,
) {
  await send(req(id, "ping"));
  await inbox.waitFor(responseTo(id), `the ${id} response`);
}

describe("requests and responses", () => {
  it("round-trips in both directions", async () => {
    const { server, client } = await connectedPair(
      { onRequest: (r) => ({ from: "server", got: r.params ?? null }) },
      { onRequest: (r) => ({ from: "client", method: r.method }) },
    );
    await expect(client.request("a", { x: 1 })).resolves.toEqual({ from: "server", got: { x: 1 } });
    await expect(server.request("b")).resolves.toEqual({ from: "client", method: "b" });
    expect(client.pendingCount).toBe(0);
    expect(server.pendingCount).toBe(0);
    expect(server.inflightCount).toBe(0);
  });

  it("numbers outgoing requests 0, 1, 2, … and omits absent params", async () => {
    const { conn, inbox, send } = await withRawPeer({});
    void conn.request("first");
    void conn.request("second", { a: 1 });
    await inbox.waitFor((m) => (m as { id?: number }).id === 1, "the second request");
    expect(inbox.items).toEqual([req(0, "first"), req(1, "second", { a: 1 })]);
    await send({ jsonrpc: "2.0", id: 0, result: {} });
    await send({ jsonrpc: "2.0", id: 1, result: {} });
  });

  it("hands the handler its context: id, method, signal, progress token, transport extra", async () => {
    const seen = deferred<IncomingRequestContext>();
    const { inbox, send } = await withRawPeer({
      onRequest: (_r, ctx) => {
        seen.resolve(ctx);
        return {};
      },
    });
    await send(req("r1", "m", { _meta: { progressToken: "tok" } }));
    const ctx = await seen.promise;
    expect(ctx).toMatchObject({ id: "r1", method: "m", progressToken: "tok" });
    expect(ctx.signal.aborted).toBe(false);
    await inbox.waitFor(responseTo("r1", "result"));
  });

  it("ignores a progress token that is neither a string nor an integer", async () => {
    const tokens: unknown[] = [];
    const { inbox, send } = await withRawPeer({
      onRequest: (_r, ctx) => {
        tokens.push(ctx.progressToken);
        return {};
      },
    });
    await send(req(1, "m", { _meta: { progressToken: 1.5 } }));
    await send(req(2, "m", { _meta: { progressToken: 7 } }));
    await inbox.waitFor(responseTo(2));
    expect(tokens).toEqual([undefined, 7]);
  });

  it("rejects with the peer's error object as an McpError", async () => {
    const { client } = await connectedPair({
      onRequest: () => {
        throw new McpError(ErrorCode.InvalidParams, "bad tool", { tool: "x" });
      },
    });
    const error = await client.request("tools/call").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpError);
    expect(error).toMatchObject({ code: ErrorCode.InvalidParams, message: "bad tool", data: { tool: "x" } });
    expect(client.pendingCount).toBe(0);
  });
});

describe("handler errors", () => {
  it("sends a thrown McpError as is", async () => {
    const { inbox, send } = await withRawPeer({
      onRequest: () => {
        throw new McpError(-32002, "Resource not found", { uri: "file:///x" });
      },
    });
    await send(req(1, "resources/read"));
    expect(await inbox.waitFor(responseTo(1))).toEqual({
      jsonrpc: "2.0",
      id: 1,
      error: { code: -32002, message: "Resource not found", data: { uri: "file:///x" } },
    });
  });

  it("turns any other throw into Internal error with the message but no stack, and reports it", async () => {
    const reported: [unknown, JsonRpcRequest][] = [];
    const { inbox, send } = await withRawPeer({
      onRequest: async (r) => {
        if (r.method === "string") throw "plain string";
        throw new TypeError("boom");
      },
      onHandlerError: (error, request) => reported.push([error, request]),
    });
    await send(req(1, "error"));
    await send(req(2, "string"));
    const first = await inbox.waitFor(responseTo(1));
    const second = await inbox.waitFor(responseTo(2));
    expect(first).toEqual({
      jsonrpc: "2.0",
      id: 1,
      error: { code: -32603, message: "Internal error", data: { message: "boom" } },
    });
    expect(JSON.stringify(first)).not.toMatch(/at |stack/);
    expect(second).toMatchObject({ error: { code: -32603, data: { message: "plain string" } } });
    expect(reported.map(([e, r]) => [String(e), r.id])).toEqual([
      ["TypeError: boom", 1],
      ["plain string", 2],
    ]);
  });

  it.each([
    ["an array", []],
    ["null", null],
    ["a string", "ok"],
    ["undefined", undefined],
    ["a class instance", new (class Result {})()],
  ])("answers -32603 when the handler returns %s", async (_name, value) => {
    const reported: unknown[] = [];
    const { inbox, send } = await withRawPeer({
      onRequest: () => value as Record<string, unknown>,
      onHandlerError: (error) => reported.push(error),
    });
    await send(req(1, "m"));
    expect(await inbox.waitFor(responseTo(1))).toMatchObject({ error: { code: -32603 } });
    expect(reported).toHaveLength(1);
  });

  it("accepts a null-prototype object as a result", async () => {
    const { inbox, send } = await withRawPeer({
      onRequest: () => Object.assign(Object.create(null), { a: 1 }),
    });
    await send(req(1, "m"));
    expect(await inbox.waitFor(responseTo(1))).toMatchObject({ result: { a: 1 } });
  });
});

describe("invalid input", () => {
  it("answers an invalid message with -32600 (params that are not an object: -32602), the readable id and the reason", async () => {
    const { inbox, send } = await withRawPeer({});
    await send({ jsonrpc: "1.0", id: 7, method: "m" });
    await send({ jsonrpc: "2.0", id: 8, method: "m", params: [1, 2] });
    await send(42);
    await send({ jsonrpc: "2.0", id: { nested: true }, method: "m" });
    expect(await inbox.waitFor(responseTo(7))).toEqual({
      jsonrpc: "2.0",
      id: 7,
      error: { code: -32600, message: 'jsonrpc must be "2.0"' },
    });
    expect(await inbox.waitFor(responseTo(8))).toEqual({
      jsonrpc: "2.0",
      id: 8,
      error: { code: -32602, message: "params must be an object" },
    });
    await settle({ inbox, send }, "after");
    const nullIds = inbox.items.filter(responseTo(null));
    expect(nullIds).toEqual([
      { jsonrpc: "2.0", id: null, error: { code: -32600, message: "a JSON-RPC message must be an object" } },
      { jsonrpc: "2.0", id: null, error: { code: -32600, message: "id must be a string or an integer" } },
    ]);
  });

  it("answers a duplicate in-flight id with -32600 and leaves the original alone", async () => {
    const release = deferred();
    const { conn, inbox, send } = await withRawPeer({
      onRequest: async (r) => {
        if (r.params?.wait) await release.promise;
        return { original: r.params?.n };
      },
    });
    await send(req(5, "m", { wait: true, n: 1 }));
    await send(req(5, "m", { n: 2 }));
    expect(await inbox.waitFor(responseTo(5))).toEqual({
      jsonrpc: "2.0",
      id: 5,
      error: { code: -32600, message: "duplicate request id" },
    });
    expect(conn.inflightCount).toBe(1);
    release.resolve();
    expect(await inbox.waitFor(responseTo(5, "result"))).toMatchObject({ result: { original: 1 } });
    expect(conn.inflightCount).toBe(0);
    // Once answered, the id may be used again.
    await send(req(5, "m", { n: 3 }));
    await inbox.waitFor(
      (m) => responseTo(5, "result")(m) && (m as { result: { original?: number } }).result.original === 3,
    );
  });

  it("reports a response to an unknown id and keeps working", async () => {
    const { conn, errors, send } = await withRawPeer({});
    await send({ jsonrpc: "2.0", id: 99, result: {} });
    const error = await errors.waitFor(() => true, "an error report");
    expect(error.message).toBe("Received a response for unknown request id 99");
    const pending = conn.request("m");
    await send({ jsonrpc: "2.0", id: 0, result: { fine: true } });
    await expect(pending).resolves.toEqual({ fine: true });
  });

  it("reports an error response with id null", async () => {
    const { errors, send } = await withRawPeer({});
    await send({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error: x" } });
    const error = await errors.waitFor(() => true, "an error report");
    expect(error.message).toMatch(/could not read a message: Parse error: x \(-32700\)/);
  });

  it("does not route a response whose id only looks like ours", async () => {
    const { conn, errors, send } = await withRawPeer({});
    const pending = conn.request("m", undefined, { timeoutMs: Number.POSITIVE_INFINITY });
    await send({ jsonrpc: "2.0", id: "0", result: {} });
    await errors.waitFor((e) => e.message.includes('"0"'));
    expect(conn.pendingCount).toBe(1);
    await send({ jsonrpc: "2.0", id: 0, result: {} });
    await pending;
  });
});

describe("transport frame errors", () => {
  it("sends the transport's frame error with id null", async () => {
    const sent: unknown[] = [];
    const transport: Transport = {
      start: async () => {},
      send: async (m) => void sent.push(m),
      close: async () => {},
    };
    const conn = new Connection({ transport, onRequest: () => ({}) });
    await conn.start();
    transport.onframeerror?.({ code: -32700, message: "Parse error: nope" });
    await vi.waitFor(() => expect(sent).toHaveLength(1));
    expect(sent[0]).toEqual({
      jsonrpc: "2.0",
      id: null,
      error: { code: -32700, message: "Parse error: nope" },
    });
  });
});

describe("notifications", () => {
  it("delivers notifications with the transport extra, and reports a throwing or rejecting handler", async () => {
    const got = new Inbox<string>();
    const { errors, send } = await withRawPeer({
      onNotification: (n) => {
        got.push(n.method);
        if (n.method === "throws") throw new Error("sync failure");
        if (n.method === "rejects") return Promise.reject(new Error("async failure"));
      },
    });
    await send({ jsonrpc: "2.0", method: "throws" });
    await send({ jsonrpc: "2.0", method: "rejects" });
    await send({ jsonrpc: "2.0", method: "fine", params: { a: 1 } });
    await got.waitFor((m) => m === "fine");
    await errors.waitFor((e) => e.message === "async failure");
    expect(errors.items.map((e) => e.message).sort()).toEqual(["async failure", "sync failure"]);
  });

  it("notify() sends a notification; cancelled and progress never reach onNotification", async () => {
    const seen: string[] = [];
    const { client, server } = await connectedPair({ onNotification: (n) => void seen.push(n.method) });
    await client.notify("notifications/cancelled", { requestId: 123 });
    await client.notify("notifications/progress", { progressToken: 1, progress: 1 });
    await client.notify("notifications/initialized");
    await vi.waitFor(() => expect(seen).toEqual(["notifications/initialized"]));
    expect(server.inflightCount).toBe(0);
  });
});

describe("cancellation", () => {
  it("aborts the handler's signal on notifications/cancelled and sends no response", async () => {
    const aborted = deferred<unknown>();
    const { conn, inbox, send } = await withRawPeer({
      onRequest: (r, ctx) =>
        r.method === "ping"
          ? {}
          : new Promise((resolve) => {
              ctx.signal.addEventListener("abort", () => {
                aborted.resolve(ctx.signal.reason);
                resolve({ tooLate: true });
              });
            }),
    });
    await send(req("long", "slow"));
    await send({
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: { requestId: "long", reason: "user" },
    });
    expect(await aborted.promise).toBe("user");
    await settle({ inbox, send }, "ping-1");
    expect(inbox.items.filter(responseTo("long"))).toEqual([]);
    expect(conn.inflightCount).toBe(0);
  });

  it("sends no Internal error either when the handler throws after cancellation", async () => {
    const reported: unknown[] = [];
    const { inbox, send } = await withRawPeer({
      onRequest: (r, ctx) =>
        r.method === "ping"
          ? {}
          : new Promise((_resolve, reject) =>
              ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason)),
            ),
      onHandlerError: (e) => reported.push(e),
    });
    await send(req(1, "slow"));
    await send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1 } });
    await settle({ inbox, send }, "ping");
    expect(inbox.items.filter(responseTo(1))).toEqual([]);
    expect(reported).toEqual([]);
  });

  it("ignores a cancellation naming an unknown id", async () => {
    const { inbox, send } = await withRawPeer({ onRequest: () => ({}) });
    await send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 404 } });
    await send({ jsonrpc: "2.0", method: "notifications/cancelled", params: {} });
    await settle({ inbox, send }, "ping");
  });

  it("an aborted outgoing request sends notifications/cancelled and rejects with REQUEST_CANCELLED", async () => {
    const { conn, inbox } = await withRawPeer({});
    const controller = new AbortController();
    const pending = conn.request("slow", {}, { signal: controller.signal });
    await inbox.waitFor(notification("slow"));
    controller.abort("user pressed stop");
    const error = await pending.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpError);
    expect(error).toMatchObject({ code: REQUEST_CANCELLED, message: "Request cancelled: user pressed stop" });
    expect(REQUEST_CANCELLED).toBe(-32800);
    expect(await inbox.waitFor(notification("notifications/cancelled"))).toEqual({
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: { requestId: 0, reason: "user pressed stop" },
    });
    expect(conn.pendingCount).toBe(0);
  });

  it("does not send a request whose signal is already aborted", async () => {
    const { conn, inbox, send } = await withRawPeer({ onRequest: () => ({}) });
    const error = await conn
      .request("m", {}, { signal: AbortSignal.abort(new Error("gone")) })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: REQUEST_CANCELLED, message: "Request cancelled: gone" });
    await settle({ inbox, send }, "ping");
    expect(inbox.items.filter(notification("m"))).toEqual([]);
    expect(conn.pendingCount).toBe(0);
  });

  it("works end to end: the server's handler sees the abort and the client gets no stray response", async () => {
    const started = deferred();
    const aborted = deferred<unknown>();
    const { client, server, clientErrors } = await connectedPair({
      onRequest: (_r, ctx) =>
        new Promise((resolve) => {
          started.resolve();
          ctx.signal.addEventListener("abort", () => {
            aborted.resolve(ctx.signal.reason);
            resolve({ late: true });
          });
        }),
    });
    const controller = new AbortController();
    const pending = client.request("slow", {}, { signal: controller.signal });
    await started.promise;
    controller.abort("enough");
    await expect(pending).rejects.toMatchObject({ code: REQUEST_CANCELLED });
    expect(await aborted.promise).toBe("enough");
    await vi.waitFor(() => expect(server.inflightCount).toBe(0));
    // A response sent anyway would surface here as "unknown request id".
    await client.notify("flush");
    expect(clientErrors.items).toEqual([]);
  });
});

describe("progress", () => {
  it("puts a progress token in _meta, merged with what is there, without touching the caller's params", async () => {
    const { conn, inbox, send } = await withRawPeer({});
    const params = { x: 1, _meta: { traceId: "t" } };
    const pending = conn.request("m", params, { onprogress: () => {} });
    const sent = await inbox.waitFor(notification("m"));
    expect(sent).toEqual(req(0, "m", { x: 1, _meta: { traceId: "t", progressToken: 0 } }));
    expect(params).toEqual({ x: 1, _meta: { traceId: "t" } });
    await send({ jsonrpc: "2.0", id: 0, result: {} });
    await pending;
  });

  it("creates params and _meta when there are none", async () => {
    const { conn, inbox, send } = await withRawPeer({});
    const pending = conn.request("m", undefined, { onprogress: () => {} });
    expect(await inbox.waitFor(notification("m"))).toEqual(req(0, "m", { _meta: { progressToken: 0 } }));
    await send({ jsonrpc: "2.0", id: 0, result: {} });
    await pending;
  });

  it("routes the peer's progress to the request's callback; unknown tokens are ignored", async () => {
    let server!: Connection;
    const pair = await connectedPair({
      onRequest: async (_r, ctx) => {
        const token = ctx.progressToken!;
        await server.progress("someone-else", { progress: 9 });
        await server.progress(token, { progress: 1, total: 2 });
        await server.progress(token, { progress: 2, total: 2, message: "done" });
        return { ok: true };
      },
    });
    server = pair.server;
    const { client } = pair;
    const seen: unknown[] = [];
    await expect(client.request("work", {}, { onprogress: (p) => seen.push(p) })).resolves.toEqual({
      ok: true,
    });
    expect(seen).toEqual([
      { progress: 1, total: 2 },
      { progress: 2, total: 2, message: "done" },
    ]);
  });

  it("drops progress for a request that has settled, and malformed progress", async () => {
    const seen: unknown[] = [];
    const { conn, errors, inbox, send } = await withRawPeer({ onRequest: () => ({}) });
    const pending = conn.request("m", {}, { onprogress: (p) => seen.push(p) });
    await inbox.waitFor(notification("m"));
    const progress = (params: Record<string, unknown>) =>
      send({ jsonrpc: "2.0", method: "notifications/progress", params });
    await progress({ progressToken: 0, progress: "half" });
    await progress({ progressToken: 0, progress: 1, total: "x", message: 5 });
    await send({ jsonrpc: "2.0", id: 0, result: {} });
    await pending;
    await progress({ progressToken: 0, progress: 2 });
    await settle({ inbox, send }, "ping");
    expect(seen).toEqual([{ progress: 1 }]);
    expect(errors.items).toEqual([]);
  });

  it("listenProgress takes progress on a token no request waits for, until it is stopped", async () => {
    const seen: unknown[] = [];
    const { conn, errors, inbox, send } = await withRawPeer({ onRequest: () => ({}) });
    const progress = (params: Record<string, unknown>) =>
      send({ jsonrpc: "2.0", method: "notifications/progress", params });
    const stop = conn.listenProgress("task-token", (p) => seen.push(p));
    const other = conn.listenProgress("other", () => seen.push("other"));
    await progress({ progressToken: "task-token", progress: 1, total: 3 });
    await progress({ progressToken: "task-token", progress: 2 });
    stop();
    await progress({ progressToken: "task-token", progress: 3 });
    other();
    await progress({ progressToken: "other", progress: 1 });
    await settle({ inbox, send }, "ping");
    expect(seen).toEqual([{ progress: 1, total: 3 }, { progress: 2 }]);
    expect(errors.items).toEqual([]);
  });

  it("reports a throwing progress callback and still settles the request", async () => {
    const { conn, errors, inbox, send } = await withRawPeer({});
    const pending = conn.request(
      "m",
      {},
      {
        onprogress: () => {
          throw new Error("callback broke");
        },
      },
    );
    await inbox.waitFor(notification("m"));
    await send({
      jsonrpc: "2.0",
      method: "notifications/progress",
      params: { progressToken: 0, progress: 1 },
    });
    await errors.waitFor((e) => e.message === "callback broke");
    await send({ jsonrpc: "2.0", id: 0, result: { ok: 1 } });
    await expect(pending).resolves.toEqual({ ok: 1 });
  });
});

describe("timeouts", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("rejects with RequestTimeout after the default timeout and cancels at the peer", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const { conn, inbox } = await withRawPeer({ defaultTimeoutMs: 1000 });
    const pending = conn.request("m").catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(999);
    expect(conn.pendingCount).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    const error = await pending;
    expect(error).toBeInstanceOf(McpError);
    expect(error).toMatchObject({
      code: ErrorCode.RequestTimeout,
      message: "Request timed out after 1000 ms",
    });
    expect(await inbox.waitFor(notification("notifications/cancelled"))).toMatchObject({
      params: { requestId: 0, reason: "Request timed out after 1000 ms" },
    });
    expect(conn.pendingCount).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("uses 60 s when nothing is configured, and a per-request timeoutMs over the default", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const { conn } = await withRawPeer({});
    const byDefault = conn.request("a").catch((e: unknown) => e);
    const short = conn.request("b", {}, { timeoutMs: 50 }).catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(50);
    expect(await short).toMatchObject({ code: ErrorCode.RequestTimeout });
    await vi.advanceTimersByTimeAsync(59_949);
    expect(conn.pendingCount).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(await byDefault).toMatchObject({ message: "Request timed out after 60000 ms" });
  });

  it("restarts the timer on progress only when asked to", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const { conn, send } = await withRawPeer({});
    const resetting = conn.request(
      "a",
      {},
      { timeoutMs: 100, onprogress: () => {}, resetTimeoutOnProgress: true },
    );
    const fixed = conn.request("b", {}, { timeoutMs: 100, onprogress: () => {} }).catch((e: unknown) => e);
    for (let i = 0; i < 5; i++) {
      await vi.advanceTimersByTimeAsync(60);
      await send({
        jsonrpc: "2.0",
        method: "notifications/progress",
        params: { progressToken: 0, progress: i },
      });
      await send({
        jsonrpc: "2.0",
        method: "notifications/progress",
        params: { progressToken: 1, progress: i },
      });
    }
    expect(await fixed).toMatchObject({ code: ErrorCode.RequestTimeout });
    expect(conn.pendingCount).toBe(1);
    await send({ jsonrpc: "2.0", id: 0, result: { survived: true } });
    await expect(resetting).resolves.toEqual({ survived: true });
  });

  it("never times out with timeoutMs: Infinity", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const { conn, send } = await withRawPeer({});
    const pending = conn.request("a", {}, { timeoutMs: Number.POSITIVE_INFINITY });
    expect(vi.getTimerCount()).toBe(0);
    await send({ jsonrpc: "2.0", id: 0, result: {} });
    await pending;
  });
});

describe("close", () => {
  it("aborts in-flight handlers, rejects pending requests, fires onclose once on each side", async () => {
    const aborted = deferred<unknown>();
    const started = deferred();
    const { client, server } = await connectedPair({
      onRequest: (_r, ctx) =>
        new Promise((resolve) => {
          started.resolve();
          ctx.signal.addEventListener("abort", () => {
            aborted.resolve(ctx.signal.reason);
            resolve({});
          });
        }),
    });
    const closes = { client: 0, server: 0 };
    client.onclose = () => closes.client++;
    server.onclose = () => closes.server++;
    const pending = client.request("slow", {}, { timeoutMs: 10_000 }).catch((e: unknown) => e);
    await started.promise;
    await client.close();
    await client.close();
    expect(await pending).toMatchObject({ code: ErrorCode.ConnectionClosed, message: "Connection closed" });
    expect(await aborted.promise).toBe("connection closed");
    await vi.waitFor(() => expect(closes).toEqual({ client: 1, server: 1 }));
    expect(client.closed && server.closed).toBe(true);
    expect(client.pendingCount + server.inflightCount).toBe(0);
    await expect(client.request("x")).rejects.toMatchObject({ code: ErrorCode.ConnectionClosed });
    await expect(server.notify("x")).rejects.toMatchObject({ code: ErrorCode.ConnectionClosed });
  });

  it("clears timers on close", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    try {
      const { conn } = await withRawPeer({});
      const pending = conn.request("a").catch((e: unknown) => e);
      expect(vi.getTimerCount()).toBe(1);
      await conn.close();
      expect(vi.getTimerCount()).toBe(0);
      expect(await pending).toMatchObject({ code: ErrorCode.ConnectionClosed });
    } finally {
      vi.useRealTimers();
    }
  });

  it("drops a response whose handler finishes after close, without reporting it", async () => {
    const release = deferred();
    const entered = deferred();
    const sends: unknown[] = [];
    const closed = deferred();
    const transport: Transport = {
      start: async () => {},
      send: async (m) => {
        sends.push(m);
        throw new Error("transport is closed");
      },
      close: async () => closed.resolve(),
    };
    const errors: Error[] = [];
    const conn = new Connection({
      transport,
      onRequest: async () => {
        entered.resolve();
        await release.promise;
        return {};
      },
    });
    conn.onerror = (e) => errors.push(e);
    await conn.start();
    transport.onmessage?.(req(1, "m"));
    await entered.promise;
    await conn.close();
    release.resolve();
    await new Promise((resolve) => setImmediate(resolve));
    expect(sends).toEqual([]);
    expect(errors).toEqual([]);
  });

  it("ignores messages that arrive after close()", async () => {
    const calls: string[] = [];
    const transport: Transport = { start: async () => {}, send: async () => {}, close: async () => {} };
    const conn = new Connection({
      transport,
      onRequest: () => ({}),
      onNotification: (n) => void calls.push(n.method),
    });
    await conn.start();
    await conn.close();
    transport.onmessage?.({ jsonrpc: "2.0", method: "late" });
    expect(calls).toEqual([]);
  });

  it("closes when the transport closes on its own", async () => {
    const { conn, peer } = await withRawPeer({});
    const onclose = deferred();
    conn.onclose = () => onclose.resolve();
    const pending = conn.request("m").catch((e: unknown) => e);
    await peer.close();
    await onclose.promise;
    expect(conn.closed).toBe(true);
    expect(await pending).toMatchObject({ code: ErrorCode.ConnectionClosed });
  });
});

describe("transport send failures", () => {
  const failing = (how: "sync" | "async"): Transport => ({
    start: async () => {},
    send: (() => {
      if (how === "sync") throw new Error("sync send failure");
      return Promise.reject(new Error("async send failure"));
    }) as Transport["send"],
    close: async () => {},
  });

  it.each(["sync", "async"] as const)(
    "a %s failure rejects request() and notify(), never throws",
    async (how) => {
      const conn = new Connection({ transport: failing(how), onRequest: () => ({}) });
      await conn.start();
      await expect(conn.request("m")).rejects.toThrow(`${how} send failure`);
      await expect(conn.notify("n")).rejects.toThrow(`${how} send failure`);
      expect(conn.pendingCount).toBe(0);
    },
  );

  it("a failed response send goes to onerror", async () => {
    const transport = failing("sync");
    const conn = new Connection({ transport, onRequest: () => ({}) });
    const errors = new Inbox<Error>();
    conn.onerror = errors.push;
    await conn.start();
    transport.onmessage?.(req(1, "m"));
    expect((await errors.waitFor(() => true)).message).toBe("sync send failure");
  });
});

describe("batches", () => {
  it("refuses a batch with one error when batches are off", async () => {
    const calls: string[] = [];
    const { inbox, send } = await withRawPeer({
      onRequest: (r) => {
        calls.push(r.method);
        return {};
      },
    });
    await send([req(1, "a"), req(2, "b")]);
    expect(await inbox.waitFor(responseTo(null))).toEqual({
      jsonrpc: "2.0",
      id: null,
      error: { code: -32600, message: "JSON-RPC batches are not supported in this protocol version" },
    });
    expect(calls).toEqual([]);
  });

  it("answers every request of a batch in one array, in element order, when batches are on", async () => {
    const release = deferred();
    const notified: string[] = [];
    const { inbox, send } = await withRawPeer({
      acceptBatches: () => true,
      onRequest: async (r) => {
        if (r.method === "late") await release.promise;
        if (r.method === "fail") throw new McpError(-32602, "no");
        return { method: r.method };
      },
      onNotification: (n) => void notified.push(n.method),
    });
    await send([req("a", "late"), { jsonrpc: "2.0", method: "note" }, req("b", "fast"), req("c", "fail"), 5]);
    await vi.waitFor(() => expect(notified).toEqual(["note"]));
    expect(inbox.items).toEqual([]);
    release.resolve();
    const batch = await inbox.waitFor(Array.isArray, "the batch response");
    expect(batch).toEqual([
      { jsonrpc: "2.0", id: "a", result: { method: "late" } },
      { jsonrpc: "2.0", id: "b", result: { method: "fast" } },
      { jsonrpc: "2.0", id: "c", error: { code: -32602, message: "no" } },
      { jsonrpc: "2.0", id: null, error: { code: -32600, message: "a JSON-RPC message must be an object" } },
    ]);
  });

  it("answers an empty batch with -32600 and a batch of notifications with nothing", async () => {
    const { inbox, send } = await withRawPeer({ acceptBatches: () => true, onRequest: () => ({}) });
    await send([]);
    expect(await inbox.waitFor(responseTo(null))).toMatchObject({ error: { code: -32600 } });
    await send([
      { jsonrpc: "2.0", method: "x" },
      { jsonrpc: "2.0", method: "y" },
    ]);
    await settle({ inbox, send }, "ping");
    expect(inbox.items).toHaveLength(2);
  });

  it("routes responses that arrive in a batch", async () => {
    const { conn, send } = await withRawPeer({ acceptBatches: () => true });
    const a = conn.request("a");
    const b = conn.request("b");
    await send([
      { jsonrpc: "2.0", id: 1, result: { b: true } },
      { jsonrpc: "2.0", id: 0, error: { code: 1, message: "a failed" } },
    ]);
    await expect(b).resolves.toEqual({ b: true });
    await expect(a).rejects.toMatchObject({ code: 1, message: "a failed" });
  });

  it("asks acceptBatches per batch, so a negotiated version can switch it", async () => {
    let on = false;
    const { inbox, send } = await withRawPeer({ acceptBatches: () => on, onRequest: () => ({}) });
    await send([req(1, "m")]);
    await inbox.waitFor(responseTo(null));
    on = true;
    await send([req(2, "m")]);
    expect(await inbox.waitFor(Array.isArray)).toEqual([{ jsonrpc: "2.0", id: 2, result: {} }]);
  });
});

describe("lifecycle misuse", () => {
  it("refuses to start twice", async () => {
    const { conn } = await withRawPeer({});
    await expect(conn.start()).rejects.toThrow(/already started/);
  });
});

describe("requests the peer may end", () => {
  it("notifications/cancelled from the peer ends only a request sent with peerMayEnd", async () => {
    const { conn, inbox, send } = await withRawPeer({});
    const ids: unknown[] = [];
    const ended = conn.request("subscriptions/listen", {}, { peerMayEnd: true, onid: (id) => ids.push(id) });
    const plain = conn.request("other");
    await inbox.waitFor((m) => (m as { id?: number }).id === 1, "both requests");
    expect(ids).toEqual([0]);
    // A late cancellation of a request of the peer's that shares an id with ours changes nothing.
    const cancelled = (requestId: number, reason: string) => ({
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: { requestId, reason },
    });
    await send(cancelled(1, "late"));
    await send(cancelled(0, "shutting down"));
    await expect(ended).rejects.toMatchObject({ code: REQUEST_CANCELLED, data: { byPeer: true } });
    expect(conn.pendingCount).toBe(1);
    await send({ jsonrpc: "2.0", id: 1, result: { still: "answered" } });
    await expect(plain).resolves.toEqual({ still: "answered" });
    // Nothing was sent back for the ended request.
    expect(
      inbox.items.filter((m) => (m as { method?: string }).method === "notifications/cancelled"),
    ).toEqual([]);
  });
});

describe("drain", () => {
  it("refuses new requests, answers those in flight, then closes", async () => {
    const gates = new Map<unknown, ReturnType<typeof deferred<Record<string, unknown>>>>();
    const { conn, inbox, send } = await withRawPeer({
      onRequest: (r) => {
        const gate = deferred<Record<string, unknown>>();
        gates.set(r.id, gate);
        return gate.promise;
      },
    });
    await send(req(1, "work"));
    await send(req(2, "work"));
    await vi.waitFor(() => expect(gates.size).toBe(2));
    const closed = deferred();
    conn.onclose = () => closed.resolve();
    const drained = conn.drain(10_000);
    expect(conn.draining).toBe(true);
    await send(req(3, "work"));
    expect(await inbox.waitFor(responseTo(3, "error"))).toEqual({
      jsonrpc: "2.0",
      id: 3,
      error: { code: -32000, message: "Server shutting down: not accepting new requests" },
    });
    expect(gates.has(3)).toBe(false); // never reached a handler
    expect(conn.closed).toBe(false);
    gates.get(1)!.resolve({ n: 1 });
    expect(await inbox.waitFor(responseTo(1, "result"))).toMatchObject({ result: { n: 1 } });
    expect(conn.closed).toBe(false); // 2 still runs
    gates.get(2)!.resolve({ n: 2 });
    await drained;
    await closed.promise;
    expect(inbox.items.filter(responseTo(2, "result"))).toEqual([
      { jsonrpc: "2.0", id: 2, result: { n: 2 } },
    ]);
    expect(conn.closed).toBe(true);
  });

  it("at the deadline aborts what still runs through ctx.signal and answers it with -32000", async () => {
    const reasons: unknown[] = [];
    const { conn, inbox, send } = await withRawPeer({
      onRequest: (_r, ctx) =>
        new Promise((resolve) => {
          ctx.signal.addEventListener("abort", () => {
            reasons.push(ctx.signal.reason);
            resolve({ late: true }); // must never reach the wire
          });
        }),
    });
    await send(req("stuck", "work"));
    await vi.waitFor(() => expect(conn.inflightCount).toBe(1));
    const started = Date.now();
    await conn.drain(100);
    expect(Date.now() - started).toBeGreaterThanOrEqual(95);
    expect(reasons).toEqual(["server shutting down"]);
    expect(inbox.items.filter(responseTo("stuck"))).toEqual([
      {
        jsonrpc: "2.0",
        id: "stuck",
        error: {
          code: -32000,
          message: "Server shutting down: the request did not finish in time and was aborted",
        },
      },
    ]);
    expect(conn.closed).toBe(true);
  });

  it("with nothing in flight closes at once; a second drain() is the same drain", async () => {
    const { conn } = await withRawPeer({ onRequest: () => ({}) });
    const first = conn.drain(60_000);
    expect(conn.drain(1)).toBe(first);
    await first;
    expect(conn.closed).toBe(true);
  });
});
