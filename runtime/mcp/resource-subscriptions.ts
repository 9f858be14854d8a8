/**
 * Which sessions subscribed to which resources (`resources/subscribe`, handshake era), kept where every
 * instance of a server can read it: an update raised on any instance reaches each subscribed session,
 * whichever instance its subscribe request landed on. The server records a subscription once the
 * user's `subscribe` handler accepted it, and drops it on `unsubscribe` and when the session ends.
 */

import type { MaybePromise } from "../util/maybe-promise.js";

export interface ResourceSubscriptionStore {
  /**
   * Records that session `sessionId` subscribed to `uri`: false, recording nothing, when the session
   * already holds as many subscriptions as the store keeps for one (a bound, not an error of the store).
   */
  add(sessionId: string, uri: string): MaybePromise<boolean>;
  remove(sessionId: string, uri: string): MaybePromise<void>;
  /** The sessions subscribed to `uri`, in any order. */
  subscribers(uri: string): MaybePromise<readonly string[]>;
  /** Drops every subscription of a session that ended. */
  forget(sessionId: string): MaybePromise<void>;
  /** Optional: whether the store can serve now (a readiness probe asks; absent: always). */
  healthy?(): MaybePromise<boolean>;
}

/** Default bound of one session's subscriptions: a client cannot grow the store without limit. */
export const MAX_SUBSCRIPTIONS_PER_SESSION = 1000;

/** Subscriptions in one process: both directions in Maps, so each operation is O(1) (forget: O(its URIs)). */
export class InMemoryResourceSubscriptions implements ResourceSubscriptionStore {
  readonly #byUri = new Map<string, Set<string>>();
  readonly #bySession = new Map<string, Set<string>>();

  constructor(private readonly maxPerSession = MAX_SUBSCRIPTIONS_PER_SESSION) {}

  add(sessionId: string, uri: string): boolean {
    let uris = this.#bySession.get(sessionId);
    if (uris?.has(uri)) return true;
    if ((uris?.size ?? 0) >= this.maxPerSession) return false;
    if (!uris) {
      uris = new Set();
      this.#bySession.set(sessionId, uris);
    }
    uris.add(uri);
    let sessions = this.#byUri.get(uri);
    if (!sessions) {
      sessions = new Set();
      this.#byUri.set(uri, sessions);
    }
    sessions.add(sessionId);
    return true;
  }

  remove(sessionId: string, uri: string): void {
    const uris = this.#bySession.get(sessionId);
    if (!uris?.delete(uri)) return;
    if (uris.size === 0) this.#bySession.delete(sessionId);
    this.#unlink(uri, sessionId);
  }

  subscribers(uri: string): readonly string[] {
    const sessions = this.#byUri.get(uri);
    return sessions ? [...sessions] : [];
  }

  forget(sessionId: string): void {
    const uris = this.#bySession.get(sessionId);
    if (!uris) return;
    this.#bySession.delete(sessionId);
    for (const uri of uris) this.#unlink(uri, sessionId);
  }

  /** Sessions with at least one subscription (tests, metrics). */
  get sessionCount(): number {
    return this.#bySession.size;
  }

  healthy(): boolean {
    return true;
  }

  #unlink(uri: string, sessionId: string): void {
    const sessions = this.#byUri.get(uri);
    if (sessions?.delete(sessionId) && sessions.size === 0) this.#byUri.delete(uri);
  }
}
