/**
 * Notification fan-out across three instances on a real redis-server: each instance has its own Redis
 * connection, RedisMessageBus and RedisResourceSubscriptions (one prefix), as separate processes would
 * (the checks in test/fixtures/http/fan-out-checks.ts, the same as on the in-memory bus).
 */
import { randomUUID } from "node:crypto";
import {
  connectRedis,
  type OwnedRedisConnection,
  RedisMessageBus,
  RedisResourceSubscriptions,
} from "@mcp-codegen/redis";
import { describe } from "vitest";
import { fanOutChecks } from "../fixtures/http/fan-out-checks.js";
import { redisSuite, startRedis, withoutRedis } from "../fixtures/redis/redis-server.js";

describe.skipIf(withoutRedis)(redisSuite("fan-out over Redis"), () => {
  fanOutChecks("RedisMessageBus and RedisResourceSubscriptions, a connection per instance", async () => {
    const redis = await startRedis();
    const prefix = `fan-${randomUUID()}:`;
    const buses: RedisMessageBus[] = [];
    const connect = () => connectRedis(redis.url, { log: () => {} });
    // Three instances, each asking for its bus and its store once, in that order.
    const own: OwnedRedisConnection[] = [await connect(), await connect(), await connect()];
    let bus = 0;
    let store = 0;
    return {
      bus: () => {
        const made = new RedisMessageBus(own[bus++ % own.length]!, { prefix });
        buses.push(made);
        return made;
      },
      subscriptions: () => new RedisResourceSubscriptions(own[store++ % own.length]!, { prefix }),
      dispose: async () => {
        for (const made of buses) await made.close();
        for (const made of own) await made.close();
        await redis.dispose();
      },
    };
  });
});
