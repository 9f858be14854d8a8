/** Small collections for per-request paths, where a Map or Set per request shows in the profile. */

/**
 * A map for the per-request tables that hold one entry most of the time (a connection's requests in
 * flight, an HTTP session's routes): the first entry lives in two fields and a Map is made only when a
 * second one comes. A Map costs a hash table on creation and reallocates it when emptied; at tens of
 * thousands of requests per second, one per request shows. Keys compare with `===` (request ids are
 * strings and numbers, never NaN).
 */
export class SmallMap<K, V> {
  #key: K | undefined;
  #value: V | undefined;
  #one = false;
  #map: Map<K, V> | undefined;

  get size(): number {
    return this.#map ? this.#map.size : this.#one ? 1 : 0;
  }

  get(key: K): V | undefined {
    if (this.#map) return this.#map.get(key);
    return this.#one && this.#key === key ? this.#value : undefined;
  }

  has(key: K): boolean {
    return this.#map ? this.#map.has(key) : this.#one && this.#key === key;
  }

  set(key: K, value: V): void {
    if (this.#map) this.#map.set(key, value);
    else if (!this.#one || this.#key === key) {
      this.#key = key;
      this.#value = value;
      this.#one = true;
    } else {
      this.#map = new Map([[this.#key as K, this.#value as V]]);
      this.#map.set(key, value);
      this.#drop();
    }
  }

  delete(key: K): boolean {
    if (this.#map) return this.#map.delete(key);
    if (!this.#one || this.#key !== key) return false;
    this.#drop();
    return true;
  }

  /** A snapshot: entries may be deleted while it is walked. */
  values(): V[] {
    if (this.#map) return [...this.#map.values()];
    return this.#one ? [this.#value as V] : [];
  }

  #drop(): void {
    this.#key = undefined;
    this.#value = undefined;
    this.#one = false;
  }
}

/** What a LinkedSet member carries: its neighbours, set only by the LinkedSet that holds it. */
export interface Linked<T> {
  linkPrev?: T | undefined;
  linkNext?: T | undefined;
}

/**
 * A set linked through its members (each in at most one such set), kept in recency order: adding,
 * removing and `touch` (make most recent) allocate nothing and hash nothing. A Set of objects first gives
 * each object an identity hash, then rehashes as members come and go, and a Map kept in recency order by
 * delete-and-set rehashes too: for sets that change with every request (a server's sessions with a
 * session per stateless POST, open SSE streams, a registry touched on every request) that shows.
 */
export class LinkedSet<T extends Linked<T>> implements Iterable<T> {
  /** Most recent. */
  #head: T | undefined;
  /** Least recent. */
  #tail: T | undefined;
  #size = 0;

  get size(): number {
    return this.#size;
  }

  /** The least recently added or touched member; `linkPrev` leads on towards the most recent. */
  get oldest(): T | undefined {
    return this.#tail;
  }

  has(item: T): boolean {
    return item.linkPrev !== undefined || this.#head === item;
  }

  /** Adds `item` as the most recent member (an existing one is only made most recent). */
  add(item: T): void {
    if (this.has(item)) {
      this.touch(item);
      return;
    }
    this.#link(item);
    this.#size++;
  }

  /** Makes a member the most recent. */
  touch(item: T): void {
    if (this.#head === item || !this.has(item)) return;
    this.#unlink(item);
    this.#link(item);
  }

  delete(item: T): boolean {
    if (!this.has(item)) return false;
    this.#unlink(item);
    this.#size--;
    return true;
  }

  /** A snapshot, most recent first: members may be removed while it is walked. */
  values(): T[] {
    const all: T[] = [];
    for (let item = this.#head; item; item = item.linkNext) all.push(item);
    return all;
  }

  /** A snapshot, least recent first. */
  oldestFirst(): T[] {
    const all: T[] = [];
    for (let item = this.#tail; item; item = item.linkPrev) all.push(item);
    return all;
  }

  [Symbol.iterator](): Iterator<T> {
    return this.values()[Symbol.iterator]();
  }

  #link(item: T): void {
    item.linkPrev = undefined;
    item.linkNext = this.#head;
    if (this.#head) this.#head.linkPrev = item;
    else this.#tail = item;
    this.#head = item;
  }

  #unlink(item: T): void {
    const { linkPrev: prev, linkNext: next } = item;
    if (prev) prev.linkNext = next;
    else this.#head = next;
    if (next) next.linkPrev = prev;
    else this.#tail = prev;
    item.linkPrev = undefined;
    item.linkNext = undefined;
  }
}
