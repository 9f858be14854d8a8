/**
 * The runtime's StateKeyring on Redis: the keys sealing 2026-era `requestState`s live in one Redis hash
 * (key id → secret, when it starts sealing, when it expires) that every instance reads, so a state
 * sealed at one instance opens at any other. Each instance caches the keys for `cacheMs` (a seal or an
 * open does not wait for Redis); so that no instance meets a state sealed with a key it has not read
 * yet, a rotated-in key starts sealing only `cacheMs` after the rotation: until then every instance
 * opens with it and keeps sealing with the old one.
 */

import { randomBytes } from "node:crypto";
import type { StateKey, StateKeyring } from "@mcp-codegen/runtime/server";
import { command } from "./command.js";
import type { RedisConnection } from "./connection.js";
import { runScript, type Script, script } from "./script.js";

export interface RedisStateKeyringOptions {
  /** Prepended to the key, so that several servers share one Redis (default "mcp:"). */
  prefix?: string;
  /** How long an instance uses the keys it read before reading them again (ms, default 5000). */
  cacheMs?: number;
  /** The clock (ms since the epoch): every instance's should agree within a fraction of `cacheMs`. */
  now?: () => number;
}

/** A key as the hash holds it (JSON): its secret, when it starts sealing, when it expires. */
interface StoredKey {
  secret: string;
  from: number;
  expires?: number;
}

/**
 * The keys, after dropping expired ones; when none is left (a new Redis, or every key expired), the key
 * offered becomes the first, sealing at once. KEYS[1] the hash; ARGV: now, the offered id and its JSON.
 */
const READ: Script = script(`
local now = tonumber(ARGV[1])
local all = redis.call('HGETALL', KEYS[1])
local live = 0
for i = 1, #all, 2 do
  local key = cjson.decode(all[i + 1])
  if key.expires and key.expires <= now then redis.call('HDEL', KEYS[1], all[i]) else live = live + 1 end
end
if live == 0 then redis.call('HSET', KEYS[1], ARGV[2], ARGV[3]) end
return redis.call('HGETALL', KEYS[1])
`);

/**
 * Adds a key and retires the others: each expires no later than ARGV[4]. KEYS[1] the hash; ARGV: now,
 * the new id, its JSON, the retirement time.
 */
const ROTATE: Script = script(`
local retire = tonumber(ARGV[4])
local all = redis.call('HGETALL', KEYS[1])
for i = 1, #all, 2 do
  local key = cjson.decode(all[i + 1])
  if not key.expires or key.expires > retire then
    key.expires = retire
    redis.call('HSET', KEYS[1], all[i], cjson.encode(key))
  end
end
redis.call('HSET', KEYS[1], ARGV[2], ARGV[3])
return 1
`);

export class RedisStateKeyring implements StateKeyring {
  readonly #redis: RedisConnection;
  readonly #key: string;
  readonly #cacheMs: number;
  readonly #now: () => number;
  #cached: { keys: (StateKey & { from: number })[]; until: number } | undefined;
  #reading: Promise<(StateKey & { from: number })[]> | undefined;

  constructor(redis: RedisConnection, options: RedisStateKeyringOptions = {}) {
    this.#redis = redis;
    this.#key = `${options.prefix ?? "mcp:"}state-keys`;
    this.#cacheMs = Math.max(0, options.cacheMs ?? 5000);
    this.#now = options.now ?? Date.now;
  }

  /** The Redis hash holding the keys. */
  get key(): string {
    return this.#key;
  }

  /** The keys now: the sealing one first (the newest that has started), then the others that still open. */
  async keys(): Promise<readonly StateKey[]> {
    const now = this.#now();
    const keys = this.#cached && this.#cached.until > now ? this.#cached.keys : await this.#read();
    const live = keys.filter((key) => key.expires === undefined || key.expires > now);
    const sealing = live.find((key) => key.from <= now);
    return sealing ? [sealing, ...live.filter((key) => key !== sealing)] : live;
  }

  /**
   * Rotates in a new random 32-byte key: it starts sealing `cacheMs` from now, and every other key
   * expires no later than `retireAfterMs` after that (pass at least the server's `stateTtlMs`). Resolves
   * to the new key's id.
   */
  async rotate(retireAfterMs: number): Promise<string> {
    const now = this.#now();
    const from = now + this.#cacheMs;
    const id = newId();
    const stored: StoredKey = { secret: newSecret(), from };
    await command(this.#redis, (client) =>
      runScript(
        client,
        ROTATE,
        [this.#key],
        [String(now), id, JSON.stringify(stored), String(from + Math.max(0, retireAfterMs))],
      ),
    );
    this.#cached = undefined;
    return id;
  }

  /** Whether Redis answers now (a readiness probe asks). */
  async healthy(): Promise<boolean> {
    try {
      await this.#read();
      return true;
    } catch {
      return false;
    }
  }

  /** One read at a time: instances asking at once share it. */
  #read(): Promise<(StateKey & { from: number })[]> {
    this.#reading ??= (async () => {
      try {
        const now = this.#now();
        const offered: StoredKey = { secret: newSecret(), from: now };
        const reply = (await command(this.#redis, (client) =>
          runScript(client, READ, [this.#key], [String(now), newId(), JSON.stringify(offered)]),
        )) as string[];
        const keys: (StateKey & { from: number })[] = [];
        for (let i = 0; i + 1 < reply.length; i += 2) {
          const stored = JSON.parse(reply[i + 1]!) as StoredKey;
          keys.push({
            id: reply[i]!,
            secret: stored.secret,
            from: stored.from,
            ...(stored.expires !== undefined ? { expires: stored.expires } : {}),
          });
        }
        // Newest first: the sealing key is the newest that has started.
        keys.sort((a, b) => b.from - a.from);
        this.#cached = { keys, until: now + this.#cacheMs };
        return keys;
      } finally {
        this.#reading = undefined;
      }
    })();
    return this.#reading;
  }
}

/** A key id: 12 random bytes, base64url (the sealer's key ids are [A-Za-z0-9_-]{1,64}). */
const newId = () => randomBytes(12).toString("base64url");
/** 32 random bytes, base64url: 256 bits of entropy for HKDF. */
const newSecret = () => randomBytes(32).toString("base64url");
