/** StdioServerTransport over in-process streams: framing, limits, ordering, backpressure, failures. */

import { PassThrough, Writable } from "node:stream";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { JsonRpcErrorObject, JsonRpcMessage } from "../../../runtime/jsonrpc/messages.js";
import {
  StdioServerTransport,
  type StdioServerTransportOptions,
} from "../../../runtime/node/stdio-server.js";
import { deferred, Inbox } from "../helpers.js";

async function open(options: StdioServerTransportOptions = {}) {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const transport = new StdioServerTransport({ stdin, stdout, ...options });
  const messages = new Inbox<unknown>();
  const frameErrors = new Inbox<JsonRpcErrorObject>();
  const errors = new Inbox<Error>();
  const closed = deferred();
  transport.onmessage = messages.push;
  transport.onframeerror = frameErrors.push;
  transport.onerror = errors.push;
  transport.onclose = () => closed.resolve();
  await transport.start();
  /** Writes chunks one at a time, then a sentinel line, and waits until the sentinel is read. */
  const feed = async (...chunks: (string | Uint8Array)[]) => {
    for (const chunk of chunks) stdin.write(chunk);
    stdin.write('{"sentinel":true}\n');
    await messages.waitFor((m) => (m as { sentinel?: boolean }).sentinel === true);
    messages.items.pop();
  };
  return { transport, stdin, stdout, messages, frameErrors, errors, closed, feed };
}

const note = (n: number): JsonRpcMessage => ({ jsonrpc: "2.0", method: "n", params: { n } });

describe("reading", () => {
  it("reassembles a message split byte by byte, multi-byte characters included", async () => {
    const t = await open();
    const text = JSON.stringify({ s: "é 😀 中文" });
    const bytes = Buffer.from(`${text}\n`);
    await t.feed(...Array.from(bytes, (b) => Uint8Array.of(b)));
    expect(t.messages.items).toEqual([{ s: "é 😀 中文" }]);
    expect(t.frameErrors.items).toEqual([]);
  });

  it("reads many messages from one chunk; tolerates \\r\\n; skips blank lines", async () => {
    const t = await open();
    await t.feed('{"a":1}\n{"b":2}\r\n\n   \n\r\n[3]\n"four"', "\n");
    expect(t.messages.items).toEqual([{ a: 1 }, { b: 2 }, [3], "four"]);
    expect(t.frameErrors.items).toEqual([]);
  });

  it("accepts string chunks from a stream with an encoding set", async () => {
    const t = await open();
    t.stdin.setEncoding("utf8");
    await t.feed('{"s":"ü"}\n');
    expect(t.messages.items).toEqual([{ s: "ü" }]);
  });

  it("reports invalid JSON as -32700 and goes on", async () => {
    const t = await open();
    await t.feed("{nope\n", '{"ok":1}\n');
    expect(t.frameErrors.items).toEqual([{ code: -32700, message: expect.stringMatching(/^Parse error: /) }]);
    expect(t.messages.items).toEqual([{ ok: 1 }]);
  });

  it("refuses invalid UTF-8 with -32700 (the HTTP rule) and reads on", async () => {
    const t = await open();
    await t.feed(Uint8Array.of(0x22, 0xff, 0xfe, 0x22, 0x0a), Uint8Array.of(0xc3), '"\n', '{"ok":1}\n');
    const notUtf8 = { code: -32700, message: "Parse error: the line is not valid UTF-8" };
    expect(t.frameErrors.items).toEqual([notUtf8, notUtf8]);
    expect(t.messages.items).toEqual([{ ok: 1 }]);
  });

  it("skips a line over the limit without buffering it, reports it once at its end, then reads on", async () => {
    const t = await open({ maxLineBytes: 32 });
    const exact = JSON.stringify({ s: "x".repeat(24) });
    expect(Buffer.byteLength(exact)).toBe(32);
    const long = `{"s":"${"y".repeat(100)}"}`;
    t.stdin.write(long.slice(0, 20));
    t.stdin.write(long.slice(20, 60));
    await new Promise((resolve) => setImmediate(resolve));
    expect(t.frameErrors.items).toEqual([]);
    await t.feed(long.slice(60), "\n", `${exact}\n`, '{"after":true}\n');
    expect(t.frameErrors.items).toEqual([{ code: -32600, message: "Message exceeds the 32-byte limit" }]);
    expect(t.messages.items).toEqual([JSON.parse(exact), { after: true }]);
  });

  it("counts the limit in bytes, not characters", async () => {
    const t = await open({ maxLineBytes: 20 });
    await t.feed(`"${"é".repeat(9)}"\n`, `"${"é".repeat(10)}"\n`);
    expect(t.messages.items).toEqual(["é".repeat(9)]);
    expect(t.frameErrors.items).toHaveLength(1);
  });

  it("keeps reading the chunk's other lines when a consumer throws", async () => {
    const t = await open();
    t.transport.onmessage = (m) => {
      t.messages.push(m);
      if ((m as { boom?: boolean }).boom) throw new Error("consumer broke");
    };
    await t.feed('{"boom":true}\n{"next":1}\n');
    expect(t.messages.items).toEqual([{ boom: true }, { next: 1 }]);
    expect(t.errors.items.map((e) => e.message)).toEqual(["consumer broke"]);
  });
});

describe("writing", () => {
  it("writes JSON plus a newline, in send order, resolving after each write", async () => {
    const t = await open();
    const out: string[] = [];
    t.stdout.on("data", (chunk: Buffer) => out.push(chunk.toString()));
    await Promise.all(Array.from({ length: 50 }, (_, i) => t.transport.send(note(i))));
    await t.transport.send([note(50), note(51)]);
    const lines = out.join("").split("\n");
    expect(lines.pop()).toBe("");
    expect(lines.map((l) => JSON.parse(l))).toEqual([
      ...Array.from({ length: 50 }, (_, i) => note(i)),
      [note(50), note(51)],
    ]);
    expect(lines[0]).toBe(JSON.stringify(note(0)));
  });

  it("writes the first message of a turn at once and joins the rest into writes of at most 8, in order", async () => {
    const writes: string[] = [];
    const stdout = new Writable({
      write(chunk: Buffer, _enc, callback) {
        writes.push(chunk.toString());
        callback();
      },
    });
    const transport = new StdioServerTransport({ stdin: new PassThrough(), stdout });
    await transport.start();
    await Promise.all(Array.from({ length: 20 }, (_, i) => transport.send(note(i))));
    expect(writes.map((w) => w.split("\n").length - 1)).toEqual([1, 8, 8, 3]);
    expect(
      writes
        .join("")
        .split("\n")
        .slice(0, -1)
        .map((l) => JSON.parse(l)),
    ).toEqual(Array.from({ length: 20 }, (_, i) => note(i)));
    await transport.send(note(20));
    expect(writes.at(-1)).toBe(`${JSON.stringify(note(20))}\n`);
    await transport.close();
  });

  it("writes what is waiting when it closes, before close() returns", async () => {
    const writes: string[] = [];
    const stdout = new Writable({
      write(chunk: Buffer, _enc, callback) {
        writes.push(chunk.toString());
        callback();
      },
    });
    const transport = new StdioServerTransport({ stdin: new PassThrough(), stdout });
    await transport.start();
    // The first message of the turn is written at once; the second waits for the end of the turn...
    const sent = [transport.send(note(7)), transport.send(note(8))];
    expect(writes).toEqual([`${JSON.stringify(note(7))}\n`]);
    // ...unless the transport closes first: close() writes it at once, and returns once it is written.
    const closing = transport.close();
    expect(writes).toEqual([`${JSON.stringify(note(7))}\n`, `${JSON.stringify(note(8))}\n`]);
    await closing;
    await Promise.all(sent);
  });

  it("rejects a message that cannot be serialized, and the next send still works", async () => {
    const t = await open();
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    await expect(t.transport.send({ jsonrpc: "2.0", method: "m", params: circular })).rejects.toThrow();
    await t.transport.send(note(1));
  });

  it("does not resolve a send while its write is in flight", async () => {
    const pendingWrites: (() => void)[] = [];
    const stdout = new Writable({
      highWaterMark: 1,
      write(_chunk, _enc, callback) {
        pendingWrites.push(callback);
      },
    });
    const transport = new StdioServerTransport({ stdin: new PassThrough(), stdout });
    await transport.start();
    let done = false;
    const sent = transport.send(note(1)).then(() => {
      done = true;
    });
    await vi.waitFor(() => expect(pendingWrites).toHaveLength(1));
    await new Promise((resolve) => setImmediate(resolve));
    expect(done).toBe(false);
    expect(stdout.writableLength).toBeGreaterThan(0);
    pendingWrites.shift()!();
    await sent;
  });

  it("waits for 'drain' even after its own write completed, when others' data is still queued", async () => {
    const pendingWrites: (() => void)[] = [];
    const stdout = new Writable({
      highWaterMark: 1,
      write(_chunk, _enc, callback) {
        pendingWrites.push(callback);
      },
    });
    const transport = new StdioServerTransport({ stdin: new PassThrough(), stdout });
    await transport.start();
    let done = false;
    const sent = transport.send(note(1)).then(() => {
      done = true;
    });
    await vi.waitFor(() => expect(pendingWrites).toHaveLength(1));
    stdout.write("someone else's bytes\n");
    pendingWrites.shift()!();
    await vi.waitFor(() => expect(pendingWrites).toHaveLength(1));
    await new Promise((resolve) => setImmediate(resolve));
    expect(done).toBe(false);
    pendingWrites.shift()!();
    await sent;
  });

  it("shares one 'drain' listener among all sends waiting on a full stream", async () => {
    const t = await open();
    const message = { jsonrpc: "2.0", method: "n", params: { pad: "x".repeat(1000) } } as const;
    const sends = Array.from({ length: 200 }, () => t.transport.send(message));
    expect(t.stdout.listenerCount("drain")).toBe(1);
    t.stdout.resume();
    await Promise.all(sends);
    expect(t.stdout.listenerCount("drain")).toBe(0);
  });

  it("keeps memory bounded when the reader is slow", async () => {
    const message = note(0);
    const lineBytes = Buffer.byteLength(
      `${JSON.stringify({ ...message, params: { pad: "x".repeat(8192) } })}\n`,
    );
    let peak = 0;
    let delivered = 0;
    const stdout = new Writable({
      highWaterMark: 1024,
      write(chunk: Buffer, _enc, callback) {
        peak = Math.max(peak, stdout.writableLength);
        delivered += chunk.length;
        setImmediate(callback);
      },
    });
    const transport = new StdioServerTransport({ stdin: new PassThrough(), stdout });
    await transport.start();
    const count = 300;
    // Callers that await each send, as the Connection's responders do, never pile up in the stream.
    for (let i = 0; i < count; i++) {
      await transport.send({ ...message, params: { pad: "x".repeat(8192) } });
      peak = Math.max(peak, stdout.writableLength);
    }
    expect(delivered).toBe(count * lineBytes);
    expect(peak).toBeLessThanOrEqual(lineBytes);
  });
});

describe("lifecycle", () => {
  it("closes on EOF, once, and stops reading", async () => {
    const t = await open();
    let closes = 0;
    t.transport.onclose = () => {
      closes++;
      t.closed.resolve();
    };
    t.stdin.end();
    await t.closed.promise;
    await t.transport.close();
    expect(closes).toBe(1);
    expect(t.stdin.listenerCount("data")).toBe(0);
    await expect(t.transport.send(note(1))).rejects.toThrow(/not open/);
  });

  it("reports a stdin error, then closes", async () => {
    const t = await open();
    t.stdin.destroy(new Error("stdin broke"));
    await t.closed.promise;
    expect(t.errors.items.map((e) => e.message)).toEqual(["stdin broke"]);
  });

  it("reports a stdout error (EPIPE), then closes; later errors are swallowed", async () => {
    const stdout = new Writable({
      write(_chunk, _enc, callback) {
        callback(Object.assign(new Error("write EPIPE"), { code: "EPIPE" }));
      },
    });
    const transport = new StdioServerTransport({ stdin: new PassThrough(), stdout });
    const errors: Error[] = [];
    const closed = deferred();
    transport.onerror = (e) => errors.push(e);
    transport.onclose = () => closed.resolve();
    await transport.start();
    await expect(transport.send(note(1))).rejects.toThrow("write EPIPE");
    await closed.promise;
    stdout.emit("error", new Error("late"));
    expect(errors.map((e) => e.message)).toEqual(["write EPIPE"]);
  });

  it("refuses to start twice and to send before start", async () => {
    const transport = new StdioServerTransport({ stdin: new PassThrough(), stdout: new PassThrough() });
    await expect(transport.send(note(1))).rejects.toThrow(/not open/);
    await transport.start();
    await expect(transport.start()).rejects.toThrow(/already started/);
    await transport.close();
  });
});

describe("stdout guard", () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it("sends other writes to process.stdout to stderr while open, and restores stdout on close", async () => {
    const original = process.stdout.write;
    const toStderr: unknown[] = [];
    vi.spyOn(process.stderr, "write").mockImplementation((chunk: unknown) => {
      toStderr.push(String(chunk));
      return true;
    });
    const transport = new StdioServerTransport({ stdin: new PassThrough(), stdout: process.stdout });
    await transport.start();
    expect(process.stdout.write).not.toBe(original);
    process.stdout.write("stray output\n");
    await transport.close();
    expect(process.stdout.write).toBe(original);
    expect(toStderr).toEqual(["stray output\n"]);
  });

  it("is off for other streams unless asked for", async () => {
    const original = process.stdout.write;
    const transport = new StdioServerTransport({ stdin: new PassThrough(), stdout: new PassThrough() });
    await transport.start();
    expect(process.stdout.write).toBe(original);
    await transport.close();
  });
});
