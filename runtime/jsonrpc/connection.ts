/**
 * One JSON-RPC peer over a Transport: runs handlers for incoming requests, matches responses to the
 * requests it sent, and applies the cancellation, progress and timeout rules every MCP version shares.
 * Method tables, validation and lifecycle live above it; framing lives below it.
 */

import { SmallMap } from "../util/collections.js";
import { messageOf, toError } from "../util/errors.js";
import {
  classify,
  ErrorCode,
  isObject,
  isRequestId,
  type JsonRpcErrorObject,
  type JsonRpcMessage,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type JsonRpcResponse,
  McpError,
  type RequestId,
} from "./messages.js";
import { DONE, type MessageExtra, type SendOptions, type Transport } from "./transport.js";

/** Local code for a request the caller abandoned through its AbortSignal (never sent on the wire). */
export const REQUEST_CANCELLED = -32800;

export type ProgressToken = string | number;

export interface Progress {
  progress: number;
  total?: number;
  message?: string;
}

export interface IncomingRequestContext {
  id: RequestId;
  method: string;
  /** Aborted on `notifications/cancelled` naming this id, or when the connection closes. */
  signal: AbortSignal;
  /** `params._meta.progressToken` when the request carried one. */
  progressToken?: ProgressToken;
  extra?: MessageExtra;
}

export interface RequestOptions {
  /** Abort → the peer is sent `notifications/cancelled` and the request rejects with REQUEST_CANCELLED. */
  signal?: AbortSignal;
  /** Defaults to the connection's `defaultTimeoutMs`; `Infinity` waits forever. */
  timeoutMs?: number;
  /** When given, the request carries `params._meta.progressToken` and the peer's progress reaches it. */
  onprogress?: (progress: Progress) => void;
  resetTimeoutOnProgress?: boolean;
  /** The incoming request on whose behalf this one is sent (see SendOptions). */
  relatedRequestId?: RequestId;
  /** Told the request's id before it is sent (a subscription is named by its listen request's id). */
  onid?: (id: RequestId) => void;
  /**
   * The peer may end this request with notifications/cancelled naming it (stateless MCP's
   * subscriptions/listen on stdio); it then rejects with an error `isPeerCancelled` recognises.
   */
  peerMayEnd?: boolean;
}

export interface ConnectionOptions {
  transport: Transport;
  onRequest: (
    request: JsonRpcRequest,
    ctx: IncomingRequestContext,
  ) => Promise<Record<string, unknown>> | Record<string, unknown>;
  onNotification?: (notification: JsonRpcNotification, extra?: MessageExtra) => void | Promise<void>;
  /** Whether an incoming JSON array (batch) is processed; the protocol version decides. */
  acceptBatches?: () => boolean;
  defaultTimeoutMs?: number;
  /** Handler exceptions other than McpError, for logging; the peer only ever sees "Internal error". */
  onHandlerError?: (error: unknown, request: JsonRpcRequest) => void;
  /** Once the connection has closed, before `onclose` (an options object with methods needs no closure). */
  onClose?: () => void;
  /** How long `drain()` (and the end of the peer's input) waits for handlers still running (default 5 s). */
  drainTimeoutMs?: number;
  /**
   * Outgoing request ids become strings starting with this (default: plain numbers): for a peer that
   * also talks to other instances of this side in one session, whose ids must not collide with these.
   */
  requestIdPrefix?: string | undefined;
}

const CANCELLED = "notifications/cancelled";
const PROGRESS = "notifications/progress";
const DEFAULT_TIMEOUT_MS = 60_000;
export const DEFAULT_DRAIN_TIMEOUT_MS = 5_000;
/** setTimeout fires at once for longer delays, so anything above this means "no timeout". */
const MAX_TIMER_MS = 2 ** 31 - 1;

export class Connection {
  readonly #options: ConnectionOptions;
  readonly #transport: Transport;
  readonly #outgoing: OutgoingRequests;
  readonly #incoming = new IncomingRequests();
  /**
   * Progress tokens listened to past their request's answer (listenProgress); made on first use: a
   * server's connection (one per stateless POST) never has any.
   */
  #progressListeners: Map<ProgressToken, (p: Progress) => void> | undefined;
  #started = false;
  #closed = false;
  #finished = false;
  #closing?: Promise<void>;
  #draining?: Promise<void>;

  /** After the transport closed and everything in flight was aborted or rejected. */
  onclose?: () => void;
  onerror?: (error: Error) => void;

  constructor(options: ConnectionOptions) {
    this.#options = options;
    this.#transport = options.transport;
    this.#outgoing = new OutgoingRequests(options.requestIdPrefix);
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Outgoing requests still waiting for a response. */
  get pendingCount(): number {
    return this.#outgoing.size;
  }

  /** Incoming requests whose handler has not finished. */
  get inflightCount(): number {
    return this.#incoming.size;
  }

  /** Whether a request this side sent with `id` still waits for its response (or takes progress). */
  awaits(id: RequestId): boolean {
    return this.#outgoing.get(id) !== undefined;
  }

  /** Whether an incoming request with `id` is being served (a cancellation naming it would reach it). */
  serves(id: RequestId): boolean {
    return this.#incoming.has(id);
  }

  /** Not async: the transport's own start() is the promise (an HTTP session's is already settled). */
  start(): Promise<void> {
    if (this.#started) return Promise.reject(new Error("Connection already started"));
    this.#started = true;
    const transport = this.#transport;
    transport.onmessage = (value, extra) => this.#receive(value, extra);
    transport.onframeerror = (error) => this.#reply(failure(null, error));
    transport.onerror = (error) => this.#report(error);
    transport.onclose = () => this.#finish();
    // The peer sends nothing more (stdin EOF): what it asked for is still answered, then the end.
    transport.oninputend = () => void this.drain();
    try {
      return transport.start();
    } catch (error) {
      return Promise.reject(error);
    }
  }

  request(
    method: string,
    params?: Record<string, unknown>,
    options: RequestOptions = {},
  ): Promise<Record<string, unknown>> {
    if (this.#closed) return Promise.reject(closedError());
    if (options.signal?.aborted) return Promise.reject(cancelledError(reasonText(options.signal.reason)));
    const id = this.#outgoing.nextId();
    options.onid?.(id);
    const sent = options.onprogress ? withProgressToken(params, id) : params;
    const result = new Promise<Record<string, unknown>>((resolve, reject) => {
      this.#outgoing.add(id, this.#track(id, { resolve, reject }, options));
    });
    this.#send(
      { jsonrpc: "2.0", id, method, ...paramsMember(sent) },
      related(options.relatedRequestId),
    ).catch((error) => this.#outgoing.take(id)?.reject(toError(error)));
    return result;
  }

  notify(method: string, params?: Record<string, unknown>, relatedRequestId?: RequestId): Promise<void> {
    if (this.#closed) return Promise.reject(closedError());
    return this.#send({ jsonrpc: "2.0", method, ...paramsMember(params) }, related(relatedRequestId));
  }

  /**
   * Takes the peer's progress on `token` outside a request waiting for its answer: a task-augmented
   * request's token stays valid for the task's life, after the request was answered with the task.
   * Until the returned function is called.
   */
  listenProgress(token: ProgressToken, report: (p: Progress) => void): () => void {
    this.#progressListeners ??= new Map();
    const listeners = this.#progressListeners;
    listeners.set(token, report);
    return () => {
      if (listeners.get(token) === report) listeners.delete(token);
    };
  }

  /** Reports progress on an incoming request that carried `token`. */
  progress(token: ProgressToken, p: Progress, relatedRequestId?: RequestId): Promise<void> {
    const params: Record<string, unknown> = { progressToken: token, progress: p.progress };
    if (p.total !== undefined) params.total = p.total;
    if (p.message !== undefined) params.message = p.message;
    return this.notify(PROGRESS, params, relatedRequestId);
  }

  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  /** Whether `drain()` has begun: new requests are refused. */
  get draining(): boolean {
    return this.#draining !== undefined;
  }

  /**
   * Closes without losing an answer: new requests are refused (-32000), requests in flight finish and
   * their responses are sent, then the transport closes (flushing what it holds). Handlers still running
   * after `timeoutMs` are aborted through `ctx.signal` and answered with a -32000 error, not silence.
   */
  drain(timeoutMs = this.#options.drainTimeoutMs ?? DEFAULT_DRAIN_TIMEOUT_MS): Promise<void> {
    this.#draining ??= this.#drain(timeoutMs);
    return this.#draining;
  }

  async #drain(timeoutMs: number): Promise<void> {
    if (!this.#closed && this.#incoming.size > 0) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const deadline = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, Math.min(Math.max(timeoutMs, 0), MAX_TIMER_MS));
      });
      await Promise.race([this.#incoming.whenEmpty(), deadline]);
      clearTimeout(timer);
      for (const entry of this.#incoming.abortAll(SHUTTING_DOWN)) {
        this.#reply(failure(entry.id, { code: ErrorCode.ConnectionClosed, message: UNFINISHED }));
      }
    }
    await this.close();
  }

  async #close(): Promise<void> {
    this.#closed = true;
    try {
      await this.#transport.close();
    } finally {
      this.#finish();
    }
  }

  /** Runs once, whichever of close() and the transport's onclose comes first. */
  #finish(): void {
    if (this.#finished) return;
    this.#finished = true;
    this.#closed = true;
    this.#incoming.abortAll("connection closed");
    for (const pending of this.#outgoing.drain()) pending.reject(closedError());
    this.#guard(this.#options.onClose, this.#options);
    this.#guard(this.onclose, this);
  }

  // Outgoing requests

  #track(id: RequestId, settle: Settle, options: RequestOptions): Pending {
    const { signal, onprogress } = options;
    const ms = options.timeoutMs ?? this.#options.defaultTimeoutMs ?? DEFAULT_TIMEOUT_MS;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const abandon = (error: McpError, reason: string) => {
      if (!this.#outgoing.take(id)) return;
      settle.reject(error);
      if (!this.#closed) this.notify(CANCELLED, { requestId: id, reason }).catch((e) => this.#report(e));
    };
    const arm = () => {
      clearTimeout(timer);
      if (!(ms <= MAX_TIMER_MS)) return;
      timer = setTimeout(() => {
        const error = new McpError(ErrorCode.RequestTimeout, `Request timed out after ${ms} ms`);
        abandon(error, error.message);
      }, ms);
    };
    const onAbort = () => {
      const reason = reasonText(signal?.reason);
      abandon(cancelledError(reason), reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    arm();
    return {
      ...settle,
      ...(options.peerMayEnd ? { peerMayEnd: true } : {}),
      progress:
        onprogress &&
        ((p) => {
          if (options.resetTimeoutOnProgress) arm();
          onprogress(p);
        }),
      dispose: () => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
      },
    };
  }

  // Incoming messages

  // A message whose handler answers synchronously is answered synchronously: no promise is made on the
  // way unless a handler returns one. At tens of thousands of calls per second every promise shows.
  #receive(value: unknown, extra?: MessageExtra): void {
    if (this.#closed) return;
    if (Array.isArray(value)) {
      this.#receiveBatch(value, extra).catch((error) => this.#report(error));
      return;
    }
    const out = this.#dispatch(value, extra);
    if (out === undefined) return;
    if (out instanceof Promise) {
      out.then(
        (response) => response && this.#reply(response),
        (error) => this.#report(error),
      );
    } else this.#reply(out);
  }

  async #receiveBatch(values: unknown[], extra?: MessageExtra): Promise<void> {
    if (!this.#options.acceptBatches?.()) {
      const message = "JSON-RPC batches are not supported in this protocol version";
      this.#reply(failure(null, { code: ErrorCode.InvalidRequest, message }));
      return;
    }
    if (values.length === 0) {
      this.#reply(failure(null, { code: ErrorCode.InvalidRequest, message: "empty batch" }));
      return;
    }
    const responses = await Promise.all(values.map((value) => this.#dispatch(value, extra)));
    const sent = responses.filter((r): r is JsonRpcResponse => r !== undefined);
    if (sent.length > 0) this.#reply(sent);
  }

  /** Handles one message: the response it needs (now, or once its handler settles), if any. */
  #dispatch(value: unknown, extra?: MessageExtra): Reply {
    const c = classify(value);
    switch (c.kind) {
      case "request":
        return this.#serve(c.message, extra);
      case "notification":
        this.#onNotification(c.message, extra);
        return undefined;
      case "response":
        this.#onResponse(c.message);
        return undefined;
      case "invalid":
        return failure(c.id, { code: c.code ?? ErrorCode.InvalidRequest, message: c.reason });
    }
  }

  #serve(request: JsonRpcRequest, extra?: MessageExtra): Reply {
    if (this.#draining) return failure(request.id, { code: ErrorCode.ConnectionClosed, message: REFUSED });
    // The context is the request's entry in the table too: one object per request.
    const entry = new IncomingContext(request, readProgressToken(request.params), extra);
    if (!this.#incoming.begin(request.id, entry))
      return failure(request.id, { code: ErrorCode.InvalidRequest, message: "duplicate request id" });
    let result: Record<string, unknown> | Promise<Record<string, unknown>>;
    try {
      result = this.#options.onRequest(request, entry);
    } catch (error) {
      return this.#settle(request, entry, this.#failed(request, entry, error));
    }
    if (result instanceof Promise) {
      return result.then(
        (value) => this.#settle(request, entry, this.#succeeded(request, entry, value)),
        (error) => this.#settle(request, entry, this.#failed(request, entry, error)),
      );
    }
    return this.#settle(request, entry, this.#succeeded(request, entry, result));
  }

  /** A cancelled request gets no response: the peer has already forgotten it. */
  #settle(request: JsonRpcRequest, entry: Inflight, response: JsonRpcResponse): JsonRpcResponse | undefined {
    this.#incoming.end(request.id, entry);
    return entry.reason === undefined ? response : undefined;
  }

  #succeeded(request: JsonRpcRequest, entry: Inflight, result: unknown): JsonRpcResponse {
    if (isPlainObject(result)) return { jsonrpc: "2.0", id: request.id, result };
    return this.#failed(
      request,
      entry,
      new Error(`the ${request.method} handler returned ${describe(result)}, not a plain object`),
    );
  }

  #failed(request: JsonRpcRequest, entry: Inflight, error: unknown): JsonRpcResponse {
    if (error instanceof McpError) return failure(request.id, error.toJSON());
    // After cancellation a throw is the expected way out, not a bug worth logging.
    if (entry.reason === undefined) this.#guard(() => this.#options.onHandlerError?.(error, request));
    return failure(request.id, {
      code: ErrorCode.InternalError,
      message: "Internal error",
      data: { message: messageOf(error) },
    });
  }

  #onNotification(notification: JsonRpcNotification, extra?: MessageExtra): void {
    const params = notification.params ?? {};
    if (notification.method === CANCELLED) {
      const id = params.requestId;
      if (!isRequestId(id)) return;
      const reason = cancelReason(params.reason);
      // Otherwise one of ours that the peer may end (a subscriptions/listen on stdio): it settles here,
      // nothing goes back. Any other is a late cancellation of a request of the peer's, ignored.
      if (!this.#incoming.cancel(id, reason) && this.#outgoing.get(id)?.peerMayEnd)
        this.#outgoing.take(id)!.reject(peerCancelledError(reason));
    } else if (notification.method === PROGRESS) {
      this.#onProgress(params);
    } else {
      this.#guard(() => this.#options.onNotification?.(notification, extra));
    }
  }

  #onProgress(params: Record<string, unknown>): void {
    const { progressToken, progress, total, message } = params;
    if (!isRequestId(progressToken) || typeof progress !== "number") return;
    const report = this.#outgoing.get(progressToken)?.progress ?? this.#progressListeners?.get(progressToken);
    if (!report) return;
    const p: Progress = { progress };
    if (typeof total === "number") p.total = total;
    if (typeof message === "string") p.message = message;
    this.#guard(() => report(p));
  }

  #onResponse(response: JsonRpcResponse): void {
    if (response.id === null) {
      const { code, message } = (response as { error: JsonRpcErrorObject }).error;
      this.#report(new Error(`The peer could not read a message: ${message} (${code})`));
      return;
    }
    const pending = this.#outgoing.take(response.id);
    if (!pending) {
      this.#report(new Error(`Received a response for unknown request id ${JSON.stringify(response.id)}`));
    } else if ("error" in response) {
      pending.reject(McpError.from(response.error));
    } else {
      pending.resolve(response.result);
    }
  }

  // Sending

  /** Sends a response; after close it is dropped, and a failed send is reported rather than thrown. */
  #reply(response: JsonRpcResponse | JsonRpcResponse[]): void {
    if (this.#closed) return;
    let sent: Promise<void>;
    try {
      // A response belongs with its request; a batch's replies travel together.
      sent =
        Array.isArray(response) || response.id === null
          ? this.#transport.send(response)
          : this.#transport.send(response, { relatedRequestId: response.id });
    } catch (error) {
      this.#report(error);
      return;
    }
    if (sent === DONE) return;
    sent.catch((error) => {
      if (!this.#closed) this.#report(error);
    });
  }

  /** Async so that a transport throwing synchronously still only rejects this send. */
  async #send(message: JsonRpcMessage | JsonRpcMessage[], options?: SendOptions): Promise<void> {
    await this.#transport.send(message, options);
  }

  #report(error: unknown): void {
    try {
      this.onerror?.(toError(error));
    } catch {
      // An error reporter that throws has nowhere left to report to.
    }
  }

  /** Calls user code that must not break message processing: throws and rejections go to onerror. */
  #guard(fn: (() => unknown) | undefined, self?: unknown): void {
    if (!fn) return;
    try {
      const result = fn.call(self);
      if (result instanceof Promise) result.catch((error) => this.#report(error));
    } catch (error) {
      this.#report(error);
    }
  }
}

interface Settle {
  resolve: (result: Record<string, unknown>) => void;
  reject: (error: Error) => void;
}

interface Pending extends Settle {
  progress?: (p: Progress) => void;
  peerMayEnd?: boolean;
  /** Clears the timer and the abort listener; called when the request leaves the table. */
  dispose: () => void;
}

/**
 * Requests this side sent, by id. An entry leaves the table exactly once, however it settles.
 */
class OutgoingRequests {
  /** Made on first use, then kept (empty while idle: a few fields), as the incoming table is. */
  #pending: SmallMap<RequestId, Pending> | undefined;
  #next = 0;

  constructor(private readonly prefix: string | undefined) {}

  get size(): number {
    return this.#pending?.size ?? 0;
  }

  nextId(): RequestId {
    return this.prefix === undefined ? this.#next++ : `${this.prefix}${this.#next++}`;
  }

  add(id: RequestId, pending: Pending): void {
    this.#pending ??= new SmallMap();
    this.#pending.set(id, pending);
  }

  get(id: RequestId): Pending | undefined {
    return this.#pending?.get(id);
  }

  take(id: RequestId): Pending | undefined {
    const pending = this.#pending?.get(id);
    if (!pending) return undefined;
    this.#pending!.delete(id);
    pending.dispose();
    return pending;
  }

  /** Takes every pending request out at once. */
  drain(): Pending[] {
    if (!this.#pending?.size) return [];
    const all = this.#pending.values();
    this.#pending = undefined;
    for (const pending of all) pending.dispose();
    return all;
  }
}

type Reply = JsonRpcResponse | undefined | Promise<JsonRpcResponse | undefined>;

/** An incoming request in flight. */
interface Inflight {
  readonly id: RequestId;
  /** Set once cancelled (by the peer or by close). */
  readonly reason: string | undefined;
  cancel(reason: string): void;
}

/** Requests the peer sent whose handlers are still running. */
class IncomingRequests {
  /** Made on first use, then kept (empty while idle: a few fields). */
  #inflight: SmallMap<RequestId, Inflight> | undefined;
  #whenEmpty: Promise<void> | undefined;
  #emptied: (() => void) | undefined;

  get size(): number {
    return this.#inflight?.size ?? 0;
  }

  has(id: RequestId): boolean {
    return this.#inflight?.has(id) ?? false;
  }

  /** False when the id is already in flight. */
  begin(id: RequestId, entry: Inflight): boolean {
    this.#inflight ??= new SmallMap();
    if (this.#inflight.has(id)) return false;
    this.#inflight.set(id, entry);
    return true;
  }

  end(id: RequestId, entry: Inflight): void {
    if (this.#inflight?.get(id) !== entry) return;
    this.#inflight.delete(id);
    if (this.#inflight.size === 0 && this.#emptied) {
      const emptied = this.#emptied;
      this.#emptied = undefined;
      emptied();
    }
  }

  /** Settles once no request is in flight. */
  whenEmpty(): Promise<void> {
    if (this.size === 0) return Promise.resolve();
    this.#whenEmpty ??= new Promise((resolve) => {
      this.#emptied = () => {
        this.#whenEmpty = undefined;
        resolve();
      };
    });
    return this.#whenEmpty;
  }

  /** Aborts the handler of `id`; false when no such request is in flight. */
  cancel(id: RequestId, reason: string): boolean {
    const entry = this.#inflight?.get(id);
    entry?.cancel(reason);
    return entry !== undefined;
  }

  /** Aborts every handler still running; the entries they had (none answers after this). */
  abortAll(reason: string): Inflight[] {
    const entries = this.#inflight?.size ? [...this.#inflight.values()] : [];
    for (const entry of entries) entry.cancel(reason);
    this.#inflight = undefined;
    this.#emptied?.();
    return entries;
  }
}

/**
 * What a handler learns of its request, and the request's entry in the in-flight table. Its
 * AbortController is made only if a handler reads `signal`.
 */
class IncomingContext implements IncomingRequestContext, Inflight {
  readonly id: RequestId;
  readonly method: string;
  #controller: AbortController | undefined;
  #reason: string | undefined;

  constructor(
    request: JsonRpcRequest,
    readonly progressToken: ProgressToken | undefined,
    readonly extra: MessageExtra | undefined,
  ) {
    this.id = request.id;
    this.method = request.method;
  }

  get reason(): string | undefined {
    return this.#reason;
  }

  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController();
      if (this.#reason !== undefined) this.#controller.abort(this.#reason);
    }
    return this.#controller.signal;
  }

  cancel(reason: string): void {
    if (this.#reason !== undefined) return;
    this.#reason = reason;
    this.#controller?.abort(reason);
  }
}

const related = (id: RequestId | undefined): SendOptions | undefined =>
  id === undefined ? undefined : { relatedRequestId: id };

const failure = (id: RequestId | null, error: JsonRpcErrorObject): JsonRpcResponse => ({
  jsonrpc: "2.0",
  id,
  error,
});

const SHUTTING_DOWN = "server shutting down";
const REFUSED = "Server shutting down: not accepting new requests";
const UNFINISHED = "Server shutting down: the request did not finish in time and was aborted";

const closedError = () => new McpError(ErrorCode.ConnectionClosed, "Connection closed");
const cancelledError = (reason: string) => new McpError(REQUEST_CANCELLED, `Request cancelled: ${reason}`);
const peerCancelledError = (reason: string) =>
  new McpError(REQUEST_CANCELLED, `Request ended by the peer: ${reason}`, { byPeer: true });

/** Whether `error` is how a request the peer ended (notifications/cancelled from its side) settles. */
export const isPeerCancelled = (error: unknown): boolean =>
  error instanceof McpError &&
  error.code === REQUEST_CANCELLED &&
  (error.data as { byPeer?: unknown } | undefined)?.byPeer === true;

/** A result must serialize as a JSON object: class instances and arrays would not round-trip. */
function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (!isObject(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

const paramsMember = (params: Record<string, unknown> | undefined) =>
  params === undefined ? {} : { params };

function withProgressToken(params: Record<string, unknown> | undefined, token: ProgressToken) {
  const meta = isObject(params?._meta) ? params._meta : {};
  return { ...params, _meta: { ...meta, progressToken: token } };
}

function readProgressToken(params: Record<string, unknown> | undefined): ProgressToken | undefined {
  const meta = params?._meta;
  return isObject(meta) && isRequestId(meta.progressToken) ? meta.progressToken : undefined;
}

const cancelReason = (reason: unknown): string =>
  typeof reason === "string" ? reason : "cancelled by the peer";

function reasonText(reason: unknown): string {
  if (reason instanceof Error) return reason.message;
  return typeof reason === "string" ? reason : "aborted";
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "a class instance" : typeof value;
}
