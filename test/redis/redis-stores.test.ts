/**
 * `redisStores(url, { prefix })`, the package's one entry for a server: one connection, every store on
 * it under the prefix (read back with a separate Redis client), shaped for createServer (`server`) and
 * serveHttp (`http`), and `close()` letting it go. At start, a Redis that refuses (nothing listening, a
 * wrong password) fails within the connect timeout with one error naming host:port and why, never the
 * password, and nothing is logged before it.
 */
import { RedisUnavailable, redisStores } from "@mcp-codegen/redis";
import { createClient } from "redis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../fixtures/auth/protected-server.js";
import { redisSuite, startRedis, type TestRedis, withoutRedis } from "../fixtures/redis/redis-server.js";
import { record } from "../fixtures/stores/session-store-contract.js";

describe.skipIf(withoutRedis)(redisSuite("redisStores"), () => {
  const PASSWORD = "s3cret-Pa55word";
  let redis: TestRedis;
  let url: string;
  let reader: ReturnType<typeof createClient>;

  beforeAll(async () => {
    redis = await startRedis(["--requirepass", PASSWORD]);
    url = `redis://:${PASSWORD}@127.0.0.1:${redis.port}`;
    reader = createClient({ url });
    await reader.connect();
  });
  afterAll(async () => {
    await reader?.close();
    await redis?.dispose();
  });

  it("makes every store on one connection under the prefix; close() lets it go", async () => {
    const logs: string[] = [];
    const stores = await redisStores(url, { prefix: "app-a:", log: (line) => logs.push(line) });
    expect(stores.where).toBe(`127.0.0.1:${redis.port}`);
    expect(Object.keys(stores.server).sort()).toEqual([
      "bus",
      "resourceSubscriptions",
      "stateKeys",
      "taskStore",
      "usedStateStore",
    ]);
    expect(Object.keys(stores.http).sort()).toEqual(["eventStore", "sessionStore"]);

    await stores.http.sessionStore.put(record("s1", { client: "c1" }));
    const eventId = await stores.http.eventStore.append("stream-1", { jsonrpc: "2.0", method: "n" });
    expect(await stores.server.usedStateStore.claim("state-1", Date.now() + 60_000)).toBe(true);
    const [sealing] = await stores.server.stateKeys.keys();
    const heard: unknown[] = [];
    await stores.server.bus.subscribe("fanout:x", (message) => void heard.push(message));
    expect(await stores.server.bus.publish("fanout:x", { hello: 1 })).toBe(1);
    await expect.poll(() => heard).toEqual([{ hello: 1 }]);
    const created = await stores.server.taskStore.create({
      owner: "o1",
      method: "tools/call",
      ttlMs: 60_000,
      holder: "instance-1",
      leaseMs: 15_000,
    });
    if (!created.ok) throw new Error(`task not created: ${created.reason}`);

    expect(await reader.hGet("app-a:{sessions}:s:s1", "client")).toBe("c1");
    expect(eventId.startsWith("stream-1#")).toBe(true);
    expect(await reader.xLen("app-a:events:{stream-1}")).toBe(1);
    expect(await reader.exists("app-a:used:state-1")).toBe(1);
    expect(await reader.hKeys("app-a:state-keys")).toEqual([sealing!.id]);
    expect(await reader.hGet(`app-a:{tasks}:t:${created.task.taskId}`, "status")).toBe("working");
    // Nothing outside the prefix.
    expect((await reader.keys("*")).filter((k) => !k.startsWith("app-a:"))).toEqual([]);

    await stores.close();
    const after = await Promise.resolve(
      stores.http.eventStore.append("stream-1", { jsonrpc: "2.0", method: "n" }),
    ).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(after).toBeInstanceOf(RedisUnavailable);
    expect(logs).toEqual([]);
  });

  it("unreachable at start: one RedisUnavailable naming host:port and the cause, no password, nothing logged", async () => {
    const port = await freePort(); // nothing listens there
    const cases = [
      {
        url: `redis://user:${PASSWORD}@127.0.0.1:${port}`,
        where: `127.0.0.1:${port}`,
        cause: /ECONNREFUSED/,
      },
      {
        url: `redis://:wrong-${PASSWORD}@127.0.0.1:${redis.port}`,
        where: `127.0.0.1:${redis.port}`,
        cause: /WRONGPASS/,
      },
    ];
    for (const c of cases) {
      const logs: string[] = [];
      const started = performance.now();
      const error = await redisStores(c.url, { connectTimeoutMs: 500, log: (l) => logs.push(l) }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(performance.now() - started).toBeLessThan(3000);
      expect(error).toBeInstanceOf(RedisUnavailable);
      const line = String(error);
      expect(line).toMatch(new RegExp(`^RedisUnavailable: Redis at ${c.where} cannot answer: `));
      expect(line).toMatch(c.cause);
      expect(line).not.toContain("\n");
      expect(logs).toEqual([]);
      for (const text of [line, (error as Error).message]) expect(text).not.toContain(PASSWORD);
    }
  });
});
