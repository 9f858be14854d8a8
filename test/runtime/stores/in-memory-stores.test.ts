/**
 * The in-memory session store and message bus against the shared contracts (test/fixtures/stores/, which
 * the Redis-backed stores run too), the session
 * registry over a store that answers later (as a shared one does), and the state keyring: shared by
 * sealers, rotated with a round in flight, retired keys refused.
 */
import { describe, expect, it } from "vitest";
import { HttpError } from "../../../runtime/http/http-error.js";
import { SessionRegistry } from "../../../runtime/http/session-registry.js";
import {
  InMemorySessionStore,
  type SessionRecord,
  type SessionStore,
} from "../../../runtime/http/session-store.js";
import { channels, InMemoryMessageBus } from "../../../runtime/mcp/message-bus.js";
import { InMemoryResourceSubscriptions } from "../../../runtime/mcp/resource-subscriptions.js";
import { bindingOf } from "../../../runtime/mcp/round-binding.js";
import { InMemoryStateKeyring } from "../../../runtime/mcp/state-keyring.js";
import { StateSealer } from "../../../runtime/mcp/state-sealer.js";
import { messageBusContract } from "../../fixtures/stores/message-bus-contract.js";
import { resourceSubscriptionsContract } from "../../fixtures/stores/resource-subscriptions-contract.js";
import { sessionStoreContract } from "../../fixtures/stores/session-store-contract.js";
import { FakeSession } from "../http/fake-session.js";

sessionStoreContract("in memory", () => new InMemorySessionStore() as SessionStore);
messageBusContract("in memory", () => {
  const bus = new InMemoryMessageBus();
  return { a: bus, b: bus };
});
resourceSubscriptionsContract("in memory", (max) => new InMemoryResourceSubscriptions(max));
// The EventStore and UsedStateStore contracts run in test/runtime/http/event-store.test.ts and
// test/runtime/mcp/used-state-store.test.ts.

/** An in-memory store whose every answer comes later, as a shared store's do; `failing` makes them fail. */
class LaterStore implements SessionStore {
  readonly inner = new InMemorySessionStore();
  failing = false;
  #later<T>(f: () => T): Promise<T> {
    return new Promise((resolve, reject) =>
      setTimeout(() => (this.failing ? reject(new Error("store unreachable")) : resolve(f())), 1),
    );
  }
  size = () => this.#later(() => this.inner.size());
  countOf = (client: string) => this.#later(() => this.inner.countOf(client));
  get = (id: string) => this.#later(() => this.inner.get(id));
  put = (r: SessionRecord) => this.#later(() => this.inner.put(r as never));
  touch = (r: SessionRecord) => this.#later(() => this.inner.touch(r as never));
  delete = (id: string) => this.#later(() => this.inner.delete(id));
  oldestPending = (client: string | undefined, evictable: (r: SessionRecord) => boolean) =>
    this.#later(() => this.inner.oldestPending(client, evictable));
  due = (cutoff: number, pendingCutoff: number) => this.#later(() => this.inner.due(cutoff, pendingCutoff));
}

describe("SessionRegistry over a store that answers later", () => {
  const registry = (store: SessionStore, max = 2, maxPerClient = Number.POSITIVE_INFINITY) => {
    const clock = { now: 0 };
    const errors: unknown[] = [];
    const sessions = new SessionRegistry<FakeSession>(
      { ttlMs: 1000, pendingTtlMs: 100, max, maxPerClient, now: () => clock.now },
      (e) => errors.push(e),
      store,
    );
    return { sessions, clock, errors };
  };

  it("enforces the bounds through the store: the oldest pending idle session gives way, else 503 / 429", async () => {
    const store = new LaterStore();
    const { sessions } = registry(store, 2, 1);
    const pending = new FakeSession("pending", true, false, "A");
    await sessions.reserve("A");
    await sessions.add(pending);
    expect(await store.inner.get("pending")).toBe(pending);
    // A's bound is 1: its pending session gives way to its next one.
    await sessions.reserve("A");
    expect(pending.closed).toBe(1);
    expect(await store.size()).toBe(0);
    await sessions.add(new FakeSession("a-established", true, true, "A"));
    const perClient = await (sessions.reserve("A") as Promise<void>).catch((e: unknown) => e);
    expect(perClient).toBeInstanceOf(HttpError);
    expect((perClient as HttpError).status).toBe(429);
    await sessions.add(new FakeSession("b-established", true, true, "B"));
    const full = await (sessions.reserve("C") as Promise<void>).catch((e: unknown) => e);
    expect((full as HttpError).status).toBe(503);
    expect((full as HttpError).headers).toMatchObject({ "retry-after": "5" });
  });

  it("sweeps through the store: expired idle sessions close, busy ones stay", async () => {
    const store = new LaterStore();
    const { sessions, clock } = registry(store, 10);
    const idle = new FakeSession("idle", true, false);
    const busy = new FakeSession("busy", false, false);
    await sessions.add(idle);
    await sessions.add(busy);
    clock.now = 500; // past the pending TTL (100 ms)
    sessions.sweep();
    await new Promise((r) => setTimeout(r, 30));
    expect(idle.closed).toBe(1);
    expect(busy.closed).toBe(0);
    expect(await store.inner.get("idle")).toBeUndefined();
    expect(sessions.get("busy")).toBe(busy);
  });

  it("a store failing on touch or delete is reported, never thrown at the request", async () => {
    const store = new LaterStore();
    const { sessions, errors } = registry(store, 10);
    const s = new FakeSession("s");
    await sessions.add(s);
    store.failing = true;
    expect(() => sessions.touch(s)).not.toThrow();
    expect(() => sessions.delete(s)).not.toThrow();
    await new Promise((r) => setTimeout(r, 30));
    expect(errors.map((e) => (e as Error).message)).toEqual(["store unreachable", "store unreachable"]);
  });
});

describe("InMemoryMessageBus", () => {
  it("a throwing listener is reported and the others still get the message", () => {
    const errors: unknown[] = [];
    const bus = new InMemoryMessageBus((e) => errors.push(e));
    const got: unknown[] = [];
    bus.subscribe(channels.fanOut("s"), () => {
      throw new Error("listener failed");
    });
    bus.subscribe(channels.fanOut("s"), (m) => got.push(m));
    expect(bus.publish(channels.fanOut("s"), "hello")).toBe(2);
    expect(got).toEqual(["hello"]);
    expect((errors[0] as Error).message).toBe("listener failed");
  });

  it("channel names keep request ids of different types apart, and go once nobody listens", () => {
    expect(channels.request("s", 1)).not.toBe(channels.request("s", "1"));
    const bus = new InMemoryMessageBus();
    const stop = bus.subscribe(channels.session("s"), () => {});
    expect(bus.channelCount).toBe(1);
    stop();
    expect(bus.channelCount).toBe(0);
  });
});

describe("StateKeyring", async () => {
  const binding = await bindingOf("tools/call", "pay", "{}", "anyone");
  const round = { answers: {}, asked: { confirm: "elicitation/create" } };

  it("two sealers sharing a keyring open each other's states (two instances, one keyring)", async () => {
    const keyring = new InMemoryStateKeyring([{ id: "k1", secret: "a shared secret of enough length" }]);
    const a = new StateSealer(keyring, 60_000);
    const b = new StateSealer(keyring, 60_000);
    const sealed = await a.seal(round, binding);
    expect(sealed.startsWith("k1.")).toBe(true);
    expect(await b.open(sealed, binding)).toMatchObject(round);
  });

  it("a rotation in the middle of a round: the old key still opens what it sealed, new states use the new key, then the old one retires", async () => {
    const keyring = new InMemoryStateKeyring([{ id: "k1", secret: "first secret, long enough" }]);
    const a = new StateSealer(keyring, 60_000);
    const b = new StateSealer(keyring, 60_000);
    const inFlight = await a.seal(round, binding);
    keyring.rotate({ id: "k2", secret: "second secret, long enough" }, 80);
    expect(keyring.keys().map((k) => k.id)).toEqual(["k2", "k1"]);
    expect(await b.open(inFlight, binding)).toMatchObject(round);
    const fresh = await a.seal(round, binding);
    expect(fresh.startsWith("k2.")).toBe(true);
    await new Promise((r) => setTimeout(r, 120));
    expect(keyring.keys().map((k) => k.id)).toEqual(["k2"]);
    await expect(b.open(inFlight, binding)).rejects.toThrow(/does not have \(key id "k1"\)/);
    expect(await b.open(fresh, binding)).toMatchObject(round);
  });

  it("static keys honour their expiry too; an id rotated in twice is refused", async () => {
    const sealer = new StateSealer(
      [
        { id: "new", secret: "the new secret, long enough" },
        { id: "old", secret: "the old secret, long enough", expires: Date.now() - 1 },
      ],
      60_000,
    );
    const other = new StateSealer([{ id: "old", secret: "the old secret, long enough" }], 60_000);
    const byOld = await other.seal(round, binding);
    await expect(sealer.open(byOld, binding)).rejects.toThrow(/key id "old"/);
    expect(() =>
      new InMemoryStateKeyring([{ id: "k", secret: "s" }]).rotate({ id: "k", secret: "t" }, 1),
    ).toThrow(/already in the keyring/);
  });

  it("a keyring holding only expired keys cannot seal: a clear error", async () => {
    const keyring = new InMemoryStateKeyring([{ id: "k", secret: "secret, long enough", expires: 1 }]);
    await expect(new StateSealer(keyring, 60_000).seal(round, binding)).rejects.toThrow(
      /no key that has not expired/,
    );
  });
});
