/** Sessions by id with idle expiry, a bound and least-recently-used eviction; their ids. */

import { type Linked, LinkedSet } from "../util/collections.js";
import { unref } from "../util/timers.js";
import { HttpError } from "./http-error.js";

export const DEFAULT_SESSION_TTL_MS = 30 * 60_000;
export const DEFAULT_MAX_SESSIONS = 10_000;

export interface Expirable extends Linked<Expirable> {
  readonly id: string;
  /** Nothing in flight and no open stream: the session may be closed without loss. */
  readonly idle: boolean;
  lastActive: number;
  close(): Promise<void>;
}

/**
 * Sessions by id, linked in least-recently-used order (a touch relinks, nothing is rehashed), so
 * eviction and expiry scan from the oldest. Bounded by `max`; idle ones expire after `ttlMs`.
 */
export class SessionRegistry<S extends Expirable> {
  readonly #sessions = new Map<string, S>();
  readonly #recent = new LinkedSet<Expirable>();
  #timer: ReturnType<typeof setInterval> | undefined;

  constructor(
    private readonly options: { ttlMs: number; max: number; now: () => number },
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

  /** Makes room for one more: evicts the least recently used idle session, or answers 503 if none is. */
  reserve(): void {
    if (this.#sessions.size < this.options.max) return;
    const victim = this.#oldestIdle();
    if (!victim) throw new HttpError(503, "Service Unavailable: too many sessions", { "retry-after": "5" });
    this.#drop(victim);
  }

  add(session: S): void {
    const old = this.#sessions.get(session.id);
    if (old && old !== session) this.#recent.delete(old);
    this.#sessions.set(session.id, session);
    session.lastActive = this.options.now();
    this.#recent.add(session);
    this.#arm();
  }

  delete(session: S): void {
    if (this.#sessions.get(session.id) === session) {
      this.#sessions.delete(session.id);
      this.#recent.delete(session);
    }
    if (this.#sessions.size === 0) this.#disarm();
  }

  /** Closes idle sessions unused for longer than the TTL. Bounded by the number of sessions. */
  sweep(): void {
    const cutoff = this.options.now() - this.options.ttlMs;
    for (const session of this.#recent.oldestFirst() as S[]) {
      if (session.lastActive > cutoff) break; // LRU order: everything after is newer
      if (session.idle) this.#drop(session);
    }
  }

  async closeAll(): Promise<void> {
    this.#disarm();
    const all = this.#recent.values() as S[];
    for (const session of all) this.#recent.delete(session);
    this.#sessions.clear();
    await Promise.all(all.map((session) => session.close().catch(this.onError)));
  }

  #oldestIdle(): S | undefined {
    for (let session = this.#recent.oldest; session; session = session.linkPrev) {
      if (session.idle) return session as S;
    }
    return undefined;
  }

  #drop(session: S): void {
    this.delete(session);
    session.close().catch(this.onError);
  }

  /** A periodic sweep while sessions exist, at a fraction of the TTL (between 1 s and 1 min). */
  #arm(): void {
    if (this.#timer) return;
    const every = Math.min(Math.max(this.options.ttlMs / 4, 1000), 60_000);
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
