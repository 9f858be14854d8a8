/** `: keepalive` comments on open SSE streams, so that idle proxies do not cut them. */

import { LinkedSet } from "../util/collections.js";
import { unref } from "../util/timers.js";
import type { SseWriter } from "./sse-writer.js";

export const DEFAULT_KEEPALIVE_MS = 15_000;

/**
 * One timer for all open streams of a handler; it stops on a tick that finds none. Undefined for a
 * period of 0 or Infinity: no keep-alive comments.
 */
export function keepAliveTicker(ms: number): KeepAlive | undefined {
  return ms > 0 && ms < Number.POSITIVE_INFINITY ? new KeepAlive(ms) : undefined;
}

export class KeepAlive {
  readonly #writers = new LinkedSet<SseWriter>();
  #timer: ReturnType<typeof setInterval> | undefined;

  constructor(private readonly ms: number) {}

  add(writer: SseWriter): void {
    this.#writers.add(writer);
    if (this.#timer) return;
    this.#timer = setInterval(() => this.#tick(), this.ms);
    unref(this.#timer);
  }

  delete(writer: SseWriter): void {
    this.#writers.delete(writer);
  }

  #tick(): void {
    if (this.#writers.size === 0) {
      clearInterval(this.#timer);
      this.#timer = undefined;
      return;
    }
    for (const writer of this.#writers) {
      if (writer.fresh) writer.fresh = false;
      else writer.keepAlive();
    }
  }
}
