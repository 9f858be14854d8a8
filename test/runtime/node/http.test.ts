/**
 * The Node adapter and serveHttp over real sockets on 127.0.0.1: loopback Host protection, uploads cut
 * off at the limit, SSE events flushed as they happen, client disconnects, the legacy endpoints' refusals,
 * and close() ending everything.
 */
import { request as httpRequest } from "node:http";
import { afterAll, describe, expect, it } from "vitest";
import { type HttpServerHandle, serveHttp, toNodeListener } from "../../../runtime/node/http.js";
import { featureServer } from "../../fixtures/http/feature-server.js";
import { initializeBody, messagesOf, POST_HEADERS, readSse } from "../../fixtures/http/helpers.js";

const handles: HttpServerHandle[] = [];
afterAll(async () => {
  await Promise.all(handles.map((h) => h.close()));
});

async function serve(options: Parameters<typeof serveHttp>[1] = {}) {
  const server = await featureServer();
  const http = await serveHttp(server, options);
  handles.push(http);
  return { server, http };
}

/** A raw request through node:http, which lets us send any Host header and any body framing. */
function raw(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: Iterable<string> },
): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: options.method ?? "GET", headers: options.headers }, (res) => {
      let body = "";
      res.setEncoding("utf8").on("data", (chunk: string) => (body += chunk));
      res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on("error", reject);
    for (const chunk of options.body ?? []) req.write(chunk);
    req.end();
  });
}

async function initialize(url: string) {
  const response = await fetch(url, {
    method: "POST",
    headers: POST_HEADERS,
    body: JSON.stringify(initializeBody()),
  });
  await response.body?.cancel();
  return { ...POST_HEADERS, "mcp-session-id": response.headers.get("mcp-session-id")! };
}

describe("serveHttp", () => {
  it("listens on 127.0.0.1 at /mcp and accepts only loopback Host headers", async () => {
    const { http } = await serve();
    expect(http.url).toBe(`http://127.0.0.1:${http.port}/mcp`);
    const body = [JSON.stringify(initializeBody())];
    const ok = await raw(http.url, {
      method: "POST",
      headers: { ...POST_HEADERS, host: `localhost:${http.port}` },
      body,
    });
    expect(ok.status).toBe(200);
    const rebound = await raw(http.url, {
      method: "POST",
      headers: { ...POST_HEADERS, host: `attacker.example:${http.port}` },
      body,
    });
    expect(rebound.status).toBe(403);
    expect(JSON.parse(rebound.body)).toMatchObject({
      id: null,
      error: { message: "Forbidden: Host not allowed" },
    });
    const foreign = await fetch(http.url, {
      method: "POST",
      headers: { ...POST_HEADERS, origin: "https://attacker.example" },
      body: body[0],
    });
    expect(foreign.status).toBe(403);
    expect((await fetch(new URL("/elsewhere", http.url))).status).toBe(404);
  });

  it("judges the request's own Host header, never a forwarding header a client can write", async () => {
    // Native serving, and the web Request path an `authenticate` callback takes.
    for (const options of [{}, { authenticate: () => undefined }]) {
      const { http } = await serve(options);
      const body = [JSON.stringify(initializeBody())];
      const own = `localhost:${http.port}`;
      const forwarded = {
        "x-forwarded-host": own,
        forwarded: `host=${own}`,
        "x-forwarded-server": own,
        "x-original-host": own,
        "x-host": own,
      };
      const spoofed = await raw(http.url, {
        method: "POST",
        headers: { ...POST_HEADERS, ...forwarded, host: `attacker.example:${http.port}` },
        body,
      });
      expect(spoofed.status).toBe(403);
      expect(JSON.parse(spoofed.body)).toMatchObject({ error: { message: "Forbidden: Host not allowed" } });
      const hostile = { "x-forwarded-host": "attacker.example", forwarded: "host=attacker.example" };
      const ok = await raw(http.url, {
        method: "POST",
        headers: { ...POST_HEADERS, ...hostile, host: own },
        body,
      });
      expect(ok.status).toBe(200);
      // The same-origin check also reads the real Host: an attacker's Origin matching a forwarded host is refused.
      const crossOrigin = await raw(http.url, {
        method: "POST",
        headers: { ...POST_HEADERS, ...hostile, host: own, origin: "http://attacker.example" },
        body,
      });
      expect(crossOrigin.status).toBe(403);
      expect(JSON.parse(crossOrigin.body)).toMatchObject({
        error: { message: "Forbidden: Origin not allowed" },
      });
    }
  });

  it("cuts off an oversize chunked upload at the limit with 413", async () => {
    const { http } = await serve({ maxBodyBytes: 64 * 1024 });
    const headers = await initialize(http.url);
    const chunk = "x".repeat(16 * 1024);
    const chunks = (function* () {
      yield '{"jsonrpc":"2.0","method":"notifications/x","params":{"pad":"';
      for (let i = 0; i < 64; i++) yield chunk; // 1 MiB, no Content-Length
      yield '"}}';
    })();
    const response = await raw(http.url, {
      method: "POST",
      headers: { ...headers, "transfer-encoding": "chunked" },
      body: chunks,
    });
    expect(response.status).toBe(413);
    expect(JSON.parse(response.body)).toMatchObject({ id: null, error: { code: -32000 } });
    // A declared length over the limit is refused before any byte of the body is read.
    const declared = await raw(http.url, {
      method: "POST",
      headers: { ...headers, "content-length": String(1024 * 1024) },
      body: ["x".repeat(1024 * 1024)],
    });
    expect(declared.status).toBe(413);
  });

  it("flushes each SSE event as it happens, with keep-alive comments between", async () => {
    const { http } = await serve({ keepAliveMs: 20, retryMs: 500 });
    const headers = await initialize(http.url);
    const get = await fetch(http.url, { headers: { ...headers, accept: "text/event-stream" } });
    expect(get.headers.get("content-type")).toBe("text/event-stream");
    const reading = readSse(get.body!, (e) => e.data.includes("list_changed"));
    await new Promise((resolve) => setTimeout(resolve, 70));
    const call = await fetch(http.url, {
      method: "POST",
      headers,
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "notify" } }),
    });
    expect(messagesOf((await readSse(call.body!)).events).at(-1)).toMatchObject({ id: 1 });
    const read = await reading;
    expect(read.comments).toBeGreaterThanOrEqual(2);
    expect(read.retry).toBe(500);
    expect(messagesOf(read.events)).toMatchObject([{ method: "notifications/tools/list_changed" }]);
  });

  it("an SSE answer's headers go out at once, before any event; a finished answer in one piece", async () => {
    const { http } = await serve(); // no retryMs: nothing is written before the first event
    const headers = await initialize(http.url);
    // The standalone stream has nothing to send: its headers must still arrive.
    const get = await fetch(http.url, {
      headers: { ...headers, accept: "text/event-stream" },
      signal: AbortSignal.timeout(2_000),
    });
    expect([get.status, get.headers.get("content-type")]).toEqual([200, "text/event-stream"]);
    await get.body?.cancel();
    // A call answered at once: headers, the priming event, the response and the end, all readable.
    const call = await raw(http.url, {
      method: "POST",
      headers,
      body: [
        JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "tools/call",
          params: { name: "echo", arguments: { text: "x" } },
        }),
      ],
    });
    expect(call.status).toBe(200);
    expect(call.body).toMatch(/^id: .*\ndata: \n\n/);
    expect(call.body).toContain('"id":1,"result"');
  });

  it("a client that goes away frees its stream: the session becomes idle and expires", async () => {
    let now = 0;
    const { http } = await serve({ now: () => now, sessionIdleTtlMs: 1000 });
    const headers = await initialize(http.url);
    const controller = new AbortController();
    const get = await fetch(http.url, {
      headers: { ...headers, accept: "text/event-stream" },
      signal: controller.signal,
    });
    expect(get.status).toBe(200);
    now = 5000;
    http.handler.sweep();
    expect(http.handler.sessionCount).toBe(1); // its GET stream is open
    controller.abort();
    // The socket closes, the adapter cancels the body, the stream ends: idle from now on.
    await expect
      .poll(async () => {
        now += 2000;
        http.handler.sweep();
        return http.handler.sessionCount;
      })
      .toBe(0);
  });

  it("close() ends open streams and sessions and stops listening", async () => {
    const { http, server } = await serve();
    const headers = await initialize(http.url);
    const get = await fetch(http.url, { headers: { ...headers, accept: "text/event-stream" } });
    const reading = readSse(get.body!);
    await http.close();
    handles.splice(handles.indexOf(http), 1);
    expect((await reading).ended).toBe(true);
    expect(server.sessions.size).toBe(0);
    await expect(fetch(http.url, { method: "POST", headers: POST_HEADERS, body: "{}" })).rejects.toThrow();
  });

  it("close() drains a session: the call in flight is answered (-32000 at the deadline), the GET stream ends cleanly, new sessions get 503", async () => {
    const { http } = await serve();
    const headers = await initialize(http.url);
    const get = await fetch(http.url, { headers: { ...headers, accept: "text/event-stream" } });
    const standalone = readSse(get.body!);
    const slow = await fetch(http.url, {
      method: "POST",
      headers: { ...POST_HEADERS, ...headers },
      body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "slow" } }),
    });
    expect(slow.status).toBe(200);
    const answer = readSse(slow.body!);
    const closing = http.close({ timeoutMs: 300 });
    const refused = await fetch(http.url, {
      method: "POST",
      headers: POST_HEADERS,
      body: JSON.stringify(initializeBody()),
    }).catch(() => undefined);
    // Still listening while it drains: a new session is refused with Retry-After, not dropped.
    expect(refused?.status).toBe(503);
    expect(refused?.headers.get("retry-after")).toBe("5");
    await refused?.body?.cancel();
    const read = await answer;
    expect(messagesOf(read.events).find((m) => (m as { id?: unknown }).id === 7)).toMatchObject({
      error: { code: -32000, message: expect.stringMatching(/did not finish in time/) },
    });
    expect(read.ended).toBe(true);
    expect((await standalone).ended).toBe(true);
    await closing;
    handles.splice(handles.indexOf(http), 1);
  });

  it("toNodeListener passes a thrown handler error on as a bare 500", async () => {
    const { createServer } = await import("node:http");
    const node = createServer(
      toNodeListener(async () => {
        throw new Error("secret detail");
      }),
    );
    await new Promise<void>((resolve) => node.listen(0, "127.0.0.1", resolve));
    const { port } = node.address() as { port: number };
    const response = await raw(`http://127.0.0.1:${port}/`, {});
    await new Promise((resolve) => node.close(resolve));
    expect(response.status).toBe(500);
    expect(response.body).not.toContain("secret");
  });
});

describe("legacy HTTP+SSE endpoints", () => {
  it("announce the endpoint first, refuse bad posts, answer on the stream", async () => {
    const { http } = await serve();
    const messages = new URL("/messages", http.url).href;
    const post = (query: string, body: string, contentType = "application/json") =>
      fetch(`${messages}${query}`, { method: "POST", headers: { "content-type": contentType }, body });
    expect((await post("", "{}")).status).toBe(400);
    expect((await post("?sessionId=unknown", "{}")).status).toBe(404);
    const session = await endpointId(http);
    expect(http.legacy?.sessionCount).toBe(1);
    expect((await post(`?sessionId=${session.id}`, "{}", "text/plain")).status).toBe(415);
    const malformed = await post(`?sessionId=${session.id}`, "{not json");
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toMatchObject({ id: null, error: { code: -32700 } });
    const init = await post(`?sessionId=${session.id}`, JSON.stringify(initializeBody("2024-11-05")));
    expect(init.status).toBe(202);
    const read = await session.reading;
    expect(read.events[0]).toMatchObject({ event: "endpoint", data: `/messages?sessionId=${session.id}` });
    expect(read.events[1]?.event).toBe("message");
    expect(JSON.parse(read.events[1]!.data)).toMatchObject({
      id: 0,
      result: { protocolVersion: "2024-11-05" },
    });
    // The reader stopped, the stream closed: the session is gone.
    await expect.poll(() => http.legacy?.sessionCount).toBe(0);
    expect((await post(`?sessionId=${session.id}`, "{}")).status).toBe(404);
  });

  it("close() drains a legacy session: its call in flight is answered on the stream (-32000 at the deadline), new streams and requests get 503, then the stream ends", async () => {
    const { http } = await serve();
    const { id, reading } = await endpointId(http, { toTheEnd: true });
    const messages = `${new URL("/messages", http.url).href}?sessionId=${id}`;
    const post = (body: unknown) =>
      fetch(messages, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    expect((await post(initializeBody("2024-11-05"))).status).toBe(202);
    expect((await post({ jsonrpc: "2.0", method: "notifications/initialized" })).status).toBe(202);
    expect(
      (await post({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "slow" } })).status,
    ).toBe(202);
    const closing = http.close({ timeoutMs: 300 });
    const again = await fetch(new URL("/sse", http.url), { headers: { accept: "text/event-stream" } });
    expect(again.status).toBe(503);
    expect(again.headers.get("retry-after")).toBe("5");
    await again.body?.cancel();
    const late = await post({ jsonrpc: "2.0", id: 8, method: "ping" });
    expect(late.status).toBe(503);
    await late.body?.cancel();
    const read = await reading;
    expect(read.ended).toBe(true);
    const answers = read.events
      .filter((e) => e.event === "message")
      .map((e) => JSON.parse(e.data) as { id?: unknown });
    expect(answers.find((m) => m.id === 7)).toMatchObject({
      error: { code: -32000, message: expect.stringMatching(/did not finish in time/) },
    });
    expect(answers.some((m) => m.id === 8)).toBe(false);
    await closing;
    handles.splice(handles.indexOf(http), 1);
  });
});

/**
 * Opens a legacy stream and reads its endpoint event; the reader then waits for the first message, or
 * with `toTheEnd` reads until the stream ends.
 */
async function endpointId(http: HttpServerHandle, { toTheEnd = false } = {}) {
  const sse = await fetch(new URL("/sse", http.url), { headers: { accept: "text/event-stream" } });
  let resolveId!: (id: string) => void;
  const id = new Promise<string>((resolve) => {
    resolveId = resolve;
  });
  const reading = readSse(sse.body!, (e) => {
    if (e.event === "endpoint") resolveId(new URLSearchParams(e.data.split("?")[1]).get("sessionId")!);
    return !toTheEnd && e.event === "message";
  });
  return { id: await id, reading };
}
