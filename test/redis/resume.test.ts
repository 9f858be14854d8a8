/**
 * End to end: the runtime's Streamable HTTP server (serveHttp, on 127.0.0.1) keeping its SSE events in
 * Redis, and the official SDK v2 client resuming a stream with Last-Event-ID across a reconnect; a
 * second instance (its own connection) finds the stream's events in the shared Redis. Sessions served
 * by several instances: test/redis/shared-sessions.test.ts.
 */
import { randomUUID } from "node:crypto";
import { connectRedis, type OwnedRedisConnection, RedisEventStore } from "@mcp-codegen/redis";
import { type HttpServerHandle, serveHttp } from "@mcp-codegen/runtime/node";
import { Client as ClientV2, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { createClient } from "redis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { featureServer } from "../fixtures/http/feature-server.js";
import { initializeBody, POST_HEADERS, readSse } from "../fixtures/http/helpers.js";
import { redisSuite, startRedis, type TestRedis, withoutRedis } from "../fixtures/redis/redis-server.js";
import { replay } from "../fixtures/stores/event-store-contract.js";

describe.skipIf(withoutRedis)(redisSuite("Redis-backed Streamable HTTP"), () => {
  let redis: TestRedis;
  const cleanups: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });
  beforeAll(async () => {
    redis = await startRedis();
    cleanups.push(() => redis.dispose());
  });

  /** One server instance: its own process state and Redis connection, the Redis shared. */
  async function instance(
    prefix: string,
  ): Promise<{ http: HttpServerHandle; store: RedisEventStore; redis: OwnedRedisConnection }> {
    const connection = await connectRedis(redis.url, { log: () => {} });
    const store = new RedisEventStore(connection, { prefix });
    const http = await serveHttp(await featureServer(), { eventStore: store, retryMs: 50 });
    cleanups.push(
      () => connection.close(),
      () => http.close(),
    );
    return { http, store, redis: connection };
  }

  /** The SDK v2 client, recording the Last-Event-ID of each request it makes. */
  async function sdkClient(url: string) {
    const resumedFrom: string[] = [];
    const client = new ClientV2({ name: "sdk-v2", version: "1.0.0" });
    const transport = new StreamableHTTPClientTransport(new URL(url), {
      reconnectionOptions: {
        initialReconnectionDelay: 50,
        maxReconnectionDelay: 200,
        reconnectionDelayGrowFactor: 1.5,
        maxRetries: 3,
      },
      fetch: (input, init) => {
        const last = new Headers(init?.headers).get("last-event-id");
        if (last) resumedFrom.push(last);
        return fetch(input, init);
      },
    });
    await client.connect(transport);
    cleanups.push(() => client.close());
    return { client, transport, resumedFrom };
  }

  describe("SSE resumption from Redis", () => {
    it("the SDK v2 client resumes a stream the server closed, replayed from Redis; another instance's store holds it too", async () => {
      const prefix = `e2e-${randomUUID()}:`;
      const a = await instance(prefix);
      const b = await instance(prefix);
      const { client, transport, resumedFrom } = await sdkClient(a.http.url);
      // The tool ends its POST stream after the priming event, works on, then answers: the client
      // reconnects with the priming event's id and gets the rest from the store.
      const call = client.callTool({ name: "reconnect", arguments: { ms: 800 } });
      await expect.poll(() => resumedFrom.length, { timeout: 10_000 }).toBe(1);
      // An id Redis gave: <session>/<stream>#<ms>-<seq>.
      const sessionId = transport.sessionId!;
      expect(resumedFrom[0]).toMatch(new RegExp(`^${sessionId}/\\d+#\\d+-\\d+$`));
      const streamId = resumedFrom[0]!.slice(0, resumedFrom[0]!.lastIndexOf("#"));
      // While the stream lives, the second instance, on its own connection, finds it in the shared Redis.
      expect((await replay(b.store, resumedFrom[0]!)).stream).toBe(streamId);
      const result = await call;
      expect(result.content).toEqual([{ type: "text", text: "reconnected (closed: true)" }]);
      expect(resumedFrom).toHaveLength(1);
      // Its response delivered live, the stream is not deleted (a round trip per call) but left to expire
      // with the store's age bound (an hour by default), as every stream of a Redis event store does.
      expect(b.store.expiresStreams).toBe(true);
      const reader = createClient({ url: redis.url });
      await reader.connect();
      try {
        const ttl = await reader.pTTL(b.store.key(streamId));
        expect(ttl).toBeGreaterThan(0);
        expect(ttl).toBeLessThanOrEqual(3_600_000);
      } finally {
        await reader.destroy();
      }
    });

    it("a tool silent for a while: its 200 comes at once with a priming id stored in Redis, resumable before the tool answers", async () => {
      const prefix = `e2e-${randomUUID()}:`;
      const a = await instance(prefix);
      const b = await instance(prefix);
      const post = (body: unknown, headers: Record<string, string> = {}) =>
        fetch(a.http.url, {
          method: "POST",
          headers: { ...POST_HEADERS, ...headers },
          body: JSON.stringify(body),
          signal: AbortSignal.timeout(5_000),
        });
      const init = await post(initializeBody());
      const headers = {
        "mcp-session-id": init.headers.get("mcp-session-id")!,
        "mcp-protocol-version": "2025-11-25",
      };
      await readSse(init.body!);
      await post({ jsonrpc: "2.0", method: "notifications/initialized" }, headers);
      // `slow` sends nothing until cancelled: the client still holds an id it can resume from.
      const call = await post(
        { jsonrpc: "2.0", id: 5, method: "tools/call", params: { name: "slow", arguments: {} } },
        headers,
      );
      expect(call.status).toBe(200);
      const first = await readSse(call.body!, () => true, 3_000);
      expect(first.events).toEqual([expect.objectContaining({ data: "", id: expect.any(String) })]);
      const primingId = first.events[0]!.id!;
      // Stored, not only sent: the other instance's store knows the stream, with nothing after the id yet.
      expect(await replay(b.store, primingId)).toEqual({
        stream: primingId.slice(0, primingId.lastIndexOf("#")),
        sent: [],
      });
      const cancelled = { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 5 } };
      expect((await post(cancelled, headers)).status).toBe(202);
    });

    it("while Redis is down, a resumption is answered 503 with Retry-After; after its restart the server serves again", async () => {
      const a = await instance(`e2e-${randomUUID()}:`);
      const { client, transport } = await sdkClient(a.http.url);
      const first = await client.callTool({ name: "echo", arguments: { text: "before" } });
      expect(first.content).toEqual([{ type: "text", text: "before" }]);
      const get = () =>
        fetch(a.http.url, {
          headers: {
            accept: "text/event-stream",
            "mcp-session-id": transport.sessionId!,
            "mcp-protocol-version": transport.protocolVersion ?? "2025-11-25",
            "last-event-id": `${transport.sessionId}/1#1-0`,
          },
        });
      await redis.stop();
      try {
        const refused = await get();
        expect(refused.status).toBe(503);
        expect(refused.headers.get("retry-after")).toBe("2");
        const body = (await refused.json()) as { error: { message: string } };
        expect(body.error.message).toMatch(/Redis is unreachable/);
        expect(body.error.message).not.toContain(String(redis.port)); // clients learn no topology
      } finally {
        await redis.start();
      }
      // Once the connection is back (node-redis reconnects with backoff), calls are served again.
      await expect
        .poll(
          () =>
            a.store.append("probe/1", {}).then(
              () => true,
              () => false,
            ),
          { timeout: 15_000 },
        )
        .toBe(true);
      const after = await client.callTool({ name: "echo", arguments: { text: "after" } });
      expect(after.content).toEqual([{ type: "text", text: "after" }]);
    });
  });
});
