/**
 * Streamable HTTP sessions shared by several instances of a server (a session store whose records every
 * instance sees, and the server's MessageBus between them). A session's live objects (open streams,
 * requests in flight either way) exist in the instance that made them; this routes what arrives
 * elsewhere to them:
 * - a client's answer, cancellation or progress for something in flight on another instance goes out on
 *   the session's channel, where the instance holding it picks it up;
 * - a message for the session's GET stream, made where that stream is not open, goes the same way to
 *   the instance where it is, which acknowledges it; until acknowledged, its maker holds it and sends it
 *   again when a fresh GET opens anywhere (so a message sent while no GET was open is not lost);
 * - a stream resumed (GET with Last-Event-ID) on an instance other than the one producing it is
 *   replayed from the shared event log, then fed by its producer over this instance's channel; when the
 *   producer is gone (its channel has no subscriber), each request the stream still owed an answer gets
 *   a JSON-RPC error instead of silence;
 * - a session ended on one instance (DELETE, expiry) is closed on every other.
 */

import { ErrorCode, isRequestId, type JsonRpcMessage, type RequestId } from "../jsonrpc/messages.js";
import { channels, type MessageBus } from "../mcp/message-bus.js";
import { fromBase64Url, toBase64Url, utf8Bytes, utf8Text } from "../util/base64.js";
import { unref } from "../util/timers.js";
import type { HttpSession } from "./http-session.js";
import type { SseWriter } from "./sse-writer.js";

/** How long a resuming instance waits for the producer of a stream to say whether it is still open. */
const PROBE_TIMEOUT_MS = 3000;
/** How often a stream fed from another instance checks that its producer is still there. */
const LIVENESS_MS = 5000;
/** Longest encoded request-id list a stream id carries (a batch of long ids goes without). */
const MAX_IDS_LENGTH = 256;

/** What travels on a session's channel. */
type SessionMessage =
  | { kind: "deliver"; from: string; messages: JsonRpcMessage[] }
  | { kind: "standalone"; from: string; eventId: string; message: JsonRpcMessage }
  /** The GET stream was written what `to` sent as `eventIds`: `to` holds them no longer. */
  | { kind: "relayed"; from: string; to: string; eventIds: string[] }
  /** A GET stream opened at `from`: fresh (held messages are sent again) or resumed (they were replayed). */
  | { kind: "opened"; from: string; fresh: boolean }
  | { kind: "end"; from: string }
  | { kind: "state"; from: string; logLevel: string | undefined };

/** What travels on an instance's channel. */
type InstanceMessage =
  | { kind: "probe"; session: string; stream: string; reply: string }
  | { kind: "probed"; stream: string; open: boolean }
  | { kind: "event"; stream: string; eventId: string; message: JsonRpcMessage };

/** This instance's part: its sessions' subscriptions, the streams it feeds from elsewhere. */
export class SharedSessions {
  /** This instance among the others: in its request ids, its stream ids, its channel's name. */
  readonly tag = randomTag();
  /** Prefix of the ids of requests this instance sends to clients. */
  readonly requestIdPrefix = `${this.tag}.`;
  readonly #subscriptions = new Map<HttpSession, Promise<() => void> | (() => void)>();
  readonly #probes = new Map<string, (open: boolean) => void>();
  readonly #fed = new Map<string, FedStream>();
  #unsubscribe: Promise<() => void> | (() => void) | undefined;

  constructor(
    private readonly bus: MessageBus,
    /** This instance's live session with this id. */
    private readonly live: (id: string) => HttpSession | undefined,
    private readonly report: (error: unknown) => void,
  ) {}

  /** Listens on this instance's channel; settles once subscribed. */
  start(): Promise<void> | undefined {
    const subscribed = this.bus.subscribe(channels.instance(this.tag), (m) =>
      this.#onInstance(m as InstanceMessage),
    );
    this.#unsubscribe = subscribed;
    return subscribed instanceof Promise ? subscribed.then(() => {}) : undefined;
  }

  close(): void {
    settle(this.#unsubscribe, this.report);
    for (const session of [...this.#subscriptions.keys()]) this.release(session);
    for (const stream of this.#fed.values()) stream.writer.close();
    this.#fed.clear();
  }

  /**
   * A stream id of `session` made here: `<session>/<instance>.<n>`, then the request ids it answers when
   * they fit (so that another instance can answer them if this one dies).
   */
  streamId(sessionId: string, n: number, ids: readonly RequestId[]): string {
    const encoded = toBase64Url(utf8Bytes(JSON.stringify(ids)));
    const base = `${sessionId}/${this.tag}.${n}`;
    return encoded.length <= MAX_IDS_LENGTH ? `${base}.${encoded}` : base;
  }

  /** Subscribes to `session`'s channel while this instance holds it; settles once subscribed. */
  hold(session: HttpSession): Promise<void> | undefined {
    if (this.#subscriptions.has(session)) return undefined;
    const subscribed = this.bus.subscribe(channels.session(session.id), (m) =>
      this.#onSession(session, m as SessionMessage),
    );
    this.#subscriptions.set(session, subscribed);
    return subscribed instanceof Promise ? subscribed.then(() => {}) : undefined;
  }

  release(session: HttpSession): void {
    const subscription = this.#subscriptions.get(session);
    if (subscription === undefined) return;
    this.#subscriptions.delete(session);
    settle(subscription, this.report);
  }

  /** Tells every other instance holding `session` its new state (logging/setLevel); settles once sent. */
  changed(session: HttpSession): Promise<void> | undefined {
    const sent = this.bus.publish(channels.session(session.id), {
      kind: "state",
      from: this.tag,
      logLevel: session.logLevel,
    } satisfies SessionMessage);
    return sent instanceof Promise ? sent.then(() => {}) : undefined;
  }

  /** Tells every other instance holding `sessionId` that it ended; settles once the bus took it. */
  end(sessionId: string): Promise<void> | undefined {
    const sent = this.bus.publish(channels.session(sessionId), {
      kind: "end",
      from: this.tag,
    } satisfies SessionMessage);
    return sent instanceof Promise ? sent.then(() => {}) : undefined;
  }

  /**
   * A POST's messages (responses and notifications only) of which some are for another instance: those
   * go out on the session's channel; settles to the rest, once the bus has taken them.
   */
  route(session: HttpSession, messages: unknown[]): Promise<unknown[]> | undefined {
    const served = session.serverSession;
    if (!served) return undefined;
    const here: unknown[] = [];
    const elsewhere: JsonRpcMessage[] = [];
    for (const m of messages) (served.holds(m) ? here : elsewhere).push(m as JsonRpcMessage);
    if (elsewhere.length === 0) return undefined;
    const sent = this.bus.publish(channels.session(session.id), {
      kind: "deliver",
      from: this.tag,
      messages: elsewhere,
    } satisfies SessionMessage);
    return Promise.resolve(sent).then(() => here);
  }

  /** A message for `session`'s GET stream, which is not open here: to the instance where it is. */
  standalone(session: HttpSession, eventId: string, message: JsonRpcMessage): void {
    this.#publish(channels.session(session.id), { kind: "standalone", from: this.tag, eventId, message });
  }

  /** The GET stream open here wrote `eventIds`, which instance `to` sent: it can stop holding them. */
  relayed(session: HttpSession, to: string, eventIds: string[]): void {
    this.#publish(channels.session(session.id), { kind: "relayed", from: this.tag, to, eventIds });
  }

  /** `session`'s GET stream opened here: what others hold for it comes again (fresh) or goes (resumed). */
  opened(session: HttpSession, fresh: boolean): void {
    this.#publish(channels.session(session.id), { kind: "opened", from: this.tag, fresh });
  }

  /** An event of a stream whose client now reads it on instance `to`. */
  forward(to: string, stream: string, eventId: string, message: JsonRpcMessage): void {
    this.#publish(channels.instance(to), { kind: "event", stream, eventId, message });
  }

  /** Whether `streamId` was made by another instance: then `resume` takes it over. */
  elsewhere(streamId: string): boolean {
    return parseStreamId(streamId)?.tag !== this.tag;
  }

  /**
   * Feeds `writer` (a resumed stream, replayed up to `lastId`) with the rest of a stream produced on
   * another instance: its further events while that instance lives, else an error for each request
   * the stream still owed an answer. `written`: the event ids the replay wrote; `answered`: the request
   * ids whose responses it held; `lastId`: the id of the last event it wrote.
   */
  async resume(
    session: HttpSession,
    streamId: string,
    writer: SseWriter,
    written: Set<string>,
    answered: Set<RequestId>,
    lastId: string,
  ): Promise<void> {
    const parsed = parseStreamId(streamId);
    const owed = (parsed?.ids ?? []).filter((id) => !answered.has(id));
    if (!parsed || owed.length === 0) {
      writer.close();
      return;
    }
    const fed = new FedStream(session, streamId, writer, written, new Set(owed), lastId, this);
    this.#fed.get(streamId)?.writer.close();
    this.#fed.set(streamId, fed);
    writer.onclose = () => this.unfeed(fed);
    const open = await this.#probe(session.id, streamId, parsed.tag);
    if (!open) return fed.failOwed();
    await fed.catchUp();
    fed.watch(() => this.#probe(session.id, streamId, parsed.tag));
  }

  /** Forgets a fed stream (its client went away, or it ended); its writer is closed by whoever ended it. */
  unfeed(fed: FedStream): void {
    fed.stop();
    if (this.#fed.get(fed.streamId) === fed) this.#fed.delete(fed.streamId);
  }

  /**
   * Asks instance `tag` whether it still produces `streamId` (and to send its further events here).
   * False when no instance listens on its channel (it died) or it does not answer in time.
   */
  async #probe(sessionId: string, streamId: string, tag: string): Promise<boolean> {
    const answer = new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), PROBE_TIMEOUT_MS);
      unref(timer);
      this.#probes.set(streamId, (open) => {
        clearTimeout(timer);
        resolve(open);
      });
    });
    try {
      const reached = await this.bus.publish(channels.instance(tag), {
        kind: "probe",
        session: sessionId,
        stream: streamId,
        reply: this.tag,
      } satisfies InstanceMessage);
      if (reached === 0) this.#probes.get(streamId)?.(false);
    } catch (error) {
      this.report(error);
      this.#probes.get(streamId)?.(false);
    }
    try {
      return await answer;
    } finally {
      this.#probes.delete(streamId);
    }
  }

  #onInstance(message: InstanceMessage): void {
    switch (message.kind) {
      case "probe": {
        const session = this.live(message.session);
        const open = session?.feedElsewhere(message.stream, message.reply) ?? false;
        this.#publish(channels.instance(message.reply), { kind: "probed", stream: message.stream, open });
        return;
      }
      case "probed":
        this.#probes.get(message.stream)?.(message.open);
        return;
      case "event":
        this.#fed.get(message.stream)?.event(message.eventId, message.message);
        return;
    }
  }

  #onSession(session: HttpSession, message: SessionMessage): void {
    if (message.from === this.tag) return;
    switch (message.kind) {
      case "deliver": {
        const mine = message.messages.filter((m) => session.serverSession?.holds(m));
        if (mine.length > 0) session.deliverRouted(mine);
        return;
      }
      case "standalone":
        session.standaloneFromElsewhere(message.eventId, message.message, message.from);
        return;
      case "relayed":
        if (message.to === this.tag) session.standaloneRelayed(message.eventIds);
        return;
      case "opened":
        session.standaloneOpenedElsewhere(message.fresh);
        return;
      case "end":
        session.endedElsewhere();
        return;
      case "state":
        session.changedElsewhere(message.logLevel);
        return;
    }
  }

  #publish(channel: string, message: SessionMessage | InstanceMessage): void {
    try {
      const sent = this.bus.publish(channel, message);
      if (sent instanceof Promise) sent.catch(this.report);
    } catch (error) {
      this.report(error);
    }
  }
}

/**
 * A resumed stream this instance writes for a client, produced by another: replayed from the event log,
 * then fed with the producer's further events (each written once, by event id) until every request it
 * owed has its response.
 */
class FedStream {
  /** Events that came from the producer before the catch-up replay was done. */
  #early: [string, JsonRpcMessage][] | undefined = [];
  #timer: ReturnType<typeof setInterval> | undefined;
  #done = false;

  constructor(
    readonly session: HttpSession,
    readonly streamId: string,
    readonly writer: SseWriter,
    private readonly written: Set<string>,
    private readonly owed: Set<RequestId>,
    private lastId: string,
    private readonly shared: SharedSessions,
  ) {}

  /** An event from the producer. */
  event(eventId: string, message: JsonRpcMessage): void {
    if (this.#early) this.#early.push([eventId, message]);
    else this.#write(eventId, message);
  }

  /** What the log got between the first replay and the producer starting to send here, then what it sent. */
  async catchUp(): Promise<void> {
    try {
      await this.session.env.store.replayAfter(this.lastId, async (id, message) =>
        this.#write(id, message as JsonRpcMessage),
      );
    } catch (error) {
      this.session.env.report(error);
    }
    const early = this.#early ?? [];
    this.#early = undefined;
    for (const [id, message] of early) this.#write(id, message);
  }

  /** Checks now and then that the producer is still there; fails what is owed when it is not. */
  watch(alive: () => Promise<boolean>): void {
    if (this.#done) return;
    this.#timer = setInterval(() => {
      alive().then(
        (open) => {
          if (!open && !this.#done) void this.failOwed();
        },
        () => {},
      );
    }, LIVENESS_MS);
    unref(this.#timer);
  }

  stop(): void {
    this.#done = true;
    clearInterval(this.#timer);
  }

  /**
   * The producer is gone: whatever the log got since is written, then each request still owed gets an
   * error (stored, so that a client resuming again gets it too). The request may or may not have taken
   * effect: its handler stopped with the instance that ran it.
   */
  async failOwed(): Promise<void> {
    await this.catchUp();
    for (const id of [...this.owed]) {
      const message: JsonRpcMessage = {
        jsonrpc: "2.0",
        id,
        error: {
          code: ErrorCode.ConnectionClosed,
          message:
            "the server instance serving this request stopped before answering it; it may or may not have taken effect",
        },
      };
      try {
        const eventId = await this.session.env.store.append(this.streamId, message);
        this.#write(eventId, message);
      } catch (error) {
        this.session.env.report(error);
        this.#end();
        return;
      }
    }
  }

  #write(eventId: string, message: JsonRpcMessage): void {
    if (this.#done || this.written.has(eventId)) return;
    this.written.add(eventId);
    this.lastId = eventId;
    this.writer.event(JSON.stringify(message), { id: eventId });
    const m = message as { id?: unknown; method?: unknown };
    if (m.method === undefined && isRequestId(m.id)) this.owed.delete(m.id);
    if (this.owed.size === 0) this.#end();
  }

  #end(): void {
    if (this.#done) return;
    this.stop();
    this.shared.unfeed(this);
    this.writer.close();
  }
}

/** The instance that made a stream, and the request ids it answers (when its id carries them). */
function parseStreamId(streamId: string): { tag: string; ids: RequestId[] | undefined } | undefined {
  const slash = streamId.lastIndexOf("/");
  const [tag, , encoded] = streamId.slice(slash + 1).split(".");
  if (!tag) return undefined;
  if (encoded === undefined) return { tag, ids: undefined };
  try {
    const bytes = fromBase64Url(encoded);
    const ids: unknown = bytes && JSON.parse(utf8Text(bytes));
    return Array.isArray(ids) && ids.every(isRequestId) ? { tag, ids } : { tag, ids: undefined };
  } catch {
    return { tag, ids: undefined };
  }
}

function settle(subscription: Promise<() => void> | (() => void) | undefined, report: (e: unknown) => void) {
  if (subscription === undefined) return;
  if (subscription instanceof Promise) subscription.then((unsubscribe) => unsubscribe(), report);
  else subscription();
}

function randomTag(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(6));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}
