/**
 * Two connected in-process transports, for unit-testing handlers without pipes or sockets. Delivery is
 * asynchronous and in order, and every message is deep-copied so the peers never share objects.
 */

import type { JsonRpcMessage } from "./messages.js";
import { runHandler, type Transport } from "./transport.js";

export function createMemoryTransportPair(): [Transport, Transport] {
  const link: Link = { closed: false };
  const a = new MemoryTransport(link);
  const b = new MemoryTransport(link);
  a.peer = b;
  b.peer = a;
  link.ends = [a, b];
  return [a, b];
}

interface Link {
  closed: boolean;
  closing?: Promise<void>;
  ends?: [MemoryTransport, MemoryTransport];
}

class MemoryTransport implements Transport {
  peer?: MemoryTransport;
  readonly #link: Link;
  /** Messages that arrived and are not yet delivered (before start, or queued behind earlier ones). */
  readonly #inbox: unknown[] = [];
  #started = false;
  #finished = false;

  onmessage?: (message: unknown) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;

  constructor(link: Link) {
    this.#link = link;
  }

  async start(): Promise<void> {
    if (this.#started) throw new Error("Transport already started");
    this.#started = true;
    queueMicrotask(() => this.#drain());
  }

  async send(message: JsonRpcMessage | JsonRpcMessage[]): Promise<void> {
    if (this.#link.closed) throw new Error("Transport closed");
    const copy = structuredClone(message);
    const peer = this.peer!;
    queueMicrotask(() => peer.#receive(copy));
  }

  /** Closes both ends; messages sent before it are still delivered, then each side's onclose fires once. */
  close(): Promise<void> {
    const link = this.#link;
    if (!link.closing) {
      link.closed = true;
      link.closing = new Promise((resolve) =>
        queueMicrotask(() => {
          for (const end of link.ends ?? []) end.#finish();
          resolve();
        }),
      );
    }
    return link.closing;
  }

  #receive(message: unknown): void {
    if (this.#finished) return;
    this.#inbox.push(message);
    if (this.#started) this.#drain();
  }

  #drain(): void {
    while (this.#inbox.length > 0 && !this.#finished) {
      const message = this.#inbox.shift();
      this.#guard(() => this.onmessage?.(message));
    }
  }

  #finish(): void {
    if (this.#finished) return;
    this.#finished = true;
    this.#inbox.length = 0;
    this.#guard(() => this.onclose?.());
  }

  /** User callbacks run inside microtasks, where a throw would be an uncaught exception. */
  #guard(fn: () => void): void {
    runHandler(this, fn);
  }
}
