/**
 * RedisTaskStore against a real redis-server: the same contract as the in-memory store, run as two
 * instances (two connections) sharing one Redis; then what only a shared store shows: a task's hash
 * carries its TTL in Redis, prefixes keep two servers apart, the store fails clearly (503) while Redis
 * is down and works again after a restart, and a runner on one instance learns of a cancellation made
 * on the other.
 */
import { randomUUID } from "node:crypto";
import {
  connectRedis,
  type OwnedRedisConnection,
  RedisTaskStore,
  RedisUnavailable,
} from "@mcp-codegen/redis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { redisSuite, startRedis, type TestRedis, withoutRedis } from "../fixtures/redis/redis-server.js";
import { init, taskStoreContract } from "../fixtures/stores/task-store-contract.js";

describe.skipIf(withoutRedis)(redisSuite("RedisTaskStore"), () => {
  let redis: TestRedis;
  let a: OwnedRedisConnection;
  let b: OwnedRedisConnection;

  beforeAll(async () => {
    redis = await startRedis();
    a = await connectRedis(redis.url, { commandTimeoutMs: 1000, maxReconnectDelayMs: 200, log: () => {} });
    b = await connectRedis(redis.url);
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await redis?.dispose();
  });

  /** A prefix of its own per store: each test starts from an empty keyspace. */
  const fresh = () => `t-${randomUUID()}:`;

  taskStoreContract("RedisTaskStore", (limits) => {
    const prefix = fresh();
    return {
      a: new RedisTaskStore(a, { ...limits, prefix }),
      b: new RedisTaskStore(b, { ...limits, prefix }),
    };
  });

  it("a task is a hash under the prefix with its TTL in Redis; another prefix does not see it", async () => {
    const prefix = fresh();
    const store = new RedisTaskStore(a, { prefix });
    const created = await store.create(init("alice", { ttlMs: 5000 }));
    if (!created.ok) throw new Error("refused");
    const key = store.key(created.task.taskId);
    expect(key).toBe(`${prefix}{tasks}:t:${created.task.taskId}`);
    const pttl = Number(
      await a.client.eval("return redis.call('PTTL', KEYS[1])", { keys: [key], arguments: [] }),
    );
    expect(pttl).toBeGreaterThan(3000);
    expect(pttl).toBeLessThanOrEqual(5000);
    const other = new RedisTaskStore(b, { prefix: fresh() });
    expect(await other.get(created.task.taskId, "alice")).toBeUndefined();
    expect(await other.cancel(created.task.taskId, "alice")).toEqual({ ok: false, reason: "unknown" });
  });

  it("a runner renewing on one instance learns of a cancel made on another, and stops", async () => {
    const prefix = fresh();
    const onA = new RedisTaskStore(a, { prefix });
    const onB = new RedisTaskStore(b, { prefix });
    const created = await onA.create(init("alice", { leaseMs: 1000 }));
    if (!created.ok) throw new Error("refused");
    const { taskId } = created.task;
    const controller = new AbortController();
    // The runner's loop, as the dispatch will run it: renew every lease/3, abort on a terminal status.
    const runner = (async () => {
      for (let i = 0; i < 50 && !controller.signal.aborted; i++) {
        const seen = await onA.renew(taskId, "runner-1", 1000);
        if (!seen || seen.status === "cancelled") controller.abort();
        else await new Promise((r) => setTimeout(r, 50));
      }
    })();
    await new Promise((r) => setTimeout(r, 120));
    expect(controller.signal.aborted).toBe(false);
    expect(await onB.cancel(taskId, "alice")).toMatchObject({ ok: true, task: { status: "cancelled" } });
    await runner;
    expect(controller.signal.aborted).toBe(true);
    expect((await onA.get(taskId, "alice"))!.status).toBe("cancelled");
  });

  it("while Redis is down every operation fails at once with RedisUnavailable; after a restart it works", async () => {
    const store = new RedisTaskStore(a, { prefix: fresh() });
    expect(await store.healthy()).toBe(true);
    await redis.stop();
    try {
      for (const operation of [
        () => store.create(init("alice")),
        () => store.get("x", "alice"),
        () => store.list("alice"),
        () => store.cancel("x", "alice"),
        () => store.renew("x", "runner-1", 1000),
      ]) {
        const started = performance.now();
        const error = await operation().then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(error).toBeInstanceOf(RedisUnavailable);
        expect((error as RedisUnavailable).status).toBe(503);
        expect(performance.now() - started).toBeLessThan(1500);
      }
      expect(await store.healthy()).toBe(false);
    } finally {
      await redis.start();
    }
    for (let i = 0; i < 100 && !(await store.healthy()); i++) await new Promise((r) => setTimeout(r, 50));
    const created = await store.create(init("alice"));
    expect(created.ok).toBe(true);
  });
});
