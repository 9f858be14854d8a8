/**
 * The readiness probe over real HTTP (serveHttp on 127.0.0.1, raw node:http requests): ready, unready
 * while draining with a call in flight (that call still answered), unready while a store says it cannot
 * serve or does not answer in time; exempt from auth and the Host check, no CORS headers. And a session
 * store that cannot store: initialize answered 503 with Retry-After, no session left behind.
 */
import { request as httpRequest } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { InMemoryEventStore } from "../../../runtime/http/event-store.js";
import { HttpError } from "../../../runtime/http/http-error.js";
import { InMemorySessionStore, type SessionStore } from "../../../runtime/http/session-store.js";
import { type HttpServerHandle, type ServeHttpOptions, serveHttp } from "../../../runtime/node/http.js";
import { featureServer } from "../../fixtures/http/feature-server.js";
import { initializeBody, POST_HEADERS } from "../../fixtures/http/helpers.js";

const handles: HttpServerHandle[] = [];
afterEach(async () => {
  await Promise.all(handles.splice(0).map((h) => h.close({ timeoutMs: 100 })));
});

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/**
 * One request on its own connection: `headed` once the status and headers came (an SSE answer sends
 * them at once), `done` with the whole answer (an SSE body ends when its stream does).
 */
function start(
  port: number,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string,
): { headed: Promise<number>; done: Promise<Answer> } {
  let headed!: (status: number) => void;
  const headedP = new Promise<number>((resolve) => (headed = resolve));
  const done = new Promise<Answer>((resolve, reject) => {
    const req = httpRequest(
      { host: "127.0.0.1", port, method, path, headers: { connection: "close", ...headers } },
      (res) => {
        headed(res.statusCode!);
        let text = "";
        res.setEncoding("utf8").on("data", (chunk: string) => (text += chunk));
        res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body: text }));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
  return { headed: headedP, done };
}

const send = (...args: Parameters<typeof start>): Promise<Answer> => start(...args).done;

const probe = (port: number, path = "/readyz", headers: Record<string, string> = {}) =>
  send(port, "GET", path, headers);

async function serve(options: ServeHttpOptions = {}, onError?: (error: unknown) => void) {
  const handle = await serveHttp(await featureServer("2025-11-25", onError), { port: 0, ...options });
  handles.push(handle);
  return handle;
}

/** A session opened over HTTP: its id. */
async function openSession(port: number): Promise<string> {
  const init = await send(port, "POST", "/mcp", POST_HEADERS, JSON.stringify(initializeBody()));
  expect(init.status).toBe(200);
  const id = init.headers["mcp-session-id"] as string;
  const headers = { ...POST_HEADERS, "mcp-session-id": id, "mcp-protocol-version": "2025-11-25" };
  const note = JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" });
  expect((await send(port, "POST", "/mcp", headers, note)).status).toBe(202);
  return id;
}

describe("readiness probe", () => {
  it("GET /readyz: 200 when ready, never cached, no CORS headers; HEAD too; other methods 405", async () => {
    const { port } = await serve({ cors: { origins: ["https://app.example"] } });
    const ready = await probe(port, "/readyz", { origin: "https://app.example" });
    expect(ready.status).toBe(200);
    expect(JSON.parse(ready.body)).toEqual({ status: "ready" });
    expect(ready.headers["cache-control"]).toBe("no-store");
    expect(Object.keys(ready.headers).filter((h) => h.startsWith("access-control-"))).toEqual([]);
    expect((await send(port, "HEAD", "/readyz")).status).toBe(200);
    const post = await send(port, "POST", "/readyz", POST_HEADERS, "{}");
    expect(post.status).toBe(405);
    expect(post.headers.allow).toBe("GET, HEAD");
  });

  it("is exempt from authentication and the Host check, which still guard /mcp", async () => {
    const { port } = await serve({
      authenticate: () => {
        throw new HttpError(401, "Unauthorized", { "www-authenticate": "Bearer" });
      },
    });
    const init = JSON.stringify(initializeBody());
    expect((await send(port, "POST", "/mcp", POST_HEADERS, init)).status).toBe(401);
    expect((await probe(port)).status).toBe(200);
    // A load balancer probes with the address it knows the instance by.
    const foreign = { host: "10.1.2.3:8080" };
    expect((await send(port, "POST", "/mcp", { ...POST_HEADERS, ...foreign }, init)).status).toBe(403);
    expect((await probe(port, "/readyz", foreign)).status).toBe(200);
  });

  it("turns 503 with Retry-After as soon as close() starts, while a call in flight is still answered", async () => {
    const handle = await serve();
    const { port } = handle;
    const id = await openSession(port);
    const headers = { ...POST_HEADERS, "mcp-session-id": id, "mcp-protocol-version": "2025-11-25" };
    const slow = JSON.stringify({
      jsonrpc: "2.0",
      id: 7,
      method: "tools/call",
      params: { name: "slow", arguments: {} },
    });
    const inFlight = start(port, "POST", "/mcp", headers, slow);
    // Its SSE answer has begun: the call is in flight.
    expect(await inFlight.headed).toBe(200);
    const closed = handle.close({ timeoutMs: 1500 });
    const draining = await probe(port);
    expect(draining.status).toBe(503);
    expect(draining.headers["retry-after"]).toBe("5");
    expect(JSON.parse(draining.body)).toEqual({ status: "unready" });
    // The call in flight is answered (aborted at the drain deadline and answered, not dropped).
    const answered = await inFlight.done;
    expect(answered.status).toBe(200);
    expect(answered.body).toContain('"id":7');
    await closed;
  });

  it("503 while a store reports itself unhealthy, 200 once it recovers; a store too slow to answer is unhealthy", async () => {
    const events = Object.assign(new InMemoryEventStore(), { up: true as boolean | "hang" });
    const eventStore = Object.assign(events, {
      healthy: () => (events.up === "hang" ? new Promise<boolean>(() => {}) : events.up),
    });
    const { port } = await serve({ eventStore });
    expect((await probe(port)).status).toBe(200);
    events.up = false;
    const down = await probe(port);
    expect(down.status).toBe(503);
    expect(down.headers["retry-after"]).toBe("5");
    events.up = true;
    expect((await probe(port)).status).toBe(200);
    events.up = "hang";
    const started = Date.now();
    expect((await probe(port)).status).toBe(503);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it("the path is configurable, or the probe off; it may not be the MCP endpoint's", async () => {
    const custom = await serve({ readinessPath: "/health/ready" });
    expect((await probe(custom.port, "/health/ready")).status).toBe(200);
    expect((await probe(custom.port, "/readyz")).status).toBe(404);
    const off = await serve({ readinessPath: false });
    expect((await probe(off.port)).status).toBe(404);
    await expect(serveHttp(await featureServer(), { port: 0, readinessPath: "/mcp" })).rejects.toThrow(
      /readinessPath and path/,
    );
  });

  it("the web handler answers ready() the same way", async () => {
    const handle = await serve();
    expect(await handle.handler.ready()).toBe(true);
    const closing = handle.handler.close({ timeoutMs: 100 });
    expect(await handle.handler.ready()).toBe(false);
    await closing;
  });
});

describe("a session store that cannot store", () => {
  it("initialize is answered 503 with Retry-After, the store's error reported and not shown, no session left", async () => {
    const inner = new InMemorySessionStore();
    let failing = true;
    const sessionStore: SessionStore = {
      size: () => inner.size(),
      countOf: (c) => inner.countOf(c),
      get: (id) => inner.get(id),
      put: async (r) => {
        if (failing) throw new Error("connect ECONNREFUSED 10.0.0.9:6379 (user:secret)");
        inner.put(r as never);
      },
      touch: (r) => inner.touch(r as never),
      delete: (id) => inner.delete(id),
      oldestPending: (c, e) => inner.oldestPending(c, e),
      due: (a, b) => inner.due(a, b),
    };
    const errors: unknown[] = [];
    const handle = await serve({ sessionStore }, (e) => errors.push(e));
    const init = await send(handle.port, "POST", "/mcp", POST_HEADERS, JSON.stringify(initializeBody()));
    expect(init.status).toBe(503);
    expect(init.headers["retry-after"]).toBe("5");
    expect(init.headers["mcp-session-id"]).toBeUndefined();
    expect(init.body).not.toContain("secret");
    expect(JSON.parse(init.body)).toMatchObject({
      error: { message: expect.stringMatching(/session store/) },
    });
    expect(handle.handler.sessionCount).toBe(0);
    expect(inner.size()).toBe(0);
    expect(errors.map((e) => (e as Error).message)).toEqual([expect.stringContaining("ECONNREFUSED")]);
    // Once the store is back, sessions open again.
    failing = false;
    await openSession(handle.port);
    expect(inner.size()).toBe(1);
  });
});
