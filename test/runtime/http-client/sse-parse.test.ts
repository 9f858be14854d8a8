/** Reading an SSE body: events across chunk and UTF-8 boundaries, `retry:`, the size limit, message events. */
import { describe, expect, it } from "vitest";
import {
  eventMessage,
  readEventStream,
  type SseEvent,
  SseLimitError,
} from "../../../runtime/http-client/sse-parse.js";

const bodyOf = (...chunks: (string | Uint8Array)[]) =>
  new ReadableStream<Uint8Array>({
    start(controller) {
      const encoder = new TextEncoder();
      for (const c of chunks) controller.enqueue(typeof c === "string" ? encoder.encode(c) : c);
      controller.close();
    },
  });

const SOURCE = new URL("http://127.0.0.1:1/mcp");

describe("readEventStream", () => {
  it("reads events split across chunks, and a character split between them", async () => {
    const bytes = new TextEncoder().encode("data: é\n\n");
    const events: SseEvent[] = [];
    const retries: number[] = [];
    await readEventStream(bodyOf("id: 1\nretry: 250\nda", "ta: a\n\n", bytes.slice(0, 7), bytes.slice(7)), {
      onEvent: (e) => events.push(e),
      onRetry: (ms) => retries.push(ms),
    });
    expect(events.map((e) => [e.id, e.data])).toEqual([
      ["1", "a"],
      [undefined, "é"],
    ]);
    expect(retries).toEqual([250]);
  });

  it("rejects an event past the limit and delivers none of it", async () => {
    const events: SseEvent[] = [];
    const read = readEventStream(
      bodyOf(`data: ${"x".repeat(100)}\n\n`),
      { onEvent: (e) => events.push(e) },
      {
        maxChars: 50,
      },
    );
    await expect(read).rejects.toBeInstanceOf(SseLimitError);
    expect(events).toEqual([]);
  });

  it("ends at once, without an error, when its signal aborts", async () => {
    const abort = new AbortController();
    const endless = new ReadableStream<Uint8Array>({ pull: () => new Promise(() => {}) });
    const read = readEventStream(endless, { onEvent: () => {} }, { signal: abort.signal });
    abort.abort();
    await expect(read).resolves.toBeUndefined();
  });
});

describe("eventMessage", () => {
  const event = (data: string, type?: string): SseEvent => ({ id: undefined, event: type, data });

  it("parses the data of message events", () => {
    const reports: Error[] = [];
    const report = (e: Error) => void reports.push(e);
    expect(eventMessage(event('{"jsonrpc":"2.0","id":1,"result":{}}'), SOURCE, report)).toEqual({
      jsonrpc: "2.0",
      id: 1,
      result: {},
    });
    expect(eventMessage(event("[1]", "message"), SOURCE, report)).toEqual([1]);
    expect(eventMessage(event("null"), SOURCE, report)).toBeNull();
    expect(reports).toEqual([]);
  });

  it("skips other event types and events without data", () => {
    const reports: Error[] = [];
    const report = (e: Error) => void reports.push(e);
    expect(eventMessage(event("/messages", "endpoint"), SOURCE, report)).toBeUndefined();
    expect(eventMessage(event(""), SOURCE, report)).toBeUndefined();
    expect(reports).toEqual([]);
  });

  it("reports data that is not JSON, naming where it came from", () => {
    const reports: Error[] = [];
    expect(eventMessage(event("{nope"), SOURCE, (e) => void reports.push(e))).toBeUndefined();
    expect(reports).toHaveLength(1);
    expect(reports[0]!.message).toMatch(/^unreadable SSE message from http:\/\/127\.0\.0\.1:1\/mcp: /);
  });
});
