/**
 * Reads a `text/event-stream` body into events, for both HTTP client transports. The parsing itself is
 * eventsource-parser's; this adds the streaming UTF-8 decoding, a bound on one event's size and the
 * reading of the JSON-RPC message an event carries.
 */

import { createParser, type EventSourceMessage } from "eventsource-parser";
import { messageOf } from "../util/errors.js";

export type SseEvent = EventSourceMessage;

/** The media type of an SSE body. */
export const EVENT_STREAM = "text/event-stream";

export interface SseHandlers {
  onEvent(event: SseEvent): void;
  /** The stream's `retry:` field: how long to wait before reconnecting, in milliseconds. */
  onRetry?(ms: number): void;
}

/** Longest event the reader buffers, in characters: the stdio line limit's counterpart. */
export const MAX_EVENT_CHARS = 4 * 1024 * 1024;

/** An event grew past the limit; the rest of that stream cannot be read. */
export class SseLimitError extends Error {
  constructor(limit: number) {
    super(`an SSE event exceeds the ${limit}-character limit`);
    this.name = "SseLimitError";
  }
}

export interface ReadOptions {
  /** Cancels the body: reading stops at once, whatever the fetch that made it does with its own signal. */
  signal?: AbortSignal;
  maxChars?: number;
}

/**
 * Feeds `body` through the parser until it ends or `signal` aborts. Rejects when reading fails (network)
 * or an event passes the limit, after cancelling the body. Unknown fields and bad `retry:` values are
 * ignored, as EventSource ignores them.
 */
export async function readEventStream(
  body: ReadableStream<Uint8Array>,
  handlers: SseHandlers,
  { signal, maxChars = MAX_EVENT_CHARS }: ReadOptions = {},
): Promise<void> {
  let oversize = false;
  const parser = createParser({
    onEvent: (event) => {
      // The parser bounds only what it buffers between chunks; an event that came whole is checked here.
      if (oversize || event.data.length > maxChars) oversize = true;
      else handlers.onEvent(event);
    },
    onRetry: (ms) => handlers.onRetry?.(ms),
    onError: (error) => {
      if (error.type === "max-buffer-size-exceeded") oversize = true;
    },
    maxBufferSize: maxChars,
  });
  const decoder = new TextDecoder();
  const reader = body.getReader();
  const cancel = () => void reader.cancel(signal?.reason).catch(() => {});
  if (signal?.aborted) cancel();
  signal?.addEventListener("abort", cancel, { once: true });
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      parser.feed(decoder.decode(value, { stream: true }));
      if (oversize) throw new SseLimitError(maxChars);
    }
  } catch (error) {
    await reader.cancel().catch(() => {});
    throw error;
  } finally {
    signal?.removeEventListener("abort", cancel);
    reader.releaseLock();
  }
}

/**
 * The JSON value a `message` event carries; undefined for other event types and for events without data
 * (priming events, keep-alives). Data that is not JSON is reported as coming from `source` and skipped.
 */
export function eventMessage(event: SseEvent, source: URL, report: (error: Error) => void): unknown {
  if (event.event !== undefined && event.event !== "message") return undefined;
  if (event.data === "") return undefined;
  try {
    return JSON.parse(event.data);
  } catch (error) {
    report(new Error(`unreadable SSE message from ${source}: ${messageOf(error)}`));
    return undefined;
  }
}
