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
