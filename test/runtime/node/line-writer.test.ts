/** LineWriter on its own: what goes into each write, when sends settle, backpressure. */

import { EventEmitter } from "node:events";
import { describe, expect, it } from "vitest";
import type { JsonRpcMessage } from "../../../runtime/jsonrpc/messages.js";
import { LineWriter } from "../../../runtime/node/line-writer.js";

/** A stream whose writes are recorded and complete only when the test says so. */
function stream({ full = false } = {}) {
  const events = new EventEmitter();
  const writes: string[] = [];
  const callbacks: ((error?: Error | null) => void)[] = [];
  const writer = new LineWriter(
    (chunk, callback) => {
      writes.push(chunk);
      callbacks.push(callback);
      return !full;
    },
    events as unknown as NodeJS.WritableStream,
  );
  /** Completes every write made so far. */
  const complete = (error?: Error) => {
    for (const callback of callbacks.splice(0)) callback(error);
  };
  const lines = (write: string) => write.split("\n").length - 1;
  return { writer, events, writes, complete, lines };
}

const note = (n: number, pad = ""): JsonRpcMessage => ({ jsonrpc: "2.0", method: "n", params: { n, pad } });
const line = (message: unknown) => `${JSON.stringify(message)}\n`;
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Tracks whether a promise has settled. */
function watch(promise: Promise<void>) {
  const state = { settled: false, error: undefined as unknown };
  promise.then(
    () => {
      state.settled = true;
    },
    (error: unknown) => {
      state.settled = true;
      state.error = error;
    },
  );
  return state;
}

describe("LineWriter batching", () => {
  it("writes the first message of a turn before send returns, one JSON text and a newline", () => {
    const s = stream();
    void s.writer.send(note(0));
    expect(s.writes).toEqual([line(note(0))]);
    void s.writer.send([note(1), note(2)]);
    expect(s.writes).toHaveLength(1);
  });

  it("joins the rest of the turn into writes of at most 8 messages, the remainder at the end of the turn", async () => {
    const s = stream();
    const sends = Array.from({ length: 20 }, (_, i) => s.writer.send(note(i)));
    expect(s.writes.map(s.lines)).toEqual([1, 8, 8]);
    await Promise.resolve();
    expect(s.writes.map(s.lines)).toEqual([1, 8, 8, 3]);
    expect(s.writes.join("")).toBe(Array.from({ length: 20 }, (_, i) => line(note(i))).join(""));
    s.complete();
    await Promise.all(sends);
  });

  it("writes at once when the joined messages reach 64 KiB", () => {
    const s = stream();
    const pad = "x".repeat(30 * 1024);
    for (let i = 0; i < 6; i++) void s.writer.send(note(i, pad));
    // 1 at once; then 3 × 30 KiB ≥ 64 KiB; the last 2 wait for the end of the turn.
    expect(s.writes.map(s.lines)).toEqual([1, 3]);
  });

  it("starts a new turn after the microtask flush: its first message is written at once again", async () => {
    const s = stream();
    void s.writer.send(note(0));
    void s.writer.send(note(1));
    await turn();
    expect(s.writes.map(s.lines)).toEqual([1, 1]);
    void s.writer.send(note(2));
    expect(s.writes).toEqual([line(note(0)), line(note(1)), line(note(2))]);
  });

  it("flush() writes what waits now, and writes nothing when nothing waits", () => {
    const s = stream();
    void s.writer.send(note(0));
    void s.writer.send(note(1));
    void s.writer.send(note(2));
    s.writer.flush();
    expect(s.writes).toEqual([line(note(0)), line(note(1)) + line(note(2))]);
    s.writer.flush();
    expect(s.writes).toHaveLength(2);
  });

  it("rejects a message that cannot be serialized without touching the stream", async () => {
    const s = stream();
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    await expect(s.writer.send({ jsonrpc: "2.0", method: "m", params: circular })).rejects.toThrow();
    await expect(s.writer.send({ jsonrpc: "2.0", method: "m", params: { n: 1n } })).rejects.toThrow();
    expect(s.writes).toEqual([]);
    void s.writer.send(note(1));
    expect(s.writes).toEqual([line(note(1))]);
  });
});

describe("LineWriter.post (messages nobody awaits)", () => {
  it("batches posted and sent messages alike, in call order, and finish() waits for posted ones too", async () => {
    const s = stream();
    s.writer.post(note(0));
    const sent = watch(s.writer.send(note(1)));
    for (let i = 2; i < 12; i++) s.writer.post(note(i));
    expect(s.writes.map(s.lines)).toEqual([1, 8]);
    await Promise.resolve();
    expect(s.writes.map(s.lines)).toEqual([1, 8, 3]);
    expect(s.writes.join("")).toBe(Array.from({ length: 12 }, (_, i) => line(note(i))).join(""));
    const finished = watch(s.writer.finish());
    await turn();
    expect(sent.settled).toBe(false);
    expect(finished.settled).toBe(false);
    s.complete();
    await turn();
    expect(sent).toEqual({ settled: true, error: undefined });
    expect(finished.settled).toBe(true);
  });

  it("throws for a message that cannot be serialized, without touching the stream", () => {
    const s = stream();
    expect(() => s.writer.post({ jsonrpc: "2.0", method: "m", params: { n: 1n } })).toThrow();
    expect(s.writes).toEqual([]);
    s.writer.post(note(1));
    expect(s.writes).toEqual([line(note(1))]);
  });

  it("a failed write rejects the sends it carried and nothing else (posted messages have no one to tell)", async () => {
    const s = stream();
    s.writer.post(note(0));
    const sent = s.writer.send(note(1));
    s.writer.post(note(2));
    s.writer.flush();
    s.complete(new Error("EPIPE"));
    await expect(sent).rejects.toThrow("EPIPE");
  });
});

describe("LineWriter settling", () => {
  it("settles every send of a write when its callback fires, not before", async () => {
    const s = stream();
    const sends = [0, 1, 2].map((i) => watch(s.writer.send(note(i))));
    await turn();
    expect(s.writes).toHaveLength(2);
    expect(sends.map((w) => w.settled)).toEqual([false, false, false]);
    s.complete();
    await turn();
    expect(sends.map((w) => w.settled)).toEqual([true, true, true]);
  });

  it("rejects every send of a write that failed", async () => {
    const s = stream();
    const sends = [0, 1].map((i) => s.writer.send(note(i)));
    s.writer.flush();
    s.complete(new Error("write EPIPE"));
    for (const sent of sends) await expect(sent).rejects.toThrow("write EPIPE");
  });

  it("on a full stream, waits for 'drain' after the callback, with one listener for all the writes", async () => {
    const s = stream({ full: true });
    const first = watch(s.writer.send(note(0)));
    await turn();
    const second = watch(s.writer.send(note(1)));
    expect(s.writes).toHaveLength(2);
    expect(s.events.listenerCount("drain")).toBe(1);
    expect(s.events.listenerCount("close")).toBe(1);
    s.complete();
    await turn();
    expect([first.settled, second.settled]).toEqual([false, false]);
    s.events.emit("drain");
    await turn();
    expect([first.settled, second.settled]).toEqual([true, true]);
    expect(s.events.listenerCount("drain")).toBe(0);
    expect(s.events.listenerCount("close")).toBe(0);
  });

  it("stops waiting when the stream closes, since a closed stream never drains", async () => {
    const s = stream({ full: true });
    const sent = watch(s.writer.send(note(0)));
    s.complete();
    await turn();
    expect(sent.settled).toBe(false);
    s.events.emit("close");
    await turn();
    expect(sent).toEqual({ settled: true, error: undefined });
    expect(s.events.listenerCount("drain")).toBe(0);
  });

  it("waits anew for a stream that fills again after draining", async () => {
    const s = stream({ full: true });
    void s.writer.send(note(0));
    s.complete();
    s.events.emit("drain");
    await turn();
    const later = watch(s.writer.send(note(1)));
    s.complete();
    await turn();
    expect(later.settled).toBe(false);
    expect(s.events.listenerCount("drain")).toBe(1);
    s.events.emit("drain");
    await turn();
    expect(later.settled).toBe(true);
  });
});
