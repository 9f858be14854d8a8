/**
 * The Streamable HTTP server transport, as a web-standard `(Request) => Promise<Response>` handler: it
 * runs wherever fetch does (Node through node-http.ts, Bun, Deno, Workers). Each session is one
 * ServerSession over an HttpSession transport, which routes what the server sends by the request it
 * belongs to: a POST's own response stream, else the session's standalone GET stream.
 */

import type { ResourceGuard } from "../auth/guard.js";
import { MAX_TEXT_ITEMS } from "../check/depth.js";
import { ErrorCode, isObject, type McpError, type RequestId, requestIds } from "../jsonrpc/messages.js";
import type { MessageExtra } from "../jsonrpc/transport.js";
import { checkParamHeaders, checkStandardHeaders } from "../mcp/param-headers.js";
import {
  hasRequestMeta,
  headerMismatch,
  metaVersion,
  readRequestMeta,
  StatelessErrorCode,
  unsupportedVersion,
} from "../mcp/request-meta.js";
import type { Server } from "../server/server.js";
import { mediaType } from "../util/media-type.js";
import { DEFAULT_MAX_BODY_BYTES, parseJson } from "./body.js";
import { AcceptMemo, accepts } from "./content-types.js";
import { type CoreRequest, type DrainOptions, handlerObject, type Reply } from "./core.js";
import { type Cors, type CorsOptions, corsPolicy, withCors } from "./cors.js";
import { type EventStore, InMemoryEventStore } from "./event-store.js";
import { HostGuard } from "./guards.js";
import { HttpError, TRANSPORT_ERROR } from "./http-error.js";
import {
  containsInitialize,
  HttpSession,
  isInitialize,
  SESSION_HEADER,
  type SessionEnv,
  STATELESS_ID,
} from "./http-session.js";
import { DEFAULT_KEEPALIVE_MS, keepAliveTicker } from "./keep-alive.js";
import { authorized, metadataReply, ownerOf, refusalOf, scopeRefusal } from "./protected.js";
import { allHealthy } from "./readiness.js";
import { errorReply, jsonReply, replyForError, shuttingDown, unavailableReply } from "./replies.js";
import {
  DEFAULT_MAX_SESSIONS,
  DEFAULT_PENDING_SESSION_TTL_MS,
  DEFAULT_SESSION_TTL_MS,
  newSessionId,
  SessionRegistry,
} from "./session-registry.js";
import type { SessionRecord, SessionStore } from "./session-store.js";
import { SharedSessions } from "./shared-sessions.js";

export { HttpError } from "./http-error.js";

export interface StreamableHttpOptions {
  /**
   * No sessions: every POST is served by a fresh session, initialized at the MCP-Protocol-Version
   * header's version (or the newest supported); no GET stream; DELETE → 405.
   */
  stateless?: boolean;
  /**
   * Host header allowlist (`127.0.0.1:3000`, or a bare host name for any port). Omitted: no check. The
   * request's own Host is judged, never X-Forwarded-Host or Forwarded: behind a proxy, list the Host it sends.
   */
  allowedHosts?: string[];
  /** Origin allowlist; omitted: only an Origin naming the request's own Host. Others → 403. */
  allowedOrigins?: string[];
  /**
   * Browser pages on other origins that may call this server (CORS); their origins pass the Origin
   * check too. Omitted: none.
   */
  cors?: CorsOptions;
  /** Largest accepted POST body (default 4 MiB) → 413. */
  maxBodyBytes?: number;
  /**
   * Most JSON values and member names a POST body may hold (default 100,000) → 413, refused before it
   * is parsed: parsing and checking cost per value, and every other client waits through them.
   */
  maxBodyItems?: number;
  /** Idle sessions (nothing in flight, no open stream) are closed after this long (default 30 min). */
  sessionIdleTtlMs?: number;
  /**
   * A session that no request has named since its initialize is pending (anyone can make one) and is
   * closed after this long idle (default 10 s). A request naming it makes it established.
   */
  pendingSessionTtlMs?: number;
  /**
   * Sessions held at most (default 10,000). When full, a new session takes the place of the oldest
   * pending idle one; established sessions are never evicted: with none pending, 503 + Retry-After.
   */
  maxSessions?: number;
  /**
   * Sessions one client holds at most (default: no bound but maxSessions); beyond it the client's oldest
   * pending idle session gives way, else 429 + Retry-After. Clients are told apart by `sessionClient`.
   */
  maxSessionsPerClient?: number;
  /**
   * Who a new session belongs to for maxSessionsPerClient: default the peer's address where the adapter
   * knows it (serveHttp, toNodeListener). Return an authenticated subject to count by user instead;
   * undefined: not counted.
   */
  sessionClient?: (request: CoreRequest) => string | undefined;
  /** Default: a new InMemoryEventStore. */
  eventStore?: EventStore;
  /**
   * Where session records are kept (default: a new InMemorySessionStore, this process only). The bounds
   * and expiry above are enforced through it.
   */
  sessionStore?: SessionStore;
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
  /**
   * OAuth protection (`protect()` from the auth entry), instead of `authenticate`: serves the Protected
   * Resource Metadata at its well-known addresses, refuses requests without a valid token (401/403 with
   * `WWW-Authenticate`), checks each request's scopes before dispatch, binds sessions to their subject;
   * the AuthInfo reaches handlers as `ctx.auth`.
   */
  auth?: ResourceGuard;
  /** Clock for session expiry (tests). */
  now?: () => number;
}

export interface McpHttpHandler {
  (request: Request): Promise<Response>;
  /**
   * Closes without losing an answer: new sessions, new requests and GET streams get 503 with Retry-After
   * (responses and notifications for requests in flight still go through), requests in flight finish and
   * are answered (aborted and answered with an error past `timeoutMs`), then every session and stream
   * ends, GET streams cleanly so that clients reconnect elsewhere.
   */
  close(options?: DrainOptions): Promise<void>;
  readonly sessionCount: number;
  /** Frees expired sessions now (a timer also does, periodically). */
  sweep(): void;
  /**
   * Whether this instance should be sent traffic: false once `close` has started, or while a store it
   * uses (sessions, events, used request states, state keys) reports itself unhealthy or does not answer
   * within 2 s. `serveHttp` answers its readiness probe with it.
   */
  ready(): Promise<boolean>;
}

const VERSION_HEADER = "mcp-protocol-version";
/** Shared by every unauthenticated POST; nothing writes to it. */
const NO_EXTRA: MessageExtra = Object.freeze({});

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
    withCors(http.cors, (request, web) => http.handle(request, web)),
    {
      close: (options) => http.close(options),
      sweep: () => http.sessions.sweep(),
      sessionCount: () => http.sessions.size,
      ready: () => http.ready(),
    },
    options.authenticate === undefined,
  );
}

class StreamableHttp {
  readonly sessions: SessionRegistry<HttpSession>;
  readonly cors: Cors | undefined;
  readonly #env: SessionEnv;
  readonly #accept = new AcceptMemo();
  readonly #versions: Set<string>;
  readonly #handshakeVersions: Set<string>;
  readonly #newest: string;
  readonly #maxBody: number;
  readonly #maxItems: number;
  readonly #hosts: HostGuard;
  #closed = false;
  /** Sessions no one can name (stateless ones, one per POST) while they serve their POST. */
  readonly #unnamed = new Set<HttpSession>();
  /** With a shared session store and the server's bus: this instance among the others. */
  readonly #shared: SharedSessions | undefined;
  /** Subscribed to this instance's channel (undefined once it is, or with nothing to wait for). */
  #sharedReady: Promise<void> | undefined;
  /** Sessions being taken up from their records, by id: concurrent requests share one. */
  readonly #adopting = new Map<string, Promise<HttpSession>>();

  constructor(
    private readonly server: Server,
    private readonly options: StreamableHttpOptions,
  ) {
    const report = (error: unknown) => server.reportError(error);
    const now = options.now ?? Date.now;
    this.sessions = new SessionRegistry(
      {
        ttlMs: options.sessionIdleTtlMs ?? DEFAULT_SESSION_TTL_MS,
        pendingTtlMs: options.pendingSessionTtlMs ?? DEFAULT_PENDING_SESSION_TTL_MS,
        max: options.maxSessions ?? DEFAULT_MAX_SESSIONS,
        maxPerClient: options.maxSessionsPerClient ?? Number.POSITIVE_INFINITY,
        now,
      },
      report,
      options.sessionStore,
      (id) => this.#shared?.end(id),
    );
    const bus = server.options.bus;
    if (this.sessions.shared && bus) {
      this.#shared = new SharedSessions(bus, (id) => this.sessions.get(id), report);
      this.#sharedReady = this.#shared.start()?.then(() => {
        this.#sharedReady = undefined;
      });
      this.#sharedReady?.catch(report);
    }
    const handshake = server.handshake?.supportedVersions ?? [];
    this.#handshakeVersions = new Set(handshake.map((v) => v.version));
    this.#versions = new Set([
      ...this.#handshakeVersions,
      ...(server.statelessTables?.supportedVersions ?? []).map((v) => v.version),
    ]);
    this.#newest = (handshake[0] ?? server.protocol.supportedVersions[0]!).version;
    this.#maxBody = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
    this.#maxItems = options.maxBodyItems ?? MAX_TEXT_ITEMS;
    this.cors = corsPolicy(options.cors);
    this.#hosts = new HostGuard(options, this.cors);
    if (options.auth && options.authenticate)
      throw new TypeError("give either auth or authenticate, not both");
    const store = options.eventStore ?? new InMemoryEventStore();
    this.#env = {
      store,
      defersSse: store.immediate !== true,
      keepAlive: keepAliveTicker(options.keepAliveMs ?? DEFAULT_KEEPALIVE_MS),
      retryMs: options.retryMs,
      jsonResponse: options.jsonResponse ?? false,
      primes: (version) => this.#primes(version),
      ...(options.auth ? { refusal: refusalOf(options.auth) } : {}),
      report,
      touched: (session) => {
        // Stateless sessions are never registered: their ids need no lookup (nor hashing).
        if (session.stateful) this.sessions.touch(session);
      },
      closed: (session) => {
        if (session.stateful) {
          this.sessions.delete(session);
          this.#shared?.release(session);
        } else this.#unnamed.delete(session);
      },
      shared: this.#shared,
      keep: (session) => {
        const kept = this.sessions.keep(session);
        const shared = this.#shared;
        if (!shared || !session.serverSession?.initialized) return kept;
        // Other instances holding it learn the change once it is stored.
        return Promise.resolve(kept).then(() => shared.changed(session));
      },
    };
  }

  async handle(request: CoreRequest, web?: Request): Promise<Reply> {
    // Closing: POST and DELETE still serve what is in flight, and a browser's OPTIONS asks before either.
    const { method } = request;
    if (this.#closed && method !== "POST" && method !== "DELETE" && method !== "OPTIONS")
      return shuttingDown();
    const refused = this.#hosts.check(request);
    if (refused) return refused;
    const preflight = this.cors?.preflight(request);
    if (preflight) return preflight;
    const guard = this.options.auth;
    const metadata = guard && metadataReply(guard, request);
    if (metadata) return metadata;
    try {
      const auth = guard
        ? await authorized(guard, request)
        : this.options.authenticate
          ? await this.options.authenticate(web!)
          : undefined;
      switch (request.method) {
        case "POST":
          return await this.#post(request, auth);
        case "GET":
          return await this.#get(request, auth);
        case "DELETE":
          return await this.#delete(request, auth);
        default:
          return this.#notAllowed();
      }
    } catch (error) {
      return replyForError(error, this.#env.report);
    }
  }

  ready(): Promise<boolean> {
    if (this.#closed) return Promise.resolve(false);
    const { server } = this;
    return allHealthy([
      this.sessions.store,
      this.#env.store,
      server.usedStates,
      server.sealer,
      server.bus,
      server.resourceSubscriptions,
    ]);
  }

  async close(options: DrainOptions = {}): Promise<void> {
    this.#closed = true;
    const live = [...this.sessions.values(), ...this.#unnamed];
    // Tasks outlive the requests that created them: those still running are failed here, not left
    // working until their lease lapses after the process is gone.
    await Promise.all([
      ...live.map((session) => session.drain(options.timeoutMs)),
      this.server.closeTasks(options),
    ]);
    await this.sessions.closeAll();
    this.#shared?.close();
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
    const found = sessionId !== null && !this.options.stateless ? this.#session(sessionId, auth) : undefined;
    const session = found instanceof Promise ? await found : found;
    // Closing: nothing new starts, but what is in flight may still need the client's answers.
    if (this.#closed && !session) return shuttingDown();
    const parsedFirst = session ? undefined : parseJson(await request.body(this.#maxBody), this.#maxItems);
    if (parsedFirst && "error" in parsedFirst) return parsedFirst.error;
    const extra: MessageExtra = auth === undefined ? NO_EXTRA : { auth };
    if (parsedFirst && this.#isStatelessEra(request, parsedFirst.value)) {
      const denied = scopeRefusal(this.options.auth, this.server, auth, parsedFirst.value, request);
      return denied ?? this.#statelessEraPost(request, parsedFirst.value, extra);
    }
    const unsupported = parsedFirst && this.#unsupportedVersion(request, parsedFirst.value);
    if (unsupported) return unsupported;
    // An initialize request negotiates its version in its body; any other must name a supported one.
    const version = session || this.options.stateless ? this.#checkVersion(request, session) : null;
    const parsed = parsedFirst ?? parseJson(await request.body(this.#maxBody), this.#maxItems);
    if ("error" in parsed) return parsed.error;
    const body = parsed.value;
    const denied = scopeRefusal(this.options.auth, this.server, auth, body, request);
    if (denied) return denied;
    if (this.#closed && requestIds(Array.isArray(body) ? body : [body]).length > 0) return shuttingDown();
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
    return this.#initialize(body, extra, this.#clientOf(request), ownerOf(auth));
  }

  #clientOf(request: CoreRequest): string | undefined {
    return this.options.sessionClient ? this.options.sessionClient(request) : request.remoteAddress;
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
   * A request without a session that names a version this server does not speak (header, else `_meta`),
   * other than initialize: what a client of the stateless era sends first to a server of the handshake
   * era alone. Answered as the stateless era answers a version it lacks (UnsupportedProtocolVersion,
   * HTTP 400, listing the versions this server speaks) rather than "Mcp-Session-Id header is required":
   * the client learns it must initialize with one of them, or can say why it cannot.
   */
  #unsupportedVersion(request: CoreRequest, body: unknown): Reply | undefined {
    if (this.server.statelessTables || !isObject(body) || body.id === undefined) return undefined;
    if (body.method === "initialize") return undefined;
    const requested = request.header(VERSION_HEADER) ?? metaVersion(body.params);
    if (requested === undefined || this.#handshakeVersions.has(requested)) return undefined;
    const error = unsupportedVersion(requested, [...this.#handshakeVersions]);
    return jsonReply({ jsonrpc: "2.0", id: body.id as RequestId, error: error.toJSON() }, {}, 400);
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
    this.#unnamed.add(session);
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

  #initialize(
    body: unknown,
    extra: MessageExtra,
    client: string | undefined,
    owner: string | undefined,
  ): Reply | Promise<Reply> {
    const reserved = this.sessions.reserve(client);
    if (reserved instanceof Promise)
      return reserved.then(
        () => this.#openSession(body, extra, client, owner),
        (error: unknown) => this.#storeFailed(error),
      );
    return this.#openSession(body, extra, client, owner);
  }

  /** A new session, answered once its record is stored (a store that answers later is waited for). */
  #openSession(
    body: unknown,
    extra: MessageExtra,
    client: string | undefined,
    owner: string | undefined,
  ): Reply | Promise<Reply> {
    const session = new HttpSession(newSessionId(), true, this.#env);
    session.client = client;
    session.owner = owner;
    const added = this.sessions.add(session);
    // Shared: listening on its channel (answers routed from other instances) before anything is asked.
    const shared = this.#shared;
    const stored = shared ? Promise.all([added, this.#sharedReady, shared.hold(session)]) : added;
    const serve = () => {
      session.serverSession = this.server.open(session, { sessionId: session.id });
      return session.post(body, { ...extra, sessionId: session.id });
    };
    if (!(stored instanceof Promise)) return serve();
    return stored.then(serve, (error: unknown) => {
      session.expire().catch(this.#env.report);
      return this.#storeFailed(error);
    });
  }

  /**
   * A session store that could not answer: 503 with Retry-After, the session not opened. The store's own
   * refusals (429, 503 for the bounds) pass as they are; any other error goes to the server's error
   * report, not to the client (it may name a host).
   */
  #storeFailed(error: unknown): Reply {
    if (!(error instanceof HttpError)) this.#env.report(error);
    return unavailableReply(error, "the session store");
  }

  #statelessPost(protocolVersion: string, body: unknown, extra: MessageExtra): Reply | Promise<Reply> {
    const session = new HttpSession(STATELESS_ID, false, this.#env);
    this.#unnamed.add(session);
    session.serverSession = this.server.open(session, { stateless: { protocolVersion } });
    return session.post(body, extra);
  }

  async #get(request: CoreRequest, auth: unknown): Promise<Reply> {
    if (this.options.stateless) return this.#notAllowed();
    if (!accepts(request.header("accept"), "text/event-stream")) {
      return errorReply(406, TRANSPORT_ERROR, "Not Acceptable: Accept must list text/event-stream");
    }
    const session = await this.#session(request.header(SESSION_HEADER), auth);
    this.#checkVersion(request, session);
    const lastEventId = request.header("last-event-id");
    return lastEventId ? session.resume(lastEventId) : session.openStandalone();
  }

  async #delete(request: CoreRequest, auth: unknown): Promise<Reply> {
    if (this.options.stateless) return this.#notAllowed();
    const session = await this.#session(request.header(SESSION_HEADER), auth);
    this.#checkVersion(request, session);
    await session.expire();
    // Shared: answered once the record is gone and every instance was told.
    await this.sessions.forgotten(session.id);
    return { status: 204, headers: {} };
  }

  /**
   * The session a request names: 400 without the header, 404 when unknown or expired, or when another
   * subject opened it (as if unknown: its id tells that caller nothing, and the session lives on).
   */
  #session(id: string | null, auth: unknown): HttpSession | Promise<HttpSession> {
    if (!id) throw new HttpError(400, "Bad Request: Mcp-Session-Id header is required");
    const session = this.sessions.get(id);
    if (!session) {
      if (this.sessions.shared) return this.#adopt(id).then((s) => this.#use(s, auth));
      throw noSuchSession();
    }
    return this.#use(session, auth);
  }

  #use(session: HttpSession, auth: unknown): HttpSession {
    if (session.owner !== ownerOf(auth)) throw noSuchSession();
    // Its client came back with the id: the session is in use, no longer a pending one.
    session.established = true;
    this.sessions.touch(session);
    return session;
  }

  /**
   * A session another instance opened, taken up from its record (shared store): initialized as it was,
   * no handshake. 404 when there is no record, or its initialize was never answered.
   */
  #adopt(id: string): Promise<HttpSession> {
    let adopting = this.#adopting.get(id);
    if (!adopting) {
      adopting = this.#takeUp(id).finally(() => this.#adopting.delete(id));
      this.#adopting.set(id, adopting);
    }
    return adopting;
  }

  async #takeUp(id: string): Promise<HttpSession> {
    if (this.#closed) throw new HttpError(503, "Service Unavailable: shutting down", { "retry-after": "5" });
    let record: SessionRecord | undefined;
    try {
      record = await this.sessions.store.get(id);
    } catch (error) {
      if (!(error instanceof HttpError)) this.#env.report(error);
      throw error instanceof HttpError
        ? error
        : new HttpError(503, "Service Unavailable: the session store did not answer", { "retry-after": "5" });
    }
    const held = this.sessions.get(id);
    if (held) return held;
    if (!record || record.protocolVersion === undefined) throw noSuchSession();
    const session = new HttpSession(id, true, this.#env);
    session.takenUp();
    session.client = record.client;
    session.owner = record.owner;
    session.established = record.established;
    const served = this.server.open(session, { sessionId: id });
    session.serverSession = served;
    if (!served.restore(record)) {
      await session.close();
      throw noSuchSession();
    }
    this.sessions.hold(session);
    try {
      await Promise.all([this.#sharedReady, this.#shared?.hold(session)]);
    } catch (error) {
      await session.close();
      this.#env.report(error);
      throw new HttpError(503, "Service Unavailable: the message bus did not answer", { "retry-after": "5" });
    }
    return session;
  }

  /**
   * The MCP-Protocol-Version header's value, or null (then the session's own version applies). It must
   * name a supported version and, in a session that has negotiated one, that version (400 otherwise: a
   * 2024-11-05 header on a 2025-06-18 session is refused).
   */
  #checkVersion(request: CoreRequest, session?: HttpSession): string | null {
    const version = request.header(VERSION_HEADER);
    if (version !== null && !this.#versions.has(version)) {
      const supported = [...this.#versions].join(", ");
      throw new HttpError(
        400,
        `Bad Request: unsupported MCP-Protocol-Version ${version} (supported: ${supported})`,
      );
    }
    const negotiated = session?.protocolVersion;
    if (version !== null && negotiated !== undefined && version !== negotiated) {
      throw new HttpError(
        400,
        `Bad Request: MCP-Protocol-Version ${version} does not match the version this session negotiated (${negotiated})`,
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

const noSuchSession = () => new HttpError(404, "Not Found: no such session (it may have expired)");

/** HTTP status of a stateless-era error: 404 for an unknown method, 400 for the lifecycle's errors. */
const STATELESS_ERROR_STATUS: ReadonlyMap<number, number> = new Map([
  [ErrorCode.MethodNotFound, 404],
  [StatelessErrorCode.HeaderMismatch, 400],
  [StatelessErrorCode.MissingRequiredClientCapability, 400],
  [StatelessErrorCode.UnsupportedProtocolVersion, 400],
]);
