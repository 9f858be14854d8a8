/**
 * Pieces the HTTP transports share, on web-standard APIs only (Request, Response, ReadableStream) so they
 * run on Node, Bun, Deno and Workers: error responses, Host/Origin checks, bounded body reading, SSE
 * writing and a session registry with idle expiry.
 */

import { ErrorCode } from "../jsonrpc/messages.js";
import { type Linked, LinkedSet } from "../util/collections.js";

export const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024;
export const DEFAULT_KEEPALIVE_MS = 15_000;
export const DEFAULT_SESSION_TTL_MS = 30 * 60_000;
export const DEFAULT_MAX_SESSIONS = 10_000;

/** Code of transport-level refusals (bad headers, unknown session): the JSON-RPC implementation range. */
export const TRANSPORT_ERROR = -32000;

/** Thrown by `authenticate` (or the transport) to answer with `status`; the message goes in the body. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = "HttpError";
  }
}

// The transport-neutral core: handlers read a CoreRequest and answer a Reply, which the web adapter
// turns into a Response and the Node adapter writes straight to its ServerResponse.

/** What the handlers need of a request, whatever carries it. */
export interface CoreRequest {
  readonly method: string;
  /** Path and query, as in the request line. */
  readonly url: string;
  /** A header by lower-case name; several values joined by ", ". */
  header(name: string): string | null;
  /** The whole body; 413 beyond `maxBytes` (never more is held), 400 when it cannot be read. */
  body(maxBytes: number): Promise<Uint8Array>;
}

/** An answer: status and headers, then a complete body or an SSE stream. */
export interface Reply {
  status: number;
  headers: Record<string, string>;
  body?: string;
  sse?: SseWriter;
}

/** A web Request as a CoreRequest. */
export function coreOf(request: Request): CoreRequest {
  const url = new URL(request.url);
  return {
    method: request.method,
    url: url.pathname + url.search,
    header: (name) => request.headers.get(name),
    body: (maxBytes) => readBody(request, maxBytes),
  };
}

export function toResponse(reply: Reply): Response {
  if (reply.sse) return new Response(reply.sse.stream, { status: reply.status, headers: reply.headers });
  return new Response(reply.body ?? null, { status: reply.status, headers: reply.headers });
}

/** Headers of a reply that adds none of its own; shared, so frozen. */
export const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({});
const JSON_ONLY: Readonly<Record<string, string>> = Object.freeze({ "content-type": "application/json" });

export function jsonReply(body: unknown, headers: Record<string, string> = NO_HEADERS, status = 200): Reply {
  const all = headers === NO_HEADERS ? JSON_ONLY : { ...headers, "content-type": "application/json" };
  return { status, headers: all, body: JSON.stringify(body) };
}

/** A JSON-RPC error object with id null: what the spec allows as the body of an HTTP error. */
export function errorReply(
  status: number,
  code: number,
  message: string,
  headers?: Record<string, string>,
): Reply {
  return jsonReply({ jsonrpc: "2.0", id: null, error: { code, message } }, headers, status);
}

export function errorResponse(
  status: number,
  code: number,
  message: string,
  headers?: Record<string, string>,
): Response {
  return toResponse(errorReply(status, code, message, headers));
}

/** An HttpError as a reply; anything else as a 500 without details (never a stack). */
export function replyForError(error: unknown, report: (error: unknown) => void): Reply {
  if (error instanceof HttpError) {
    const code = error.status === 400 ? ErrorCode.InvalidRequest : TRANSPORT_ERROR;
    return errorReply(error.status, code, error.message, error.headers);
  }
  report(error);
  return errorReply(500, ErrorCode.InternalError, "Internal error");
}

export function responseForError(error: unknown, report: (error: unknown) => void): Response {
  return toResponse(replyForError(error, report));
}

export function jsonResponse(body: unknown, headers: Record<string, string> = {}, status = 200): Response {
  return toResponse(jsonReply(body, headers, status));
}

// Host and Origin (DNS-rebinding protection)

export interface OriginPolicy {
  /** `host:port`, or a bare host name matching any port. Undefined: no Host check. */
  allowedHosts?: readonly string[];
  /** Exact origins. Undefined: only an Origin naming the request's own Host is allowed. */
  allowedOrigins?: readonly string[];
}

/**
 * Host and Origin checks (DNS-rebinding protection) for one policy, its Host allowlist read once into
 * two sets: a lookup per request.
 */
export class HostGuard {
  /** Allowed `host:port` (and bare host) values, lower case. */
  readonly #exact: ReadonlySet<string> | undefined;
  /** Allowed host names given without a port: any port goes. */
  readonly #names: ReadonlySet<string> | undefined;

  constructor(private readonly policy: OriginPolicy) {
    const hosts = policy.allowedHosts?.map((entry) => entry.toLowerCase());
    this.#exact = hosts && new Set(hosts);
    this.#names = hosts && new Set(hosts.filter((entry) => hostName(entry) === entry));
  }

  /** A 403 for a Host outside the allowlist or a cross-origin request not allowed; undefined when fine. */
  check(request: CoreRequest): Reply | undefined {
    const host = request.header("host")?.toLowerCase() ?? "";
    if (this.#exact && !this.#exact.has(host) && !this.#names!.has(hostName(host))) {
      return errorReply(403, TRANSPORT_ERROR, "Forbidden: Host not allowed");
    }
    const origin = request.header("origin");
    if (origin !== null && !originAllowed(origin, host, this.policy.allowedOrigins)) {
      return errorReply(403, TRANSPORT_ERROR, "Forbidden: Origin not allowed");
    }
    return undefined;
  }
}

/** `[::1]:80` → `[::1]`, `a.b:80` → `a.b`, `a.b` → `a.b`. */
function hostName(host: string): string {
  const colon = host.lastIndexOf(":");
  return colon > host.lastIndexOf("]") ? host.slice(0, colon) : host;
}

function originAllowed(origin: string, host: string, allowed: readonly string[] | undefined): boolean {
  let normalized: URL;
  try {
    normalized = new URL(origin);
  } catch {
    return false; // "null" (sandboxed pages, file:) and garbage are never trusted
  }
  if (allowed) return allowed.some((entry) => sameOrigin(entry, normalized.origin));
  return normalized.host.toLowerCase() === host;
}

function sameOrigin(entry: string, origin: string): boolean {
  try {
    return new URL(entry).origin === origin;
  } catch {
    return false;
  }
}

/** The host names a server bound to `host` answers to when it is loopback, else undefined (no check). */
export function loopbackHosts(host: string, port: number): string[] | undefined {
  const loopback = host === "127.0.0.1" || host === "::1" || host === "localhost" || host === "[::1]";
  if (!loopback) return undefined;
  return [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`];
}

// Content negotiation

/** The media type without parameters, lower case (`Application/JSON; charset=utf-8` → `application/json`). */
export function mediaType(header: string | null): string {
  if (header === "application/json") return header; // nearly every request: no copies
  return (header ?? "").split(";", 1)[0]!.trim().toLowerCase();
}

/** Whether an Accept header admits `type` (wildcards count; `q=0` excludes). */
export function accepts(header: string | null, type: string): boolean {
  if (!header) return false;
  const [major] = type.split("/", 1);
  return header.split(",").some((range) => {
    const [name, ...params] = range.split(";");
    const media = name!.trim().toLowerCase();
    if (params.some((p) => /^\s*q\s*=\s*0(\.0*)?\s*$/i.test(p))) return false;
    return media === type || media === `${major}/*` || media === "*/*";
  });
}

const BOTH_CACHE_ENTRIES = 64;
const BOTH_CACHE_HEADER_CHARS = 256;

/**
 * Whether an Accept header admits both application/json and text/event-stream (what a Streamable HTTP
 * POST must list). A client sends the same header on every request, so a handler remembers the answer
 * for the headers it saw lately, bounded in count and size.
 */
export class AcceptMemo {
  readonly #seen = new Map<string, boolean>();

  jsonAndSse(header: string | null): boolean {
    if (!header) return false;
    let both = this.#seen.get(header);
    if (both === undefined) {
      both = accepts(header, "application/json") && accepts(header, "text/event-stream");
      if (header.length <= BOTH_CACHE_HEADER_CHARS) {
        if (this.#seen.size >= BOTH_CACHE_ENTRIES) this.#seen.clear();
        this.#seen.set(header, both);
      }
    }
    return both;
  }
}

// Request bodies

/** Reads the body, refusing (413) as soon as it passes `maxBytes`: never more than the limit is held. */
export async function readBody(request: Request, maxBytes: number): Promise<Uint8Array> {
  const declared = Number(request.headers.get("content-length") ?? Number.NaN);
  if (declared > maxBytes) throw tooLarge(maxBytes);
  if (!request.body) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await readChunk(reader);
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => {});
      throw tooLarge(maxBytes);
    }
    chunks.push(value);
  }
  return concat(chunks, size);
}

async function readChunk(reader: ReadableStreamDefaultReader<Uint8Array>) {
  try {
    return await reader.read();
  } catch (error) {
    // The Node adapter stops an oversize upload with an HttpError; other failures are a broken upload.
    if (error instanceof HttpError) throw error;
    throw new HttpError(400, "Bad Request: the request body could not be read");
  }
}

const tooLarge = (maxBytes: number) =>
  new HttpError(413, `Payload Too Large: the body exceeds ${maxBytes} bytes`);

function concat(chunks: Uint8Array[], size: number): Uint8Array {
  if (chunks.length === 1) return chunks[0]!;
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

/** Parses a JSON body; not UTF-8 or not JSON → HTTP 400 with a JSON-RPC -32700 body. */
const utf8 = new TextDecoder("utf-8", { fatal: true });

export function parseJson(bytes: Uint8Array): { value: unknown } | { error: Reply } {
  try {
    return { value: JSON.parse(utf8.decode(bytes)) };
  } catch {
    return { error: errorReply(400, ErrorCode.ParseError, "Parse error: the body is not valid JSON") };
  }
}

/** Where a handler made by handlerObject keeps its core, for adapters that skip Request and Response. */
export const CORE = Symbol("mcp-codegen.httpCore");

/** `web` is the Request itself when there is one (for `authenticate`). */
export type CoreHandler = (request: CoreRequest, web?: Request) => Promise<Reply>;

/** The core of a handler made by handlerObject, when it can be served without a web Request. */
export function coreHandlerOf(handler: unknown): CoreHandler | undefined {
  return (handler as { [CORE]?: CoreHandler } | undefined)?.[CORE];
}

/**
 * The callable handler with its methods; `sessionCount` stays a live getter. `native` false: the core
 * needs the web Request itself (an `authenticate` callback receives it), so adapters must build one.
 */
export function handlerObject(
  handle: CoreHandler,
  methods: { close(): Promise<void>; sweep(): void; sessionCount(): number },
  native = true,
): ((request: Request) => Promise<Response>) & {
  close(): Promise<void>;
  sweep(): void;
  readonly sessionCount: number;
} {
  const fn = async (request: Request) => toResponse(await handle(coreOf(request), request));
  Object.defineProperty(fn, "sessionCount", { get: methods.sessionCount, enumerable: true });
  if (native) Object.defineProperty(fn, CORE, { value: handle });
  return Object.assign(fn, { close: methods.close, sweep: methods.sweep }) as ReturnType<
    typeof handlerObject
  >;
}

// Server-Sent Events

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

export function sseResponse(writer: SseWriter, headers: Record<string, string> = {}): Response {
  return toResponse(sseReply(writer, headers));
}

export function sseReply(writer: SseWriter, headers: Record<string, string> = {}): Reply {
  return { status: 200, headers: { ...headers, ...SSE_HEADERS }, sse: writer };
}

/** Node timers have unref(); elsewhere a timer does not hold the runtime open anyway. */
export function unref(timer: unknown): void {
  (timer as { unref?: () => void } | undefined)?.unref?.();
}

// Sessions

export interface Expirable extends Linked<Expirable> {
  readonly id: string;
  /** Nothing in flight and no open stream: the session may be closed without loss. */
  readonly idle: boolean;
  lastActive: number;
  close(): Promise<void>;
}

/**
 * Sessions by id, linked in least-recently-used order (a touch relinks, nothing is rehashed), so
 * eviction and expiry scan from the oldest. Bounded by `max`; idle ones expire after `ttlMs`.
 */
export class SessionRegistry<S extends Expirable> {
  readonly #sessions = new Map<string, S>();
  readonly #recent = new LinkedSet<Expirable>();
  #timer: ReturnType<typeof setInterval> | undefined;

  constructor(
    private readonly options: { ttlMs: number; max: number; now: () => number },
    private readonly onError: (error: unknown) => void,
  ) {}

  get size(): number {
    return this.#sessions.size;
  }

  get(id: string): S | undefined {
    return this.#sessions.get(id);
  }

  values(): S[] {
    return [...this.#sessions.values()];
  }

  /** Marks the session used now and most recent (a session no longer held is left alone). */
  touch(session: S): void {
    if (this.#sessions.get(session.id) !== session) return;
    session.lastActive = this.options.now();
    this.#recent.touch(session);
  }

  /** Makes room for one more: evicts the least recently used idle session, or answers 503 if none is. */
  reserve(): void {
    if (this.#sessions.size < this.options.max) return;
    const victim = this.#oldestIdle();
    if (!victim) throw new HttpError(503, "Service Unavailable: too many sessions", { "retry-after": "5" });
    this.#drop(victim);
  }

  add(session: S): void {
    const old = this.#sessions.get(session.id);
    if (old && old !== session) this.#recent.delete(old);
    this.#sessions.set(session.id, session);
    session.lastActive = this.options.now();
    this.#recent.add(session);
    this.#arm();
  }

  delete(session: S): void {
    if (this.#sessions.get(session.id) === session) {
      this.#sessions.delete(session.id);
      this.#recent.delete(session);
    }
    if (this.#sessions.size === 0) this.#disarm();
  }

  /** Closes idle sessions unused for longer than the TTL. Bounded by the number of sessions. */
  sweep(): void {
    const cutoff = this.options.now() - this.options.ttlMs;
    for (const session of this.#recent.oldestFirst() as S[]) {
      if (session.lastActive > cutoff) break; // LRU order: everything after is newer
      if (session.idle) this.#drop(session);
    }
  }

  async closeAll(): Promise<void> {
    this.#disarm();
    const all = this.#recent.values() as S[];
    for (const session of all) this.#recent.delete(session);
    this.#sessions.clear();
    await Promise.all(all.map((session) => session.close().catch(this.onError)));
  }

  #oldestIdle(): S | undefined {
    for (let session = this.#recent.oldest; session; session = session.linkPrev) {
      if (session.idle) return session as S;
    }
    return undefined;
  }

  #drop(session: S): void {
    this.delete(session);
    session.close().catch(this.onError);
  }

  /** A periodic sweep while sessions exist, at a fraction of the TTL (between 1 s and 1 min). */
  #arm(): void {
    if (this.#timer) return;
    const every = Math.min(Math.max(this.options.ttlMs / 4, 1000), 60_000);
    this.#timer = setInterval(() => this.sweep(), every);
    unref(this.#timer);
  }

  #disarm(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }
}

/**
 * A session id: a random UUID's 122 random bits as 32 hex digits, visible ASCII as the spec requires.
 * Node builds a UUID by concatenation, a tree of some 16 string pieces (over 500 bytes) that every
 * session would keep; dropping the dashes copies it into one flat 32-character string.
 */
export function newSessionId(): string {
  return crypto.randomUUID().replaceAll("-", "");
}
