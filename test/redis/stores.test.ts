/**
 * The Redis stores against a real redis-server: the same contracts as the in-memory stores, then what
 * only a shared store does: two instances (two servers) see each other's events and claims, key
 * prefixes keep two apps apart, streams are bounded by length and by age.
 */
import { randomUUID } from "node:crypto";
import {
  connectRedis,
  type OwnedRedisConnection,
  RedisEventStore,
  RedisMessageBus,
  RedisResourceSubscriptions,
  RedisSessionStore,
  RedisUsedStateStore,
} from "@mcp-codegen/redis";
import type { JsonRpcMessage } from "@mcp-codegen/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { redisSuite, startRedis, type TestRedis, withoutRedis } from "../fixtures/redis/redis-server.js";
import { eventStoreContract, replay } from "../fixtures/stores/event-store-contract.js";
import { messageBusContract } from "../fixtures/stores/message-bus-contract.js";
import { resourceSubscriptionsContract } from "../fixtures/stores/resource-subscriptions-contract.js";
import { record, sessionStoreContract } from "../fixtures/stores/session-store-contract.js";
import { usedStateStoreContract } from "../fixtures/stores/used-state-store-contract.js";

describe.skipIf(withoutRedis)(redisSuite("Redis stores"), () => {
  let redis: TestRedis;
  let a: OwnedRedisConnection;
  let b: OwnedRedisConnection;

  beforeAll(async () => {
    redis = await startRedis();
    a = await connectRedis(redis.url);
    b = await connectRedis(redis.url);
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await redis?.dispose();
  });

  /** A prefix of its own per store: each contract test starts from an empty keyspace. */
  const fresh = () => `t-${randomUUID()}:`;
  const m = (n: number): JsonRpcMessage => ({ jsonrpc: "2.0", method: "n", params: { n } });
  const until = async (check: () => boolean) => {
    for (let end = Date.now() + 2000; !check() && Date.now() < end; ) await sleep(5);
  };
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  // Redis trims whole stream nodes (`~`): the test server's nodes hold 4 entries.
  eventStoreContract("RedisEventStore", {
    make: (options) => new RedisEventStore(a, { ...options, prefix: fresh() }),
    lengthSlack: 4,
  });
  usedStateStoreContract("RedisUsedStateStore", () => new RedisUsedStateStore(a, { prefix: fresh() }));
  sessionStoreContract("RedisSessionStore", () => new RedisSessionStore(a, { prefix: fresh() }));
  resourceSubscriptionsContract(
    "RedisResourceSubscriptions",
    (maxPerSession) => new RedisResourceSubscriptions(a, { prefix: fresh(), maxPerSession }),
  );
  const buses: RedisMessageBus[] = [];
  afterAll(async () => {
    for (const bus of buses) await bus.close();
  });
  messageBusContract("RedisMessageBus", () => {
    const prefix = fresh();
    const pair = { a: new RedisMessageBus(a, { prefix }), b: new RedisMessageBus(b, { prefix }) };
    buses.push(pair.a, pair.b);
    return pair;
  });

  describe("shared by instances", () => {
    it("an event stored by one instance is replayed by another, with the same ids", async () => {
      const prefix = fresh();
      const onA = new RedisEventStore(a, { prefix });
      const onB = new RedisEventStore(b, { prefix });
      const first = await onA.append("session/1", {});
      const ids = [await onA.append("session/1", m(1)), await onB.append("session/1", m(2))];
      expect(await replay(onB, first)).toEqual({
        stream: "session/1",
        sent: [
          { id: ids[0], message: m(1) },
          { id: ids[1], message: m(2) },
        ],
      });
      await onB.deleteStream("session/1");
      expect((await replay(onA, first)).stream).toBeUndefined();
    });

    it("a state claimed on one instance is refused on the other; racing instances: one wins", async () => {
      const prefix = fresh();
      const onA = new RedisUsedStateStore(a, { prefix });
      const onB = new RedisUsedStateStore(b, { prefix });
      const expires = Date.now() + 60_000;
      expect(await onA.claim("s1", expires)).toBe(true);
      expect(await onB.claim("s1", expires)).toBe(false);
      const race = await Promise.all(
        Array.from({ length: 10 }, (_, i) => (i % 2 ? onA : onB).claim("s2", expires)),
      );
      expect(race.filter(Boolean)).toHaveLength(1);
    });

    it("a claim lasts until the state expires, then the key is gone", async () => {
      const store = new RedisUsedStateStore(a, { prefix: fresh() });
      expect(await store.claim("s", Date.now() + 500)).toBe(true);
      expect(await store.claim("s", Date.now() + 500)).toBe(false);
      await sleep(700);
      expect(await store.claim("s", Date.now() + 500)).toBe(true);
    });
  });

  describe("sessions shared by instances", () => {
    it("a session put on one instance is read, counted, touched and deleted on the other", async () => {
      const prefix = fresh();
      const onA = new RedisSessionStore(a, { prefix });
      const onB = new RedisSessionStore(b, { prefix });
      const info = { name: "c", version: "1" };
      await onA.put(
        record("s1", { client: "A", owner: "alice", clientInfo: info, clientCapabilities: { roots: {} } }),
      );
      expect(await onB.get("s1")).toEqual({
        id: "s1",
        client: "A",
        owner: "alice",
        established: false,
        lastActive: 0,
        clientInfo: info,
        clientCapabilities: { roots: {} },
      });
      expect(await onB.countOf("A")).toBe(1);
      await onB.touch({ ...record("s1", { client: "A" }), established: true, lastActive: 7 });
      expect(await onA.get("s1")).toMatchObject({ established: true, lastActive: 7 });
      expect(await onA.oldestPending("A", () => true)).toBeUndefined();
      await onB.delete("s1");
      expect(await onA.get("s1")).toBeUndefined();
      expect([await onA.size(), await onA.countOf("A")]).toEqual([0, 0]);
    });

    it("a session's hash expires ttlMs after its last touch; its indexes forget it when next read", async () => {
      const store = new RedisSessionStore(a, { prefix: fresh(), ttlMs: 300 });
      await store.put(record("s1", { client: "A", lastActive: 1 }));
      await sleep(200);
      await store.touch(record("s1", { client: "A", lastActive: 2 }));
      await sleep(200);
      expect(await store.get("s1")).toMatchObject({ lastActive: 2 }); // renewed by the touch
      await sleep(250);
      expect(await store.get("s1")).toBeUndefined();
      expect(await store.due(100, 100)).toEqual([]);
      expect([await store.size(), await store.countOf("A")]).toEqual([0, 0]);
    });

    it("putWithin: instances admitting at once never pass the bounds together", async () => {
      const prefix = fresh();
      const onA = new RedisSessionStore(a, { prefix });
      const onB = new RedisSessionStore(b, { prefix });
      const answers = await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          (i % 2 ? onA : onB).putWithin(record(`s${i}`, { client: i < 6 ? "A" : "B" }), {
            max: 5,
            maxPerClient: 2,
          }),
        ),
      );
      expect(answers.filter((x) => x === "stored")).toHaveLength(4); // 2 per client, under 5 overall
      expect(answers.filter((x) => x === "client-full")).toHaveLength(8);
      expect([await onA.size(), await onA.countOf("A"), await onA.countOf("B")]).toEqual([4, 2, 2]);
      expect(await onB.putWithin(record("c1", { client: "C" }), { max: 5 })).toBe("stored");
      expect(await onB.putWithin(record("c2", { client: "C" }), { max: 5 })).toBe("full");
      // Replacing a held record is not a new session: it fits at the bound.
      expect(
        await onA.putWithin(record("c1", { client: "C", established: true }), { max: 5, maxPerClient: 1 }),
      ).toBe("stored");
      expect(await onA.size()).toBe(5);
    });

    it("every key is in one Cluster slot per prefix (hash tag {sessions})", () => {
      expect(new RedisSessionStore(a, { prefix: "app1:" }).key("x")).toBe("app1:{sessions}:s:x");
    });
  });

  describe("the bus between instances", () => {
    it("publish answers how many instances are subscribed; prefixes keep two apps apart", async () => {
      const onA = new RedisMessageBus(a, { prefix: "bus1:" });
      const onB = new RedisMessageBus(b, { prefix: "bus1:" });
      const otherApp = new RedisMessageBus(b, { prefix: "bus2:" });
      buses.push(onA, onB, otherApp);
      const got: unknown[] = [];
      const stray: unknown[] = [];
      await onB.subscribe("fanout:s", (m) => got.push(m));
      await onB.subscribe("fanout:s", (m) => got.push(m)); // one Redis subscription per channel and instance
      await otherApp.subscribe("fanout:s", (m) => stray.push(m));
      expect(await onA.publish("fanout:s", { n: 1 })).toBe(1);
      await onA.subscribe("fanout:s", () => {});
      expect(await onA.publish("fanout:s", { n: 2 })).toBe(2);
      await sleep(100);
      expect(got).toEqual([{ n: 1 }, { n: 1 }, { n: 2 }, { n: 2 }]);
      expect(stray).toEqual([]);
      expect(onA.channel("fanout:s")).toBe("bus1:bus:fanout:s");
    });

    it("a second subscribe to a channel whose first is still under way resolves only once Redis has it", async () => {
      const prefix = fresh();
      const onA = new RedisMessageBus(a, { prefix });
      const onB = new RedisMessageBus(b, { prefix });
      buses.push(onA, onB);
      const got: unknown[] = [];
      const first = onB.subscribe("fanout:s", (m) => got.push(["first", m]));
      await onB.subscribe("fanout:s", (m) => got.push(["second", m]));
      expect(await onA.publish("fanout:s", 1)).toBe(1);
      await first;
      await until(() => got.length === 2);
      expect(got).toEqual([
        ["first", 1],
        ["second", 1],
      ]);
    });

    it("a channel's last unsubscribe leaves it in Redis: publish then reaches no one", async () => {
      const onA = new RedisMessageBus(a, { prefix: fresh() });
      const onB = new RedisMessageBus(b, { prefix: onA.channel("").slice(0, -4) });
      buses.push(onA, onB);
      const stop = await onB.subscribe("session:1", () => {});
      expect(await onA.publish("session:1", 1)).toBe(1);
      stop();
      await sleep(100);
      expect(await onA.publish("session:1", 2)).toBe(0);
    });
  });

  describe("resource subscriptions shared by instances", () => {
    it("a subscription recorded by A is one B reads; a session whose subscriptions expired is dropped from its URIs", async () => {
      const prefix = fresh();
      const onA = new RedisResourceSubscriptions(a, { prefix, ttlMs: 600 });
      const onB = new RedisResourceSubscriptions(b, { prefix, ttlMs: 600 });
      expect(await onA.add("s1", "file:///x")).toBe(true);
      expect(await onB.subscribers("file:///x")).toEqual(["s1"]);
      await sleep(400);
      // s2 renews the URI's set; s1's own set expires (its session ended where nobody forgot it).
      expect(await onB.add("s2", "file:///x")).toBe(true);
      await sleep(400);
      expect(await onA.subscribers("file:///x")).toEqual(["s2"]);
      expect(
        await a.client.eval("return redis.call('SCARD', KEYS[1])", {
          keys: [`${prefix}{subscriptions}:u:file:///x`],
          arguments: [],
        }),
      ).toBe(1);
    });
  });

  describe("key prefixes", () => {
    it("two apps on one Redis see neither each other's events nor each other's claims", async () => {
      const app1 = new RedisEventStore(a, { prefix: "app1:" });
      const app2 = new RedisEventStore(a, { prefix: "app2:" });
      const id = await app1.append("same/1", m(1));
      await app1.append("same/1", m(2));
      expect(await replay(app2, id)).toEqual({ stream: undefined, sent: [] });
      expect((await replay(app1, id)).sent.map((e) => e.message)).toEqual([m(2)]);
      expect(app1.key("same/1")).toBe("app1:events:{same/1}");
      const expires = Date.now() + 60_000;
      expect(await new RedisUsedStateStore(a, { prefix: "app1:" }).claim("x", expires)).toBe(true);
      expect(await new RedisUsedStateStore(a, { prefix: "app2:" }).claim("x", expires)).toBe(true);
    });
  });

  describe("bounds", () => {
    it("by length: a stream holds about maxEventsPerStream entries however many are appended", async () => {
      const store = new RedisEventStore(a, { prefix: fresh(), maxEventsPerStream: 10 });
      for (let n = 0; n < 200; n++) await store.append("s/1", m(n));
      const length = await a.client.xRange(store.key("s/1"), "-", "+");
      expect((length as unknown[]).length).toBeGreaterThanOrEqual(10);
      expect((length as unknown[]).length).toBeLessThanOrEqual(10 + 4);
    });

    it("by age: entries older than maxAgeMs are trimmed as new ones come, in a stream still written", async () => {
      const store = new RedisEventStore(a, { prefix: fresh(), maxAgeMs: 400 });
      const node = async (from: number) => {
        const ids = [];
        for (let n = from; n < from + 4; n++) ids.push(await store.append("s/1", m(n))); // a full stream node
        return ids;
      };
      const old = await node(0);
      await sleep(250);
      const middle = await node(4); // keeps the stream (its key) alive
      await sleep(250);
      const newest = [await store.append("s/1", m(8)), await store.append("s/1", m(9))];
      // The old node is older than maxAgeMs: trimmed. A client behind it resumes, with a gap, from the
      // oldest kept: the middle node (unless a slow machine let it age too) and the newest.
      const { stream, sent } = await replay(store, old[0]!);
      expect(stream).toBe("s/1");
      const ids = sent.map((e) => e.id);
      expect(ids.some((id) => old.includes(id))).toBe(false);
      expect([...middle, ...newest].slice(-ids.length)).toEqual(ids);
      expect(ids.slice(-2)).toEqual(newest);
    });

    it("by age: a stream not written for maxAgeMs expires whole", async () => {
      const store = new RedisEventStore(a, { prefix: fresh(), maxAgeMs: 300 });
      const first = await store.append("s/1", m(0));
      await store.append("s/1", m(1));
      expect((await replay(store, first)).sent).toHaveLength(1);
      await sleep(450);
      expect(await a.client.xRange(store.key("s/1"), "-", "+")).toEqual([]);
      expect(await replay(store, first)).toEqual({ stream: undefined, sent: [] });
    });
  });
});
