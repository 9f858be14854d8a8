/**
 * One Streamable HTTP session's transport: it routes what the server sends by the request it belongs to,
 * a POST's own response stream or else the session's standalone GET stream.
 */

import {
  cancelledId,
  ErrorCode,
  isObject,
  isRequestId,
  type JsonRpcMessage,
  type JsonRpcResponse,
  type RequestId,
  requestIds,
} from "../jsonrpc/messages.js";
import { DONE, type MessageExtra, type SendOptions, type Transport } from "../jsonrpc/transport.js";
import { SmallMap } from "../util/collections.js";
import type { Reply } from "./core.js";
import type { EventStore } from "./event-store.js";
import { HttpError } from "./http-error.js";
import type { KeepAlive } from "./keep-alive.js";
import { isResponse, RequestStream, StandaloneStream } from "./out-streams.js";
import { errorReply, jsonReply, NO_HEADERS, unavailableReply } from "./replies.js";
import type { Expirable } from "./session-registry.js";
import type { SharedSessions } from "./shared-sessions.js";
import { SseWriter, sseReply } from "./sse-writer.js";

export const SESSION_HEADER = "mcp-session-id";
/** Stream ids a session keeps in the event store at most; older ones are forgotten. */
const MAX_STORED_STREAMS = 1000;

/**
 * A stateless session serves one POST and is never named to anyone: they share one id, and their one
 * stream shares one too (its SSE event ids only need to differ within the stream).
 */
export const STATELESS_ID = "stateless";
const STATELESS_STREAM = `${STATELESS_ID}/1`;

/** What sessions need from the handler that made them. */
export interface SessionEnv {
  readonly store: EventStore;
  readonly keepAlive: KeepAlive | undefined;
  readonly retryMs: number | undefined;
  readonly jsonResponse: boolean;
  /**
   * The event store may answer later (it does not say it is `immediate`): an unprimed SSE answer's 200 waits
   * for its first event to be stored, so that a store that fails is answered 503, not a 200 that ends.
   */
  readonly defersSse?: boolean;
  primes(protocolVersion: string | undefined): boolean;
  /** The HTTP status of a single JSON error answer with this code, when not 200. */
  errorStatus?(code: number): number | undefined;
  /**
   * A single JSON error answer's status and headers when it is an HTTP refusal (403 insufficient_scope);
   * `auth` is what authenticated the POST it answers.
   */
  refusal?(
    error: { code: number; data?: unknown },
    auth: unknown,
  ): { status: number; headers: Record<string, string> } | undefined;
  report(error: unknown): void;
  touched(session: HttpSession): void;
  closed(session: HttpSession): void;
  /** Sessions shared with other instances (a shared session store and the server's bus). */
  readonly shared?: SharedSessions | undefined;
  /** Stores the session's record again: its state changed (initialize, logging/setLevel). */
  keep?(session: HttpSession): void | Promise<void>;
}

/** The server session an HttpSession serves, as far as the transport needs it. */
interface ServedSession {
  readonly initialized: boolean;
  readonly session: { protocolVersion: string; clientInfo: unknown; clientCapabilities: unknown } | undefined;
  readonly minimumLogLevel: string;
  restore(state: {
    protocolVersion?: string;
    clientInfo?: unknown;
    clientCapabilities?: unknown;
    logLevel?: string;
  }): boolean;
  close(): Promise<void>;
  drain(timeoutMs?: number): Promise<void>;
  /** Whether a message from the client is for something in flight here (see SharedSessions). */
  holds(message: unknown): boolean;
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
export class HttpSession implements Transport, Expirable {
  lastActive = 0;
  /** Set once a request names this session after its initialize (the registry's fairness rules). */
  established = false;
  /** Who opened it, for the per-client bound (undefined: not counted). */
  client?: string | undefined;
  /** The authenticated subject that opened it: only that subject may use it. */
  owner?: string | undefined;
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
  /** Ended for good (DELETE, expiry, eviction), not only closed in this instance. */
  #ended = false;
  /** Another instance ended it for good (its record is gone already). */
  #endedElsewhere = false;
  /** Made for an initialize not yet handed over (its record being stored): not idle, not evictable. */
  #opening: boolean;

  constructor(
    readonly id: string,
    readonly stateful: boolean,
    readonly env: SessionEnv,
  ) {
    this.#opening = stateful;
    if (!stateful) return;
    this.#stored = new Set();
    this.#standalone = new StandaloneStream(`${id}/get`, this);
    this.remember(this.#standalone.id);
  }

  get headers(): Record<string, string> {
    return this.stateful ? { [SESSION_HEADER]: this.id } : NO_HEADERS;
  }

  get idle(): boolean {
    return !this.#opening && !this.#streams?.size && !this.#standalone?.connected;
  }

  get protocolVersion(): string | undefined {
    return this.serverSession?.session?.protocolVersion;
  }

  // What its record holds besides the above, for another instance to go on serving it.

  get clientInfo(): unknown {
    return this.serverSession?.session?.clientInfo;
  }

  get clientCapabilities(): unknown {
    return this.serverSession?.session?.clientCapabilities;
  }

  get logLevel(): string | undefined {
    return this.serverSession?.initialized ? this.serverSession.minimumLogLevel : undefined;
  }

  /** Ended for good (DELETE, expiry, eviction): its record goes too, everywhere. */
  get ended(): boolean {
    return this.#ended;
  }

  /**
   * Shared by instances: notifications for every session go through the copy whose GET stream is open
   * here, the one place the client listens for them (each copy would send its own).
   */
  get receivesFanOut(): boolean {
    return !this.env.shared || (this.#standalone?.connected ?? false);
  }

  /** Shared by instances: this copy closing ends the session only when it ended for good. */
  get sessionEnded(): boolean {
    return !this.env.shared || this.#ended || this.#endedElsewhere;
  }

  /** Other instances of this server send requests to the same client: ids must not collide. */
  get requestIdPrefix(): string | undefined {
    return this.stateful ? this.env.shared?.requestIdPrefix : undefined;
  }

  /** The server session's state changed: its record is stored again (shared sessions). */
  sessionChanged(): void | Promise<void> {
    return this.stateful ? this.env.keep?.(this) : undefined;
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
    }
    this.env.closed(this);
    this.onclose?.();
  }

  /** Lets what is in flight finish and be answered, then closes (the handler's graceful close). */
  drain(timeoutMs?: number): Promise<void> {
    return this.serverSession ? this.serverSession.drain(timeoutMs) : this.close();
  }

  /** Closes the server session (and so this transport) for good: DELETE, expiry, eviction. */
  expire(): Promise<void> {
    this.#ended = true;
    return this.serverSession ? this.serverSession.close() : this.close();
  }

  /** Taken up from its record (another instance opened it): nothing of its opening happens here. */
  takenUp(): void {
    this.#opening = false;
  }

  /** Another instance changed the session's state (its log level): the same here. */
  changedElsewhere(logLevel: string | undefined): void {
    this.serverSession?.restore({
      protocolVersion: this.protocolVersion,
      clientInfo: this.clientInfo,
      clientCapabilities: this.clientCapabilities,
      logLevel,
    });
  }

  /** Another instance ended the session: closed here too, its record already gone. */
  endedElsewhere(): void {
    this.#endedElsewhere = true;
    (this.serverSession ? this.serverSession.close() : this.close()).catch(this.env.report);
  }

  // HTTP

  /** Hands a POST's messages to the server; the response streams what the server sends for its requests. */
  post(body: unknown, extra: MessageExtra): Reply | Promise<Reply> {
    this.#opening = false;
    const messages = Array.isArray(body) ? body : [body];
    const ids = requestIds(messages);
    if (ids.length === 0) {
      const routed = this.stateful ? this.env.shared?.route(this, messages) : undefined;
      if (!routed) return this.#accept(body, extra);
      // Some are for another instance: acknowledged once the bus took them.
      return routed.then(
        (here) =>
          here.length === 0
            ? { status: 202, headers: this.headers }
            : this.#accept(Array.isArray(body) ? here : here[0], extra),
        (error: unknown) => {
          this.env.report(error);
          return unavailableReply(error, "the message bus");
        },
      );
    }
    if (ids.some((id) => this.#routes?.has(id)) || (ids.length > 1 && new Set(ids).size < ids.length)) {
      this.#endIfStateless();
      return errorReply(400, ErrorCode.InvalidRequest, "Invalid Request: request id already in use");
    }
    const streamId = this.stateful ? this.#newStreamId(ids) : STATELESS_STREAM;
    const stream = new RequestStream(streamId, this, ids, Array.isArray(body), extra.auth);
    this.#register(stream);
    const primed = this.env.jsonResponse ? undefined : stream.startSse(this.env.primes(this.protocolVersion));
    if (primed === undefined) return this.#serve(stream, body, extra);
    // The event store answers later: nothing is served until the stream's first event is stored.
    return primed.then(
      () => this.#serve(stream, body, extra),
      (error: unknown) => {
        this.#unregister(stream);
        stream.abort();
        if (isInitialize(body)) this.expire().catch(this.env.report);
        else this.#endIfStateless();
        return unavailableReply(error);
      },
    );
  }

  /** Hands a POST's messages to the server once its stream is ready; the stream's answer follows. */
  #serve(stream: RequestStream, body: unknown, extra: MessageExtra): Reply | Promise<Reply> {
    // Set before delivery: a handler that answers at once ends the stream within it.
    if (isInitialize(body)) {
      stream.onended = () => queueMicrotask(() => this.#dropIfUninitialized());
      // Its result could not be stored: answered 503, the session is not kept.
      stream.onrefused = () => void this.expire().catch(this.env.report);
    }
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
    const answered = new Set<RequestId>();
    let lastId = lastEventId;
    this.#replays++;
    let streamId: string | undefined;
    try {
      streamId = await this.env.store.replayAfter(lastEventId, async (id, message) => {
        writer.event(JSON.stringify(message), { id });
        replayed.add(id);
        lastId = id;
        const m = message as { id?: unknown; method?: unknown };
        if (m.method === undefined && isRequestId(m.id)) answered.add(m.id);
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
    const shared = this.env.shared;
    if (target === standalone) standalone.resumed(writer);
    else if (target) target.attach(writer);
    else if (shared?.elsewhere(streamId)) {
      // Made by another instance: fed from there while it lives (see SharedSessions).
      shared.resume(this, streamId, writer, replayed, answered, lastId).catch((error: unknown) => {
        this.env.report(error);
        writer.close();
      });
    } else writer.close(); // that stream ended: the replay held all of it
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

  /**
   * Another instance resumed stream `streamId` for its client: its further events go to instance `to`.
   * False when no such stream is open here (it ended).
   */
  feedElsewhere(streamId: string, to: string): boolean {
    const stream = this.#streams?.get(streamId);
    if (!stream) return false;
    stream.forwardTo = to;
    return true;
  }

  /** Messages another instance routed here: each is for something in flight in this one. */
  deliverRouted(messages: JsonRpcMessage[]): void {
    for (const message of messages) this.#deliver(message, { sessionId: this.id });
  }

  /** A message for the GET stream, sent by instance `from` where it is not open; written if it is open here. */
  standaloneFromElsewhere(eventId: string, message: JsonRpcMessage, from: string): void {
    this.#standalone?.relay(eventId, message, from);
  }

  /** The GET stream open on another instance wrote these messages of this one's. */
  standaloneRelayed(eventIds: string[]): void {
    this.#standalone?.relayedElsewhere(eventIds);
  }

  /** The GET stream opened on another instance. */
  standaloneOpenedElsewhere(fresh: boolean): void {
    this.#standalone?.openedElsewhere(fresh);
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
    // A stream that stored nothing (a JSON answer) has nothing to resume or delete; one delivered in full
    // is deleted, or left to expire in a store whose streams do.
    if (!stream.stored) this.#stored?.delete(stream.id);
    else if (deliveredLive) {
      if (this.env.store.expiresStreams) this.#stored?.delete(stream.id);
      else this.forget(stream.id);
    }
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

  #newStreamId(ids: RequestId[]): string {
    const n = this.#nextStream++;
    return this.env.shared ? this.env.shared.streamId(this.id, n, ids) : `${this.id}/${n}`;
  }

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

export const isInitialize = (body: unknown): boolean =>
  isObject(body) && body.method === "initialize" && isRequestId(body.id);

export const containsInitialize = (body: unknown): boolean => Array.isArray(body) && body.some(isInitialize);
