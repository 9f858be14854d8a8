/**
 * Which sealed `requestState`s were already used, so that each is good for one retry. The in-memory
 * store is per server instance: servers behind a load balancer need a shared store (one whose `claim`
 * is atomic across instances) for a state used at one instance to be refused at another.
 */

/** Where the ids of used states are kept until they expire. */
export interface UsedStateStore {
  /**
   * Records `id` as used until `expires` (ms since the epoch): true the first time, false when it
   * already was. Must be atomic: two concurrent claims of one id cannot both get true.
   */
  claim(id: string, expires: number): boolean | Promise<boolean>;
  /** Optional: whether the store can serve now (a readiness probe asks; absent: always). */
  healthy?(): boolean | Promise<boolean>;
}

/** Default bound of the in-memory store: a few MB at most. */
const DEFAULT_MAX_USED_STATES = 100_000;

/**
 * The ids in a Map, in claim order. Expired ids are dropped from the oldest end as new ones come;
 * beyond `max` live ids the oldest gives way (its state could then be used once more until it expires:
 * memory stays bounded under a flood of rounds, the other bindings of the state still hold).
 */
export class InMemoryUsedStateStore implements UsedStateStore {
  readonly #used = new Map<string, number>();

  constructor(
    private readonly max = DEFAULT_MAX_USED_STATES,
    private readonly now: () => number = Date.now,
  ) {}

  get size(): number {
    return this.#used.size;
  }

  claim(id: string, expires: number): boolean {
    if (this.#used.has(id)) return false;
    const now = this.now();
    for (const [oldest, until] of this.#used) {
      if (until >= now && this.#used.size < this.max) break;
      this.#used.delete(oldest);
    }
    this.#used.set(id, expires);
    return true;
  }
}
