/**
 * Notification fan-out between Server objects sharing one InMemoryMessageBus (the checks in
 * test/fixtures/http/fan-out-checks.ts, over real HTTP servers on 127.0.0.1; test/redis/fan-out.test.ts
 * runs them on Redis), and what a server does with its bus: none published without the option, one
 * subscription per server, dropped on close, a bus that cannot subscribe yet asked again.
 */
import { describe, expect, it } from "vitest";
import { handlers, info } from "../../../examples/everything-server/handlers.js";
import { createClient } from "../../../generated/2025-11-25/index.js";
import { createServer } from "../../../generated/2026-07-28/index.js";
import { HttpError } from "../../../runtime/http/http-error.js";
import { createMemoryTransportPair } from "../../../runtime/jsonrpc/memory.js";
import { channels, InMemoryMessageBus, type MessageBus } from "../../../runtime/mcp/message-bus.js";
import {
  InMemoryResourceSubscriptions,
  type ResourceSubscriptionStore,
} from "../../../runtime/mcp/resource-subscriptions.js";
import { STORE_UNAVAILABLE } from "../../../runtime/mcp/store-unavailable.js";
import { fanOutChecks } from "../../fixtures/http/fan-out-checks.js";

fanOutChecks("one InMemoryMessageBus, one in-memory subscription store", async () => {
  const bus = new InMemoryMessageBus();
  const subscriptions = new InMemoryResourceSubscriptions();
  return { bus: () => bus, subscriptions: () => subscriptions, dispose: async () => {} };
});

const capabilities = { tools: { listChanged: true } };

describe("a server's bus", () => {
  it("without the bus option: a bus of its own, on which nothing is subscribed nor published", async () => {
    const server = createServer({ info, handlers, capabilities });
    const bus = server.bus as InMemoryMessageBus;
    expect(bus).toBeInstanceOf(InMemoryMessageBus);
    const published: unknown[] = [];
    bus.subscribe(channels.fanOut(info.name), (m) => published.push(m));
    await server.fanOutReady();
    await server.notifyAll("notifications/tools/list_changed", {});
    expect(published).toEqual([]);
    expect(bus.channelCount).toBe(1);
  });

  it("with one: one subscription per server on its fan-out channel, dropped on close", async () => {
    const bus = new InMemoryMessageBus();
    const a = createServer({ info, handlers, capabilities, bus });
    const b = createServer({ info, handlers, capabilities, bus });
    await Promise.all([a.fanOutReady(), b.fanOutReady()]);
    expect(a.bus).toBe(bus);
    const seen: unknown[] = [];
    bus.subscribe(channels.fanOut(info.name), (m) => seen.push(m));
    await a.notifyAll("notifications/tools/list_changed", {});
    expect(seen).toEqual([
      { from: expect.any(String), method: "notifications/tools/list_changed", params: {} },
    ]);
    await a.close();
    await b.close();
    const stop = bus.subscribe(channels.fanOut(info.name), () => {});
    // Only the two test subscriptions are left: the servers' went with close().
    expect(bus.publish(channels.fanOut(info.name), "x")).toBe(2);
    stop();
  });

  it("a bus that cannot subscribe yet (Redis down at start) is reported and asked again until it can", async () => {
    const inner = new InMemoryMessageBus();
    let refusals = 2;
    const flaky: MessageBus = {
      publish: (channel, message) => inner.publish(channel, message),
      subscribe: (channel, listener) =>
        refusals-- > 0 ? Promise.reject(new Error("bus unreachable")) : inner.subscribe(channel, listener),
    };
    const errors: unknown[] = [];
    const server = createServer({ info, handlers, capabilities, bus: flaky, onError: (e) => errors.push(e) });
    await server.fanOutReady();
    expect(errors.map((e) => (e as Error).message)).toEqual(["bus unreachable", "bus unreachable"]);
    expect(inner.channelCount).toBe(1);
    await server.close();
    expect(inner.channelCount).toBe(0);
  });

  it("a session whose transport says receivesFanOut: false (a copy held by another instance too) is skipped", async () => {
    const server = createServer({ info, handlers, capabilities });
    const heard: string[] = [];
    for (const name of ["copy", "home"]) {
      const client = createClient({
        info: { name, version: "1" },
        handlers: { onToolListChanged: () => void heard.push(name) },
      });
      const [clientSide, serverSide] = createMemoryTransportPair();
      if (name === "copy") Object.assign(serverSide, { receivesFanOut: false });
      await server.connect(serverSide);
      await client.connect(clientSide);
    }
    await server.notifyAll("notifications/tools/list_changed", {});
    await server.notifyAll("notifications/tools/list_changed", {});
    // Two for the home session, and by then the copy would have had its first.
    await expect.poll(() => heard).toEqual(["home", "home"]);
    await server.close({ timeoutMs: 0 });
  });

  it("messages on the channel that are not fan-out messages are ignored, not delivered nor thrown", async () => {
    const bus = new InMemoryMessageBus((e) => errors.push(e));
    const errors: unknown[] = [];
    const server = createServer({ info, handlers, capabilities, bus, onError: (e) => errors.push(e) });
    await server.fanOutReady();
    for (const junk of [null, "text", { from: 1, method: "x" }, { from: "o", method: "m", params: [1] }])
      bus.publish(channels.fanOut(info.name), junk);
    expect(errors).toEqual([]);
    await server.close();
  });
});

describe("resource subscriptions over one session", () => {
  it("a session over its bound is refused before the subscribe handler runs; an unsubscribed URI gets no update", async () => {
    const subscriptions = new InMemoryResourceSubscriptions(1);
    const accepted: string[] = [];
    const server = createServer({
      info,
      handlers: {
        ...handlers,
        subscribe: ({ uri }) => {
          accepted.push(uri);
          return {};
        },
      },
      capabilities: { resources: { subscribe: true } },
      resourceSubscriptions: subscriptions,
    });
    const updates: string[] = [];
    const client = createClient({
      info: { name: "c", version: "1" },
      handlers: { onResourceUpdated: (p) => void updates.push(p.uri) },
    });
    const [clientSide, serverSide] = createMemoryTransportPair();
    await server.connect(serverSide);
    await client.connect(clientSide);
    await client.subscribe({ uri: "test://a" });
    await expect(client.subscribe({ uri: "test://b" })).rejects.toThrow(/too many resource subscriptions/);
    expect(accepted).toEqual(["test://a"]);
    await server.notifyResourceUpdated("test://b");
    await server.notifyResourceUpdated("test://a");
    await expect.poll(() => updates).toEqual(["test://a"]);
    // The session's subscriptions go when it ends.
    expect(subscriptions.sessionCount).toBe(1);
    await client.close();
    await expect.poll(() => subscriptions.sessionCount).toBe(0);
  });

  it("a subscription store that cannot answer: subscribe fails with STORE_UNAVAILABLE, the handler not run", async () => {
    const inner = new InMemoryResourceSubscriptions();
    let down = true;
    const failing: ResourceSubscriptionStore = {
      add: (id, uri) =>
        down
          ? Promise.reject(new HttpError(503, "the store is unreachable", { "retry-after": "2" }))
          : inner.add(id, uri),
      remove: (id, uri) => inner.remove(id, uri),
      subscribers: (uri) => inner.subscribers(uri),
      forget: (id) => inner.forget(id),
    };
    const accepted: string[] = [];
    const errors: unknown[] = [];
    const server = createServer({
      info,
      handlers: {
        ...handlers,
        subscribe: ({ uri }) => {
          accepted.push(uri);
          return {};
        },
      },
      capabilities: { resources: { subscribe: true } },
      resourceSubscriptions: failing,
      onError: (e) => errors.push(e),
    });
    const client = createClient({ info: { name: "c", version: "1" }, handlers: {} });
    const [clientSide, serverSide] = createMemoryTransportPair();
    await server.connect(serverSide);
    await client.connect(clientSide);
    await expect(client.subscribe({ uri: "test://a" })).rejects.toMatchObject({
      code: STORE_UNAVAILABLE,
      data: { retryAfter: "2" },
    });
    expect(accepted).toEqual([]);
    expect(errors).toEqual([expect.objectContaining({ status: 503 })]);
    down = false;
    await client.subscribe({ uri: "test://a" });
    expect(accepted).toEqual(["test://a"]);
    expect(inner.subscribers("test://a")).toHaveLength(1);
    await client.close();
  });
});
