/**
 * Sessions by id, kept fairly: a bound overall and per client, idle expiry, quick expiry of sessions that
 * never got past initialize; their ids. Their records go through a SessionStore (session-store.ts).
 */

import type { Linked } from "../util/collections.js";
import { unref } from "../util/timers.js";
import { HttpError } from "./http-error.js";
import {
  InMemorySessionStore,
  type MaybePromise,
  type SessionRecord,
  type SessionStore,
} from "./session-store.js";

export const DEFAULT_SESSION_TTL_MS = 30 * 60_000;
export const DEFAULT_MAX_SESSIONS = 10_000;
/** How long a session may stay without any request after its initialize (its client never came back). */
export const DEFAULT_PENDING_SESSION_TTL_MS = 10_000;

export interface Expirable extends SessionRecord, Linked<Expirable> {
  /** Nothing in flight and no open stream: the session may be closed without loss. */
  readonly idle: boolean;
  /**
   * The client came back with the session id after initialize (any request naming it): the session is
   * in use. Until then it is pending, and never more than an initialize call anyone can make.
   */
  established: boolean;
  /** Who opened it (a remote address, an authenticated subject), for the per-client bound. */
  client?: string | undefined;
  lastActive: number;
  /** Ended for good (DELETE, expiry, eviction): with a shared store, its record goes too. */
  readonly ended?: boolean;
  close(): Promise<void>;
}

export interface SessionPolicy {
  /** Established sessions idle this long are closed. */
  ttlMs: number;
  /** Pending sessions (no request since initialize) idle this long are closed. */
  pendingTtlMs: number;
  /** Sessions held at most. */
  max: number;
  /** Sessions one client holds at most. */
  maxPerClient: number;
  now: () => number;
}

/** With a shared store, a session's activity is written at most this often (expiry is minutes-scale). */
const TOUCH_EVERY_MS = 1000;

/** How long a new session held by another instance may still be answering its initialize. */
const IN_FLIGHT_MS = 5000;

/** A fresh header object per refusal: nothing module-level is mutable. */
const retryAfter = () => ({ "retry-after": "5" });

/**
 * The live sessions of this process by id, their records kept in a SessionStore (by default in memory,
 * in least-recently-used order), and the policy that keeps a flood of unauthenticated initialize calls
 * from taking sessions that are in use:
 * - a session that never got a request after its initialize is pending and expires after
 *   `pendingTtlMs` (10 s by default); established ones after `ttlMs` idle (30 min);
 * - at `max`, a new session takes the place of the oldest pending idle one; an established session is
 *   never evicted: with none pending the new one is refused, 503 with Retry-After;
 * - at `maxPerClient` for its client, likewise within that client's sessions, else 429 with Retry-After.
 * A store that answers later (shared by instances) is waited for where an answer depends on it; its
 * failures on touch and delete are reported, not thrown at the request.
 */
export class SessionRegistry<S extends Expirable> {
  readonly #live = new Map<string, S>();
  /** With a shared store: when each session's activity was last written, and as what. */
  readonly #touched = new WeakMap<S, { at: number; established: boolean }>();
  /** Sessions ended here whose records are being deleted, by id. */
  readonly #forgetting = new Map<string, Promise<void>>();
  readonly #store: SessionStore<SessionRecord>;
  #timer: ReturnType<typeof setInterval> | undefined;
  /** Whether an idle record may give way: a live one here only when idle (others are held elsewhere). */
  readonly #evictable = (record: SessionRecord) => {
    const held = this.#live.get(record.id);
    if (held) return held.idle;
    // Held elsewhere: one whose initialize is not answered yet may be in flight there (not idle).
    return record.protocolVersion !== undefined || record.lastActive <= this.options.now() - IN_FLIGHT_MS;
  };

  /** The store's records are seen by other instances (see SessionStore.shared). */
  readonly shared: boolean;

  constructor(
    private readonly options: SessionPolicy,
    private readonly onError: (error: unknown) => void,
    store?: SessionStore,
    /** A session ended for good here whose record was shared: other instances close theirs. */
    private readonly onEnded: (id: string) => MaybePromise<void> = () => {},
  ) {
    // In memory, the sessions are their own records (linked in its recency list), as before the store.
    this.#store = store ?? (new InMemorySessionStore() as SessionStore);
    this.shared = this.#store.shared === true;
  }

  /** Sessions live in this process. */
  get size(): number {
    return this.#live.size;
  }

  get store(): SessionStore<SessionRecord> {
    return this.#store;
  }

  get(id: string): S | undefined {
    return this.#live.get(id);
  }

  values(): S[] {
    return [...this.#live.values()];
  }

  /** Marks the session used now and most recent (a session no longer held is left alone). */
  touch(session: S): void {
    if (this.#live.get(session.id) !== session) return;
    const now = this.options.now();
    session.lastActive = now;
    if (this.shared) {
      // Written behind: at most once a second per session, unless it just became established.
      const last = this.#touched.get(session);
      if (last && last.established === session.established && now - last.at < TOUCH_EVERY_MS) return;
      this.#touched.set(session, { at: now, established: session.established });
    }
    this.#settle(this.#store.touch(session));
  }

  /** Sessions `client` holds now. */
  countOf(client: string): MaybePromise<number> {
    return this.#store.countOf(client);
  }

  /**
   * Makes room for one more session of `client`: within the client's bound, then the overall one, the
   * oldest pending idle session gives way; established sessions never do (429 / 503 instead).
   */
  reserve(client?: string): MaybePromise<void> {
    if (client === undefined || this.options.maxPerClient === Number.POSITIVE_INFINITY)
      return this.#reserveOverall();
    return then(this.#store.countOf(client), (count) => {
      if (count < this.options.maxPerClient) return this.#reserveOverall();
      return then(this.#store.oldestPending(client, this.#evictable), (victim) => {
        if (!victim) {
          throw new HttpError(429, "Too Many Requests: this client holds too many sessions", retryAfter());
        }
        return then(this.#drop(victim), () => this.#reserveOverall());
      });
    });
  }

  #reserveOverall(): MaybePromise<void> {
    return then(this.#store.size(), (size) => {
      if (size < this.options.max) return;
      return then(this.#store.oldestPending(undefined, this.#evictable), (victim) => {
        if (!victim) throw new HttpError(503, "Service Unavailable: too many sessions", retryAfter());
        return this.#drop(victim);
      });
    });
  }

  /**
   * Holds `session`, made here from a record the store already has (another instance's session): not
   * stored again.
   */
  hold(session: S): void {
    this.#live.set(session.id, session);
    session.lastActive = this.options.now();
    this.#arm();
  }

  /** Stores the record of a session held here again (its state changed); settles once stored. */
  keep(session: S): MaybePromise<void> {
    // In memory the session is its own record: nothing to store again.
    if (!this.shared || this.#live.get(session.id) !== session) return;
    return this.#store.put(session);
  }

  /** Holds `session` and stores its record; settles once the store has it. */
  add(session: S): MaybePromise<void> {
    const old = this.#live.get(session.id);
    if (old && old !== session) this.delete(old);
    this.#live.set(session.id, session);
    session.lastActive = this.options.now();
    this.#arm();
    const store = this.#store;
    if (!store.putWithin) return store.put(session);
    // Checked and stored at once: another instance may have taken the room `reserve` made.
    const bounds = { max: this.options.max, maxPerClient: this.options.maxPerClient };
    return then(store.putWithin(session, bounds), (stored) => {
      if (stored === "stored") return;
      if (this.#live.get(session.id) === session) this.#live.delete(session.id);
      throw stored === "client-full"
        ? new HttpError(429, "Too Many Requests: this client holds too many sessions", retryAfter())
        : new HttpError(503, "Service Unavailable: too many sessions", retryAfter());
    });
  }

  /**
   * Forgets a session closed here. Its record goes with it unless the store is shared and the session
   * only closed in this instance (drain, idle here, ended elsewhere): others may go on serving it.
   */
  delete(session: S): void {
    if (this.#live.get(session.id) === session) {
      this.#live.delete(session.id);
      if (!this.shared || session.ended) this.#settle(this.#forget(session.id));
    }
    if (this.#live.size === 0) this.#disarm();
  }

  /**
   * Settles once a session that ended here is gone from the store and (shared) every instance was told:
   * a DELETE is answered after that.
   */
  forgotten(id: string): Promise<void> | undefined {
    return this.#forgetting.get(id);
  }

  /** Deletes a record; when shared, every instance holding its session closes it. */
  #forget(id: string): MaybePromise<void> {
    const deleted = this.#store.delete(id);
    const ended = this.shared ? then(deleted, () => this.onEnded(id)) : deleted;
    if (!(ended instanceof Promise)) return ended;
    const tracked = ended.finally(() => this.#forgetting.delete(id));
    this.#forgetting.set(id, tracked);
    return tracked;
  }

  /**
   * Closes idle sessions unused for longer than their TTL: pending ones after `pendingTtlMs`, established
   * ones after `ttlMs`. Bounded by the number of sessions.
   */
  sweep(): void {
    const now = this.options.now();
    if (this.shared) this.#sweepHere(now);
    const due = this.#store.due(now - this.options.ttlMs, now - this.options.pendingTtlMs);
    this.#settle(
      then(due, (records) => {
        for (const record of records) if (this.#evictable(record)) this.#settle(this.#drop(record));
      }),
    );
  }

  /**
   * With a shared store: sessions busy here (a stream open, a request in flight) are touched, so that
   * no instance expires them as idle; sessions idle here for a while are let go (their records stay,
   * any instance takes them up again).
   */
  #sweepHere(now: number): void {
    const letGo = now - Math.max(this.options.pendingTtlMs, 60_000);
    for (const session of [...this.#live.values()]) {
      if (!session.idle) this.touch(session);
      else if (session.lastActive <= letGo && session.established) {
        this.#live.delete(session.id);
        session.close().catch(this.onError);
      }
    }
    if (this.#live.size === 0) this.#disarm();
  }

  /** Closes every session held here; their records go too unless shared (other instances serve them). */
  async closeAll(): Promise<void> {
    this.#disarm();
    const all = [...this.#live.values()];
    this.#live.clear();
    if (!this.shared) for (const session of all) this.#settle(this.#store.delete(session.id));
    await Promise.all(all.map((session) => session.close().catch(this.onError)));
  }

  /** Ends a session for good: its record goes, and its session closes wherever it is held. */
  #drop(record: SessionRecord): MaybePromise<void> {
    const session = this.#live.get(record.id);
    if (session) {
      session.close().catch(this.onError);
      this.#live.delete(session.id);
      if (this.#live.size === 0) this.#disarm();
    }
    return this.#forget(record.id);
  }

  /** A store's later answer: its failure is reported (the request it came from is not failed by it). */
  #settle(result: MaybePromise<void>): void {
    if (result instanceof Promise) result.catch(this.onError);
  }

  /** A periodic sweep while sessions exist, at a fraction of the shorter TTL (between 1 s and 1 min). */
  #arm(): void {
    if (this.#timer) return;
    const shorter = Math.min(this.options.ttlMs, this.options.pendingTtlMs);
    const every = Math.min(Math.max(shorter / 4, 1000), 60_000);
    this.#timer = setInterval(() => this.sweep(), every);
    unref(this.#timer);
  }

  #disarm(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }
}

/** `next` of a value now, at once; of a promise, once it settles: an in-memory store costs no tick. */
function then<T, U>(value: MaybePromise<T>, next: (value: T) => MaybePromise<U>): MaybePromise<U> {
  return value instanceof Promise ? value.then(next) : next(value);
}

/**
 * A session id: a random UUID's 122 random bits as 32 hex digits, visible ASCII as the spec requires.
 * Node builds a UUID by concatenation, a tree of some 16 string pieces (over 500 bytes) that every
 * session would keep; dropping the dashes copies it into one flat 32-character string.
 */
export function newSessionId(): string {
  return crypto.randomUUID().replaceAll("-", "");
}
