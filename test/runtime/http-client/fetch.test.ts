/**
 * Edges of the HTTP client transports driven through their `fetch` option: answers no real server
 * gives on demand (a JSON batch, a wrong content type, a broken network, an endpoint on another origin).
 */
import { describe, expect, it } from "vitest";
import { SseClientTransport, StreamableHttpClientTransport } from "../../../runtime/http-client/index.js";

const URL_ = "http://127.0.0.1:1/mcp";

interface Call {
  method: string;
  headers: Headers;
  body?: string;
  signal?: AbortSignal | null;
}

/** A fetch that records each call and answers with `answer(call, index)`. */
function fakeFetch(answer: (call: Call, index: number) => Response | Promise<Response>) {
  const calls: Call[] = [];
  const fn: typeof fetch = async (_input, init) => {
    const call: Call = {
      method: init?.method ?? "GET",
      headers: new Headers(init?.headers),
      ...(typeof init?.body === "string" ? { body: init.body } : {}),
      signal: init?.signal ?? null,
    };
    calls.push(call);
    return answer(call, calls.length - 1);
  };
  return { fn, calls };
}

const json = (value: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(value), {
    status: 200,
    headers: { "content-type": "application/json", ...headers },
  });

describe("StreamableHttpClientTransport through a fake fetch", () => {
  it("delivers a JSON batch answer as one value", async () => {
    const batch = [
      { jsonrpc: "2.0", id: 1, result: {} },
      { jsonrpc: "2.0", id: 2, result: { ok: true } },
    ];
    const { fn } = fakeFetch(() => json(batch));
    const transport = new StreamableHttpClientTransport(URL_, { fetch: fn });
    const received: unknown[] = [];
    transport.onmessage = (m) => received.push(m);
    await transport.start();
    await transport.send([
      { jsonrpc: "2.0", id: 1, method: "ping" },
      { jsonrpc: "2.0", id: 2, method: "ping" },
    ]);
    expect(received).toEqual([batch]);
  });

  it("asks a headers function before every request", async () => {
    let n = 0;
    const { fn, calls } = fakeFetch((call) =>
      call.method === "POST" ? new Response(null, { status: 202 }) : new Response(null, { status: 405 }),
    );
    const transport = new StreamableHttpClientTransport(URL_, {
      fetch: fn,
      headers: async () => ({ authorization: `Bearer token-${++n}`, accept: "overridden by the transport" }),
    });
    await transport.start();
    await transport.send({ jsonrpc: "2.0", method: "notifications/a" });
    await transport.send({ jsonrpc: "2.0", method: "notifications/b" });
    expect(calls.map((c) => c.headers.get("authorization"))).toEqual(["Bearer token-1", "Bearer token-2"]);
    expect(calls[0]!.headers.get("accept")).toBe("application/json, text/event-stream");
  });

  it("a network error goes to onerror and rejects the send", async () => {
    const { fn } = fakeFetch(() => {
      throw new TypeError("fetch failed", { cause: new Error("connect ECONNREFUSED 127.0.0.1:1") });
    });
    const transport = new StreamableHttpClientTransport(URL_, { fetch: fn });
    const errors: Error[] = [];
    transport.onerror = (e) => errors.push(e);
    await transport.start();
    await expect(transport.send({ jsonrpc: "2.0", id: 1, method: "ping" })).rejects.toThrow(
      /POST http:\/\/127\.0\.0\.1:1\/mcp failed: fetch failed: connect ECONNREFUSED/,
    );
    expect(errors).toHaveLength(1);
  });

  it("rejects an answer of another content type", async () => {
    const { fn } = fakeFetch(() => new Response("<html>", { headers: { "content-type": "text/html" } }));
    const transport = new StreamableHttpClientTransport(URL_, { fetch: fn });
    await transport.start();
    await expect(transport.send({ jsonrpc: "2.0", id: 1, method: "ping" })).rejects.toThrow(
      /unexpected content type "text\/html"/,
    );
  });

  it("reports an unreadable SSE message and keeps reading the stream", async () => {
    const body = 'data: {not json\n\ndata: {"jsonrpc":"2.0","id":1,"result":{}}\n\n';
    const { fn } = fakeFetch(() => new Response(body, { headers: { "content-type": "text/event-stream" } }));
    const transport = new StreamableHttpClientTransport(URL_, { fetch: fn });
    const received: unknown[] = [];
    const errors: Error[] = [];
    transport.onmessage = (m) => received.push(m);
    transport.onerror = (e) => errors.push(e);
    await transport.start();
    await transport.send({ jsonrpc: "2.0", id: 1, method: "ping" });
    await expect.poll(() => received).toEqual([{ jsonrpc: "2.0", id: 1, result: {} }]);
    expect(errors[0]?.message).toMatch(/unreadable SSE message/);
  });

  it("fails the request whose stream sends an event over the size limit", async () => {
    const huge = `id: 1\ndata: ${"x".repeat(4 * 1024 * 1024 + 10)}\n\n`;
    const { fn } = fakeFetch(() => new Response(huge, { headers: { "content-type": "text/event-stream" } }));
    const transport = new StreamableHttpClientTransport(URL_, { fetch: fn });
    const received: unknown[] = [];
    transport.onmessage = (m) => received.push(m);
    await transport.start();
    await transport.send({ jsonrpc: "2.0", id: 3, method: "ping" });
    await expect
      .poll(() => received)
      .toEqual([
        {
          jsonrpc: "2.0",
          id: 3,
          error: {
            code: -32000,
            message: "Streamable HTTP: an SSE event exceeds the 4194304-character limit",
          },
        },
      ]);
    await transport.close();
  });

  it("ends a request's answer stream once its response is in, even if the server keeps it open", async () => {
    let cancelled = false;
    const { fn, calls } = fakeFetch(
      () =>
        new Response(
          new ReadableStream<Uint8Array>({
            start: (c) =>
              c.enqueue(new TextEncoder().encode('data: {"jsonrpc":"2.0","id":7,"result":{}}\n\n')),
            cancel: () => {
              cancelled = true;
            },
          }),
          { headers: { "content-type": "text/event-stream" } },
        ),
    );
    const transport = new StreamableHttpClientTransport(URL_, { fetch: fn });
    const received: unknown[] = [];
    transport.onmessage = (m) => received.push(m);
    await transport.start();
    await transport.send({ jsonrpc: "2.0", id: 7, method: "ping" });
    await expect.poll(() => received.length).toBe(1);
    await expect.poll(() => cancelled).toBe(true);
    expect(calls[0]!.signal?.aborted).toBe(true);
    await transport.close();
  });

  it("when the session expires, requests waiting to resume in it fail at once", async () => {
    const { fn, calls } = fakeFetch((call, i) => {
      if (i === 0) return json({ jsonrpc: "2.0", id: 0, result: {} }, { "mcp-session-id": "s-old" });
      const rpc = JSON.parse(call.body ?? "{}") as { method?: string };
      if (rpc.method === "tools/call") {
        // A priming event, a long retry, and the end: the transport waits to resume.
        return new Response("id: e1\nretry: 60000\ndata: \n\n", {
          headers: { "content-type": "text/event-stream" },
        });
      }
      return new Response(
        JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32001, message: "Session not found" } }),
        {
          status: 404,
        },
      );
    });
    const transport = new StreamableHttpClientTransport(URL_, { fetch: fn });
    const received: unknown[] = [];
    let expired = 0;
    transport.onmessage = (m) => received.push(m);
    transport.onsessionexpired = () => expired++;
    await transport.start();
    await transport.send({ jsonrpc: "2.0", id: 0, method: "initialize" });
    received.length = 0;
    await transport.send({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "slow" } });
    await expect(transport.send({ jsonrpc: "2.0", id: 2, method: "ping" })).rejects.toThrow(
      /session s-old expired/,
    );
    expect(expired).toBe(1);
    expect(received).toEqual([
      {
        jsonrpc: "2.0",
        id: 1,
        error: { code: -32000, message: "Streamable HTTP: MCP session s-old expired" },
      },
    ]);
    expect(calls.filter((c) => c.method === "GET")).toEqual([]);
    await transport.close();
  });

  it("close aborts what is in flight, sends DELETE with the session id, and fires onclose once", async () => {
    const { fn, calls } = fakeFetch((call, i) => {
      if (i === 0) return json({ jsonrpc: "2.0", id: 0, result: {} }, { "mcp-session-id": "s-1" });
      if (call.method === "DELETE") return new Response(null, { status: 405 });
      // Never answers: only the abort ends it.
      return new Promise<Response>((_, reject) =>
        call.signal?.addEventListener("abort", () => reject(call.signal?.reason)),
      );
    });
    const transport = new StreamableHttpClientTransport(URL_, { fetch: fn });
    let closed = 0;
    const errors: Error[] = [];
    transport.onclose = () => closed++;
    transport.onerror = (e) => errors.push(e);
    await transport.start();
    await transport.send({ jsonrpc: "2.0", id: 0, method: "initialize" });
    expect(transport.sessionId).toBe("s-1");
    const hanging = transport.send({ jsonrpc: "2.0", id: 1, method: "tools/list" });
    await expect.poll(() => calls.length).toBe(2);
    await Promise.all([transport.close(), transport.close()]);
    await expect(hanging).rejects.toThrow(/not open/);
    expect(calls.at(-1)!.method).toBe("DELETE");
    expect(calls.at(-1)!.headers.get("mcp-session-id")).toBe("s-1");
    expect(closed).toBe(1);
    expect(errors).toEqual([]); // neither the abort nor the 405 is an error
  });
});

describe("SseClientTransport through a fake fetch", () => {
  const stream = (text: string) =>
    new Response(text, { status: 200, headers: { "content-type": "text/event-stream" } });
  /** A stream that stays open after `text`, as a live session's does. */
  const openStream = (text: string) =>
    new Response(
      new ReadableStream<Uint8Array>({ start: (c) => c.enqueue(new TextEncoder().encode(text)) }),
      { status: 200, headers: { "content-type": "text/event-stream" } },
    );

  it("refuses an endpoint on another origin", async () => {
    const { fn } = fakeFetch(() => stream("event: endpoint\ndata: http://elsewhere.example/messages\n\n"));
    const transport = new SseClientTransport("http://127.0.0.1:1/sse", { fetch: fn });
    await expect(transport.start()).rejects.toThrow(/endpoint on another origin/);
  });

  it("fails start when the stream ends before naming an endpoint", async () => {
    const { fn } = fakeFetch(() => stream("event: message\ndata: {}\n\n"));
    const transport = new SseClientTransport("http://127.0.0.1:1/sse", { fetch: fn });
    await expect(transport.start()).rejects.toThrow(/ended the SSE stream before naming its endpoint/);
  });

  it("resolves a relative endpoint against the stream's URL", async () => {
    const { fn, calls } = fakeFetch((call) =>
      call.method === "GET"
        ? openStream("event: endpoint\ndata: /messages?sessionId=abc\n\n: keep-alive\n\n")
        : new Response("Accepted", { status: 202 }),
    );
    const transport = new SseClientTransport("http://127.0.0.1:1/sse", { fetch: fn });
    await transport.start();
    expect(transport.endpoint?.href).toBe("http://127.0.0.1:1/messages?sessionId=abc");
    let closed = 0;
    transport.onclose = () => closed++;
    await transport.send({ jsonrpc: "2.0", method: "notifications/initialized" });
    expect(calls[1]).toMatchObject({ method: "POST" });
    expect(calls[1]!.headers.get("content-type")).toBe("application/json");
    await transport.close();
    expect(calls[0]!.signal?.aborted).toBe(true);
    expect(closed).toBe(1);
  });
});
