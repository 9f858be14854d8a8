/**
 * The HTTP+SSE transport that Streamable HTTP replaced, for clients that predate it, as a
 * web-standard handler. A GET opens the session's event stream, whose first event (`endpoint`) names
 * where to POST; every message the server sends, responses included, goes on that one stream.
 */

import { type JsonRpcMessage, requestIds } from "../jsonrpc/messages.js";
import type { MessageExtra, Transport } from "../jsonrpc/transport.js";
import type { Server } from "../server/server.js";
import { mediaType } from "../util/media-type.js";
import { DEFAULT_MAX_BODY_BYTES, parseJson } from "./body.js";
import { accepts } from "./content-types.js";
import { type CoreRequest, type DrainOptions, handlerObject, type Reply } from "./core.js";
import { type Cors, type CorsOptions, corsPolicy, withCors } from "./cors.js";
import { HostGuard } from "./guards.js";
import { HttpError, TRANSPORT_ERROR } from "./http-error.js";
import { DEFAULT_KEEPALIVE_MS, type KeepAlive, keepAliveTicker } from "./keep-alive.js";
import { errorReply, replyForError, shuttingDown } from "./replies.js";
import {
  DEFAULT_MAX_SESSIONS,
  DEFAULT_SESSION_TTL_MS,
  type Expirable,
  newSessionId,
  SessionRegistry,
} from "./session-registry.js";
import { SseWriter, sseReply } from "./sse-writer.js";
import type { McpHttpHandler } from "./streamable-http.js";

export interface LegacySseOptions {
  /** Where clients POST, as announced in the `endpoint` event (default "/messages"). */
  messagesPath?: string;
  allowedHosts?: string[];
  allowedOrigins?: string[];
  /** Browser pages on other origins that may call this server (as `StreamableHttpOptions.cors`). */
  cors?: CorsOptions;
  /** Default 4 MiB → 413. */
  maxBodyBytes?: number;
  /** Default 100,000 → 413 (as `McpHttpOptions.maxBodyItems`). */
  maxBodyItems?: number;
  /** Default 15 s. */
  keepAliveMs?: number;
  /** A session ends with its stream, so only sessions whose stream already ended ever count as idle. */
  sessionIdleTtlMs?: number;
  maxSessions?: number;
  authenticate?: (request: Request) => unknown | Promise<unknown>;
  now?: () => number;
}

export function createLegacySseHandler(server: Server, options: LegacySseOptions = {}): McpHttpHandler {
  const legacy = new LegacySse(server, options);
  return handlerObject(
    withCors(legacy.cors, (request, web) => legacy.handle(request, web)),
    {
      close: (options?: DrainOptions) => legacy.close(options),
      sweep: () => legacy.sessions.sweep(),
      sessionCount: () => legacy.sessions.size,
      ready: async () => !legacy.closed,
    },
    options.authenticate === undefined,
  );
}

class LegacySse {
  readonly sessions: SessionRegistry<SseSession>;
  readonly cors: Cors | undefined;
  readonly #messagesPath: string;
  readonly #report: (error: unknown) => void;
  readonly #hosts: HostGuard;
  readonly #keepAlive: KeepAlive | undefined;

  constructor(
    private readonly server: Server,
    private readonly options: LegacySseOptions,
  ) {
    this.cors = corsPolicy(options.cors);
    this.#hosts = new HostGuard(options, this.cors);
    this.#keepAlive = keepAliveTicker(options.keepAliveMs ?? DEFAULT_KEEPALIVE_MS);
    this.#report = (error) => server.reportError(error);
    this.#messagesPath = options.messagesPath ?? "/messages";
    this.sessions = new SessionRegistry(
      {
        ttlMs: options.sessionIdleTtlMs ?? DEFAULT_SESSION_TTL_MS,
        // Its sessions are established from the start (the client holds the GET stream they live on).
        pendingTtlMs: options.sessionIdleTtlMs ?? DEFAULT_SESSION_TTL_MS,
        max: options.maxSessions ?? DEFAULT_MAX_SESSIONS,
        maxPerClient: Number.POSITIVE_INFINITY,
        now: options.now ?? Date.now,
      },
      this.#report,
    );
  }

  async handle(request: CoreRequest, web?: Request): Promise<Reply> {
    const refused = this.#hosts.check(request);
    if (refused) return refused;
    const preflight = this.cors?.preflight(request);
    if (preflight) return preflight;
    try {
      const auth = this.options.authenticate ? await this.options.authenticate(web!) : undefined;
      if (request.method === "GET") return await this.#open(request, auth);
      if (request.method === "POST") return await this.#post(request, auth);
      return errorReply(405, TRANSPORT_ERROR, "Method Not Allowed", { allow: "GET, POST" });
    } catch (error) {
      return replyForError(error, this.#report);
    }
  }

  #closed = false;

  get closed(): boolean {
    return this.#closed;
  }

  /**
   * Drains, then closes: new streams and new requests get 503 + Retry-After, the requests in flight are
   * answered on their streams (aborted and answered -32000 past `timeoutMs`), the tools running here as
   * tasks end (failed past `timeoutMs`), then every stream ends.
   */
  async close(options: DrainOptions = {}): Promise<void> {
    this.#closed = true;
    // Tasks outlive their requests: those still running are failed here (as the Streamable HTTP handler does).
    await Promise.all([
      ...this.sessions.values().map((session) => session.serverSession?.drain(options.timeoutMs)),
      this.server.closeTasks(options),
    ]);
    await this.sessions.closeAll();
  }

  async #open(request: CoreRequest, auth: unknown): Promise<Reply> {
    if (this.#closed) return shuttingDown();
    if (!accepts(request.header("accept") ?? "text/event-stream", "text/event-stream")) {
      return errorReply(406, TRANSPORT_ERROR, "Not Acceptable: Accept must list text/event-stream");
    }
    // In-memory records (the legacy transport keeps a session on its GET stream, in one process): no waits.
    await this.sessions.reserve();
    const id = newSessionId();
    const writer = new SseWriter(this.#keepAlive);
    const session = new SseSession(id, writer, auth, () => this.sessions.delete(session));
    await this.sessions.add(session);
    // The client's going away (or any end of the stream) ends the session.
    writer.onclose = () => void session.close();
    session.serverSession = await this.server.connect(session, { sessionId: id });
    writer.event(`${this.#messagesPath}?sessionId=${encodeURIComponent(id)}`, { event: "endpoint" });
    return sseReply(writer);
  }

  async #post(request: CoreRequest, auth: unknown): Promise<Reply> {
    const url = new URL(request.url, "http://localhost");
    if (url.pathname !== this.#messagesPath) return errorReply(404, TRANSPORT_ERROR, "Not Found");
    const id = url.searchParams.get("sessionId");
    if (!id) throw new HttpError(400, "Bad Request: the sessionId query parameter is required");
    const session = this.sessions.get(id);
    if (!session) throw new HttpError(404, "Not Found: no such session");
    this.sessions.touch(session);
    if (mediaType(request.header("content-type")) !== "application/json") {
      return errorReply(
        415,
        TRANSPORT_ERROR,
        "Unsupported Media Type: Content-Type must be application/json",
      );
    }
    const parsed = parseJson(
      await request.body(this.options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES),
      this.options.maxBodyItems,
    );
    if ("error" in parsed) return parsed.error;
    // Closing: answers and notifications still pass (what is in flight may need them), requests do not.
    const messages = Array.isArray(parsed.value) ? parsed.value : [parsed.value];
    if (this.#closed && requestIds(messages).length > 0) return shuttingDown();
    session.deliver(parsed.value, auth === undefined ? { sessionId: id } : { auth, sessionId: id });
    return { status: 202, headers: { "content-type": "text/plain" }, body: "Accepted" };
  }
}

/** One legacy session: everything the server sends goes on the GET stream, in order. */
class SseSession implements Transport, Expirable {
  lastActive = 0;
  /** The client holds the GET stream the session lives on: in use from the start. */
  established = true;
  /** Its place in the registry's recency order. */
  linkPrev?: Expirable;
  linkNext?: Expirable;
  serverSession?: { close(): Promise<void>; drain(timeoutMs?: number): Promise<void> };
  onmessage?: (message: unknown, extra?: MessageExtra) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;
  #closed = false;

  constructor(
    readonly id: string,
    private readonly writer: SseWriter,
    private readonly auth: unknown,
    private readonly closed: () => void,
  ) {}

  /** Never idle while its stream is open: the stream is the session. */
  get idle(): boolean {
    return this.writer.closed;
  }

  deliver(value: unknown, extra: MessageExtra): void {
    // The auth of the GET that opened the session applies when the POST brings none.
    this.onmessage?.(
      value,
      extra.auth === undefined && this.auth !== undefined ? { ...extra, auth: this.auth } : extra,
    );
  }

  async start(): Promise<void> {}

  async send(message: JsonRpcMessage | JsonRpcMessage[]): Promise<void> {
    if (this.#closed) return;
    // One event per message: clients of this era parse each event as a single message.
    for (const m of Array.isArray(message) ? message : [message]) {
      this.writer.event(JSON.stringify(m), { event: "message" });
    }
    await this.writer.ready();
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.writer.close();
    this.closed();
    this.onclose?.();
  }
}
