/**
 * The runtime's ResourceSubscriptionStore on Redis: a session's `resources/subscribe` recorded on one
 * instance is seen by all, so an update raised anywhere reaches it. Two sets: per URI, the sessions
 * subscribed to it; per session, its URIs (to drop them all when it ends, and to bound them). Each
 * write is one Lua script, so the two never disagree.
 */

import { MAX_SUBSCRIPTIONS_PER_SESSION, type ResourceSubscriptionStore } from "@mcp-codegen/runtime/server";
import { command } from "./command.js";
import type { RedisConnection } from "./connection.js";
import { runScript, type Script, script } from "./script.js";

export interface RedisResourceSubscriptionsOptions {
  /** Prepended to every key, so that several servers share one Redis (default "mcp:"). */
  prefix?: string;
  /**
   * A session's subscriptions expire this long after its last subscribe (ms, default one day): a net for
   * sessions that ended on an instance that died before forgetting them. Keep it above the session TTL.
   */
  ttlMs?: number;
  /** Most URIs one session may subscribe to (default MAX_SUBSCRIPTIONS_PER_SESSION, 1000). */
  maxPerSession?: number;
}

const DEFAULT_TTL_MS = 24 * 60 * 60_000;

/**
 * ARGV[1] is the key base `<prefix>{subscriptions}:` (one hash tag: every key of the store is in one
 * Cluster slot, so a script may name keys it builds from it). Keys: s:<session id> (set of URIs),
 * u:<uri> (set of session ids).
 */

/** ARGV: base, session id, uri, max per session, ttl ms. 1: recorded (or already); 0: over the bound. */
const ADD: Script = script(`
local base, id, uri = ARGV[1], ARGV[2], ARGV[3]
local uris = base .. 's:' .. id
if redis.call('SISMEMBER', uris, uri) == 0 and redis.call('SCARD', uris) >= tonumber(ARGV[4]) then return 0 end
redis.call('SADD', uris, uri)
redis.call('PEXPIRE', uris, ARGV[5])
local sessions = base .. 'u:' .. uri
redis.call('SADD', sessions, id)
redis.call('PEXPIRE', sessions, ARGV[5])
return 1
`);

/** ARGV: base, session id, uri. */
const REMOVE: Script = script(`
local base, id, uri = ARGV[1], ARGV[2], ARGV[3]
if redis.call('SREM', base .. 's:' .. id, uri) == 1 then redis.call('SREM', base .. 'u:' .. uri, id) end
`);

/** ARGV: base, session id. */
const FORGET: Script = script(`
local base, id = ARGV[1], ARGV[2]
local uris = base .. 's:' .. id
for _, uri in ipairs(redis.call('SMEMBERS', uris)) do redis.call('SREM', base .. 'u:' .. uri, id) end
redis.call('DEL', uris)
`);

/**
 * ARGV: base, uri. The subscribers, dropping those whose own set no longer holds the URI (it expired:
 * the session ended where nobody forgot it).
 */
const SUBSCRIBERS: Script = script(`
local base, uri = ARGV[1], ARGV[2]
local sessions = base .. 'u:' .. uri
local out = {}
for _, id in ipairs(redis.call('SMEMBERS', sessions)) do
  if redis.call('SISMEMBER', base .. 's:' .. id, uri) == 1 then out[#out + 1] = id
  else redis.call('SREM', sessions, id) end
end
return out
`);

export class RedisResourceSubscriptions implements ResourceSubscriptionStore {
  readonly #redis: RedisConnection;
  readonly #base: string;
  readonly #ttlMs: number;
  readonly #max: number;

  constructor(redis: RedisConnection, options: RedisResourceSubscriptionsOptions = {}) {
    this.#redis = redis;
    this.#base = `${options.prefix ?? "mcp:"}{subscriptions}:`;
    this.#ttlMs = options.ttlMs ?? DEFAULT_TTL_MS;
    this.#max = options.maxPerSession ?? MAX_SUBSCRIPTIONS_PER_SESSION;
  }

  async add(sessionId: string, uri: string): Promise<boolean> {
    const args = [sessionId, uri, String(this.#max), String(this.#ttlMs)];
    return (await this.#run(ADD, `s:${sessionId}`, args)) === 1;
  }

  async remove(sessionId: string, uri: string): Promise<void> {
    await this.#run(REMOVE, `s:${sessionId}`, [sessionId, uri]);
  }

  async subscribers(uri: string): Promise<readonly string[]> {
    return (await this.#run(SUBSCRIBERS, `u:${uri}`, [uri])) as string[];
  }

  async forget(sessionId: string): Promise<void> {
    await this.#run(FORGET, `s:${sessionId}`, [sessionId]);
  }

  async healthy(): Promise<boolean> {
    try {
      await this.#run(SUBSCRIBERS, "u:", [""]);
      return true;
    } catch {
      return false;
    }
  }

  /** One script, given one of its keys so that Cluster routes it to the store's slot. */
  #run(s: Script, key: string, args: string[]): Promise<unknown> {
    return command(this.#redis, (client) => runScript(client, s, [this.#base + key], [this.#base, ...args]));
  }
}
