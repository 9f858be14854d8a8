/**
 * The keys sealing stateless-era `requestState`s, as a provider the instances of one server share: a
 * state sealed at one instance opens at any other, and keys rotate without breaking a round in flight
 * (the key that sealed it keeps opening until it expires). A shared keyring keeps the keys in a store
 * all instances read; the in-memory one holds them for one process.
 */

import type { MaybePromise } from "../util/maybe-promise.js";
import type { StateKey } from "./state-sealer.js";

export interface StateKeyring {
  /**
   * The keys now, the sealing key first: a key opens the states it sealed until its `expires`; an
   * expired key neither seals nor opens. Asked on every seal and open: a keyring reading a store caches.
   */
  keys(): MaybePromise<readonly StateKey[]>;
  /** Optional: whether the keyring can serve now (a readiness probe asks; absent: always). */
  healthy?(): MaybePromise<boolean>;
}

/**
 * Keys in one process. `rotate` puts a new sealing key first and gives the others an expiry no later than
 * `retireAfterMs` from now: pass at least the server's `stateTtlMs`, so that every state they sealed
 * can still be opened.
 */
export class InMemoryStateKeyring implements StateKeyring {
  #keys: StateKey[];

  constructor(
    keys: readonly StateKey[] = [],
    private readonly now: () => number = Date.now,
  ) {
    this.#keys = [...keys];
  }

  keys(): readonly StateKey[] {
    const now = this.now();
    // Expired keys go as they are found: the list stays as short as the keys that still open something.
    if (this.#keys.some((key) => key.expires !== undefined && key.expires <= now))
      this.#keys = this.#keys.filter((key) => key.expires === undefined || key.expires > now);
    return this.#keys;
  }

  rotate(key: StateKey, retireAfterMs: number): void {
    if (this.#keys.some((k) => k.id === key.id))
      throw new TypeError(`stateKeys: the key id "${key.id}" is already in the keyring`);
    const retire = this.now() + retireAfterMs;
    const older = this.#keys.map((k) =>
      k.expires !== undefined && k.expires <= retire ? k : { ...k, expires: retire },
    );
    this.#keys = [key, ...older];
  }

  healthy(): boolean {
    return true;
  }
}

/** Whether `keys` is a keyring rather than a list of keys (an array has a `keys` method too). */
export const isKeyring = (keys: unknown): keys is StateKeyring =>
  !Array.isArray(keys) && typeof (keys as StateKeyring | undefined)?.keys === "function";
