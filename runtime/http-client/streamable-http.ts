/**
 * Streamable HTTP, client side. Every message is a POST to the MCP endpoint; the server answers a request
 * with one JSON body or with an SSE stream on that POST, and sends what relates to no request on the
 * session's standalone GET stream. A stream that breaks before it delivered the responses it owes is
 * resumed with GET and `Last-Event-ID`, after the server's `retry:` delay, a bounded number of times.
 *
 * Stateless protocol versions (2026-07-28 on) use it without any of that: see `stateless`.
 *
 * Only web-standard fetch, streams and AbortController: it runs on Node, Bun and Deno.
 */

import {
  ErrorCode,
  isObject,
  isRequestId,
  type JsonRpcErrorObject,
  type JsonRpcFailure,
  type JsonRpcMessage,
  type RequestId,
} from "../jsonrpc/messages.js";
import type { Transport } from "../jsonrpc/transport.js";
import { readEventStream, type SseEvent, SseLimitError } from "./sse-parse.js";

export type HeadersOption =
  | Record<string, string>
  | (() => Record<string, string> | Promise<Record<string, string>>);

export interface ReconnectOptions {
  /** Delay before the first reconnection when the server gave no `retry:` (1000). */
  initialDelayMs?: number;
  /** Cap of the doubling delay between reconnections that bring nothing (30000). */
  maxDelayMs?: number;
  /** Reconnections in a row that deliver no event before the stream is given up (5). */
  maxRetries?: number;
}

export interface StreamableHttpClientOptions {
  /** Sent on every request (e.g. Authorization); a function is called before each request. */
  headers?: HeadersOption;
  fetch?: typeof fetch;
  /** How broken SSE streams are resumed. */
  reconnect?: ReconnectOptions;
  /**
   * Default true: once the session is initialized (`notifications/initialized` accepted with a session
   * id), GET the session's server→client stream. A 405 answer means the server offers none.
   */
  openStandaloneStream?: boolean;
}

/** How a client speaking a stateless protocol version (2026-07-28 on) drives the transport. */
export interface StatelessHttp {
  /** The headers of one outgoing message: MCP-Protocol-Version, Mcp-Method, Mcp-Name, Mcp-Param-*. */
  headersFor(message: JsonRpcMessage): Record<string, string>;
}

/** An HTTP answer that is not a success; `error` is the JSON-RPC error its body carried, if any. */
export class HttpStatusError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly error?: JsonRpcErrorObject,
  ) {
    super(message);
    this.name = "HttpStatusError";
  }
}

/** The server answered 404 to a request carrying our session id: the session is gone. */
export class SessionExpiredError extends HttpStatusError {
  constructor(
    readonly sessionId: string,
    error?: JsonRpcErrorObject,
  ) {
    super(
      404,
      `MCP session ${sessionId} expired: the server answered 404 Not Found; initialize again to start a new session`,
      error,
    );
    this.name = "SessionExpiredError";
  }
}

const DEFAULTS = { initialDelayMs: 1000, maxDelayMs: 30_000, maxRetries: 5 };
/** How long close() waits for the server to answer the DELETE that ends the session. */
const DELETE_TIMEOUT_MS = 5000;
const POST_ACCEPT = "application/json, text/event-stream";
const SSE = "text/event-stream";

/** One SSE stream and the state needed to resume it. */
interface Stream {
  readonly kind: "request" | "standalone";
  /** Ids of the requests whose responses this stream still owes (request streams only). */
  readonly pending: Set<RequestId>;
  /** Ends this stream alone; linked to the transport's controller. */
  readonly abort: AbortController;
  /** The session it belongs to: it cannot be resumed in another. */
  readonly session: string | undefined;
  /** Stateless streams are never resumed: a broken one loses its request. */
  readonly resumable: boolean;
  lastEventId?: string;
  retryMs?: number;
  /** Reconnections since a connection of this stream last delivered an event. */
  attempts: number;
  lastFailure?: string;
  /** The pending reconnection. */
  timer?: ReturnType<typeof setTimeout>;
}

export class StreamableHttpClientTransport implements Transport {
  readonly #url: URL;
  readonly #fetch: typeof fetch;
  readonly #headers: HeadersOption | undefined;
  readonly #reconnect: Required<ReconnectOptions>;
  readonly #openStandalone: boolean;
  readonly #abort = new AbortController();
  readonly #streams = new Set<Stream>();
  #state: "new" | "open" | "closed" = "new";
  #sessionId: string | undefined;
  #standalone: Stream | undefined;
  #closing?: Promise<void>;
  /** Stateless mode: the POST of each request still waiting for its answer, to abort on cancellation. */
  readonly #inflight = new Map<RequestId, AbortController>();

  /** Set by the client after initialize; sent as MCP-Protocol-Version on every later request. */
  protocolVersion: string | undefined;

  /**
   * Set by a client speaking a stateless version: every message is a POST of its own carrying the
   * headers `headersFor` gives; no session, no GET stream, no resumption, no DELETE. An error status
   * whose body is a JSON-RPC error answers the request it came for, and cancelling a request aborts its
   * POST (the spec's cancellation signal) instead of posting notifications/cancelled.
   */
  stateless: StatelessHttp | undefined;

  onmessage?: (message: unknown) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;
  /**
   * The server answered 404 for our session: it is gone. The session id is already cleared, so the next
   * POST starts afresh; the client must send initialize (and notifications/initialized) again.
   */
  onsessionexpired?: () => void;

  constructor(url: string | URL, options: StreamableHttpClientOptions = {}) {
    this.#url = new URL(url);
    this.#fetch = options.fetch ?? ((input, init) => fetch(input, init));
    this.#headers = options.headers;
    this.#reconnect = { ...DEFAULTS, ...definedOnly(options.reconnect) };
    this.#openStandalone = options.openStandaloneStream ?? true;
  }

  /** The server's Mcp-Session-Id, once an initialize response carried one. */
  get sessionId(): string | undefined {
    return this.#sessionId;
  }

  async start(): Promise<void> {
    if (this.#state !== "new") throw new Error("StreamableHttpClientTransport already started");
    this.#state = "open";
  }

  async send(message: JsonRpcMessage | JsonRpcMessage[]): Promise<void> {
    if (this.#state !== "open") throw closedError();
    if (this.stateless) return this.#sendStateless(message, this.stateless);
    const body = JSON.stringify(message);
    const requests = requestIds(message);
    const cancelled = cancelledId(message);
    if (cancelled !== undefined) this.#forget(cancelled);
    const session = this.#sessionId;
    // A request's answer may be a stream: its own controller ends it once the responses are in.
    const abort = requests.size > 0 ? new AbortController() : undefined;
    let response: Response;
    try {
      response = await this.#http(
        "POST",
        { accept: POST_ACCEPT, "content-type": "application/json" },
        abort ? AbortSignal.any([this.#abort.signal, abort.signal]) : this.#abort.signal,
        session,
        body,
      );
    } catch (error) {
      throw this.#networkError("POST", error);
    }
    if (!response.ok) throw await this.#statusError(response, "POST", session);
    this.#learnSession(response);
    if (response.status === 202 || requests.size === 0) {
      await discard(response);
      if (isInitialized(message)) this.#startStandalone();
      return;
    }
    await this.#answer(response, requests, abort!, true);
  }

  /** A POST's answer to requests: one JSON body, or an SSE stream that carries their responses. */
  async #answer(
    response: Response,
    requests: Set<RequestId>,
    abort: AbortController,
    resumable: boolean,
  ): Promise<void> {
    const type = mediaType(response);
    if (type === "application/json") {
      let value: unknown;
      try {
        value = await response.json();
      } catch (error) {
        if (this.#state !== "open") throw closedError();
        throw new Error(`the server's JSON answer to POST ${this.#url} is unreadable: ${messageOf(error)}`, {
          cause: error,
        });
      }
      this.#deliver(value);
      return;
    }
    if (type === SSE && response.body) {
      const stream = this.#newStream("request", requests, abort, resumable);
      void this.#consume(stream, response.body);
      return;
    }
    await discard(response);
    throw new Error(`the server answered POST ${this.#url} with unexpected content type "${type}"`);
  }

  async #sendStateless(message: JsonRpcMessage | JsonRpcMessage[], hooks: StatelessHttp): Promise<void> {
    if (Array.isArray(message)) throw new Error("stateless protocol versions send no JSON-RPC batches");
    const cancelled = cancelledId(message);
    if (cancelled !== undefined) {
      // Closing the request's response is the cancellation; the server expects no notification.
      this.#inflight.get(cancelled)?.abort();
      this.#forget(cancelled);
      return;
    }
    const id = "method" in message && "id" in message && isRequestId(message.id) ? message.id : undefined;
    const abort = new AbortController();
    if (id !== undefined) this.#inflight.set(id, abort);
    try {
      await this.#postStateless(message, id, abort, hooks);
    } finally {
      if (id !== undefined && this.#inflight.get(id) === abort) this.#inflight.delete(id);
    }
  }

  async #postStateless(
    message: JsonRpcMessage,
    id: RequestId | undefined,
    abort: AbortController,
    hooks: StatelessHttp,
  ): Promise<void> {
    const headers = { ...hooks.headersFor(message), accept: POST_ACCEPT, "content-type": "application/json" };
    let response: Response;
    try {
      response = await this.#http(
        "POST",
        headers,
        AbortSignal.any([this.#abort.signal, abort.signal]),
        undefined,
        JSON.stringify(message),
      );
    } catch (error) {
      // Cancelled: its caller has already given up on it.
      if (abort.signal.aborted && this.#state === "open") return;
      throw this.#networkError("POST", error);
    }
    if (abort.signal.aborted) {
      await discard(response);
      return;
    }
    if (!response.ok) {
      const error = await this.#statusError(response, "POST", undefined);
      // 400 and 404 carry the JSON-RPC error of the request (unsupported version, header mismatch, …).
      if (error.error && id !== undefined) {
        this.#deliver({ jsonrpc: "2.0", id, error: error.error } satisfies JsonRpcFailure);
        return;
      }
      throw error;
    }
    if (id === undefined) {
      await discard(response);
      return;
    }
    if (response.status === 202) {
      await discard(response);
      // No session stream exists that could carry the response later.
      this.#deliver({
        jsonrpc: "2.0",
        id,
        error: {
          code: ErrorCode.ConnectionClosed,
          message: "Streamable HTTP: the server accepted the request (202) without answering it",
        },
      } satisfies JsonRpcFailure);
      return;
    }
    await this.#answer(response, new Set([id]), abort, false);
  }

  /** Aborts every request and stream, ends the session with DELETE (405 is fine), then fires onclose. */
  close(): Promise<void> {
    this.#closing ??= this.#shutdown();
    return this.#closing;
  }

  async #shutdown(): Promise<void> {
    const wasOpen = this.#state === "open";
    this.#state = "closed";
    this.#abort.abort(closedError());
    for (const stream of this.#streams) {
      clearTimeout(stream.timer);
      stream.abort.abort();
    }
    this.#streams.clear();
    this.#standalone = undefined;
    const session = this.#sessionId;
    this.#sessionId = undefined;
    if (!wasOpen) return;
    if (session !== undefined) await this.#endSession(session);
    try {
      this.onclose?.();
    } catch (error) {
      this.onerror?.(toError(error));
    }
  }

  async #endSession(session: string): Promise<void> {
    let response: Response;
    try {
      response = await this.#http("DELETE", {}, AbortSignal.timeout(DELETE_TIMEOUT_MS), session);
    } catch {
      return; // The server is gone or slow: the session ends with it.
    }
    await discard(response);
    if (!response.ok && response.status !== 404 && response.status !== 405) {
      this.onerror?.(
        new HttpStatusError(response.status, `DELETE ${this.#url} answered ${statusText(response)}`),
      );
    }
  }

  // HTTP

  async #http(
    method: "POST" | "GET" | "DELETE",
    extra: Record<string, string>,
    signal: AbortSignal,
    session: string | undefined,
    body?: string,
  ): Promise<Response> {
    const headers = new Headers(await resolveHeaders(this.#headers));
    if (session !== undefined) headers.set("mcp-session-id", session);
    if (this.protocolVersion !== undefined) headers.set("mcp-protocol-version", this.protocolVersion);
    for (const [name, value] of Object.entries(extra)) headers.set(name, value);
    return this.#fetch(this.#url, { method, headers, body, signal });
  }

  #learnSession(response: Response): void {
    const id = response.headers.get("mcp-session-id");
    if (id) this.#sessionId = id;
  }

  /** A failed fetch: after close it only says so; otherwise it is reported and returned for rejecting. */
  #networkError(method: string, error: unknown): Error {
    if (this.#state !== "open") return closedError();
    const failure = new Error(`${method} ${this.#url} failed: ${messageOf(error)}`, { cause: error });
    this.onerror?.(failure);
    return failure;
  }

  /** Reads the error body; a 404 for the session we sent expires it (once, however many requests saw it). */
  async #statusError(
    response: Response,
    method: string,
    session: string | undefined,
  ): Promise<HttpStatusError> {
    const text = await response.text().catch(() => "");
    const rpc = rpcErrorIn(text);
    if (response.status === 404 && session !== undefined) {
      if (this.#sessionId === session) this.#expire();
      return new SessionExpiredError(session, rpc);
    }
    const detail = rpc ? `: ${rpc.message} (${rpc.code})` : text ? `: ${text.slice(0, 200)}` : "";
    return new HttpStatusError(
      response.status,
      `${method} ${this.#url} answered ${statusText(response)}${detail}`,
      rpc,
    );
  }

  /** The session is gone, and every stream of it: their requests fail now rather than at their timeout. */
  #expire(): void {
    const session = this.#sessionId;
    this.#sessionId = undefined;
    for (const stream of this.#streams) {
      if (stream.session !== session) continue;
      if (stream.kind === "standalone") this.#drop(stream);
      else this.#lose(stream, `MCP session ${session} expired`);
    }
    try {
      this.onsessionexpired?.();
    } catch (error) {
      this.onerror?.(toError(error));
    }
  }

  // Streams

  #newStream(
    kind: Stream["kind"],
    pending = new Set<RequestId>(),
    abort = new AbortController(),
    resumable = true,
  ): Stream {
    const stream: Stream = { kind, pending, abort, session: this.#sessionId, resumable, attempts: 0 };
    this.#streams.add(stream);
    return stream;
  }

  #startStandalone(): void {
    if (!this.#openStandalone || this.#standalone || this.#sessionId === undefined) return;
    this.#standalone = this.#newStream("standalone");
    void this.#connect(this.#standalone);
  }

  /** Reads one connection of `stream`, then decides whether it is done, resumes, or is lost. */
  async #consume(stream: Stream, body: ReadableStream<Uint8Array>): Promise<void> {
    let events = 0;
    let failure: unknown;
    try {
      await readEventStream(
        body,
        {
          onEvent: (event) => {
            events++;
            this.#onEvent(stream, event);
          },
          onRetry: (ms) => {
            stream.retryMs = ms;
          },
        },
        { signal: stream.abort.signal },
      );
    } catch (error) {
      failure = error;
    }
    if (!this.#live(stream)) return;
    if (stream.kind === "request" && stream.pending.size === 0) {
      this.#drop(stream);
      return;
    }
    if (events > 0) stream.attempts = 0;
    if (failure instanceof SseLimitError) {
      this.#lose(stream, failure.message);
      return;
    }
    stream.lastFailure = failure
      ? `the stream broke: ${messageOf(failure)}`
      : `the server ended the stream${stream.kind === "request" ? " before its responses" : ""}`;
    this.#reconnectLater(stream);
  }

  #onEvent(stream: Stream, event: SseEvent): void {
    // An empty id resets the last event id (HTML EventSource), so no Last-Event-ID is sent after it.
    if (event.id !== undefined) stream.lastEventId = event.id === "" ? undefined : event.id;
    if (event.event !== undefined && event.event !== "message") return;
    if (event.data === "") return; // priming event or keep-alive
    let value: unknown;
    try {
      value = JSON.parse(event.data);
    } catch (error) {
      this.onerror?.(new Error(`unreadable SSE message from ${this.#url}: ${messageOf(error)}`));
      return;
    }
    for (const id of responseIds(value)) stream.pending.delete(id);
    this.#deliver(value);
    // Its responses are in: nothing more is expected on it (a resumed GET may otherwise stay open).
    if (stream.kind === "request" && stream.pending.size === 0 && this.#live(stream)) this.#drop(stream);
  }

  #reconnectLater(stream: Stream): void {
    if (!stream.resumable) {
      this.#lose(stream, `${stream.lastFailure ?? "the stream ended"} (stateless streams are not resumed)`);
      return;
    }
    if (stream.kind === "request" && stream.lastEventId === undefined) {
      this.#lose(stream, `${stream.lastFailure ?? "the stream ended"}, and no event id to resume from`);
      return;
    }
    const { initialDelayMs, maxDelayMs, maxRetries } = this.#reconnect;
    if (stream.attempts >= maxRetries) {
      this.#lose(stream, `gave up after ${maxRetries} reconnections: ${stream.lastFailure ?? "no events"}`);
      return;
    }
    stream.attempts++;
    const delay = stream.retryMs ?? Math.min(initialDelayMs * 2 ** (stream.attempts - 1), maxDelayMs);
    stream.timer = setTimeout(() => {
      stream.timer = undefined;
      void this.#connect(stream);
    }, delay);
  }

  /** GETs a new connection of `stream`: the standalone stream, or a resumption from its last event id. */
  async #connect(stream: Stream): Promise<void> {
    if (!this.#live(stream)) return;
    if (stream.session !== this.#sessionId) {
      this.#lose(stream, "its session ended");
      return;
    }
    const headers: Record<string, string> = { accept: SSE };
    if (stream.lastEventId !== undefined) headers["last-event-id"] = stream.lastEventId;
    let response: Response;
    try {
      response = await this.#http(
        "GET",
        headers,
        AbortSignal.any([this.#abort.signal, stream.abort.signal]),
        stream.session,
      );
    } catch (error) {
      if (!this.#live(stream)) return;
      stream.lastFailure = `GET failed: ${messageOf(error)}`;
      this.#reconnectLater(stream);
      return;
    }
    if (!this.#live(stream)) {
      await discard(response);
      return;
    }
    if (response.status === 405) {
      await discard(response);
      // The server offers no GET stream: nothing to listen on, nothing to resume from.
      if (stream.kind === "standalone") this.#drop(stream);
      else this.#lose(stream, "the server offers no GET stream to resume the response stream on (405)");
      return;
    }
    if (!response.ok) {
      const error = await this.#statusError(response, "GET", stream.session);
      if (error instanceof SessionExpiredError) {
        if (stream.kind === "standalone") this.#drop(stream);
        else this.#lose(stream, error.message);
        return;
      }
      stream.lastFailure = error.message;
      this.#reconnectLater(stream);
      return;
    }
    if (mediaType(response) !== SSE || !response.body) {
      await discard(response);
      stream.lastFailure = `GET ${this.#url} answered with content type "${mediaType(response)}"`;
      this.#reconnectLater(stream);
      return;
    }
    await this.#consume(stream, response.body);
  }

  /** Stops resuming the stream that owes `id`'s response: the client cancelled that request. */
  #forget(id: RequestId): void {
    for (const stream of this.#streams) {
      if (stream.pending.delete(id) && stream.pending.size === 0) this.#drop(stream);
    }
  }

  #live(stream: Stream): boolean {
    return this.#state === "open" && !stream.abort.signal.aborted;
  }

  #drop(stream: Stream): void {
    clearTimeout(stream.timer);
    stream.abort.abort();
    this.#streams.delete(stream);
    if (this.#standalone === stream) this.#standalone = undefined;
  }

  /**
   * A stream that cannot be resumed. The requests it owed get an error response in its place, so their
   * callers learn now rather than at their timeout; the loss of the standalone stream is reported.
   */
  #lose(stream: Stream, reason: string): void {
    if (!this.#streams.has(stream)) return; // already dropped or lost: its requests were answered
    this.#drop(stream);
    const message = `Streamable HTTP: ${reason}`;
    if (stream.kind === "standalone") {
      this.onerror?.(new Error(`${message} (the server→client stream of ${this.#url})`));
      return;
    }
    for (const id of stream.pending) {
      const failure: JsonRpcFailure = {
        jsonrpc: "2.0",
        id,
        error: { code: ErrorCode.ConnectionClosed, message },
      };
      this.#deliver(failure);
    }
  }

  #deliver(value: unknown): void {
    try {
      this.onmessage?.(value);
    } catch (error) {
      this.onerror?.(toError(error));
    }
  }
}

// Shared with the legacy SSE client and connectHttp.

export async function resolveHeaders(option: HeadersOption | undefined): Promise<Record<string, string>> {
  if (option === undefined) return {};
  return typeof option === "function" ? await option() : option;
}

/** `text/event-stream; charset=utf-8` → `text/event-stream`. */
export function mediaType(response: Response): string {
  return (response.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
}

/** Frees the connection of a response whose body is not wanted. */
export async function discard(response: Response): Promise<void> {
  await response.body?.cancel().catch(() => {});
}

export function statusText(response: Response): string {
  return response.statusText ? `${response.status} ${response.statusText}` : String(response.status);
}

/** The JSON-RPC error object in an HTTP error body, when the body is one. */
export function rpcErrorIn(text: string): JsonRpcErrorObject | undefined {
  try {
    const value = JSON.parse(text) as { error?: { code?: unknown; message?: unknown; data?: unknown } };
    const error = value?.error;
    if (error && typeof error.code === "number" && typeof error.message === "string") {
      return error.data === undefined
        ? { code: error.code, message: error.message }
        : { code: error.code, message: error.message, data: error.data };
    }
  } catch {
    // Not JSON: the caller shows the text.
  }
  return undefined;
}

export const closedError = () => new Error("Transport is not open");
export const toError = (error: unknown): Error => (error instanceof Error ? error : new Error(String(error)));
export const messageOf = (error: unknown): string => {
  if (!(error instanceof Error)) return String(error);
  // fetch failures say only "fetch failed"; the reason (ECONNREFUSED, …) is the cause.
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : "";
  return `${error.message}${cause}`;
};

function definedOnly<T extends object>(value: T | undefined): Partial<T> {
  return Object.fromEntries(Object.entries(value ?? {}).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** Ids of the requests in what we POST: their responses are what the answer stream owes. */
function requestIds(message: JsonRpcMessage | JsonRpcMessage[]): Set<RequestId> {
  const ids = new Set<RequestId>();
  for (const m of Array.isArray(message) ? message : [message]) {
    if ("method" in m && "id" in m && isRequestId(m.id)) ids.add(m.id);
  }
  return ids;
}

/** Ids answered by a received value (a response, or a batch holding responses). */
function responseIds(value: unknown): RequestId[] {
  const ids: RequestId[] = [];
  for (const m of Array.isArray(value) ? value : [value]) {
    if (isObject(m) && !("method" in m) && ("result" in m || "error" in m) && isRequestId(m.id))
      ids.push(m.id);
  }
  return ids;
}

function cancelledId(message: JsonRpcMessage | JsonRpcMessage[]): RequestId | undefined {
  if (Array.isArray(message) || !("method" in message) || message.method !== "notifications/cancelled")
    return undefined;
  const id = message.params?.requestId;
  return isRequestId(id) ? id : undefined;
}

function isInitialized(message: JsonRpcMessage | JsonRpcMessage[]): boolean {
  return !Array.isArray(message) && "method" in message && message.method === "notifications/initialized";
}
