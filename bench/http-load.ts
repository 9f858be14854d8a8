/**
 * The HTTP benches' load client (bench/http.ts, bench/auth.ts, bench/redis.ts): POSTs through an undici
 * Pool's dispatch() with bodies built as strings, responses parsed only as far as a check needs; opening a
 * 2025-11-25 session.
 */

import { Pool } from "undici";
import { type BoundedRun, type HttpServerChild, processCpuMs, runBounded, within } from "./lib.js";

export const PROTOCOL_VERSION = "2025-11-25";
/** The MCP endpoint of every HTTP fixture. */
export const PATH = "/mcp";

export interface Message {
  id?: unknown;
  result?: { content?: { text?: unknown }[] };
  error?: { message?: string };
}

/** The JSON-RPC message in a response body: the body itself (JSON), or the first SSE data line holding one. */
export function messageOf(contentType: string, text: string, what: string): Message {
  if (contentType.startsWith("application/json")) return JSON.parse(text) as Message;
  // Skip a priming event (an id with empty data) and anything else that is not a JSON object.
  const at = text.indexOf("data: {");
  if (at < 0) throw new Error(`${what}: no message in the SSE body ${JSON.stringify(text.slice(0, 200))}`);
  const end = text.indexOf("\n", at);
  return JSON.parse(text.slice(at + 6, end < 0 ? undefined : end)) as Message;
}

export interface Post {
  status: number;
  contentType: string;
  sessionId: string | undefined;
  text: string;
}

/**
 * One POST through the pool's dispatch() with a callback handler: no response stream objects, the body
 * collected as Buffers and decoded once, of the headers only the two the bench reads.
 */
export function post(pool: Pool, headers: Record<string, string>, body: string): Promise<Post> {
  return new Promise((resolve, reject) => {
    let status = 0;
    let contentType = "";
    let sessionId: string | undefined;
    const chunks: Buffer[] = [];
    pool.dispatch(
      { path: PATH, method: "POST", headers, body },
      {
        onConnect() {},
        onHeaders(statusCode, raw) {
          status = statusCode;
          for (let i = 0; i + 1 < raw.length; i += 2) {
            const name = raw[i]!.toString("latin1").toLowerCase();
            if (name === "content-type") contentType = raw[i + 1]!.toString("latin1");
            else if (name === "mcp-session-id") sessionId = raw[i + 1]!.toString("latin1");
          }
          return true;
        },
        onData(chunk) {
          chunks.push(chunk);
          return true;
        },
        onComplete() {
          const text =
            chunks.length === 1 ? chunks[0]!.toString("utf8") : Buffer.concat(chunks).toString("utf8");
          resolve({ status, contentType, sessionId, text });
        },
        onError: reject,
      },
    );
  });
}

/** The headers of every request in a 2025-11-25 session but the initialize (add its mcp-session-id). */
export const BASE_HEADERS = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  "mcp-protocol-version": PROTOCOL_VERSION,
};

const INITIALIZE = JSON.stringify({
  jsonrpc: "2.0",
  id: 0,
  method: "initialize",
  params: {
    protocolVersion: PROTOCOL_VERSION,
    capabilities: {},
    clientInfo: { name: "bench-http", version: "1.0.0" },
  },
});
const INITIALIZED = JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" });
/** The initialize request has no MCP-Protocol-Version header yet: the version is negotiated in its body. */
const INITIALIZE_HEADERS = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
};

/** The body of echo call `i` (2025-11-25). */
export const callBody = (i: number) =>
  `{"jsonrpc":"2.0","id":${i},"method":"tools/call","params":{"name":"echo","arguments":{"text":"c${i}"}}}`;

/** initialize, then notifications/initialized, as a client opening a session does; the session id. */
export async function openSession(pool: Pool): Promise<string> {
  const init = await post(pool, INITIALIZE_HEADERS, INITIALIZE);
  if (init.status !== 200 || !init.sessionId) {
    throw new Error(`initialize: HTTP ${init.status}, session ${init.sessionId}: ${init.text.slice(0, 200)}`);
  }
  const message = messageOf(init.contentType, init.text, "initialize");
  if (message.error) throw new Error(`initialize failed: ${message.error.message}`);
  const note = await post(pool, { ...BASE_HEADERS, "mcp-session-id": init.sessionId }, INITIALIZED);
  if (note.status !== 202) throw new Error(`notifications/initialized: HTTP ${note.status}: ${note.text}`);
  return init.sessionId;
}

/** A `tools/call` of the fixtures' `echo` tool whose answer must echo `c<i>`: every timed HTTP call. */
export function echoCaller(
  pool: Pool,
  headers: Record<string, string>,
  body: (i: number) => string,
): (i: number) => Promise<void> {
  return async (i) => {
    const response = await post(pool, headers, body(i));
    // The fixtures' answers never carry a credential, so they may be shown.
    if (response.status !== 200)
      throw new Error(`tools/call ${i}: HTTP ${response.status}: ${response.text}`);
    const message = messageOf(response.contentType, response.text, `tools/call ${i}`);
    if (message.result?.content?.[0]?.text !== `c${i}`) {
      throw new Error(`wrong echo for call ${i}: ${response.text.slice(0, 300)}`);
    }
  };
}

/** Sockets of a target's pool: one per call in flight at the most the benches run. */
export const POOL_SOCKETS = 64;
/** After a run the server may still be finishing its last writes: its CPU is read this much later. */
export const CPU_SETTLE_MS = 20;

export interface Sample extends BoundedRun {
  serverCpuMs: number;
}

/** One fixture server under load: its child process, a pool of keep-alive sockets, timed runs of `call`. */
export abstract class LoadTarget {
  pool!: Pool;
  call!: (i: number) => Promise<void>;

  constructor(readonly server: HttpServerChild) {}

  /** Starts the server and opens the pool; subclasses then set `call`. */
  protected async connect(): Promise<void> {
    const port = await this.server.start();
    this.pool = new Pool(`http://127.0.0.1:${port}`, { connections: POOL_SOCKETS, pipelining: 1 });
  }

  abstract start(): Promise<void>;

  async run(count: number, inflight: number, maxMs: number): Promise<Sample> {
    const cpu0 = processCpuMs(this.server.pid);
    const run = await runBounded(this.call, { count, inflight, maxMs });
    await new Promise<void>((resolve) => setTimeout(resolve, CPU_SETTLE_MS));
    return { ...run, serverCpuMs: processCpuMs(this.server.pid) - cpu0 };
  }

  async close(): Promise<void> {
    await Promise.allSettled([within(this.pool?.close() ?? Promise.resolve(), 5_000, "the pool's close")]);
    await this.server.close();
  }
}
