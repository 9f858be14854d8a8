/**
 * The SSE streams of a Streamable HTTP session: each POST's request stream (answered as JSON or SSE) and
 * the session's standalone GET stream. Events are stored before they are written, so a client resumes.
 */

import type { JsonRpcMessage, JsonRpcResponse, RequestId } from "../jsonrpc/messages.js";
import { DONE } from "../jsonrpc/transport.js";
import { retryAfterOf } from "../mcp/store-unavailable.js";
import type { Reply } from "./core.js";
import type { PrimingEvent } from "./event-store.js";
import { TRANSPORT_ERROR } from "./http-error.js";
import type { HttpSession } from "./http-session.js";
import { errorReply, jsonReply, unavailableReply } from "./replies.js";
import { type SseWriter, sseReply } from "./sse-writer.js";

/** The event a stream's priming event stores: a place in the stream, never replayed. */
const PRIMING: PrimingEvent = Object.freeze({}) as PrimingEvent;

/**
 * An ordered stream of events: each message is stored (getting its event id), then written to the
 * client's connection if one is attached. Sends are chained so ids and writes keep send order.
 */
abstract class OutStream {
  writer: SseWriter | undefined;
  /** The client holds an event id of this stream, so it can resume it. */
  primed = false;
  /** Something of it went to the event store (a JSON answer stores nothing). */
  stored = false;
  /** The instance where this stream's client resumed it (shared sessions): its events go there. */
  forwardTo: string | undefined;
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
      this.#failed(error);
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
    if (!this.session.stateful) return this.session.counterId(this.id);
    this.stored = true;
    return this.session.env.store.append(this.id, message, this.isLast(message));
  }

  /** Whether `message` ends this stream (a request stream's last owed response). */
  protected isLast(_message: JsonRpcMessage | PrimingEvent): boolean {
    return false;
  }

  /** Runs `step` after everything queued before it; a failure fails only that step. */
  protected queue(step: () => Promise<void>): Promise<void> {
    this.#queued++;
    const run = (this.#chain ?? DONE).then(step);
    const chain: Promise<void> = run.then(
      () => this.#done(chain),
      (error: unknown) => {
        this.#done(chain);
        this.#failed(error);
      },
    );
    this.#chain = chain;
    return run;
  }

  /**
   * A send failed (the event store could not store a message): reported, and the connection ended, so
   * that its client reconnects with the last id it holds (answered 503 while the store is down) or fails,
   * rather than waiting on a stream whose messages can no longer be given ids.
   */
  #failed(error: unknown): void {
    this.session.env.report(error);
    this.refused(error);
    this.detach();
  }

  /** A send failed before the answer went out: the answer says so instead. */
  protected refused(_error: unknown): void {}

  #done(chain: Promise<void>): void {
    this.#queued--;
    if (this.#chain === chain) this.#chain = undefined;
  }

  protected emit(eventId: string | undefined, message: JsonRpcMessage): void {
    if (this.connected) {
      this.writer!.event(JSON.stringify(message), eventId === undefined ? {} : { id: eventId });
      this.primed = true;
    } else if (eventId !== undefined) {
      this.session.noteMissed(this.id, eventId, message);
      if (this.forwardTo !== undefined)
        this.session.env.shared?.forward(this.forwardTo, this.id, eventId, message);
    }
  }

  /** Makes `writer` this stream's connection (a reconnecting client replaces the old one). */
  attach(writer: SseWriter): void {
    if (this.writer !== writer) this.writer?.close();
    this.writer = writer;
    this.forwardTo = undefined;
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
/** Event ids a GET connection remembers having written from other instances, against sending one twice. */
const MAX_RELAYED_IDS = 256;

/**
 * The session's GET stream. What the server sends while no GET is open (say, between initialize and
 * the client's GET) waits, a bounded number, for the next fresh GET; a resuming GET gets the replay instead.
 * Shared by instances, the GET may be open on another one: what is sent here goes there too and waits
 * here until that one says it wrote it, so a fresh GET opened anywhere later still gets it.
 */
export class StandaloneStream extends OutStream {
  #undelivered: [string, JsonRpcMessage][] = [];
  /** Event ids this connection wrote for other instances (each sends what it holds when a GET opens). */
  #relayedIds = new Set<string>();

  opened(writer: SseWriter): void {
    this.attach(writer);
    this.#relayedIds = new Set();
    for (const [id, message] of this.#undelivered.splice(0)) this.emit(id, message);
    this.session.env.shared?.opened(this.session, true);
  }

  resumed(writer: SseWriter): void {
    this.#undelivered = [];
    this.#relayedIds = new Set();
    this.attach(writer);
    this.session.env.shared?.opened(this.session, false);
  }

  /** An event instance `from` stored for this session's GET stream: written once if it is open here. */
  relay(eventId: string, message: JsonRpcMessage, from: string): void {
    if (!this.connected) return;
    if (!this.#relayedIds.has(eventId)) {
      this.writer!.event(JSON.stringify(message), { id: eventId });
      this.#relayedIds.add(eventId);
      if (this.#relayedIds.size > MAX_RELAYED_IDS)
        this.#relayedIds.delete(this.#relayedIds.values().next().value!);
    }
    this.session.env.shared?.relayed(this.session, from, [eventId]);
  }

  /** The GET stream open on another instance wrote these: no longer held here. */
  relayedElsewhere(eventIds: readonly string[]): void {
    const written = new Set(eventIds);
    this.#undelivered = this.#undelivered.filter(([id]) => !written.has(id));
  }

  /** A GET opened on another instance: held messages go to it when it is fresh, and are dropped when it resumed. */
  openedElsewhere(fresh: boolean): void {
    if (!fresh) {
      this.#undelivered = [];
      return;
    }
    const shared = this.session.env.shared;
    for (const [id, message] of this.#undelivered) shared?.standalone(this.session, id, message);
  }

  protected override emit(eventId: string | undefined, message: JsonRpcMessage): void {
    const connected = this.connected;
    super.emit(eventId, message);
    // A standalone stream is stateful: its events always have ids, the next GET gets them.
    if (connected || eventId === undefined) return;
    this.#undelivered.push([eventId, message]);
    if (this.#undelivered.length > MAX_UNDELIVERED) this.#undelivered.shift();
    // Shared: the GET may be open on another instance, which says so once it wrote it.
    this.session.env.shared?.standalone(this.session, eventId, message);
  }
}

/**
 * The stream of one POST that carried requests: open until each of them has its response. With
 * `jsonResponse` the HTTP response waits for the first message: JSON if the responses come alone,
 * SSE as soon as anything else comes first.
 */
export class RequestStream extends OutStream {
  /** Runs once when the stream ends: all its responses sent, or the session closed. */
  onended?: () => void;
  /** Runs when the answer is a 503 because the store failed before anything was answered. */
  onrefused?: () => void;
  /** An SSE answer's connection whose 200 waits for its first stored event (a store that answers later). */
  #unanswered: SseWriter | undefined;
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
    /** What authenticated the POST: a refusal's challenge depends on it. */
    private readonly auth?: unknown,
  ) {
    super(id, session);
    this.#left = ids.length;
    if (ids.length > 1) this.#awaiting = new Set(ids);
  }

  protected override isLast(message: JsonRpcMessage | PrimingEvent): boolean {
    if (!isResponse(message as JsonRpcMessage) || this.#left !== 1) return false;
    const id = (message as JsonRpcResponse).id as RequestId;
    return this.#awaiting ? this.#awaiting.has(id) : id === this.ids[0];
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

  /**
   * Answers with SSE, opening with a priming event (an id, no data) when `prime`. The 200 goes out with
   * the priming event's id: at once when the id comes at once; else once the store has it (the promise
   * returned), so that a store that fails leaves nothing answered (the promise rejects, the caller answers).
   */
  startSse(prime: boolean): Promise<void> | undefined {
    const writer = this.#openSse();
    if (!prime) {
      // Unprimed, the first event is the first stored: with a store that may answer later, the 200 waits for it.
      if (this.session.stateful && this.session.env.defersSse) this.#unanswered = writer;
      else this.#respond(sseReply(writer, this.session.headers));
      return undefined;
    }
    // A stream starts before anything is sent on it: nothing is queued ahead of its priming event.
    const eventId = this.idFor(PRIMING);
    if (typeof eventId !== "object") {
      this.#respond(sseReply(writer, this.session.headers));
      if (writer.event("", { id: eventId })) this.primed = true;
      return undefined;
    }
    this.#priming = true;
    return this.queue(async () => {
      const id = await eventId;
      this.#respond(sseReply(writer, this.session.headers));
      if (writer.event("", { id })) this.primed = true;
    });
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
    if (!this.#decided || this.#unanswered) {
      this.#decided = true;
      this.#unanswered = undefined;
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
      if (entry[0] !== undefined) continue;
      this.stored = true;
      entry[0] = await this.session.env.store.append(this.id, entry[1], this.isLast(entry[1]));
    }
  }

  protected override emit(eventId: string | undefined, message: JsonRpcMessage): void {
    const response = isResponse(message);
    if (response) this.#answered((message as JsonRpcResponse).id as RequestId);
    if (this.#unanswered) this.#answerSse();
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

  /** The 200 of an SSE answer that waited for its first stored event. */
  #answerSse(): void {
    const writer = this.#unanswered!;
    this.#unanswered = undefined;
    this.#respond(sseReply(writer, this.session.headers));
  }

  protected override refused(error: unknown): void {
    // Undecided (a JSON answer was still possible), or SSE whose 200 waits: nothing went out yet.
    if (this.#decided && !this.#unanswered) return;
    this.#decided = true;
    this.#unanswered = undefined;
    this.#held = undefined;
    this.#respond(unavailableReply(error));
    this.onrefused?.();
  }

  #finish(): void {
    if (this.#unanswered) this.#answerSse(); // every request cancelled: an empty stream, as unwaited
    const live = this.connected;
    this.detach();
    this.session.streamEnded(this, live);
    this.#end();
  }

  #sse(): SseWriter {
    const writer = this.#openSse();
    this.#respond(sseReply(writer, this.session.headers));
    return writer;
  }

  /** The SSE connection of this stream, before it is answered. */
  #openSse(): SseWriter {
    this.#decided = true;
    const writer = this.session.newWriter();
    this.attach(writer);
    this.primed = false; // a fresh POST stream: the client holds no id of it yet
    if (!this.session.stateful) writer.onclose = () => void this.#clientGone(writer);
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
      const error = (first as { error?: { code: number; data?: unknown } }).error;
      // A store that could not answer: retry later (nothing of the request was consumed).
      const retryAfter = error && retryAfterOf(error);
      if (retryAfter) {
        this.#respond(jsonReply(first, { ...this.session.headers, "retry-after": retryAfter }, 503));
        return;
      }
      const refusal = error && this.session.env.refusal?.(error, this.auth);
      if (refusal) {
        this.#respond(jsonReply(first, { ...this.session.headers, ...refusal.headers }, refusal.status));
        return;
      }
      const status = error && this.session.env.errorStatus?.(error.code);
      this.#respond(jsonReply(first, this.session.headers, status || 200));
    }
  }
}

export const isResponse = (m: JsonRpcMessage): boolean => !("method" in m) && ("result" in m || "error" in m);
