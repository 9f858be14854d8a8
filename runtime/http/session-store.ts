/**
 * Where the records of Streamable HTTP sessions are kept: what a session is apart from its live objects
 * (open SSE streams, requests in flight), so that a store shared by several instances can hold it. The
 * session registry writes every record through a SessionStore and asks it for the bounds and expiry it
 * enforces; the in-memory store keeps the records of one process, in least-recently-active order.
 */

import { type Linked, LinkedSet } from "../util/collections.js";

import type { MaybePromise } from "../util/maybe-promise.js";

export type { MaybePromise };

/** What is known of a session apart from its live objects. */
export interface SessionRecord {
  readonly id: string;
  /** Who opened it (a remote address, an authenticated subject), for the per-client bound; undefined: not counted. */
  readonly client?: string | undefined;
  /** The authenticated subject it is bound to: requests of anyone else find no such session. */
  readonly owner?: string | undefined;
  /** A request named it after its initialize; until then it is pending (and expires sooner). */
  established: boolean;
  /** Its last request, ms since the epoch. */
  lastActive: number;
  /** The version its initialize negotiated (undefined until then). */
  readonly protocolVersion?: string | undefined;
  /** What its initialize said of the client (undefined until then). */
  readonly clientInfo?: unknown;
  readonly clientCapabilities?: unknown;
  /** The level its client set with logging/setLevel (undefined: the default). */
  readonly logLevel?: string | undefined;
}

/**
 * Session records by id. Every method may answer at once or with a promise; a shared store answers with
 * promises and the registry waits for them where an answer depends on them (a new session is not
 * acknowledged before `put` has stored it).
 */
export interface SessionStore<R extends SessionRecord = SessionRecord> {
  /**
   * Other instances see these records (a store in Redis). The handler then serves a session it does not
   * hold from its record, routes what belongs to another instance over the server's MessageBus, keeps
   * records when it drains, and ends a session everywhere on DELETE or expiry. Absent: this process only.
   */
  readonly shared?: boolean;
  /** Sessions held overall (the `maxSessions` bound). */
  size(): MaybePromise<number>;
  /** Sessions `client` holds (the `maxSessionsPerClient` bound). */
  countOf(client: string): MaybePromise<number>;
  get(id: string): MaybePromise<R | undefined>;
  /** Stores a new record (or replaces the one with its id), as the most recently active. */
  put(record: R): MaybePromise<void>;
  /** The record's `lastActive` and `established` changed: store them; it becomes the most recently active. */
  touch(record: R): MaybePromise<void>;
  /** Forgets a record (unknown ids are ignored). */
  delete(id: string): MaybePromise<void>;
  /**
   * The least recently active pending record (not established) that `evictable` accepts, of `client`
   * when given: the one that gives way to a new session when a bound is reached.
   */
  oldestPending(client: string | undefined, evictable: (record: R) => boolean): MaybePromise<R | undefined>;
  /**
   * Records due to expire, least recently active first: established ones active last at or before
   * `cutoff`, pending ones at or before `pendingCutoff`.
   */
  due(cutoff: number, pendingCutoff: number): MaybePromise<R[]>;
  /**
   * Optional: `put` only within the bounds, checked and stored at once (a shared store: of instances
   * admitting at once, no more than the bounds get "stored"). The registry uses it when present and
   * refuses a new session the store says is over a bound, after it made room by evicting.
   */
  putWithin?(
    record: R,
    bounds: { max?: number; maxPerClient?: number },
  ): MaybePromise<"stored" | "full" | "client-full">;
  /** Optional: whether the store can serve now (a readiness probe asks; absent: always). */
  healthy?(): MaybePromise<boolean>;
}

/** A record the in-memory store can link in its recency list. */
export type LinkedRecord = SessionRecord & Linked<LinkedRecord>;

/**
 * Records by id in one process, linked in least-recently-active order (a touch relinks, nothing is
 * rehashed), with a count per client. It keeps the records it is given, not copies: the registry's
 * sessions are their own records, so a touch costs what it did before records had a store.
 */
export class InMemorySessionStore<R extends LinkedRecord = LinkedRecord> implements SessionStore<R> {
  readonly #records = new Map<string, R>();
  readonly #recent = new LinkedSet<LinkedRecord>();
  readonly #perClient = new Map<string, number>();

  size(): number {
    return this.#records.size;
  }

  countOf(client: string): number {
    return this.#perClient.get(client) ?? 0;
  }

  get(id: string): R | undefined {
    return this.#records.get(id);
  }

  put(record: R): void {
    const old = this.#records.get(record.id);
    if (old === record) {
      this.#recent.touch(record);
      return;
    }
    if (old) this.delete(old.id);
    this.#records.set(record.id, record);
    if (record.client !== undefined) this.#perClient.set(record.client, this.countOf(record.client) + 1);
    this.#recent.add(record);
  }

  touch(record: R): void {
    // A record no longer held (deleted meanwhile, or replaced) is left alone.
    if (this.#records.get(record.id) === record) this.#recent.touch(record);
  }

  delete(id: string): void {
    const record = this.#records.get(id);
    if (!record) return;
    this.#records.delete(id);
    this.#recent.delete(record);
    const client = record.client;
    if (client === undefined) return;
    const left = this.countOf(client) - 1;
    if (left > 0) this.#perClient.set(client, left);
    else this.#perClient.delete(client);
  }

  oldestPending(client: string | undefined, evictable: (record: R) => boolean): R | undefined {
    for (let record = this.#recent.oldest; record; record = record.linkPrev) {
      if (record.established || (client !== undefined && record.client !== client)) continue;
      if (evictable(record as R)) return record as R;
    }
    return undefined;
  }

  due(cutoff: number, pendingCutoff: number): R[] {
    const out: R[] = [];
    for (let record = this.#recent.oldest; record; record = record.linkPrev) {
      // Least recently active first: after the first record newer than both cutoffs, nothing is due.
      if (record.lastActive > pendingCutoff && record.lastActive > cutoff) break;
      if (record.lastActive <= cutoff || (!record.established && record.lastActive <= pendingCutoff))
        out.push(record as R);
    }
    return out;
  }

  healthy(): boolean {
    return true;
  }
}
