/**
 * The Streamable HTTP server transport, as a web-standard `(Request) => Promise<Response>` handler: it
 * runs wherever fetch does (Node through node-http.ts, Bun, Deno, Workers). Each session is one
 * ServerSession over an HttpSession transport, which routes what the server sends by the request it
 * belongs to: a POST's own response stream, else the session's standalone GET stream.
 */

import {
  ErrorCode,
  isObject,
  isRequestId,
  type JsonRpcMessage,
  type JsonRpcResponse,
  type McpError,
  type RequestId,
} from "../jsonrpc/messages.js";
import { DONE, type MessageExtra, type SendOptions, type Transport } from "../jsonrpc/transport.js";
import { checkParamHeaders, checkStandardHeaders } from "../mcp/param-headers.js";
import { hasRequestMeta, headerMismatch, readRequestMeta, StatelessErrorCode } from "../mcp/request-meta.js";
import type { Server } from "../server/server.js";
import { SmallMap } from "../util/collections.js";
import { type EventStore, InMemoryEventStore, type PrimingEvent } from "./event-store.js";
import {
  AcceptMemo,
  accepts,
  type CoreRequest,
  DEFAULT_KEEPALIVE_MS,
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_MAX_SESSIONS,
  DEFAULT_SESSION_TTL_MS,
  type Expirable,
  errorReply,
  HostGuard,
  HttpError,
  handlerObject,
  jsonReply,
  type KeepAlive,
  keepAliveTicker,
  mediaType,
  NO_HEADERS,
  newSessionId,
  parseJson,
  type Reply,
  replyForError,
  SessionRegistry,
  SseWriter,
  sseReply,
  TRANSPORT_ERROR,
} from "./http-util.js";

export { HttpError } from "./http-util.js";

export interface StreamableHttpOptions {
  /**
   * No sessions: every POST is served by a fresh session, initialized at the MCP-Protocol-Version
   * header's version (or the newest supported); no GET stream; DELETE → 405.
   */
  stateless?: boolean;
  /** Host header allowlist (`127.0.0.1:3000`, or a bare host name for any port). Omitted: no check. */
  allowedHosts?: string[];
  /** Origin allowlist; omitted: only an Origin naming the request's own Host. Others → 403. */
  allowedOrigins?: string[];
  /** Largest accepted POST body (default 4 MiB) → 413. */
  maxBodyBytes?: number;
  /** Idle sessions (nothing in flight, no open stream) are closed after this long (default 30 min). */
  sessionIdleTtlMs?: number;
  /** Beyond it the least recently used idle session is evicted, or 503 when none is idle (default 10,000). */
  maxSessions?: number;
  /** Default: a new InMemoryEventStore. */
  eventStore?: EventStore;
  /** Interval of `: keepalive` comments on SSE streams (default 15 s). */
  keepAliveMs?: number;
  /** SSE `retry:` sent at the start of streams: how long a client waits before reconnecting. */
  retryMs?: number;
  /** Answer a POST with application/json when its handlers sent nothing but their responses (default false: SSE). */
  jsonResponse?: boolean;
  /**
   * Whether a POST's SSE stream starts with a priming event (an id and empty data) so that the client can
   * resume it even before the first message. Empty data trips clients older than the spec that
   * introduced it, so by default only sessions at the newest version this server supports get one.
   */
  primingEvents?: boolean | ((protocolVersion: string) => boolean);
  /** Its result reaches handlers as `ctx.auth`; throw `new HttpError(401, …, headers)` to refuse. */
  authenticate?: (request: Request) => unknown | Promise<unknown>;
  /** Clock for session expiry (tests). */
  now?: () => number;
}

export interface McpHttpHandler {
  (request: Request): Promise<Response>;
  /** Closes every session and stream; later requests get 503. */
  close(): Promise<void>;
  readonly sessionCount: number;
  /** Frees expired sessions now (a timer also does, periodically). */
  sweep(): void;
}

const SESSION_HEADER = "mcp-session-id";
const VERSION_HEADER = "mcp-protocol-version";
/** Stream ids a session keeps in the event store at most; older ones are forgotten. */
const MAX_STORED_STREAMS = 1000;
/** Shared by every unauthenticated POST; nothing writes to it. */
const NO_EXTRA: MessageExtra = Object.freeze({});
const CANCELLED = "notifications/cancelled";
/** The event a stream's priming event stores: a place in the stream, never replayed. */
const PRIMING: PrimingEvent = Object.freeze({}) as PrimingEvent;

/**
 * A stateless session serves one POST and is never named to anyone: they share one id, and their one
 * stream shares one too (its SSE event ids only need to differ within the stream).
 */
const STATELESS_ID = "stateless";
const STATELESS_STREAM = `${STATELESS_ID}/1`;

/**
 * Ends the SSE stream of the POST that carried this request, without ending the request: the client
 * reconnects (after `retry`) with Last-Event-ID and gets the rest, the response included. Lets a
 * long-running handler avoid holding a connection (SSE polling). False when not possible: no session,
 * no SSE stream, or the client holds no event id of it yet (it could not resume).
 */
export function closeSseStream(ctx: { requestId: RequestId }): boolean {
  // A handler's context carries the transport serving it: for a stateful HTTP session, its HttpSession.
  const transport = (ctx as { transport?: unknown }).transport;
  return transport instanceof HttpSession && transport.stateful
    ? transport.closeStreamOf(ctx.requestId)
    : false;
}

export function createStreamableHttpHandler(
  server: Server,
  options: StreamableHttpOptions = {},
): McpHttpHandler {
  const http = new StreamableHttp(server, options);
  return handlerObject(
    (request, web) => http.handle(request, web),
    {
      close: () => http.close(),
      sweep: () => http.sessions.sweep(),
      sessionCount: () => http.sessions.size,
    },
    options.authenticate === undefined,
  );
}

/** What sessions need from the handler that made them. */
interface SessionEnv {
  readonly store: EventStore;
  readonly keepAlive: KeepAlive | undefined;
  readonly retryMs: number | undefined;
  readonly jsonResponse: boolean;
  primes(protocolVersion: string | undefined): boolean;
  /** The HTTP status of a single JSON error answer with this code, when not 200. */
  errorStatus?(code: number): number | undefined;
  report(error: unknown): void;
  touched(session: HttpSession): void;
  closed(session: HttpSession): void;
}

class StreamableHttp {
  readonly sessions: SessionRegistry<HttpSession>;
  readonly #env: SessionEnv;
  readonly #accept = new AcceptMemo();
  readonly #versions: Set<string>;
  readonly #handshakeVersions: Set<string>;
  readonly #newest: string;
  readonly #maxBody: number;
  readonly #hosts: HostGuard;
  #closed = false;

  constructor(
    private readonly server: Server,
    private readonly options: StreamableHttpOptions,
  ) {
    const report = (error: unknown) => server.reportError(error);
    const now = options.now ?? Date.now;
    this.sessions = new SessionRegistry(
      {
        ttlMs: options.sessionIdleTtlMs ?? DEFAULT_SESSION_TTL_MS,
        max: options.maxSessions ?? DEFAULT_MAX_SESSIONS,
        now,
      },
      report,
    );
    const handshake = server.handshake?.supportedVersions ?? [];
    this.#handshakeVersions = new Set(handshake.map((v) => v.version));
    this.#versions = new Set([
      ...this.#handshakeVersions,
      ...(server.statelessTables?.supportedVersions ?? []).map((v) => v.version),
    ]);
    this.#newest = (handshake[0] ?? server.protocol.supportedVersions[0]!).version;
    this.#maxBody = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
    this.#hosts = new HostGuard(options);
    this.#env = {
      store: options.eventStore ?? new InMemoryEventStore(),
      keepAlive: keepAliveTicker(options.keepAliveMs ?? DEFAULT_KEEPALIVE_MS),
      retryMs: options.retryMs,
      jsonResponse: options.jsonResponse ?? false,
      primes: (version) => this.#primes(version),
      report,
      touched: (session) => {
        // Stateless sessions are never registered: their ids need no lookup (nor hashing).
        if (session.stateful) this.sessions.touch(session);
      },
      closed: (session) => this.sessions.delete(session),
    };
  }

  async handle(request: CoreRequest, web?: Request): Promise<Reply> {
    if (this.#closed) return errorReply(503, TRANSPORT_ERROR, "Service Unavailable: shutting down");
    const refused = this.#hosts.check(request);
    if (refused) return refused;
    try {
      const auth = this.options.authenticate ? await this.options.authenticate(web!) : undefined;
      switch (request.method) {
        case "POST":
          return await this.#post(request, auth);
        case "GET":
          return await this.#get(request);
        case "DELETE":
          return await this.#delete(request);
        default:
          return this.#notAllowed();
      }
    } catch (error) {
      return replyForError(error, this.#env.report);
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.sessions.closeAll();
  }

  async #post(request: CoreRequest, auth: unknown): Promise<Reply> {
    if (!this.#accept.jsonAndSse(request.header("accept"))) {
      const message = "Not Acceptable: Accept must list application/json and text/event-stream";
      return errorReply(406, TRANSPORT_ERROR, message);
    }
    if (mediaType(request.header("content-type")) !== "application/json") {
      return errorReply(
        415,
        TRANSPORT_ERROR,
        "Unsupported Media Type: Content-Type must be application/json",
      );
    }
    const sessionId = request.header(SESSION_HEADER);
    // An unknown session is refused before its body is read.
    const session = sessionId !== null && !this.options.stateless ? this.#session(sessionId) : undefined;
    const parsedFirst = session ? undefined : parseJson(await request.body(this.#maxBody));
    if (parsedFirst && "error" in parsedFirst) return parsedFirst.error;
    const extra: MessageExtra = auth === undefined ? NO_EXTRA : { auth };
    if (parsedFirst && this.#isStatelessEra(request, parsedFirst.value)) {
      return this.#statelessEraPost(request, parsedFirst.value, extra);
    }
    // An initialize request negotiates its version in its body; any other must name a supported one.
    const version = session || this.options.stateless ? this.#checkVersion(request) : null;
    const parsed = parsedFirst ?? parseJson(await request.body(this.#maxBody));
    if ("error" in parsed) return parsed.error;
    const body = parsed.value;
    if (Array.isArray(body) && body.length === 0) {
      return errorReply(400, ErrorCode.InvalidRequest, "Invalid Request: empty batch");
    }
    if (this.options.stateless) return this.#statelessPost(version ?? this.#newest, body, extra);
    if (session) return session.post(body, { ...extra, sessionId: session.id });
    if (!isInitialize(body)) {
      const message = containsInitialize(body)
        ? "Invalid Request: initialize must be sent alone, not in a batch"
        : "Bad Request: Mcp-Session-Id header is required";
      return errorReply(400, ErrorCode.InvalidRequest, message);
    }
    return this.#initialize(body, extra);
  }

  /**
   * Whether a POST without a session follows the stateless era: the server speaks it, and the body
   * carries per-request `_meta` or the version header names no handshake-era version.
   */
  #isStatelessEra(request: CoreRequest, body: unknown): boolean {
    if (!this.server.statelessTables) return false;
    if (!this.server.handshake) return true;
    const version = request.header(VERSION_HEADER);
    if (version !== null && !this.#handshakeVersions.has(version)) return true;
    return isObject(body) && hasRequestMeta(body.params);
  }

  /**
   * A stateless-era POST: one message, its headers checked against its body (version header, then
   * `_meta`, then the two agreeing, then Mcp-Method / Mcp-Name / Mcp-Param-*), served by a session of its
   * own; protocol errors get their HTTP status (400, or 404 for an unknown method).
   */
  async #statelessEraPost(request: CoreRequest, body: unknown, extra: MessageExtra): Promise<Reply> {
    if (!isObject(body)) {
      return errorReply(400, ErrorCode.InvalidRequest, "Invalid Request: one JSON-RPC message per POST");
    }
    if (typeof body.method !== "string") {
      return errorReply(
        400,
        ErrorCode.InvalidRequest,
        "Invalid Request: a client sends requests and notifications only",
      );
    }
    if (body.id === undefined) return { status: 202, headers: {} };
    const id = body.id as RequestId;
    // Header and _meta problems: the request is malformed (400) before anything serves it.
    const fail = (error: McpError) => jsonReply({ jsonrpc: "2.0", id, error: error.toJSON() }, {}, 400);
    const header = (name: string) => request.header(name) ?? undefined;
    const version = header(VERSION_HEADER);
    if (version === undefined) return fail(headerMismatch("the MCP-Protocol-Version header is missing"));
    let meta: ReturnType<typeof readRequestMeta>;
    try {
      meta = readRequestMeta(body.params);
    } catch (error) {
      return fail(error as McpError);
    }
    if (meta.protocolVersion !== version) {
      return fail(
        headerMismatch(
          `MCP-Protocol-Version header value '${version}' does not match _meta value '${meta.protocolVersion}'`,
        ),
      );
    }
    const mismatch =
      checkStandardHeaders(header, body.method, body.params) ??
      (body.method === "tools/call" ? this.#checkToolHeaders(header, body.params) : undefined);
    if (mismatch) return fail(headerMismatch(mismatch));

    const env = this.#statelessEnv;
    const session = new HttpSession(STATELESS_ID, false, env);
    session.serverSession = this.server.open(session, { era: "stateless" });
    return session.post(body, extra);
  }

  #checkToolHeaders(header: (name: string) => string | undefined, params: unknown): string | undefined {
    const p = params as { name?: unknown; arguments?: unknown };
    return checkParamHeaders(header, this.server.toolHeaders.of(p.name), p.arguments ?? {});
  }

  /**
   * Stateless-era sessions answer JSON unless something streams first, never prime (nothing resumes),
   * and give a protocol error its HTTP status.
   */
  get #statelessEnv(): SessionEnv {
    this.#statelessEnvMemo ??= {
      ...this.#env,
      jsonResponse: true,
      primes: () => false,
      errorStatus: (code) => STATELESS_ERROR_STATUS.get(code),
    };
    return this.#statelessEnvMemo;
  }
  #statelessEnvMemo: SessionEnv | undefined;

  #initialize(body: unknown, extra: MessageExtra): Reply | Promise<Reply> {
    this.sessions.reserve();
    const session = new HttpSession(newSessionId(), true, this.#env);
    this.sessions.add(session);
    session.serverSession = this.server.open(session, { sessionId: session.id });
    return session.post(body, { ...extra, sessionId: session.id });
  }

  #statelessPost(protocolVersion: string, body: unknown, extra: MessageExtra): Reply | Promise<Reply> {
    const session = new HttpSession(STATELESS_ID, false, this.#env);
    session.serverSession = this.server.open(session, { stateless: { protocolVersion } });
    return session.post(body, extra);
  }

  async #get(request: CoreRequest): Promise<Reply> {
    if (this.options.stateless) return this.#notAllowed();
    if (!accepts(request.header("accept"), "text/event-stream")) {
      return errorReply(406, TRANSPORT_ERROR, "Not Acceptable: Accept must list text/event-stream");
    }
    const session = this.#session(request.header(SESSION_HEADER));
    this.#checkVersion(request);
    const lastEventId = request.header("last-event-id");
    return lastEventId ? session.resume(lastEventId) : session.openStandalone();
  }

  async #delete(request: CoreRequest): Promise<Reply> {
    if (this.options.stateless) return this.#notAllowed();
    const session = this.#session(request.header(SESSION_HEADER));
    this.#checkVersion(request);
    await session.expire();
    return { status: 204, headers: {} };
  }

  /** The session a request names: 400 without the header, 404 when unknown or expired. */
  #session(id: string | null): HttpSession {
    if (!id) throw new HttpError(400, "Bad Request: Mcp-Session-Id header is required");
    const session = this.sessions.get(id);
    if (!session) throw new HttpError(404, "Not Found: no such session (it may have expired)");
    this.sessions.touch(session);
    return session;
  }

  /**
   * A version header must name a supported version; without one the session's own version applies.
   * The header's value, or null.
   */
  #checkVersion(request: CoreRequest): string | null {
    const version = request.header(VERSION_HEADER);
    if (version !== null && !this.#versions.has(version)) {
      const supported = [...this.#versions].join(", ");
      throw new HttpError(
        400,
        `Bad Request: unsupported MCP-Protocol-Version ${version} (supported: ${supported})`,
      );
    }
    return version;
  }

  #notAllowed(): Reply {
    const allow = this.options.stateless ? "POST" : "GET, POST, DELETE";
    return errorReply(405, TRANSPORT_ERROR, "Method Not Allowed", { allow });
  }

  #primes(version: string | undefined): boolean {
    const option = this.options.primingEvents;
    if (version === undefined) return option === true;
    if (typeof option === "function") return option(version);
    return option ?? version === this.#newest;
  }
}

/** HTTP status of a stateless-era error: 404 for an unknown method, 400 for the lifecycle's errors. */
const STATELESS_ERROR_STATUS: ReadonlyMap<number, number> = new Map([
  [ErrorCode.MethodNotFound, 404],
  [StatelessErrorCode.HeaderMismatch, 400],
  [StatelessErrorCode.MissingRequiredClientCapability, 400],
  [StatelessErrorCode.UnsupportedProtocolVersion, 400],
]);

/** The server session an HttpSession serves, as far as the transport needs it. */
interface ServedSession {
  readonly initialized: boolean;
  readonly session: { protocolVersion: string } | undefined;
  close(): Promise<void>;
}

interface Missed {
  streamId: string;
  eventId: string;
  message: JsonRpcMessage;
}

/**
 * One MCP session's transport. `send` routes by request: a response or a message sent on behalf of a
 * request goes to the stream of the POST that carried it; the rest to the standalone stream (GET).
 * Streams keep their events in the event store, so a client that lost one resumes it with Last-Event-ID.
 */
class HttpSession implements Transport, Expirable {
  lastActive = 0;
  /** Its place in the registry's recency order (stateful sessions). */
  linkPrev?: Expirable;
  linkNext?: Expirable;
  serverSession?: ServedSession;
  onmessage?: (message: unknown, extra?: MessageExtra) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;

  /** Request id → the stream of the POST that carried it, until its response is sent (made on first use). */
  #routes: SmallMap<RequestId, RequestStream> | undefined;
  /** Request streams still waiting for a response, by stream id, for resumption (made on first use). */
  #streams: SmallMap<string, RequestStream> | undefined;
  /** Stream ids whose events may still be in the store, oldest first (stateful sessions only). */
  readonly #stored: Set<string> | undefined;
  /** The GET stream (stateful sessions only: a stateless one serves a single POST). */
  readonly #standalone: StandaloneStream | undefined;
  #nextStream = 1;
  #events = 0;
  /** While a POST's messages are handed over, responses no stream takes (id null, refused batches) are its own. */
  #capturing = false;
  #captured: JsonRpcMessage[] | undefined;
  /** Events emitted while a replay runs, which the replayed snapshot may not hold. */
  #replays = 0;
  #missed: Missed[] | undefined;
  #closed = false;

  constructor(
    readonly id: string,
    readonly stateful: boolean,
    readonly env: SessionEnv,
  ) {
    if (!stateful) return;
    this.#stored = new Set();
    this.#standalone = new StandaloneStream(`${id}/get`, this);
    this.remember(this.#standalone.id);
  }

  get headers(): Record<string, string> {
    return this.stateful ? { [SESSION_HEADER]: this.id } : NO_HEADERS;
  }

  get idle(): boolean {
    return !this.#streams?.size && !this.#standalone?.connected;
  }

  get protocolVersion(): string | undefined {
    return this.serverSession?.session?.protocolVersion;
  }

  // Transport

  /** Nothing to wait for: messages arrive as POSTs come. */
  start(): Promise<void> {
    return DONE;
  }

  send(message: JsonRpcMessage | JsonRpcMessage[], options?: SendOptions): Promise<void> {
    if (this.#closed) return DONE;
    if (Array.isArray(message)) return this.#routeBatch(message);
    return this.#route(message, options?.relatedRequestId);
  }

  /** Settled at once: nothing is left to wait for once the streams are ended. */
  close(): Promise<void> {
    try {
      this.#shut();
      return DONE;
    } catch (error) {
      return Promise.reject(error);
    }
  }

  #shut(): void {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#streams?.size) for (const stream of this.#streams.values()) stream.abort();
    this.#streams = undefined;
    this.#routes = undefined;
    if (this.stateful) {
      this.#standalone?.detach();
      for (const streamId of this.#stored!) this.forget(streamId);
      this.env.closed(this);
    }
    this.onclose?.();
  }

  /** Closes the server session (and so this transport): DELETE, expiry, eviction. */
  expire(): Promise<void> {
    return this.serverSession ? this.serverSession.close() : this.close();
  }

  // HTTP

  /** Hands a POST's messages to the server; the response streams what the server sends for its requests. */
  post(body: unknown, extra: MessageExtra): Reply | Promise<Reply> {
    const messages = Array.isArray(body) ? body : [body];
    const ids = requestIds(messages);
    if (ids.length === 0) return this.#accept(body, extra);
    if (ids.some((id) => this.#routes?.has(id)) || (ids.length > 1 && new Set(ids).size < ids.length)) {
      this.#endIfStateless();
      return errorReply(400, ErrorCode.InvalidRequest, "Invalid Request: request id already in use");
    }
    const streamId = this.stateful ? `${this.id}/${this.#nextStream++}` : STATELESS_STREAM;
    const stream = new RequestStream(streamId, this, ids, Array.isArray(body));
    this.#register(stream);
    if (!this.env.jsonResponse) stream.startSse(this.env.primes(this.protocolVersion));
    // Set before delivery: a handler that answers at once ends the stream within it.
    if (isInitialize(body)) stream.onended = () => queueMicrotask(() => this.#dropIfUninitialized());
    const captured = this.#deliver(body, extra);
    if (captured) {
      // The server refused the POST as a whole (a batch where batches are not allowed): no response follows.
      this.#unregister(stream);
      stream.abort();
      this.#endIfStateless();
      return jsonReply(Array.isArray(body) ? captured : captured[0], this.headers, 400);
    }
    return stream.response();
  }

  /** GET with Last-Event-ID: the events after it on their stream, then that stream live if it goes on. */
  async resume(lastEventId: string): Promise<Reply> {
    const writer = this.#writer();
    const replayed = new Set<string>();
    this.#replays++;
    let streamId: string | undefined;
    try {
      streamId = await this.env.store.replayAfter(lastEventId, async (id, message) => {
        writer.event(JSON.stringify(message), { id });
        replayed.add(id);
      });
    } catch (error) {
      writer.close();
      throw error;
    } finally {
      this.#replays--;
    }
    const missed = this.#takeMissed(streamId);
    // Another session's event ids are as unknown here as ids never issued.
    if (streamId === undefined || !streamId.startsWith(`${this.id}/`) || this.#closed) {
      writer.close();
      throw new HttpError(400, "Bad Request: unknown Last-Event-ID");
    }
    for (const m of missed)
      if (!replayed.has(m.eventId)) writer.event(JSON.stringify(m.message), { id: m.eventId });
    const standalone = this.#standalone!;
    const target = streamId === standalone.id ? standalone : this.#streams?.get(streamId);
    if (target === standalone) standalone.resumed(writer);
    else if (target) target.attach(writer);
    else writer.close(); // that stream ended: the replay held all of it
    return sseReply(writer, this.headers);
  }

  openStandalone(): Reply {
    const standalone = this.#standalone!;
    if (standalone.connected) {
      throw new HttpError(409, "Conflict: this session's GET stream is already open");
    }
    const writer = this.#writer();
    standalone.opened(writer);
    return sseReply(writer, this.headers);
  }

  /** Implements closeSseStream for the POST stream carrying `requestId`. */
  closeStreamOf(requestId: RequestId): boolean {
    return this.#routes?.get(requestId)?.closeConnection() ?? false;
  }

  // For streams

  /** A new SSE body, starting with the client's reconnection delay when one is configured. */
  newWriter(): SseWriter {
    return this.#writer();
  }

  /** The client's stream went away, or ended: the session may now be idle. */
  streamIdle(): void {
    this.env.touched(this);
  }

  /** A request stream got all its responses. */
  streamEnded(stream: RequestStream, deliveredLive: boolean): void {
    this.#unregister(stream);
    if (deliveredLive) this.forget(stream.id);
    this.#endIfStateless();
    this.env.touched(this);
  }

  /** Events emitted while nothing could take them; kept only while a replay might have missed them. */
  noteMissed(streamId: string, eventId: string, message: JsonRpcMessage): void {
    if (this.#replays === 0) return;
    this.#missed ??= [];
    this.#missed.push({ streamId, eventId, message });
  }

  /** A stateless session's event ids come from a counter: nothing is stored, nothing resumed. */
  counterId(streamId: string): string {
    return `${streamId}#${++this.#events}`;
  }

  remember(streamId: string): void {
    const stored = this.#stored;
    if (!stored) return;
    stored.add(streamId);
    if (stored.size > MAX_STORED_STREAMS) this.forget(stored.values().next().value!);
  }

  forget(streamId: string): void {
    if (!this.#stored) return;
    this.#stored.delete(streamId);
    try {
      const deleted = this.env.store.deleteStream?.(streamId);
      if (deleted instanceof Promise) deleted.catch(this.env.report);
    } catch (error) {
      this.env.report(error);
    }
  }

  // Internals

  #route(message: JsonRpcMessage, related?: RequestId): Promise<void> {
    const response = isResponse(message);
    const key = response ? (message as JsonRpcResponse).id : related;
    const stream = key === null || key === undefined ? undefined : this.#routes?.get(key);
    if (stream) {
      if (response) this.#routes?.delete(key!);
      return stream.push([message]);
    }
    if (response) {
      if (this.#capturing) {
        this.#captured ??= [];
        this.#captured.push(message);
      }
      return DONE; // its POST was refused or is gone: nobody waits for it
    }
    // No standalone stream in stateless mode; a message for a finished request goes to it otherwise.
    return this.#standalone?.push([message]) ?? DONE;
  }

  /** A batch's responses travel together, id-null errors for its invalid members included. */
  #routeBatch(responses: JsonRpcMessage[]): Promise<void> {
    const ids = responses.map((r) => (r as JsonRpcResponse).id);
    const stream = ids.map((id) => (id === null ? undefined : this.#routes?.get(id))).find(Boolean);
    if (!stream) return Promise.all(responses.map((r) => this.#route(r))).then(() => {});
    for (const id of ids) if (id !== null && this.#routes?.get(id) === stream) this.#routes?.delete(id);
    return stream.push(responses);
  }

  /** Notifications and responses only: 202, unless the server refused them outright. */
  #accept(body: unknown, extra: MessageExtra): Reply {
    const captured = this.#deliver(body, extra);
    this.#endIfStateless();
    if (captured) {
      return jsonReply(Array.isArray(body) ? captured : captured[0], this.headers, 400);
    }
    return { status: 202, headers: this.headers };
  }

  /** The connection answers refusals synchronously, so whatever no stream takes meanwhile is this POST's. */
  #deliver(body: unknown, extra: MessageExtra): JsonRpcMessage[] | undefined {
    if (Array.isArray(body)) for (const m of body) this.#cancelled(cancelledId(m));
    else this.#cancelled(cancelledId(body));
    this.#capturing = true;
    try {
      this.onmessage?.(body, extra);
    } finally {
      this.#capturing = false;
    }
    const captured = this.#captured;
    this.#captured = undefined;
    return captured;
  }

  /** A cancelled request gets no response: its stream stops waiting for one. */
  #cancelled(id: RequestId | undefined): void {
    if (id === undefined) return;
    const stream = this.#routes?.get(id);
    if (!stream) return;
    this.#routes?.delete(id);
    stream.cancelled(id);
  }

  #register(stream: RequestStream): void {
    this.#routes ??= new SmallMap();
    for (const id of stream.ids) this.#routes.set(id, stream);
    this.#streams ??= new SmallMap();
    this.#streams.set(stream.id, stream);
    this.remember(stream.id);
  }

  #unregister(stream: RequestStream): void {
    for (const id of stream.ids) if (this.#routes?.get(id) === stream) this.#routes?.delete(id);
    this.#streams?.delete(stream.id);
  }

  #writer(): SseWriter {
    const writer = new SseWriter(this.env.keepAlive);
    if (this.env.retryMs !== undefined) writer.retry(this.env.retryMs);
    return writer;
  }

  #takeMissed(streamId: string | undefined): Missed[] {
    const mine = this.#missed?.filter((m) => m.streamId === streamId) ?? [];
    if (this.#replays === 0) this.#missed = undefined;
    return mine;
  }

  /** A stateless session serves one POST: it ends with it (its connection hears of it through onclose). */
  #endIfStateless(): void {
    if (this.stateful || this.#streams?.size) return;
    try {
      this.#shut();
    } catch (error) {
      this.env.report(error);
    }
  }

  /** A failed initialize leaves no session behind. */
  #dropIfUninitialized(): void {
    if (this.serverSession && !this.serverSession.initialized) this.expire().catch(this.env.report);
  }
}

/**
 * An ordered stream of events: each message is stored (getting its event id), then written to the
 * client's connection if one is attached. Sends are chained so ids and writes keep send order.
 */
class OutStream {
  writer: SseWriter | undefined;
  /** The client holds an event id of this stream, so it can resume it. */
  primed = false;
  /** The last queued send; undefined while nothing is queued. */
  #chain: Promise<void> | undefined;
  /** Sends queued and not yet finished. */
  #queued = 0;

  constructor(
    readonly id: string,
    protected readonly session: HttpSession,
  ) {}

  get connected(): boolean {
    return this.writer !== undefined && !this.writer.closed;
  }

  /**
   * Emits `messages` in order after everything sent before. With nothing queued ahead (the usual case)
   * that happens now, without a promise on the way, as long as event ids come at once (a counter, or an
   * in-memory store); from the first id that must be waited for, the rest is queued.
   */
  push(messages: JsonRpcMessage[]): Promise<void> {
    if (this.#queued > 0) return this.queue(() => this.#emitFrom(messages, 0));
    try {
      for (let i = 0; i < messages.length; i++) {
        const eventId = this.idFor(messages[i]!);
        if (typeof eventId === "object") {
          return this.queue(async () => {
            this.emit(await eventId, messages[i]!);
            await this.#emitFrom(messages, i + 1);
          });
        }
        this.emit(eventId, messages[i]!);
      }
      this.pushed();
    } catch (error) {
      this.session.env.report(error);
      return Promise.reject(error);
    }
    // Later sends wait until the connection has room again.
    return this.writer?.full ? this.queue(() => this.writer?.ready() ?? DONE) : DONE;
  }

  /** The queued part of a send: `messages` from `start` on, each after its event id. */
  async #emitFrom(messages: JsonRpcMessage[], start: number): Promise<void> {
    for (let i = start; i < messages.length; i++) {
      const eventId = this.idFor(messages[i]!);
      this.emit(typeof eventId === "object" ? await eventId : eventId, messages[i]!);
    }
    this.pushed();
    await this.writer?.ready();
  }

  /** After a send's messages are all emitted. */
  protected pushed(): void {}

  /**
   * The event id of `message`: stored (resumable) in a stateful session; a plain counter in a stateless
   * one, which nobody can resume; undefined while it need not have one yet.
   */
  protected idFor(message: JsonRpcMessage | PrimingEvent): string | undefined | Promise<string> {
    return this.session.stateful
      ? this.session.env.store.append(this.id, message)
      : this.session.counterId(this.id);
  }

  /** Runs `step` after everything queued before it; a failure fails only that step. */
  protected queue(step: () => Promise<void>): Promise<void> {
    this.#queued++;
    const run = (this.#chain ?? DONE).then(step);
    const chain: Promise<void> = run.then(
      () => this.#done(chain),
      (error: unknown) => {
        this.#done(chain);
        this.session.env.report(error);
      },
    );
    this.#chain = chain;
    return run;
  }

  #done(chain: Promise<void>): void {
    this.#queued--;
    if (this.#chain === chain) this.#chain = undefined;
  }

  protected emit(eventId: string | undefined, message: JsonRpcMessage): void {
    if (this.connected) {
      this.writer!.event(JSON.stringify(message), eventId === undefined ? {} : { id: eventId });
      this.primed = true;
    } else if (eventId !== undefined) this.session.noteMissed(this.id, eventId, message);
  }

  /** Makes `writer` this stream's connection (a reconnecting client replaces the old one). */
  attach(writer: SseWriter): void {
    if (this.writer !== writer) this.writer?.close();
    this.writer = writer;
    this.primed = true;
    this.session.remember(this.id);
    writer.onclose = () => {
      if (this.writer !== writer) return;
      this.writer = undefined;
      this.session.streamIdle();
    };
  }

  detach(): void {
    const writer = this.writer;
    this.writer = undefined;
    writer?.close();
  }
}

/** Most standalone messages held for a GET stream not open yet (list changes, resource updates). */
const MAX_UNDELIVERED = 100;

/**
 * The session's GET stream. What the server sends while no GET is open (say, between initialize and
 * the client's GET) waits, a bounded number, for the next fresh GET; a resuming GET gets the replay instead.
 */
class StandaloneStream extends OutStream {
  #undelivered: [string, JsonRpcMessage][] = [];

  opened(writer: SseWriter): void {
    this.attach(writer);
    for (const [id, message] of this.#undelivered.splice(0)) this.emit(id, message);
  }

  resumed(writer: SseWriter): void {
    this.#undelivered = [];
    this.attach(writer);
  }

  protected override emit(eventId: string | undefined, message: JsonRpcMessage): void {
    const connected = this.connected;
    super.emit(eventId, message);
    // A standalone stream is stateful: its events always have ids, the next GET gets them.
    if (connected || eventId === undefined) return;
    this.#undelivered.push([eventId, message]);
    if (this.#undelivered.length > MAX_UNDELIVERED) this.#undelivered.shift();
  }
}

/**
 * The stream of one POST that carried requests: open until each of them has its response. With
 * `jsonResponse` the HTTP response waits for the first message: JSON if the responses come alone,
 * SSE as soon as anything else comes first.
 */
class RequestStream extends OutStream {
  /** Runs once when the stream ends: all its responses sent, or the session closed. */
  onended?: () => void;
  /** The answer, once decided; until someone waits for it, without a promise. */
  #answer: Reply | undefined;
  #resolve: ((answer: Reply) => void) | undefined;
  #decided = false;
  #priming = false;
  /** Requests still without a response: how many, and (when several) which. */
  #left: number;
  readonly #awaiting: Set<RequestId> | undefined;
  /**
   * Messages held until the answer's kind is decided; responses get their event id only if it is SSE.
   * Made on first need: a lone response that ends the stream is answered without being held.
   */
  #held: [string | undefined, JsonRpcMessage][] | undefined;

  constructor(
    id: string,
    session: HttpSession,
    readonly ids: RequestId[],
    private readonly batch: boolean,
  ) {
    super(id, session);
    this.#left = ids.length;
    if (ids.length > 1) this.#awaiting = new Set(ids);
  }

  /** Whether `id` was still waiting for its response; it no longer is. */
  #answered(id: RequestId): boolean {
    const waiting = this.#awaiting ? this.#awaiting.delete(id) : this.#left === 1 && id === this.ids[0];
    if (waiting) this.#left--;
    return waiting;
  }

  /** The HTTP answer: at once when already decided (a handler that answered synchronously), else later. */
  response(): Reply | Promise<Reply> {
    return (
      this.#answer ??
      new Promise((resolve) => {
        this.#resolve = resolve;
      })
    );
  }

  #respond(answer: Reply): void {
    this.#answer = answer;
    this.#resolve?.(answer);
  }

  #end(): void {
    const ended = this.onended;
    this.onended = undefined;
    ended?.();
  }

  /** Answers with SSE now, opening with a priming event (an id, no data) when `prime`. */
  startSse(prime: boolean): void {
    const writer = this.#sse();
    if (!prime) return;
    this.#priming = true;
    const send = (eventId: string | undefined) => {
      if (writer.event("", { id: eventId })) this.primed = true;
    };
    // A stream starts before anything is sent on it: nothing is queued ahead of its priming event.
    const eventId = this.idFor(PRIMING);
    if (typeof eventId !== "object") send(eventId);
    else this.queue(async () => send(await eventId)).catch(() => {});
  }

  /**
   * Ends the client's connection but not the stream (SSE polling), once the client can resume: it holds
   * an event id, or the priming event that gives it one is queued (then the close is queued after it).
   */
  closeConnection(): boolean {
    if (!this.connected || !(this.primed || this.#priming)) return false;
    const writer = this.writer;
    const close = () => {
      if (this.writer !== writer || !this.primed) return;
      this.detach();
      this.session.streamIdle();
    };
    if (this.primed) close();
    else this.queue(async () => close()).catch(() => {});
    return true;
  }

  /** The client cancelled `id`: no response will come for it (after what is already queued). */
  cancelled(id: RequestId): void {
    this.queue(async () => {
      if (this.#answered(id)) this.pushed();
    }).catch(() => {});
  }

  /** The session closed: whoever waits gets an end. */
  abort(): void {
    if (!this.#decided) {
      this.#decided = true;
      this.#respond(errorReply(404, TRANSPORT_ERROR, "Not Found: the session closed"));
    }
    this.detach();
    this.#end();
  }

  /**
   * While a JSON answer is still possible, responses are not stored: a JSON answer is never resumed.
   * Once something else comes (the answer turns SSE), the held ones are stored first, in order.
   */
  protected override idFor(message: JsonRpcMessage | PrimingEvent): string | undefined | Promise<string> {
    // Stateless counter ids are given as events go out, in their order: a JSON answer needs none.
    if (!this.session.stateful) return this.#decided ? super.idFor(message) : undefined;
    if (!this.#decided && isResponse(message as JsonRpcMessage)) return undefined;
    if (this.#held?.some(([id]) => id === undefined)) {
      return this.#storeHeld().then(() => super.idFor(message)!);
    }
    return super.idFor(message);
  }

  async #storeHeld(): Promise<void> {
    for (const entry of this.#held ?? []) {
      if (entry[0] === undefined) entry[0] = await this.session.env.store.append(this.id, entry[1]);
    }
  }

  protected override emit(eventId: string | undefined, message: JsonRpcMessage): void {
    const response = isResponse(message);
    if (response) this.#answered((message as JsonRpcResponse).id as RequestId);
    if (this.#decided) super.emit(eventId, message);
    else if (response && this.#left === 0 && !this.#held && !this.batch) {
      this.#answerJson(message); // a lone response, first and last: nothing to hold
    } else {
      this.#held ??= [];
      this.#held.push([eventId, message]);
      if (!response) this.#flushAsSse();
    }
  }

  protected override pushed(): void {
    if (this.#left > 0) return;
    if (!this.#decided) this.#answerJson();
    this.#finish();
  }

  #finish(): void {
    const live = this.connected;
    this.detach();
    this.session.streamEnded(this, live);
    this.#end();
  }

  #sse(): SseWriter {
    this.#decided = true;
    const writer = this.session.newWriter();
    this.attach(writer);
    this.primed = false; // a fresh POST stream: the client holds no id of it yet
    if (!this.session.stateful) writer.onclose = () => void this.#clientGone(writer);
    this.#respond(sseReply(writer, this.session.headers));
    return writer;
  }

  /** Stateless streams cannot be resumed: a client gone is a session over. */
  #clientGone(writer: SseWriter): void {
    if (this.writer === writer) {
      this.writer = undefined;
      this.session.expire().catch(this.session.env.report);
    }
  }

  #flushAsSse(): void {
    this.#sse();
    const held = this.#held ?? [];
    this.#held = undefined;
    for (const [id, message] of held) {
      super.emit(id ?? (this.session.stateful ? undefined : this.session.counterId(this.id)), message);
    }
  }

  /** The JSON answer: `single` (one request's response), or what is held (a batch's responses). */
  #answerJson(single?: JsonRpcMessage): void {
    this.#decided = true;
    const held = this.#held;
    this.#held = undefined;
    const first = single ?? held?.[0]?.[1];
    // Every request was cancelled: there is nothing to answer with.
    if (first === undefined) this.#respond({ status: 202, headers: this.session.headers });
    else if (this.batch) {
      const responses = held!.map(([, message]) => message);
      this.#respond(jsonReply(responses, this.session.headers));
    } else {
      const error = (first as { error?: { code: number } }).error;
      const status = error && this.session.env.errorStatus?.(error.code);
      this.#respond(jsonReply(first, this.session.headers, status || 200));
    }
  }
}

const isResponse = (m: JsonRpcMessage): boolean => !("method" in m) && ("result" in m || "error" in m);

/** Ids of the requests among a POST's messages (what the transport routes; the connection checks the rest). */
function requestIds(messages: unknown[]): RequestId[] {
  const ids: RequestId[] = [];
  for (const m of messages) {
    if (isObject(m) && typeof m.method === "string" && isRequestId(m.id)) ids.push(m.id);
  }
  return ids;
}

/** The request a `notifications/cancelled` names, when `m` is one. */
function cancelledId(m: unknown): RequestId | undefined {
  if (!isObject(m) || m.method !== CANCELLED || !isObject(m.params)) return undefined;
  return isRequestId(m.params.requestId) ? m.params.requestId : undefined;
}

const isInitialize = (body: unknown): boolean =>
  isObject(body) && body.method === "initialize" && isRequestId(body.id);

const containsInitialize = (body: unknown): boolean => Array.isArray(body) && body.some(isInitialize);
