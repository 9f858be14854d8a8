/** Server-Sent Events: one response body written event by event, bounded while the reader lags. */

import type { Linked } from "../util/collections.js";
import type { Reply } from "./core.js";
import type { KeepAlive } from "./keep-alive.js";

export const SSE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  "content-type": "text/event-stream",
  "cache-control": "no-cache, no-transform",
  "x-accel-buffering": "no",
});

/** Queued bytes beyond which writers wait for the reader (a slow client must not grow memory). */
const SSE_HIGH_WATER_BYTES = 64 * 1024;
const encoder = new TextEncoder();

/** Where an SseWriter's text goes: `write` answers false while the reader lags (then `drained()` follows). */
export interface SseSink {
  write(text: string): boolean;
  end(): void;
}

/**
 * One SSE response body. Text goes to its sink (a web ReadableStream, `stream`, or a Node response
 * through `attach`); what is written before either is held until then. `ready()` waits while the reader
 * lags, so senders that await it hold memory bounded. Keep-alive comments stop idle proxies from
 * cutting the stream; they come from one shared timer, only for streams still open after a full period.
 */
export class SseWriter implements Linked<SseWriter> {
  /** Its place among the open streams of its keep-alive period. */
  linkPrev?: SseWriter;
  linkNext?: SseWriter;
  #sink: SseSink | undefined;
  #pending: string[] = [];
  #stream: ReadableStream<Uint8Array> | undefined;
  #full = false;
  #closed = false;
  #drained: (() => void)[] = [];
  readonly #keepAlive: KeepAlive | undefined;
  /** Set by the keep-alive ticker: the first tick after opening passes the stream over. */
  fresh = true;
  /** Runs once when the stream ends, by close() or because the client went away. */
  onclose?: () => void;

  /** `keepAlive`: the ticker of the handler that made the stream (none: no keep-alive comments). */
  constructor(keepAlive: KeepAlive | undefined) {
    this.#keepAlive = keepAlive;
    keepAlive?.add(this);
  }

  /** The body as a web stream (created on first use, then the writer's sink). */
  get stream(): ReadableStream<Uint8Array> {
    if (this.#stream) return this.#stream;
    let controller!: ReadableStreamDefaultController<Uint8Array>;
    this.#stream = new ReadableStream<Uint8Array>(
      {
        start: (c) => {
          controller = c;
        },
        pull: () => this.drained(),
        cancel: () => this.gone(),
      },
      { highWaterMark: SSE_HIGH_WATER_BYTES, size: (chunk) => chunk.byteLength },
    );
    this.attach({
      write: (text) => {
        controller.enqueue(encoder.encode(text));
        return (controller.desiredSize ?? 1) > 0;
      },
      end: () => {
        try {
          controller.close();
        } catch {
          // Already errored or cancelled: nothing left to close.
        }
      },
    });
    return this.#stream;
  }

  /** Sends the stream to `sink`, starting with what was written so far. */
  attach(sink: SseSink): void {
    this.#sink = sink;
    const pending = this.#pending;
    this.#pending = [];
    try {
      if (pending.length > 0 && !sink.write(pending.join(""))) this.#full = true;
    } catch {
      this.#finish();
    }
    if (this.#closed) this.#end();
  }

  /** The sink has room again. */
  drained(): void {
    this.#full = false;
    for (const resolve of this.#drained.splice(0)) resolve();
  }

  /** The reader went away. */
  gone(): void {
    this.#finish();
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** One event; `data` must hold no line break (JSON.stringify output never does). */
  event(data: string, options: { id?: string; event?: string; retryMs?: number } = {}): boolean {
    let text = "";
    if (options.event) text += `event: ${options.event}\n`;
    if (options.id !== undefined) text += `id: ${options.id}\n`;
    if (options.retryMs !== undefined) text += `retry: ${options.retryMs}\n`;
    return this.#write(`${text}data: ${data}\n\n`);
  }

  /** The client's reconnection delay, alone: no event is dispatched for it. */
  retry(ms: number): boolean {
    return this.#write(`retry: ${ms}\n\n`);
  }

  keepAlive(): void {
    this.#write(": keepalive\n\n");
  }

  /** The reader lags: `ready()` would wait. */
  get full(): boolean {
    return this.#full && !this.#closed;
  }

  /** Resolves when the queue has room again (or the stream has ended). */
  ready(): Promise<void> {
    if (this.#closed || !this.#full) return Promise.resolve();
    return new Promise((resolve) => this.#drained.push(resolve));
  }

  close(): void {
    if (this.#closed) return;
    this.#finish();
    if (this.#sink) this.#end();
  }

  #end(): void {
    try {
      this.#sink?.end();
    } catch {
      // The reader is gone already.
    }
  }

  #write(text: string): boolean {
    if (this.#closed) return false;
    if (!this.#sink) {
      this.#pending.push(text);
      return true;
    }
    try {
      if (!this.#sink.write(text)) this.#full = true;
      return true;
    } catch {
      this.#finish();
      return false;
    }
  }

  #finish(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#keepAlive?.delete(this);
    this.drained();
    this.onclose?.();
  }
}

export function sseReply(writer: SseWriter, headers: Record<string, string> = {}): Reply {
  return { status: 200, headers: { ...headers, ...SSE_HEADERS }, sse: writer };
}
