/** The client side of stdio: spawns the server and speaks newline-delimited JSON over the child's pipes. */

import type { JsonRpcErrorObject, JsonRpcMessage } from "../jsonrpc/messages.js";
import type { Transport } from "../jsonrpc/transport.js";
import { transportClosed } from "../util/errors.js";
import { type Child, type ChildCommand, spawnChild, spawned, stopChild } from "./child-process.js";
import { LineWriter, type WriteFn } from "./line-writer.js";
import { transportReader } from "./transport-reader.js";

export interface StdioClientTransportOptions extends ChildCommand {
  maxLineBytes?: number;
  /** How long close() waits at each step: stdin EOF, then SIGTERM, then SIGKILL. */
  closeTimeoutMs?: number;
}

const DEFAULT_CLOSE_TIMEOUT_MS = 2000;

export class StdioClientTransport implements Transport {
  readonly #options: StdioClientTransportOptions;
  #child?: Child;
  #writer?: LineWriter;
  #exited?: Promise<void>;
  #stdioClosed?: Promise<void>;
  #open = false;
  #finished = false;
  #closing?: Promise<void>;

  onmessage?: (message: unknown) => void;
  onframeerror?: (error: JsonRpcErrorObject) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;

  constructor(options: StdioClientTransportOptions) {
    this.#options = options;
  }

  get pid(): number | undefined {
    return this.#child?.pid;
  }

  /** The child's stderr when `stderr: "pipe"`; read it, or a chatty child blocks once the pipe is full. */
  get stderr(): NodeJS.ReadableStream | undefined {
    return this.#child?.stderr ?? undefined;
  }

  async start(): Promise<void> {
    if (this.#child) throw new Error("StdioClientTransport already started");
    const child = spawnChild(this.#options);
    this.#child = child;
    this.#exited = new Promise((resolve) => child.once("exit", () => resolve()));
    this.#stdioClosed = new Promise((resolve) => child.once("close", () => resolve()));
    const reader = transportReader(this, this.#options.maxLineBytes);
    child.stdout.on("data", (chunk: Buffer) => reader.push(chunk));
    await spawned(child, this.#options.command);
    this.#open = true;
    this.#writer = new LineWriter(child.stdin.write.bind(child.stdin) as WriteFn, child.stdin);
    // EPIPE when the child has gone; its exit, and so onclose, follows.
    child.stdin.on("error", (error) => this.onerror?.(error));
    child.on("error", (error) => this.onerror?.(error));
    child.once("close", () => this.#finish());
  }

  send(message: JsonRpcMessage | JsonRpcMessage[]): Promise<void> {
    if (!this.#open || !this.#writer) return Promise.reject(transportClosed());
    return this.#writer.send(message);
  }

  /** Ends the child's stdin, then escalates to SIGTERM and SIGKILL; resolves once the child has exited. */
  close(): Promise<void> {
    this.#closing ??= this.#terminate();
    return this.#closing;
  }

  async #terminate(): Promise<void> {
    const child = this.#child;
    if (!child || !this.#open) return;
    this.#open = false;
    // Written before stdin ends, so nothing sent is lost.
    this.#writer?.flush();
    await stopChild(
      child,
      this.#exited!,
      this.#stdioClosed!,
      this.#options.closeTimeoutMs ?? DEFAULT_CLOSE_TIMEOUT_MS,
    );
    this.#finish();
  }

  #finish(): void {
    if (this.#finished) return;
    this.#finished = true;
    this.#open = false;
    this.onclose?.();
  }
}
