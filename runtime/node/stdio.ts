/**
 * stdio transports: newline-delimited UTF-8 JSON, one value per line. The server side speaks over its own
 * process's stdin/stdout; the client side spawns the server and speaks over the child's pipes.
 */

import type { ChildProcessByStdio } from "node:child_process";
import type { Readable, Writable } from "node:stream";
import type { JsonRpcErrorObject, JsonRpcMessage } from "../jsonrpc/messages.js";
import type { Transport } from "../jsonrpc/transport.js";

export interface StdioServerTransportOptions {
  stdin?: NodeJS.ReadableStream;
  stdout?: NodeJS.WritableStream;
  /** Longest accepted line in bytes, newline excluded; longer lines are skipped and reported. */
  maxLineBytes?: number;
  /** Send other writes to process.stdout to stderr while open; default: when stdout is process.stdout. */
  guardStdout?: boolean;
}

export interface StdioClientTransportOptions {
  command: string;
  args?: string[];
  /** The child's whole environment; by default it inherits this process's. */
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  stderr?: "inherit" | "pipe" | "ignore";
  maxLineBytes?: number;
  /** How long close() waits at each step: stdin EOF, then SIGTERM, then SIGKILL. */
  closeTimeoutMs?: number;
}

const DEFAULT_MAX_LINE_BYTES = 4 * 1024 * 1024;
const DEFAULT_CLOSE_TIMEOUT_MS = 2000;
const NEWLINE = 0x0a;

type WriteFn = (chunk: string, callback: (error?: Error | null) => void) => boolean;

interface LineSink {
  value(value: unknown): void;
  error(error: JsonRpcErrorObject): void;
}

/**
 * Splits bytes into lines and parses each as JSON. Splitting happens on the newline byte, which never
 * occurs inside a UTF-8 sequence. A line inside one chunk is decoded in one go; a line spread over
 * chunks goes through the streaming decoder, which carries characters split between them.
 */
class LineReader {
  readonly #decoder = new TextDecoder();
  readonly #maxBytes: number;
  readonly #sink: LineSink;
  /** The decoded start of a line spread over chunks, and its length in bytes. */
  #parts: string[] = [];
  #bytes = 0;
  /** Set once the current line passed the limit: its bytes are dropped until the newline. */
  #discarding = false;

  constructor(maxBytes: number, sink: LineSink) {
    this.#maxBytes = maxBytes;
    this.#sink = sink;
  }

  push(chunk: Uint8Array | string): void {
    const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk);
    let start = 0;
    while (start < bytes.length) {
      const newline = bytes.indexOf(NEWLINE, start);
      if (newline === -1) {
        this.#append(bytes.subarray(start));
        return;
      }
      if (this.#bytes === 0 && !this.#discarding) this.#whole(bytes, start, newline);
      else this.#finish(bytes.subarray(start, newline));
      start = newline + 1;
    }
  }

  #whole(bytes: Buffer, start: number, end: number): void {
    if (end - start > this.#maxBytes) this.#oversize();
    else this.#parse(bytes.toString("utf8", start, end));
  }

  #append(bytes: Uint8Array): void {
    if (this.#discarding || bytes.length === 0) return;
    this.#bytes += bytes.length;
    if (this.#bytes > this.#maxBytes) {
      this.#discarding = true;
      this.#reset();
      return;
    }
    this.#parts.push(this.#decoder.decode(bytes, { stream: true }));
  }

  /** Ends a line that began in an earlier chunk with its last bytes. */
  #finish(last: Uint8Array): void {
    this.#append(last);
    if (this.#discarding) {
      this.#discarding = false;
      this.#oversize();
      return;
    }
    this.#parts.push(this.#decoder.decode());
    const text = this.#parts.join("");
    this.#reset();
    this.#parse(text);
  }

  #parse(text: string): void {
    // "\r" before the newline needs no stripping: JSON counts it as white space.
    if (BLANK.test(text)) return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      this.#sink.error({ code: -32700, message: `Parse error: ${(error as Error).message}` });
      return;
    }
    this.#sink.value(value);
  }

  #oversize(): void {
    this.#sink.error({ code: -32600, message: `Message exceeds the ${this.#maxBytes}-byte limit` });
  }

  #reset(): void {
    this.#parts = [];
    this.#bytes = 0;
    this.#decoder.decode();
  }
}

/** A line that JSON would read as nothing: only white space (tested without copying the line). */
const BLANK = /^\s*$/;

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
class LineWriter {
  readonly #write: WriteFn;
  readonly #stream: NodeJS.WritableStream;
  /** One wait shared by every send that found the stream full: one listener, however many sends. */
  #drained?: Promise<void>;
  #pending = "";
  #waiters: Waiter[] = [];
  #scheduled = false;
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
    this.#pending += line;
    if (!this.#scheduled) {
      // The first message of a turn goes out at once, so a lone response waits for nothing.
      this.#scheduled = true;
      queueMicrotask(this.#flushLater);
      this.flush();
    } else if (this.#waiters.length >= BATCH_MESSAGES || this.#pending.length >= BATCH_BYTES) this.flush();
    return sent;
  }

  /** Writes what is waiting now (before the stream is ended, so nothing sent is lost). */
  flush(): void {
    if (this.#waiters.length === 0) return;
    const data = this.#pending;
    const waiters = this.#waiters;
    this.#pending = "";
    this.#waiters = [];
    let drained: Promise<void> | undefined;
    const ok = this.#write(data, (error) => {
      for (const w of waiters) {
        if (error) w.reject(error);
        else if (drained) drained.then(w.resolve);
        else w.resolve();
      }
    });
    if (!ok) drained = this.#whenDrained();
  }

  /** Settles on 'drain', or on 'close' since a closed stream never drains (write callbacks report errors). */
  #whenDrained(): Promise<void> {
    this.#drained ??= new Promise((resolve) => {
      const done = () => {
        this.#stream.removeListener("drain", done);
        this.#stream.removeListener("close", done);
        this.#drained = undefined;
        resolve();
      };
      this.#stream.on("drain", done);
      this.#stream.on("close", done);
    });
    return this.#drained;
  }
}

const readerFor = (transport: Transport, maxBytes: number | undefined) =>
  new LineReader(maxBytes ?? DEFAULT_MAX_LINE_BYTES, {
    value: (value) => deliver(transport, () => transport.onmessage?.(value)),
    error: (error) => deliver(transport, () => transport.onframeerror?.(error)),
  });

/** A consumer that throws must not stop the remaining lines of a chunk from being read. */
function deliver(transport: Transport, fn: () => void): void {
  try {
    fn();
  } catch (error) {
    transport.onerror?.(toError(error));
  }
}

const toError = (error: unknown): Error => (error instanceof Error ? error : new Error(String(error)));
const closedError = () => new Error("Transport is not open");

/**
 * Points process.stdout.write at stderr, so that console.log from user code or a dependency cannot corrupt
 * the protocol stream. Returns the undo; it leaves alone a write that someone else replaced since.
 */
function redirectStdoutToStderr(): () => void {
  const stdout = process.stdout;
  const original = stdout.write;
  const redirected = function (this: unknown, ...args: unknown[]): boolean {
    return Reflect.apply(process.stderr.write, process.stderr, args);
  } as typeof stdout.write;
  stdout.write = redirected;
  return () => {
    if (stdout.write === redirected) stdout.write = original;
  };
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

  constructor(options: StdioServerTransportOptions = {}) {
    this.#stdin = options.stdin ?? process.stdin;
    this.#stdout = options.stdout ?? process.stdout;
    this.#guardStdout = options.guardStdout ?? this.#stdout === process.stdout;
    this.#reader = readerFor(this, options.maxLineBytes);
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
    if (this.#state !== "open" || !this.#writer) return Promise.reject(closedError());
    return this.#writer.send(message);
  }

  async close(): Promise<void> {
    this.#shutdown();
  }

  readonly #ondata = (chunk: Uint8Array | string) => this.#reader.push(chunk);
  readonly #onend = () => this.#shutdown();
  readonly #onfailure = (error: Error) => {
    // Late errors (EPIPE from writes still queued at close) are expected; swallow them.
    if (this.#state !== "open") return;
    this.onerror?.(error);
    this.#shutdown();
  };

  #shutdown(): void {
    if (this.#state === "closed") return;
    const wasOpen = this.#state === "open";
    this.#state = "closed";
    this.#stdin.off("data", this.#ondata);
    this.#stdin.off("end", this.#onend);
    this.#stdin.off("error", this.#onfailure);
    // The stdout 'error' listener stays: without it an EPIPE from a queued write would crash the process.
    this.#stdin.pause();
    this.#writer?.flush();
    this.#restoreStdout?.();
    this.#restoreStdout = undefined;
    if (wasOpen) this.onclose?.();
  }
}

type Child = ChildProcessByStdio<Writable, Readable, Readable | null>;

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
    const { command, args = [], env, cwd, stderr = "inherit" } = this.#options;
    // No shell: arguments reach the child verbatim. stdin and stdout are always pipes.
    // Loaded here rather than imported: a server process, which only uses stdin/stdout, never needs it.
    const { spawn } = process.getBuiltinModule("node:child_process");
    const child = spawn(command, args, {
      env,
      cwd,
      stdio: ["pipe", "pipe", stderr],
      windowsHide: true,
    }) as Child;
    this.#child = child;
    this.#exited = new Promise((resolve) => child.once("exit", () => resolve()));
    this.#stdioClosed = new Promise((resolve) => child.once("close", () => resolve()));
    const reader = readerFor(this, this.#options.maxLineBytes);
    child.stdout.on("data", (chunk: Buffer) => reader.push(chunk));
    await spawned(child, command);
    this.#open = true;
    this.#writer = new LineWriter(child.stdin.write.bind(child.stdin) as WriteFn, child.stdin);
    // EPIPE when the child has gone; its exit, and so onclose, follows.
    child.stdin.on("error", (error) => this.onerror?.(error));
    child.on("error", (error) => this.onerror?.(error));
    child.once("close", () => this.#finish());
  }

  send(message: JsonRpcMessage | JsonRpcMessage[]): Promise<void> {
    if (!this.#open || !this.#writer) return Promise.reject(closedError());
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
    const wait = this.#options.closeTimeoutMs ?? DEFAULT_CLOSE_TIMEOUT_MS;
    this.#writer?.flush();
    child.stdin.end();
    if (!(await settlesWithin(this.#exited!, wait))) {
      child.kill("SIGTERM");
      if (!(await settlesWithin(this.#exited!, wait))) {
        child.kill("SIGKILL");
        await this.#exited;
      }
    }
    // A grandchild may still hold the pipes open; stop waiting for it after one more period.
    if (!(await settlesWithin(this.#stdioClosed!, wait))) {
      child.stdout.destroy();
      child.stderr?.destroy();
    }
    await this.#stdioClosed;
    this.#finish();
  }

  #finish(): void {
    if (this.#finished) return;
    this.#finished = true;
    this.#open = false;
    this.onclose?.();
  }
}

/** Resolves once the child is running; rejects naming the command when it could not be started. */
function spawned(child: Child, command: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const onSpawn = () => {
      child.off("error", onError);
      resolve();
    };
    const onError = (error: Error) => {
      child.off("spawn", onSpawn);
      reject(new Error(`Failed to start "${command}": ${error.message}`, { cause: error }));
    };
    child.once("spawn", onSpawn);
    child.once("error", onError);
  });
}

async function settlesWithin(promise: Promise<void>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([promise.then(() => true), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
