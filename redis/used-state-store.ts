/**
 * The runtime's UsedStateStore on Redis: a sealed MRTR `requestState` is good for one retry on any
 * instance. The claim is one `SET key NX PX ttl`: Redis runs it atomically, so of two instances
 * claiming one state at once exactly one gets true. When Redis cannot answer, the claim rejects
 * (RedisUnavailable): a state is never let through twice because Redis was down.
 */

import type { UsedStateStore } from "@mcp-codegen/runtime/server";
import { command } from "./command.js";
import type { RedisConnection } from "./connection.js";

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
    const reply = await command(this.#redis, (client) =>
      client.set(this.key(id), "1", { condition: "NX", expiration: { type: "PX", value: ttl } }),
    );
    return reply !== null;
  }
}
