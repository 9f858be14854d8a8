/**
 * 2025-era sessions shared by three instances of a server (serveHttp on 127.0.0.1, each with its own
 * Redis connections: RedisSessionStore, RedisEventStore, RedisMessageBus on one real redis-server), and
 * clients whose every HTTP request goes to the next instance in turn (a round-robin balancer in their
 * fetch): the project's client and the official SDK clients v1 and v2. A session opened on one instance
 * is served by all; a client's answer to a sampling request lands on another instance than the one
 * waiting for it; a cancellation too; a stream is resumed on another instance than its producer; the
 * log level set on one applies on the others; DELETE on one ends the session everywhere.
 * The same scenario through a real proxy, with an instance killed, is test/scale/.
 */
import { randomUUID } from "node:crypto";
import { connectRedis, RedisEventStore, RedisMessageBus, RedisSessionStore } from "@mcp-codegen/redis";
import { closeSseStream } from "@mcp-codegen/runtime/http";
import { StreamableHttpClientTransport } from "@mcp-codegen/runtime/http-client";
import { type HttpServerHandle, serveHttp } from "@mcp-codegen/runtime/node";
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as TransportV2,
} from "@modelcontextprotocol/client";
import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as TransportV1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CreateMessageRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ServerHandlers } from "../../generated/2025-11-25/index.js";
import { createClient, createServer } from "../../generated/2025-11-25/index.js";
import { redisSuite, startRedis, type TestRedis, withoutRedis } from "../fixtures/redis/redis-server.js";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const text = (s: string) => ({ content: [{ type: "text" as const, text: s }] });
const TOOLS = ["where", "sample", "slow", "reconnect", "log", "later"].map((name) => ({
  name,
  inputSchema: { type: "object" as const },
}));

interface Instance {
  name: string;
  http: HttpServerHandle;
  /** Calls of the slow tool that saw their cancellation, here. */
  aborted: string[];
}

describe.skipIf(withoutRedis)(redisSuite("sessions shared by three instances"), () => {
  let redis: TestRedis;
  const cleanups: (() => Promise<unknown>)[] = [];
  const errors: unknown[] = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
  });
  beforeAll(async () => {
    redis = await startRedis();
    cleanups.push(() => redis.dispose());
  });

  async function instance(name: string, prefix: string): Promise<Instance> {
    const connection = await connectRedis(redis.url, { log: () => {} });
    const bus = new RedisMessageBus(connection, { prefix });
    const aborted: string[] = [];
    const handlers: ServerHandlers = {
      listTools: () => ({ tools: TOOLS }),
      callTool: async (params, ctx) => {
        const args = params.arguments ?? {};
        switch (params.name) {
          case "where":
            return text(name);
          case "sample": {
            const result = await ctx.createMessage({
              messages: [{ role: "user", content: { type: "text", text: "hi" } }],
              maxTokens: 5,
            });
            return text(`${name} sampled ${(result.content as { text?: string }).text}`);
          }
          case "slow":
            await new Promise<void>((resolve) => ctx.signal.addEventListener("abort", () => resolve()));
            aborted.push(String(args.tag));
            return text("cancelled");
          case "reconnect": {
            // Ends its POST stream: the client resumes with Last-Event-ID, on another instance.
            closeSseStream(ctx);
            for (let i = 1; i <= 3; i++) {
              await sleep(150);
              await ctx.progress?.(i, 3, `step ${i} on ${name}`);
            }
            return text(`${name} finished`);
          }
          case "later":
            // After its request is answered: the message can only go on the session's GET stream.
            setTimeout(() => void ctx.log("info", `late line from ${name}`).catch(() => {}), 100);
            return text(name);
          case "log":
            await ctx.log("info", "an info line");
            await ctx.log("error", "an error line");
            return text(name);
          default:
            throw new Error(`unknown tool ${params.name}`);
        }
      },
    };
    const server = createServer({
      info: { name: `shared-${name}`, version: "1.0.0" },
      handlers,
      capabilities: { tools: {}, logging: {} },
      bus,
      onError: (e) => errors.push(e),
    });
    const http = await serveHttp(server, {
      sessionStore: new RedisSessionStore(connection, { prefix }),
      eventStore: new RedisEventStore(connection, { prefix }),
      retryMs: 50,
    });
    cleanups.push(
      () => connection.close(),
      () => http.close({ timeoutMs: 0 }),
    );
    return { name, http, aborted };
  }

  async function ownConnection() {
    const connection = await connectRedis(redis.url, { log: () => {} });
    cleanups.push(() => connection.close());
    return connection;
  }

  let instances: Instance[];
  beforeAll(async () => {
    const prefix = `shared-${randomUUID()}:`;
    instances = [await instance("A", prefix), await instance("B", prefix), await instance("C", prefix)];
  });

  /** A fetch sending each request to the next instance; it records who got what. */
  function roundRobin() {
    let next = 0;
    const log: { instance: string; method: string; status: number; lastEventId: string | null }[] = [];
    const fetchNext: typeof fetch = async (input, init) => {
      const target = instances[next++ % instances.length]!;
      const url = new URL(typeof input === "string" || input instanceof URL ? input : input.url);
      const to = new URL(target.http.url);
      url.host = to.host;
      const response = await fetch(url, init);
      log.push({
        instance: target.name,
        method: init?.method ?? "GET",
        status: response.status,
        lastEventId: new Headers(init?.headers).get("last-event-id"),
      });
      return response;
    };
    return { fetch: fetchNext, log, url: instances[0]!.http.url };
  }

  const sampling = {
    createMessage: () => ({
      role: "assistant" as const,
      content: { type: "text" as const, text: "ok" },
      model: "m",
    }),
  };

  it("the project's client: one session served by every instance, sampling answered through another, log level shared", async () => {
    const rr = roundRobin();
    const logged: string[] = [];
    const client = createClient({
      info: { name: "own", version: "1" },
      handlers: { ...sampling, onLoggingMessage: (params) => void logged.push(String(params.data)) },
    });
    const transport = new StreamableHttpClientTransport(rr.url, { fetch: rr.fetch });
    await client.connect(transport);
    cleanups.push(() => client.close());
    const served = new Set<string>();
    for (let i = 0; i < 6; i++) {
      const result = await client.callTool({ name: "where", arguments: {} });
      served.add((result.content[0] as { text: string }).text);
    }
    expect([...served].sort()).toEqual(["A", "B", "C"]);
    expect(rr.log.every((r) => r.status < 300)).toBe(true);

    // The sampling request goes out on the tool's POST stream; the client's answer is the next request,
    // so it lands on the next instance, and reaches the handler waiting on the first.
    const sampled = await client.callTool({ name: "sample", arguments: {} });
    const answeredOn = rr.log.at(-1)!;
    const waitingOn = (sampled.content[0] as { text: string }).text.split(" ")[0];
    expect(answeredOn.method).toBe("POST");
    expect(answeredOn.instance).not.toBe(waitingOn);
    expect(sampled.content).toEqual([{ type: "text", text: `${waitingOn} sampled ok` }]);

    // logging/setLevel on one instance; the tool on the next logs only at error and above.
    await client.setLevel({ level: "error" });
    await client.callTool({ name: "log", arguments: {} });
    await expect.poll(() => logged).toEqual(["an error line"]);
  });

  it("the official SDK v2 client: sampling through another instance, a cancellation reaching the instance running the call", async () => {
    const rr = roundRobin();
    const client = new ClientV2({ name: "sdk-v2", version: "1" }, { capabilities: { sampling: {} } });
    client.setRequestHandler("sampling/createMessage", async () => sampling.createMessage());
    await client.connect(new TransportV2(new URL(rr.url), { fetch: rr.fetch }));
    cleanups.push(() => client.close());
    const sampled = await client.callTool({ name: "sample", arguments: {} });
    expect((sampled.content as { text: string }[])[0]!.text).toMatch(/^[ABC] sampled ok$/);

    const controller = new AbortController();
    const call = client.callTool({ name: "slow", arguments: { tag: "v2" } }, { signal: controller.signal });
    await sleep(200);
    const runningOn = rr.log.at(-1)!.instance;
    controller.abort();
    await expect(call).rejects.toThrow();
    // The cancellation went to the next instance, which does not run the call: routed to the one that does.
    await expect
      .poll(() => instances.find((i) => i.name === runningOn)!.aborted, { timeout: 5000 })
      .toEqual(["v2"]);
    const cancelledOn = rr.log.at(-1)!;
    expect(cancelledOn.instance).not.toBe(runningOn);
    expect(cancelledOn.status).toBe(202);
  });

  it("the official SDK v1 client: a stream its server closed is resumed on another instance, every event once, then the result", async () => {
    const rr = roundRobin();
    const client = new ClientV1({ name: "sdk-v1", version: "1" }, { capabilities: { sampling: {} } });
    client.setRequestHandler(CreateMessageRequestSchema, async () => sampling.createMessage());
    const transport = new TransportV1(new URL(rr.url), {
      fetch: rr.fetch,
      reconnectionOptions: {
        initialReconnectionDelay: 50,
        maxReconnectionDelay: 200,
        reconnectionDelayGrowFactor: 1.5,
        maxRetries: 5,
      },
    });
    await client.connect(transport);
    cleanups.push(() => client.close());
    const progress: string[] = [];
    const result = await client.callTool({ name: "reconnect", arguments: {} }, undefined, {
      onprogress: (p) => void progress.push(String(p.message)),
      timeout: 15_000,
    });
    const finishedOn = (result.content as { text: string }[])[0]!.text.split(" ")[0]!;
    expect(result.content).toEqual([{ type: "text", text: `${finishedOn} finished` }]);
    expect(progress).toEqual([1, 2, 3].map((i) => `step ${i} on ${finishedOn}`));
    const resumed = rr.log.filter((r) => r.lastEventId !== null);
    expect(resumed.length).toBeGreaterThan(0);
    expect(resumed[0]!.instance).not.toBe(finishedOn);
    expect(resumed[0]!.status).toBe(200);
  });

  it("a message for the GET stream sent while no GET is open anywhere reaches the GET opened later on another instance, once", async () => {
    const post = (at: Instance, sessionId: string | undefined, body: unknown) =>
      fetch(at.http.url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-protocol-version": "2025-11-25",
          ...(sessionId ? { "mcp-session-id": sessionId } : {}),
        },
        body: JSON.stringify(body),
      });
    const [a, b, c] = instances as [Instance, Instance, Instance];
    const opened = await post(a, undefined, {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
    });
    const sessionId = opened.headers.get("mcp-session-id")!;
    await opened.text();
    expect((await post(b, sessionId, { jsonrpc: "2.0", method: "notifications/initialized" })).status).toBe(
      202,
    );
    const called = await post(b, sessionId, {
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: { name: "later", arguments: {} },
    });
    expect(await called.text()).toContain('"B"');
    await sleep(400); // B has sent its late line by now, with no GET open anywhere

    /** Opens a fresh GET on `at` and collects its events for `ms`. */
    async function listen(at: Instance, ms: number): Promise<string[]> {
      const abort = new AbortController();
      const response = await fetch(at.http.url, {
        headers: {
          accept: "text/event-stream",
          "mcp-session-id": sessionId,
          "mcp-protocol-version": "2025-11-25",
        },
        signal: abort.signal,
      });
      expect(response.status).toBe(200);
      const lines: string[] = [];
      const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
      const timer = setTimeout(() => abort.abort(), ms);
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          for (const line of value.split("\n")) if (line.startsWith("data: ")) lines.push(line.slice(6));
        }
      } catch {
        // aborted: the time is up
      } finally {
        clearTimeout(timer);
      }
      return lines.filter((l) => l.includes("late line"));
    }
    const first = await listen(c, 1500);
    expect(first).toHaveLength(1);
    expect(JSON.parse(first[0]!)).toMatchObject({
      method: "notifications/message",
      params: { level: "info", data: "late line from B" },
    });
    // Delivered once: a GET opened later elsewhere does not get it again.
    expect(await listen(a, 800)).toEqual([]);
    await fetch(a.http.url, {
      method: "DELETE",
      headers: { "mcp-session-id": sessionId, "mcp-protocol-version": "2025-11-25" },
    });
  });

  it("DELETE on one instance ends the session on every instance", async () => {
    const rr = roundRobin();
    const transport = new StreamableHttpClientTransport(rr.url, { fetch: rr.fetch });
    const client = createClient({ info: { name: "own", version: "1" } });
    await client.connect(transport);
    for (let i = 0; i < 3; i++) await client.callTool({ name: "where", arguments: {} });
    const sessionId = transport.sessionId!;
    await client.close();
    expect(rr.log.at(-1)).toMatchObject({ method: "DELETE", status: 204 });
    for (const i of instances) {
      const response = await fetch(i.http.url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-session-id": sessionId,
          "mcp-protocol-version": "2025-11-25",
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
      });
      expect(response.status).toBe(404);
    }
  });

  it("the session bounds hold across instances: of initializes racing on two instances, at most maxSessions are kept", async () => {
    const prefix = `bounded-${randomUUID()}:`;
    const bounded = await Promise.all(
      ["P", "Q"].map(async (name) => {
        const connection = await connectRedis(redis.url, { log: () => {} });
        const server = createServer({
          info: { name: `bounded-${name}`, version: "1.0.0" },
          handlers: { listTools: () => ({ tools: [] }) },
          bus: new RedisMessageBus(connection, { prefix }),
        });
        const http = await serveHttp(server, {
          sessionStore: new RedisSessionStore(connection, { prefix }),
          eventStore: new RedisEventStore(connection, { prefix }),
          maxSessions: 4,
        });
        cleanups.push(
          () => connection.close(),
          () => http.close({ timeoutMs: 0 }),
        );
        return http;
      }),
    );
    const initialize = (url: string) =>
      fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: {
            protocolVersion: "2025-11-25",
            capabilities: {},
            clientInfo: { name: "x", version: "1" },
          },
        }),
      }).then(async (r) => {
        await r.body?.cancel();
        return r.status;
      });
    const statuses = await Promise.all(Array.from({ length: 10 }, (_, i) => initialize(bounded[i % 2]!.url)));
    // Pending sessions give way to newer ones (the registry's rule); the racers that find no room get 503.
    expect(
      statuses.every((s) => s === 200 || s === 503),
      String(statuses),
    ).toBe(true);
    expect(await new RedisSessionStore(await ownConnection(), { prefix }).size()).toBe(4);
  });

  it("a session is bound to its subject on every instance: another subject's request is 404 wherever it lands", async () => {
    const prefix = `owned-${randomUUID()}:`;
    const owned = await Promise.all(
      ["X", "Y"].map(async (name) => {
        const connection = await connectRedis(redis.url, { log: () => {} });
        const server = createServer({
          info: { name: `owned-${name}`, version: "1.0.0" },
          handlers: { listTools: () => ({ tools: [] }) },
          bus: new RedisMessageBus(connection, { prefix }),
        });
        const http = await serveHttp(server, {
          sessionStore: new RedisSessionStore(connection, { prefix }),
          eventStore: new RedisEventStore(connection, { prefix }),
          // The subject is the bearer token itself: enough to tell two callers apart here.
          authenticate: (request) => request.headers.get("authorization")?.replace(/^Bearer /, ""),
        });
        cleanups.push(
          () => connection.close(),
          () => http.close({ timeoutMs: 0 }),
        );
        return http;
      }),
    );
    const post = (url: string, subject: string, body: unknown, sessionId?: string) =>
      fetch(url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          authorization: `Bearer ${subject}`,
          "mcp-protocol-version": "2025-11-25",
          ...(sessionId ? { "mcp-session-id": sessionId } : {}),
        },
        body: JSON.stringify(body),
      });
    const opened = await post(owned[0]!.url, "alice", {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "x", version: "1" } },
    });
    const sessionId = opened.headers.get("mcp-session-id")!;
    await opened.body?.cancel();
    const list = { jsonrpc: "2.0", id: 2, method: "tools/list" };
    for (const instance of owned) {
      const other = await post(instance.url, "mallory", list, sessionId);
      await other.body?.cancel();
      expect(other.status).toBe(404);
      const owner = await post(instance.url, "alice", list, sessionId);
      await owner.body?.cancel();
      expect(owner.status).toBe(200);
    }
  });

  it("reports no errors", () => {
    expect(errors).toEqual([]);
  });
});
