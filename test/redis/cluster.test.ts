/**
 * The Redis stores on a real Redis Cluster (three redis-server masters joined by redis-cli): every
 * command touches one key, so streams and claims spread over the nodes and each works where it lands.
 */
import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import { promisify } from "node:util";
import {
  connectRedisCluster,
  type OwnedRedisConnection,
  RedisEventStore,
  RedisMessageBus,
  RedisSessionStore,
  RedisStateKeyring,
  RedisTaskStore,
  RedisUsedStateStore,
} from "@mcp-codegen/redis";
import type { JsonRpcMessage } from "@mcp-codegen/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  redisSuite,
  startRedisCluster,
  type TestRedisCluster,
  withoutRedis,
} from "../fixtures/redis/redis-server.js";
import { replay } from "../fixtures/stores/event-store-contract.js";
import { messageBusContract } from "../fixtures/stores/message-bus-contract.js";
import { sessionStoreContract } from "../fixtures/stores/session-store-contract.js";
import { taskStoreContract } from "../fixtures/stores/task-store-contract.js";

describe.skipIf(withoutRedis)(redisSuite("Redis Cluster"), () => {
  let cluster: TestRedisCluster;
  let connection: OwnedRedisConnection;

  beforeAll(async () => {
    cluster = await startRedisCluster(3);
    connection = await connectRedisCluster([cluster.urls[0]!], { log: () => {} });
  });
  afterAll(async () => {
    await connection?.close();
    await cluster?.dispose();
  });

  const m = (n: number): JsonRpcMessage => ({ jsonrpc: "2.0", method: "n", params: { n } });

  it("streams on every node: appended, replayed and deleted through the cluster client", async () => {
    const store = new RedisEventStore(connection, { prefix: `c-${randomUUID()}:` });
    const streams = Array.from({ length: 12 }, (_, i) => `${randomUUID()}/${i}`);
    const firsts = [];
    for (const stream of streams) {
      firsts.push(await store.append(stream, {}));
      await store.append(stream, m(1));
    }
    for (const [i, stream] of streams.entries()) {
      const { stream: found, sent } = await replay(store, firsts[i]!);
      expect(found).toBe(stream);
      expect(sent.map((e) => e.message)).toEqual([m(1)]);
    }
    // The streams landed on more than one node: keys are spread, not pinned by a shared hash tag.
    const holders = new Set<number>();
    for (const stream of streams) {
      for (const node of cluster.nodes) {
        const direct = await holds(node.port, store.key(stream));
        if (direct) holders.add(node.port);
      }
    }
    expect(holders.size).toBeGreaterThan(1);
    await store.deleteStream(streams[0]!);
    expect((await replay(store, firsts[0]!)).stream).toBeUndefined();
  });

  // Every key of the session store has the hash tag {sessions}: one slot, so its scripts run there.
  sessionStoreContract(
    "RedisSessionStore on a Cluster",
    () => new RedisSessionStore(connection, { prefix: `c-${randomUUID()}:` }),
  );

  // Every key of the task store has the hash tag {tasks}: one slot, so its scripts run there.
  taskStoreContract("RedisTaskStore on a Cluster", (limits) => {
    const prefix = `c-${randomUUID()}:`;
    return {
      a: new RedisTaskStore(connection, { ...limits, prefix }),
      b: new RedisTaskStore(connection, { ...limits, prefix }),
    };
  });

  const buses: RedisMessageBus[] = [];
  afterAll(async () => {
    for (const bus of buses) await bus.close();
  });
  messageBusContract("RedisMessageBus on a Cluster, sharded", () => {
    const prefix = `c-${randomUUID()}:`;
    const pair = {
      a: new RedisMessageBus(connection, { prefix, sharded: true }),
      b: new RedisMessageBus(connection, { prefix, sharded: true }),
    };
    buses.push(pair.a, pair.b);
    return pair;
  });

  it("the keyring on a Cluster: one hash, its first key made once", async () => {
    const prefix = `c-${randomUUID()}:`;
    const [one, two] = [
      new RedisStateKeyring(connection, { prefix }),
      new RedisStateKeyring(connection, { prefix }),
    ];
    const [a, b] = await Promise.all([one.keys(), two.keys()]);
    expect(a.map((k) => k.id)).toEqual(b.map((k) => k.id));
    const id = await one.rotate(60_000);
    // Another instance (its cache empty) reads the new key, not yet sealing, after the old one.
    const three = new RedisStateKeyring(connection, { prefix });
    expect((await three.keys()).map((k) => k.id)).toEqual([a[0]!.id, id]);
  });

  it("claims across slots are single-use", async () => {
    const store = new RedisUsedStateStore(connection, { prefix: `c-${randomUUID()}:` });
    const expires = Date.now() + 60_000;
    for (let i = 0; i < 10; i++) {
      expect(await store.claim(`state-${i}`, expires)).toBe(true);
      expect(await store.claim(`state-${i}`, expires)).toBe(false);
    }
  });
});

/** Whether the node on `port` itself holds `key` (EXISTS there, no redirection followed). */
async function holds(port: number, key: string): Promise<boolean> {
  const { stdout } = await promisify(execFile)("/usr/bin/redis-cli", ["-p", String(port), "exists", key]);
  return stdout.trim() === "1";
}
