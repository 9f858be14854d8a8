/** Writing newline-delimited JSON: batched writes, sends that settle with their write, backpressure. */

import type { JsonRpcMessage } from "../jsonrpc/messages.js";
import { onceDrained } from "./drained.js";

/** A stream's write, taken by the caller (so that a later replacement of it, as the stdout guard does, is not used). */
export type WriteFn = (chunk: string, callback: (error?: Error | null) => void) => boolean;

/** Messages written together at most: enough to save most write calls, few enough to keep the peer busy. */
const BATCH_MESSAGES = 8;
/** Bytes written together at most before a write happens at once. */
const BATCH_BYTES = 64 * 1024;

interface Waiter {
  resolve: () => void;
  reject: (error: Error) => void;
}

/**
 * Writes newline-delimited messages. The first message of a microtask turn is written at once; those that
 * follow in the same turn are joined into writes of up to BATCH_MESSAGES messages (or BATCH_BYTES), the
 * rest at the end of the turn. A write is a system call, most of what a small response costs: one write
 * per message measured 0.7× a raw responder at 64 in flight, joining a whole burst measured slower still
 * (the peer waits for all of it), joining up to 8 measured 0.95× (bench/stdio.ts). Writing the first at
 * once keeps a lone response from waiting for the server's bookkeeping after it (1 in flight).
 * The stream keeps writes in call order; each send settles when its write callback fires and, if the
 * stream asked for it, after 'drain', so callers that await their sends keep memory bounded.
 */
export class LineWriter {
  readonly #write: WriteFn;
  readonly #stream: NodeJS.WritableStream;
  /** One wait shared by every send that found the stream full: one listener, however many sends. */
  #drained?: Promise<void>;
  #pending = "";
  #waiters: Waiter[] = [];
  #scheduled = false;
  /** Writes whose callback has not come yet, and who waits for there to be none. */
  #unfinished = 0;
  #finished: (() => void)[] = [];
  /** The waiter of every posted message: nobody awaits it (a failed write also fails the stream). */
  static readonly #POSTED: Waiter = { resolve: () => {}, reject: () => {} };
  readonly #flushLater = () => {
    this.#scheduled = false;
    this.flush();
  };

  constructor(write: WriteFn, stream: NodeJS.WritableStream) {
    this.#write = write;
    this.#stream = stream;
  }

  send(message: JsonRpcMessage | JsonRpcMessage[]): Promise<void> {
    let line: string;
    try {
      line = `${JSON.stringify(message)}\n`;
    } catch (error) {
      // Cycles and BigInt: this send fails, the stream is untouched.
      return Promise.reject(error);
    }
    const sent = new Promise<void>((resolve, reject) => this.#waiters.push({ resolve, reject }));
    this.#enqueue(line);
    return sent;
  }

  /**
   * Writes a message nobody waits for, such as a response, without making a promise for it: at tens of
   * thousands of messages a second every promise shows. A message that cannot be serialized throws.
   */
  post(message: JsonRpcMessage | JsonRpcMessage[]): void {
    const line = `${JSON.stringify(message)}\n`;
    this.#waiters.push(LineWriter.#POSTED);
    this.#enqueue(line);
  }

  #enqueue(line: string): void {
    this.#pending += line;
    if (!this.#scheduled) {
      // The first message of a turn goes out at once, so a lone response waits for nothing.
      this.#scheduled = true;
      queueMicrotask(this.#flushLater);
      this.flush();
    } else if (this.#waiters.length >= BATCH_MESSAGES || this.#pending.length >= BATCH_BYTES) this.flush();
  }

  /** Writes what is waiting now (before the stream is ended, so nothing sent is lost). */
  flush(): void {
    if (this.#waiters.length === 0) return;
    const data = this.#pending;
    const waiters = this.#waiters;
    this.#pending = "";
    this.#waiters = [];
    let drained: Promise<void> | undefined;
    this.#unfinished++;
    const ok = this.#write(data, (error) => {
      if (--this.#unfinished === 0) for (const resolve of this.#finished.splice(0)) resolve();
      for (const w of waiters) {
        if (error) w.reject(error);
        else if (drained) drained.then(w.resolve);
        else w.resolve();
      }
    });
    if (!ok) drained = this.#whenDrained();
  }

  /** Writes what is waiting, then settles once the stream has called back for every write (or failed). */
  finish(): Promise<void> {
    this.flush();
    if (this.#unfinished === 0) return Promise.resolve();
    return new Promise((resolve) => this.#finished.push(resolve));
  }

  #whenDrained(): Promise<void> {
    this.#drained ??= new Promise((resolve) =>
      onceDrained(this.#stream, () => {
        this.#drained = undefined;
        resolve();
      }),
    );
    return this.#drained;
  }
}
