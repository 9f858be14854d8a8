/** Shared pieces of the runtime tests: waiting on events, memory-pair setups, fixture paths. */

import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { Connection, type ConnectionOptions } from "../../runtime/jsonrpc/connection.js";
import { createMemoryTransportPair } from "../../runtime/jsonrpc/memory.js";
import type { Transport } from "../../runtime/jsonrpc/transport.js";

const path = (relative: string) => fileURLToPath(new URL(relative, import.meta.url));
export const TSX = path("../../node_modules/.bin/tsx");
export const SERVER_FIXTURE = path("../fixtures/runtime/server.ts");
export const STUBBORN_FIXTURE = path("../fixtures/runtime/stubborn.mjs");
/** How a fixture written in TypeScript is run. */
export const fixtureCommand = (...flags: string[]) => ({
  command: TSX,
  args: ["--conditions=mcp-codegen-source", SERVER_FIXTURE, ...flags],
});

interface Waiter<T> {
  matches: (item: T) => boolean;
  resolve: (item: T) => void;
}

/** Collects items as they arrive; waitFor resolves on the first match, whether it came before or after. */
export class Inbox<T = unknown> {
  readonly items: T[] = [];
  readonly #waiters = new Set<Waiter<T>>();

  push = (item: T): void => {
    this.items.push(item);
    for (const waiter of this.#waiters) {
      if (!waiter.matches(item)) continue;
      this.#waiters.delete(waiter);
      waiter.resolve(item);
    }
  };

  waitFor(matches: (item: T) => boolean, what = "a matching item", timeoutMs = 10_000): Promise<T> {
    const found = this.items.find(matches);
    if (found !== undefined) return Promise.resolve(found);
    return new Promise((resolve, reject) => {
      const waiter: Waiter<T> = {
        matches,
        resolve: (item) => {
          clearTimeout(timer);
          resolve(item);
        },
      };
      // A safety net only: every wait ends on an event long before this.
      const timer = setTimeout(() => {
        this.#waiters.delete(waiter);
        const seen = JSON.stringify(this.items.slice(-20)).slice(0, 2000);
        reject(new Error(`timed out waiting for ${what}; last items: ${seen}`));
      }, timeoutMs);
      this.#waiters.add(waiter);
    });
  }
}

export interface Deferred<T> {
  promise: Promise<T>;
  resolve: (value: T) => void;
  reject: (error: unknown) => void;
}

export function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

type Options = Partial<Omit<ConnectionOptions, "transport">>;
const noRequests = () => {
  throw new Error("no requests expected");
};

function connection(transport: Transport, options: Options) {
  const errors = new Inbox<Error>();
  const conn = new Connection({ transport, onRequest: noRequests, ...options });
  conn.onerror = errors.push;
  return { conn, errors };
}

/** Two Connections over a memory pair. */
export async function connectedPair(server: Options, client: Options = {}) {
  const [a, b] = createMemoryTransportPair();
  const s = connection(a, server);
  const c = connection(b, client);
  await Promise.all([s.conn.start(), c.conn.start()]);
  return { server: s.conn, client: c.conn, serverErrors: s.errors, clientErrors: c.errors };
}

/** A Connection whose peer is a bare transport, so tests see and send exact wire messages. */
export async function withRawPeer(options: Options) {
  const [a, b] = createMemoryTransportPair();
  const { conn, errors } = connection(a, options);
  const inbox = new Inbox<unknown>();
  b.onmessage = inbox.push;
  await Promise.all([conn.start(), b.start()]);
  const send = (message: unknown) => b.send(message as never);
  return { conn, errors, inbox, peer: b, send };
}

/** Matches a wire message by id (and, optionally, that it is a result or an error). */
export const responseTo =
  (id: unknown, kind?: "result" | "error") =>
  (message: unknown): boolean => {
    if (typeof message !== "object" || message === null || Array.isArray(message)) return false;
    const m = message as Record<string, unknown>;
    if (m.id !== id || !("result" in m || "error" in m)) return false;
    return kind === undefined || kind in m;
  };

export const notification =
  (method: string) =>
  (message: unknown): boolean =>
    typeof message === "object" && message !== null && (message as { method?: unknown }).method === method;

/** The fixture server spawned by hand, for tests that write raw bytes and read raw lines. */
export async function spawnRawServer(...flags: string[]) {
  const { command, args } = fixtureCommand(...flags);
  const child = spawn(command, [...args], { stdio: ["pipe", "pipe", "pipe"] });
  const lines = new Inbox<string>();
  const stderr = new Inbox<string>();
  splitLines(child.stdout, lines.push);
  splitLines(child.stderr, stderr.push);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  const write = (data: string | Uint8Array) =>
    new Promise<void>((resolve, reject) => child.stdin.write(data, (e) => (e ? reject(e) : resolve())));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.stdin.end();
      child.kill("SIGTERM");
    }
    await exited;
  };
  await stderr
    .waitFor((l) => l === "ready", "the fixture to start")
    .catch(async (error: unknown) => {
      await stop();
      throw error;
    });
  /** Parsed stdout lines; a line that is not JSON fails the test that reads it. */
  const messages = () => lines.items.map((l) => JSON.parse(l) as unknown);
  const response = async (id: unknown) =>
    JSON.parse(
      await lines.waitFor((l) => responseTo(id)(JSON.parse(l)), `a response to ${JSON.stringify(id)}`),
    ) as Record<string, unknown>;
  return { child, lines, stderr, exited, write, stop, messages, response };
}

/** Calls `push` with each complete line of a stream, without its newline. */
export function splitLines(stream: NodeJS.ReadableStream, push: (line: string) => void): void {
  let rest = "";
  stream.setEncoding("utf8");
  stream.on("data", (chunk: string) => {
    const parts = (rest + chunk).split("\n");
    rest = parts.pop()!;
    for (const part of parts) push(part);
  });
}
