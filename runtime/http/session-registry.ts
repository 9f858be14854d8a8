/**
 * Sessions by id, kept fairly: a bound overall and per client, idle expiry, quick expiry of sessions that
 * never got past initialize; their ids.
 */

import { type Linked, LinkedSet } from "../util/collections.js";
import { unref } from "../util/timers.js";
import { HttpError } from "./http-error.js";

export const DEFAULT_SESSION_TTL_MS = 30 * 60_000;
export const DEFAULT_MAX_SESSIONS = 10_000;
/** How long a session may stay without any request after its initialize (its client never came back). */
export const DEFAULT_PENDING_SESSION_TTL_MS = 10_000;

export interface Expirable extends Linked<Expirable> {
  readonly id: string;
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

/** A fresh header object per refusal: nothing module-level is mutable. */
const retryAfter = () => ({ "retry-after": "5" });

/**
 * Sessions by id, linked in least-recently-used order (a touch relinks, nothing is rehashed), so
 * expiry scans from the oldest. The policy that keeps a flood of unauthenticated initialize calls from
 * taking sessions that are in use:
 * - a session that never got a request after its initialize is pending and expires after
 *   `pendingTtlMs` (10 s by default); established ones after `ttlMs` idle (30 min);
 * - at `max`, a new session takes the place of the oldest pending idle one; an established session is
 *   never evicted: with none pending the new one is refused, 503 with Retry-After;
 * - at `maxPerClient` for its client, likewise within that client's sessions, else 429 with Retry-After.
 */
export class SessionRegistry<S extends Expirable> {
  readonly #sessions = new Map<string, S>();
  readonly #recent = new LinkedSet<Expirable>();
  readonly #perClient = new Map<string, number>();
  #timer: ReturnType<typeof setInterval> | undefined;

  constructor(
    private readonly options: SessionPolicy,
    private readonly onError: (error: unknown) => void,
  ) {}

  get size(): number {
    return this.#sessions.size;
  }

  get(id: string): S | undefined {
    return this.#sessions.get(id);
  }

  values(): S[] {
    return [...this.#sessions.values()];
  }

  /** Marks the session used now and most recent (a session no longer held is left alone). */
  touch(session: S): void {
    if (this.#sessions.get(session.id) !== session) return;
    session.lastActive = this.options.now();
    this.#recent.touch(session);
  }

  /** Sessions `client` holds now. */
  countOf(client: string): number {
    return this.#perClient.get(client) ?? 0;
  }

  /**
   * Makes room for one more session of `client`: within the client's bound, then the overall one, the
   * oldest pending idle session gives way; established sessions never do (429 / 503 instead).
   */
  reserve(client?: string): void {
    if (client !== undefined && this.countOf(client) >= this.options.maxPerClient) {
      const victim = this.#oldestPending(client);
      if (!victim) {
        throw new HttpError(429, "Too Many Requests: this client holds too many sessions", retryAfter());
      }
      this.#drop(victim);
    }
    if (this.#sessions.size < this.options.max) return;
    const victim = this.#oldestPending();
    if (!victim) throw new HttpError(503, "Service Unavailable: too many sessions", retryAfter());
    this.#drop(victim);
  }

  add(session: S): void {
    const old = this.#sessions.get(session.id);
    if (old && old !== session) this.delete(old);
    this.#sessions.set(session.id, session);
    if (session.client !== undefined) this.#perClient.set(session.client, this.countOf(session.client) + 1);
    session.lastActive = this.options.now();
    this.#recent.add(session);
    this.#arm();
  }

  delete(session: S): void {
    if (this.#sessions.get(session.id) === session) {
      this.#sessions.delete(session.id);
      this.#recent.delete(session);
      const client = session.client;
      if (client !== undefined) {
        const left = this.countOf(client) - 1;
        if (left > 0) this.#perClient.set(client, left);
        else this.#perClient.delete(client);
      }
    }
    if (this.#sessions.size === 0) this.#disarm();
  }

  /**
   * Closes idle sessions unused for longer than their TTL: pending ones after `pendingTtlMs`, established
   * ones after `ttlMs`. Bounded by the number of sessions.
   */
  sweep(): void {
    const now = this.options.now();
    const cutoff = now - this.options.ttlMs;
    const pendingCutoff = now - this.options.pendingTtlMs;
    for (const session of this.#recent.oldestFirst() as S[]) {
      // LRU order: after the first session newer than both cutoffs, nothing is due.
      if (session.lastActive > pendingCutoff && session.lastActive > cutoff) break;
      if (!session.idle) continue;
      if (session.lastActive <= cutoff || (!session.established && session.lastActive <= pendingCutoff))
        this.#drop(session);
    }
  }

  async closeAll(): Promise<void> {
    this.#disarm();
    const all = this.#recent.values() as S[];
    for (const session of all) this.#recent.delete(session);
    this.#sessions.clear();
    await Promise.all(all.map((session) => session.close().catch(this.onError)));
  }

  /** The least recently used idle session that never got past initialize (of `client`, if given). */
  #oldestPending(client?: string): S | undefined {
    for (let session = this.#recent.oldest; session; session = session.linkPrev) {
      if (!session.established && session.idle && (client === undefined || session.client === client))
        return session as S;
    }
    return undefined;
  }

  #drop(session: S): void {
    this.delete(session);
    session.close().catch(this.onError);
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

/**
 * A session id: a random UUID's 122 random bits as 32 hex digits, visible ASCII as the spec requires.
 * Node builds a UUID by concatenation, a tree of some 16 string pieces (over 500 bytes) that every
 * session would keep; dropping the dashes copies it into one flat 32-character string.
 */
export function newSessionId(): string {
  return crypto.randomUUID().replaceAll("-", "");
}
