import { describe, expect, it } from "vitest";
import { createMemoryTransportPair } from "../../../runtime/jsonrpc/memory.js";
import type { JsonRpcMessage } from "../../../runtime/jsonrpc/messages.js";
import { Inbox } from "../helpers.js";

const note = (n: number): JsonRpcMessage => ({
  jsonrpc: "2.0",
  method: "n",
  params: { n, nested: { list: [n] } },
});

describe("createMemoryTransportPair", () => {
  it("delivers asynchronously, in order, both ways", async () => {
    const [a, b] = createMemoryTransportPair();
    const atB = new Inbox<unknown>();
    const atA = new Inbox<unknown>();
    b.onmessage = atB.push;
    a.onmessage = atA.push;
    await Promise.all([a.start(), b.start()]);
    for (let i = 0; i < 100; i++) void a.send(note(i));
    expect(atB.items).toEqual([]);
    await b.send(note(-1));
    await atB.waitFor((m) => (m as { params: { n: number } }).params.n === 99);
    expect(atB.items).toEqual(Array.from({ length: 100 }, (_, i) => note(i)));
    await atA.waitFor(() => true);
    expect(atA.items).toEqual([note(-1)]);
  });

  it("deep-copies every message", async () => {
    const [a, b] = createMemoryTransportPair();
    const got = new Inbox<unknown>();
    b.onmessage = got.push;
    await Promise.all([a.start(), b.start()]);
    const sent = { jsonrpc: "2.0" as const, method: "n", params: { nested: { list: [1] } } };
    await a.send(sent);
    sent.params.nested.list.push(2);
    const received = (await got.waitFor(() => true)) as typeof sent;
    expect(received).not.toBe(sent);
    expect(received.params.nested.list).toEqual([1]);
  });

  it("rejects a message that cannot be cloned", async () => {
    const [a, b] = createMemoryTransportPair();
    await Promise.all([a.start(), b.start()]);
    const bad = { jsonrpc: "2.0", method: "m", params: { fn: () => 1 } } as JsonRpcMessage;
    await expect(a.send(bad)).rejects.toThrow();
  });

  it("holds messages until the receiver starts", async () => {
    const [a, b] = createMemoryTransportPair();
    const got = new Inbox<unknown>();
    b.onmessage = got.push;
    await a.start();
    await a.send(note(1));
    await a.send(note(2));
    await new Promise((resolve) => setImmediate(resolve));
    expect(got.items).toEqual([]);
    await b.start();
    await a.send(note(3));
    await got.waitFor((m) => (m as { params: { n: number } }).params.n === 3);
    expect(got.items).toEqual([note(1), note(2), note(3)]);
  });

  it("closing either side closes both, each onclose once; messages sent before close still arrive", async () => {
    const [a, b] = createMemoryTransportPair();
    const closes: string[] = [];
    const got: unknown[] = [];
    a.onclose = () => closes.push("a");
    b.onclose = () => closes.push("b");
    b.onmessage = (m) => got.push(m);
    await Promise.all([a.start(), b.start()]);
    void a.send(note(1));
    await Promise.all([b.close(), a.close(), b.close()]);
    expect(closes.sort()).toEqual(["a", "b"]);
    expect(got).toEqual([note(1)]);
    await expect(a.send(note(2))).rejects.toThrow(/closed/);
    await expect(b.send(note(2))).rejects.toThrow(/closed/);
  });

  it("reports a throwing onmessage through onerror and keeps delivering", async () => {
    const [a, b] = createMemoryTransportPair();
    const errors = new Inbox<Error>();
    const got = new Inbox<unknown>();
    b.onerror = errors.push;
    b.onmessage = (m) => {
      got.push(m);
      throw new Error("consumer broke");
    };
    await Promise.all([a.start(), b.start()]);
    await a.send(note(1));
    await a.send(note(2));
    await got.waitFor((m) => (m as { params: { n: number } }).params.n === 2);
    expect(errors.items.map((e) => e.message)).toEqual(["consumer broke", "consumer broke"]);
  });
});
