/**
 * The Redis stores when Redis fails, with a real redis-server killed, restarted and paused: operations
 * fail at once with a clear error (RedisUnavailable: 503 + Retry-After, naming host:port and never the
 * password) while it is down, and work again after it is back, on the same connection.
 */
import {
  connectRedis,
  type OwnedRedisConnection,
  RedisEventStore,
  RedisMessageBus,
  RedisSessionStore,
  RedisStateKeyring,
  RedisUnavailable,
  RedisUsedStateStore,
} from "@mcp-codegen/redis";
import type { JsonRpcMessage } from "@mcp-codegen/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../fixtures/auth/protected-server.js";
import { redisSuite, startRedis, type TestRedis, withoutRedis } from "../fixtures/redis/redis-server.js";
import { replay } from "../fixtures/stores/event-store-contract.js";
import { record } from "../fixtures/stores/session-store-contract.js";

describe.skipIf(withoutRedis)(redisSuite("Redis outages"), () => {
  const PASSWORD = "s3cret-Pa55word";
  const m = (n: number): JsonRpcMessage => ({ jsonrpc: "2.0", method: "n", params: { n } });

  let redis: TestRedis;
  let connection: OwnedRedisConnection;
  const logs: string[] = [];

  beforeAll(async () => {
    redis = await startRedis(["--requirepass", PASSWORD]);
    connection = await connectRedis(`redis://:${PASSWORD}@127.0.0.1:${redis.port}`, {
      log: (line) => logs.push(line),
      commandTimeoutMs: 1000,
      maxReconnectDelayMs: 200,
    });
  });
  afterAll(async () => {
    await connection?.close();
    await redis?.dispose();
  });

  /** The error `operation` rejects with, and how long it took. */
  async function failure(operation: () => Promise<unknown>) {
    const started = performance.now();
    const error = await operation().then(
      () => undefined,
      (e: unknown) => e,
    );
    return { error, ms: performance.now() - started };
  }

  function expectUnavailable(error: unknown) {
    expect(error).toBeInstanceOf(RedisUnavailable);
    const unavailable = error as RedisUnavailable;
    expect(unavailable.status).toBe(503);
    expect(unavailable.headers).toEqual({ "retry-after": "2" });
    expect(unavailable.where).toBe(`127.0.0.1:${redis.port}`);
    expect(String(unavailable)).toContain(`Redis at 127.0.0.1:${redis.port}`);
    for (const text of [unavailable.message, String(unavailable), JSON.stringify(unavailable)])
      expect(text).not.toContain(PASSWORD);
  }

  describe("Redis killed and restarted", () => {
    it("while down every operation fails at once; after the restart the same stores work again", async () => {
      const events = new RedisEventStore(connection, { prefix: "outage:" });
      const used = new RedisUsedStateStore(connection, { prefix: "outage:" });
      const before = await events.append("s/1", m(1));
      expect(await used.claim("before", Date.now() + 60_000)).toBe(true);

      await redis.stop();
      for (const operation of [
        () => events.append("s/1", m(2)),
        () => events.replayAfter(before, async () => {}),
        () => events.deleteStream("s/1"),
        () => used.claim("during", Date.now() + 60_000),
      ]) {
        const { error, ms } = await failure(operation);
        expectUnavailable(error);
        expect(ms).toBeLessThan(500); // no offline queue: nothing waits for Redis (nor for the timeout)
      }

      await redis.start(); // empty: the test server persists nothing
      await expect
        .poll(
          () =>
            events.append("s/2", m(3)).then(
              () => true,
              () => false,
            ),
          { timeout: 10_000 },
        )
        .toBe(true);
      const first = await events.append("s/3", m(4));
      const second = await events.append("s/3", m(5));
      expect(await replay(events, first)).toEqual({ stream: "s/3", sent: [{ id: second, message: m(5) }] });
      expect(await used.claim("after", Date.now() + 60_000)).toBe(true);
      expect(await used.claim("after", Date.now() + 60_000)).toBe(false);

      // One line when it went, one when it came back; host:port, never the password.
      expect(logs.filter((l) => l.includes("unreachable")).length).toBeGreaterThanOrEqual(1);
      expect(logs.at(-1)).toBe(`Redis at 127.0.0.1:${redis.port} is reachable again`);
      for (const line of logs) expect(line).not.toContain(PASSWORD);
    });
  });

  describe("Redis killed and restarted: sessions, bus, keyring", () => {
    it("while down they fail at once as RedisUnavailable and report unhealthy; after the restart they work again", async () => {
      const sessions = new RedisSessionStore(connection, { prefix: "outage2:" });
      const keyring = new RedisStateKeyring(connection, { prefix: "outage2:", cacheMs: 0 });
      const publisher = new RedisMessageBus(connection, { prefix: "outage2:" });
      const bus = new RedisMessageBus(connection, { prefix: "outage2:" });
      const got: unknown[] = [];
      try {
        await sessions.put(record("s1", { client: "A" }));
        await keyring.keys();
        await bus.subscribe("fanout:x", (message) => got.push(message));
        expect(await publisher.publish("fanout:x", 1)).toBe(1);

        await redis.stop();
        await expect.poll(() => bus.healthy(), { timeout: 5000 }).toBe(false);
        for (const operation of [
          () => sessions.put(record("s2", { client: "A" })),
          () => sessions.get("s1"),
          () => sessions.countOf("A"),
          () => sessions.due(1, 1),
          () => sessions.oldestPending(undefined, () => true),
          () => keyring.keys(),
          () => keyring.rotate(1000),
          () => publisher.publish("fanout:x", 2),
          () => bus.subscribe("fanout:y", () => {}),
        ]) {
          const { error, ms } = await failure(operation);
          expectUnavailable(error);
          expect(ms).toBeLessThan(500);
        }
        expect([await sessions.healthy(), await keyring.healthy(), await publisher.healthy()]).toEqual([
          false,
          false,
          false,
        ]);

        await redis.start(); // empty: the test server persists nothing
        await expect.poll(() => sessions.healthy(), { timeout: 10_000 }).toBe(true);
        await sessions.put(record("s3", { client: "A" }));
        expect([await sessions.size(), await sessions.countOf("A")]).toEqual([1, 1]);
        expect(await keyring.keys()).toHaveLength(1); // a new first key: the old ones went with Redis's memory
        // The subscriber connection reconnects and subscribes again on its own.
        await expect.poll(() => publisher.publish("fanout:x", 3), { timeout: 10_000 }).toBe(1);
        await expect.poll(() => got, { timeout: 2000 }).toEqual([1, 3]);
        expect(await bus.healthy()).toBe(true);
      } finally {
        await bus.close();
      }
    }, 30_000);
  });

  describe("Redis that does not answer", () => {
    it("a paused Redis: commands time out (bounded), then work when it resumes", async () => {
      const events = new RedisEventStore(connection, { prefix: "paused:" });
      await expect
        .poll(
          () =>
            events.append("s/1", m(0)).then(
              () => true,
              () => false,
            ),
          { timeout: 10_000 },
        )
        .toBe(true);
      redis.pause();
      try {
        const { error, ms } = await failure(() => events.append("s/1", m(1)));
        expectUnavailable(error);
        expect(ms).toBeGreaterThanOrEqual(950); // commandTimeoutMs
        expect(ms).toBeLessThan(3000);
      } finally {
        redis.resume();
      }
      await expect
        .poll(
          () =>
            events.append("s/1", m(2)).then(
              () => true,
              () => false,
            ),
          { timeout: 10_000 },
        )
        .toBe(true);
    }, 20_000);

    it("a claim that timed out on a paused Redis, which Redis runs on resuming, is undone: the id stays good once", async () => {
      const used = new RedisUsedStateStore(connection, { prefix: `paused-${Date.now()}:` });
      await expect
        .poll(
          () =>
            Promise.resolve(used.claim("warm-up", Date.now() + 60_000)).then(
              () => true,
              () => false,
            ),
          { timeout: 10_000 },
        )
        .toBe(true);
      redis.pause();
      try {
        // The SET reaches Redis's socket and waits there; the store gives up on it (the caller says 503).
        expectUnavailable((await failure(() => used.claim("late", Date.now() + 60_000))).error);
      } finally {
        redis.resume();
      }
      // Redis now runs the SET it held: the claim nobody was told succeeded must not stand.
      expect(await used.claim("late", Date.now() + 60_000)).toBe(true);
      expect(await used.claim("late", Date.now() + 60_000)).toBe(false);
    }, 20_000);

    it("a connection to a paused Redis closes within its command timeout, its commands in flight failed", async () => {
      const own = await connectRedis(redis.url.replace("redis://", `redis://:${PASSWORD}@`), {
        log: () => {},
        commandTimeoutMs: 500,
      });
      const events = new RedisEventStore(own, { prefix: "closing:" });
      redis.pause();
      try {
        const inFlight = events.append("s/1", m(0)).catch((e: unknown) => e);
        const started = performance.now();
        await own.close();
        expect(performance.now() - started).toBeLessThan(2000);
        expectUnavailable(await inFlight);
      } finally {
        redis.resume();
      }
    }, 20_000);

    it("unreachable at start: connectRedis fails within its timeout, naming host:port and not the password", async () => {
      const port = await freePort(); // nothing listens there
      const lines: string[] = [];
      const { error, ms } = await failure(() =>
        connectRedis(`redis://user:${PASSWORD}@127.0.0.1:${port}`, {
          connectTimeoutMs: 500,
          log: (l) => lines.push(l),
        }),
      );
      expect(error).toBeInstanceOf(RedisUnavailable);
      expect((error as RedisUnavailable).where).toBe(`127.0.0.1:${port}`);
      expect(ms).toBeLessThan(3000);
      for (const text of [String(error), (error as Error).message, ...lines])
        expect(text).not.toContain(PASSWORD);
    });

    it("a URL that is not a Redis URL is refused without echoing it", async () => {
      await expect(connectRedis(`http://u:${PASSWORD}@host`)).rejects.toThrow(/must start with redis:\/\//);
      await expect(connectRedis(`not a url ${PASSWORD}`)).rejects.toThrow(/^Redis URL is not a URL/);
    });
  });
});
