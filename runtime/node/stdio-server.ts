/** The server side of stdio: newline-delimited JSON over this process's own stdin and stdout. */

import type { JsonRpcErrorObject, JsonRpcMessage } from "../jsonrpc/messages.js";
import { DONE, type Transport } from "../jsonrpc/transport.js";
import { transportClosed } from "../util/errors.js";
import type { LineReader } from "./line-reader.js";
import { LineWriter, type WriteFn } from "./line-writer.js";
import { redirectStdoutToStderr } from "./stdout-guard.js";
import { transportReader } from "./transport-reader.js";

/** How long close() waits for stdout to take what was written. */
const FLUSH_LIMIT_MS = 5_000;

export interface StdioServerTransportOptions {
  stdin?: NodeJS.ReadableStream;
  stdout?: NodeJS.WritableStream;
  /** Longest accepted line in bytes, newline excluded; longer lines are skipped and reported. */
  maxLineBytes?: number;
  /** Send other writes to process.stdout to stderr while open; default: when stdout is process.stdout. */
  guardStdout?: boolean;
}

export class StdioServerTransport implements Transport {
  readonly #stdin: NodeJS.ReadableStream;
  readonly #stdout: NodeJS.WritableStream;
  readonly #guardStdout: boolean;
  readonly #reader: LineReader;
  #writer?: LineWriter;
  #state: "new" | "open" | "closed" = "new";
  #restoreStdout?: () => void;

  onmessage?: (message: unknown) => void;
  onframeerror?: (error: JsonRpcErrorObject) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;
  oninputend?: () => void;

  constructor(options: StdioServerTransportOptions = {}) {
    this.#stdin = options.stdin ?? process.stdin;
    this.#stdout = options.stdout ?? process.stdout;
    this.#guardStdout = options.guardStdout ?? this.#stdout === process.stdout;
    this.#reader = transportReader(this, options.maxLineBytes);
  }

  async start(): Promise<void> {
    if (this.#state !== "new") throw new Error("StdioServerTransport already started");
    this.#state = "open";
    // Taken before the guard replaces it: protocol frames keep the real write.
    this.#writer = new LineWriter(this.#stdout.write.bind(this.#stdout) as WriteFn, this.#stdout);
    if (this.#guardStdout) this.#restoreStdout = redirectStdoutToStderr();
    this.#stdin.on("data", this.#ondata);
    this.#stdin.on("end", this.#onend);
    this.#stdin.on("error", this.#onfailure);
    this.#stdout.on("error", this.#onfailure);
    this.#stdin.resume();
  }

  send(message: JsonRpcMessage | JsonRpcMessage[]): Promise<void> {
    if (this.#state !== "open" || !this.#writer) return Promise.reject(transportClosed());
    // A response is never awaited for backpressure (the connection only reports a failed send), so it
    // is written without a promise; a failed write fails stdout, which closes the transport.
    if (!Array.isArray(message) && !("method" in message)) {
      try {
        this.#writer.post(message);
      } catch (error) {
        return Promise.reject(error);
      }
      return DONE;
    }
    return this.#writer.send(message);
  }

  /**
   * Stops reading and closes once every message sent so far has been written to stdout, or after
   * `FLUSH_LIMIT_MS` when the client stopped reading (a full pipe never empties).
   */
  async close(): Promise<void> {
    const writer = this.#state === "open" ? this.#writer : undefined;
    this.#stopReading();
    if (writer) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const limit = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, FLUSH_LIMIT_MS);
      });
      await Promise.race([writer.finish(), limit]);
      clearTimeout(timer);
    }
    this.#shutdown();
  }

  readonly #ondata = (chunk: Uint8Array | string) => this.#reader.push(chunk);
  readonly #onend = () => {
    if (!this.oninputend) return this.#shutdown();
    // The client sends nothing more: it still gets every answer it is owed, then the server closes us.
    this.#stopReading();
    this.oninputend();
  };
  readonly #onfailure = (error: Error) => {
    // Late errors (EPIPE from writes still queued at close) are expected; swallow them.
    if (this.#state !== "open") return;
    this.onerror?.(error);
    this.#shutdown();
  };

  #stopReading(): void {
    this.#stdin.off("data", this.#ondata);
    this.#stdin.off("end", this.#onend);
    this.#stdin.pause();
  }

  #shutdown(): void {
    this.#stdin.off("error", this.#onfailure);
    if (this.#state === "closed") return;
    const wasOpen = this.#state === "open";
    this.#state = "closed";
    this.#stopReading();
    // The stdout 'error' listener stays: without it an EPIPE from a queued write would crash the process.
    this.#writer?.flush();
    this.#restoreStdout?.();
    this.#restoreStdout = undefined;
    if (wasOpen) this.onclose?.();
  }
}
