/**
 * Streamable HTTP, client side. Every message is a POST to the MCP endpoint; the server answers a request
 * with one JSON body or with an SSE stream on that POST, and sends what relates to no request on the
 * session's standalone GET stream. Reading those streams, and resuming them, is SseStreams' part.
 *
 * Stateless protocol versions (2026-07-28 on) use it without a session: see `stateless`.
 *
 * Only web-standard fetch, streams and AbortController: it runs on Node, Bun and Deno.
 */

import {
  cancelledId,
  ErrorCode,
  type JsonRpcFailure,
  type JsonRpcMessage,
  type RequestId,
  requestIds,
} from "../jsonrpc/messages.js";
import { runHandler, type Transport } from "../jsonrpc/transport.js";
import type { StatelessHttp } from "../mcp/stateless-http.js";
import { messageOf, transportClosed } from "../util/errors.js";
import { mediaType } from "../util/media-type.js";
import { type FetchOptions, fetchOf, type HeadersOption, resolveHeaders } from "./fetch-options.js";
import {
  discard,
  fetchFailed,
  HttpStatusError,
  SessionExpiredError,
  statusError,
  statusText,
} from "./fetch-results.js";
import { EVENT_STREAM } from "./sse-parse.js";
import { type ReconnectOptions, SseStreams } from "./sse-streams.js";

// Also importable from here: whoever imports this transport by its file gets the error it throws.

export interface StreamableHttpClientOptions extends FetchOptions {
  /** How broken SSE streams are resumed. */
  reconnect?: ReconnectOptions;
  /**
   * Default true: once the session is initialized (`notifications/initialized` accepted with a session
   * id), GET the session's server→client stream. A 405 answer means the server offers none.
   */
  openStandaloneStream?: boolean;
}

/** How long close() waits for the server to answer the DELETE that ends the session. */
const DELETE_TIMEOUT_MS = 5000;
const POST_ACCEPT = "application/json, text/event-stream";

export class StreamableHttpClientTransport implements Transport {
  readonly #url: URL;
  readonly #fetch: typeof fetch;
  readonly #headers: HeadersOption | undefined;
  readonly #openStandalone: boolean;
  readonly #abort = new AbortController();
  readonly #streams: SseStreams;
  #state: "new" | "open" | "closed" = "new";
  #sessionId: string | undefined;
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
    this.#fetch = fetchOf(options);
    this.#headers = options.headers;
    this.#openStandalone = options.openStandaloneStream ?? true;
    this.#streams = new SseStreams(
      {
        url: this.#url,
        isOpen: () => this.#state === "open",
        sessionId: () => this.#sessionId,
        get: (headers, signal, session) =>
          this.#http("GET", headers, AbortSignal.any([this.#abort.signal, signal]), session),
        statusError: (response, method, session) => this.#statusError(response, method, session),
        deliver: (value) => this.#deliver(value),
        report: (error) => this.onerror?.(error),
      },
      options.reconnect,
    );
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
    if (this.#state !== "open") throw transportClosed();
    if (this.stateless) return this.#sendStateless(message, this.stateless);
    const body = JSON.stringify(message);
    const requests = new Set(requestIds(Array.isArray(message) ? message : [message]));
    const cancelled = cancelledId(message);
    if (cancelled !== undefined) this.#streams.forget(cancelled);
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
      if (this.#openStandalone && isInitialized(message)) this.#streams.openStandalone();
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
    const type = mediaType(response.headers.get("content-type"));
    if (type === "application/json") {
      let value: unknown;
      try {
        value = await response.json();
      } catch (error) {
        if (this.#state !== "open") throw transportClosed();
        throw new Error(`the server's JSON answer to POST ${this.#url} is unreadable: ${messageOf(error)}`, {
          cause: error,
        });
      }
      this.#deliver(value);
      return;
    }
    if (type === EVENT_STREAM && response.body) {
      this.#streams.readAnswer(response.body, requests, abort, resumable);
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
      this.#streams.forget(cancelled);
      return;
    }
    const id = requestIds([message])[0];
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
    this.#abort.abort(transportClosed());
    this.#streams.closeAll();
    const session = this.#sessionId;
    this.#sessionId = undefined;
    if (!wasOpen) return;
    if (session !== undefined) await this.#endSession(session);
    runHandler(this, () => this.onclose?.());
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

  async #http(
    method: "POST" | "GET" | "DELETE",
    extra: Record<string, string>,
    signal: AbortSignal,
    session: string | undefined,
    body?: string,
  ): Promise<Response> {
    const headers = await resolveHeaders(this.#headers);
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
    if (this.#state !== "open") return transportClosed();
    const failure = fetchFailed(`${method} ${this.#url}`, error);
    this.onerror?.(failure);
    return failure;
  }

  /** Reads the error body; a 404 for the session we sent expires it (once, however many requests saw it). */
  async #statusError(
    response: Response,
    method: string,
    session: string | undefined,
  ): Promise<HttpStatusError> {
    const error = await statusError(response, `${method} ${this.#url}`);
    if (response.status === 404 && session !== undefined) {
      if (this.#sessionId === session) this.#expire();
      return new SessionExpiredError(session, error.error);
    }
    return error;
  }

  /** The session is gone, and every stream of it: their requests fail now rather than at their timeout. */
  #expire(): void {
    const session = this.#sessionId;
    this.#sessionId = undefined;
    this.#streams.expire(session);
    runHandler(this, () => this.onsessionexpired?.());
  }

  #deliver(value: unknown): void {
    runHandler(this, () => this.onmessage?.(value));
  }
}

function isInitialized(message: JsonRpcMessage | JsonRpcMessage[]): boolean {
  return !Array.isArray(message) && "method" in message && message.method === "notifications/initialized";
}
