/**
 * The runtime's UsedStateStore on Redis: a sealed MRTR `requestState` is good for one retry on any
 * instance. The claim is one `SET key NX PX ttl`: Redis runs it atomically, so of two instances
 * claiming one state at once exactly one gets true. When Redis cannot answer, the claim rejects
 * (RedisUnavailable): a state is never let through twice because Redis was down. A claim given up on
 * (no answer in time) may still reach a Redis that hangs and run when it wakes; it is then undone, so
 * the state the client was told to retry with is still good for that retry.
 */

import { randomBytes } from "node:crypto";
import type { UsedStateStore } from "@mcp-codegen/runtime/server";
import { command } from "./command.js";
import type { RedisConnection } from "./connection.js";

/**
 * Deletes KEYS[1] if it still holds ARGV[1]: this claim's own token, never another instance's claim.
 * Sent whole (EVAL), not by SHA1: a NOSCRIPT round trip would let a later command overtake it.
 */
const UNCLAIM =
  "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0";

export interface RedisUsedStateStoreOptions {
  /** Prepended to every key, so that several servers share one Redis (default "mcp:"). */
  prefix?: string;
  /** The clock `expires` is read against (ms since the epoch). */
  now?: () => number;
}

export class RedisUsedStateStore implements UsedStateStore {
  readonly #redis: RedisConnection;
  readonly #prefix: string;
  readonly #now: () => number;

  constructor(redis: RedisConnection, options: RedisUsedStateStoreOptions = {}) {
    this.#redis = redis;
    this.#prefix = options.prefix ?? "mcp:";
    this.#now = options.now ?? Date.now;
  }

  key(id: string): string {
    return `${this.#prefix}used:${id}`;
  }

  async claim(id: string, expires: number): Promise<boolean> {
    // Kept at least a millisecond: a state already expired is refused by its seal anyway.
    const ttl = Math.max(1, Math.ceil(expires - this.#now()));
    const key = this.key(id);
    const token = randomBytes(9).toString("base64url");
    try {
      const reply = await command(this.#redis, (client) =>
        client.set(key, token, { condition: "NX", expiration: { type: "PX", value: ttl } }),
      );
      return reply !== null;
    } catch (error) {
      // The caller answers "retry later". Sent on the same connection after the SET, the undo runs after
      // it if the SET runs at all; not awaited: the request does not wait for a Redis that hangs.
      command(this.#redis, (client) => client.eval(UNCLAIM, { keys: [key], arguments: [token] })).catch(
        () => {},
      );
      throw error;
    }
  }
}
