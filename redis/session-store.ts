/**
 * The runtime's SessionStore on Redis: every instance behind a load balancer sees the same 2025-era
 * sessions, their bounds and their expiry. A session is one hash with a TTL (renewed on every touch); sorted
 * sets by last activity answer `due` and `oldestPending`, a hash of counts `countOf`, each in O(log n).
 * Every write is one Lua script, so a record and its indexes never disagree.
 */

import type { SessionRecord, SessionStore } from "@mcp-codegen/runtime/http";
import { command } from "./command.js";
import type { RedisConnection } from "./connection.js";
import { runScript, type Script, script } from "./script.js";

export interface RedisSessionStoreOptions {
  /** Prepended to every key, so that several servers share one Redis (default "mcp:"). */
  prefix?: string;
  /**
   * A session's hash expires this long after its last touch (ms, default one day): a net for sessions
   * no instance expires (all of them gone). Keep it above the registry's idle TTL, which expires first.
   */
  ttlMs?: number;
}

/** Records read per round trip while looking for an evictable pending one. */
const PAGE = 32;

/**
 * Shared by the scripts. ARGV[1] is the key base `<prefix>{sessions}:` (one hash tag: every key of the
 * store is in one Cluster slot, so a script may name per-id keys it builds from it).
 * Keys: s:<id> (the record), established / pending (zsets id → lastActive), pending-of:<client> (zset),
 * clients (hash client → count), client-of (hash id → client, for counted records).
 */
const LIB = `
local base = ARGV[1]
local function remove(id)
  local client = redis.call('HGET', base .. 'client-of', id)
  redis.call('ZREM', base .. 'established', id)
  redis.call('ZREM', base .. 'pending', id)
  redis.call('DEL', base .. 's:' .. id)
  if client then
    redis.call('HDEL', base .. 'client-of', id)
    redis.call('ZREM', base .. 'pending-of:' .. client, id)
    if redis.call('HINCRBY', base .. 'clients', client, -1) <= 0 then redis.call('HDEL', base .. 'clients', client) end
  end
end
local function index(id, established, last, client)
  if established == '1' then
    redis.call('ZREM', base .. 'pending', id)
    redis.call('ZADD', base .. 'established', last, id)
    if client then redis.call('ZREM', base .. 'pending-of:' .. client, id) end
  else
    redis.call('ZREM', base .. 'established', id)
    redis.call('ZADD', base .. 'pending', last, id)
    if client then redis.call('ZADD', base .. 'pending-of:' .. client, last, id) end
  end
end
-- Stores record id, its field, value pairs ARGV[from] on, and its indexes (replacing any record of that id).
local function store(id, established, last, client, from)
  remove(id)
  local key = base .. 's:' .. id
  redis.call('HSET', key, unpack(ARGV, from))
  redis.call('PEXPIRE', key, ARGV[2])
  if client then
    redis.call('HSET', base .. 'client-of', id, client)
    redis.call('HINCRBY', base .. 'clients', client, 1)
  end
  index(id, established, last, client)
end
local function read(ids)
  local out = {}
  local gone = 0
  for _, id in ipairs(ids) do
    local fields = redis.call('HGETALL', base .. 's:' .. id)
    if #fields == 0 then remove(id); gone = gone + 1 else out[#out + 1] = fields end
  end
  return out, gone
end
`;

/** ARGV: base, ttl ms, id, established, lastActive, client ('' none), then field, value pairs. */
const PUT: Script = script(`${LIB}
store(ARGV[3], ARGV[4], ARGV[5], ARGV[6] ~= '' and ARGV[6] or nil, 7)
`);

/**
 * PUT under the bounds, atomically: ARGV as PUT with, before the fields, max and max per client ('' none)
 * at ARGV[7], ARGV[8]. Answers 'stored', 'full' or 'client-full'; a record replacing one with its id is
 * not counted twice.
 */
const PUT_WITHIN: Script = script(`${LIB}
local id = ARGV[3]
local client = ARGV[6] ~= '' and ARGV[6] or nil
local held = redis.call('EXISTS', base .. 's:' .. id) == 1
if not held then
  if client and ARGV[8] ~= '' and tonumber(redis.call('HGET', base .. 'clients', client) or '0') >= tonumber(ARGV[8]) then
    return 'client-full'
  end
  local size = redis.call('ZCARD', base .. 'established') + redis.call('ZCARD', base .. 'pending')
  if ARGV[7] ~= '' and size >= tonumber(ARGV[7]) then return 'full' end
end
store(id, ARGV[4], ARGV[5], client, 9)
return 'stored'
`);

/** ARGV: base, ttl ms, id, established, lastActive. A record no longer held is left alone. */
const TOUCH: Script = script(`${LIB}
local id = ARGV[3]
local key = base .. 's:' .. id
if redis.call('EXISTS', key) == 0 then return 0 end
redis.call('HSET', key, 'established', ARGV[4], 'lastActive', ARGV[5])
redis.call('PEXPIRE', key, ARGV[2])
local client = redis.call('HGET', base .. 'client-of', id)
index(id, ARGV[4], ARGV[5], client or nil)
return 1
`);

/** ARGV: base, id. */
const DELETE: Script = script(`${LIB}
remove(ARGV[2])
`);

/** ARGV: base, id. The record's fields (empty: none). */
const GET: Script = script(`${LIB}
return redis.call('HGETALL', base .. 's:' .. ARGV[2])
`);

/** ARGV: base, client ('' any), offset, count. The page's records and how many expired ids it dropped. */
const PENDING_PAGE: Script = script(`${LIB}
local set = ARGV[2] ~= '' and (base .. 'pending-of:' .. ARGV[2]) or (base .. 'pending')
local from = tonumber(ARGV[3])
local ids = redis.call('ZRANGE', set, from, from + tonumber(ARGV[4]) - 1)
local out, gone = read(ids)
return {out, gone, #ids}
`);

/** ARGV: base, cutoff, pending cutoff. Established records due, then pending ones. */
const DUE: Script = script(`${LIB}
local established = read(redis.call('ZRANGEBYSCORE', base .. 'established', '-inf', ARGV[2]))
local pending = read(redis.call('ZRANGEBYSCORE', base .. 'pending', '-inf', ARGV[3]))
return {established, pending}
`);

/** ARGV: base, client ('' for the size). */
const COUNT: Script = script(`${LIB}
if ARGV[2] ~= '' then return tonumber(redis.call('HGET', base .. 'clients', ARGV[2]) or '0') end
return redis.call('ZCARD', base .. 'established') + redis.call('ZCARD', base .. 'pending')
`);

export class RedisSessionStore implements SessionStore {
  /** Every instance on this Redis sees the records. */
  readonly shared = true;
  readonly #redis: RedisConnection;
  readonly #base: string;
  readonly #ttl: string;

  constructor(redis: RedisConnection, options: RedisSessionStoreOptions = {}) {
    this.#redis = redis;
    this.#base = `${options.prefix ?? "mcp:"}{sessions}:`;
    this.#ttl = String(Math.max(1, Math.floor(options.ttlMs ?? 86_400_000)));
  }

  /** A session's key (its hash): `<prefix>{sessions}:s:<id>`. */
  key(id: string): string {
    return `${this.#base}s:${id}`;
  }

  async size(): Promise<number> {
    return Number(await this.#run(COUNT, [""]));
  }

  async countOf(client: string): Promise<number> {
    return Number(await this.#run(COUNT, [client]));
  }

  async get(id: string): Promise<SessionRecord | undefined> {
    const fields = (await this.#run(GET, [id])) as string[];
    return fields.length === 0 ? undefined : decode(fields);
  }

  async put(record: SessionRecord): Promise<void> {
    const { id, established, lastActive, client } = record;
    await this.#run(PUT, [
      this.#ttl,
      id,
      flag(established),
      String(lastActive),
      client ?? "",
      ...encode(record),
    ]);
  }

  /**
   * `put` only within the bounds, checked and stored in one script: of instances admitting at once, no
   * more than the bounds get "stored". The registry makes room first (its own rule for what may give
   * way), then stores a new session through this; "full" or "client-full" refuses the session (503/429).
   */
  async putWithin(
    record: SessionRecord,
    bounds: { max?: number; maxPerClient?: number },
  ): Promise<"stored" | "full" | "client-full"> {
    const { id, established, lastActive, client } = record;
    const bound = (n: number | undefined) => (n === undefined || !Number.isFinite(n) ? "" : String(n));
    const reply = await this.#run(PUT_WITHIN, [
      this.#ttl,
      id,
      flag(established),
      String(lastActive),
      client ?? "",
      bound(bounds.max),
      bound(bounds.maxPerClient),
      ...encode(record),
    ]);
    return reply as "stored" | "full" | "client-full";
  }

  async touch(record: SessionRecord): Promise<void> {
    await this.#run(TOUCH, [this.#ttl, record.id, flag(record.established), String(record.lastActive)]);
  }

  async delete(id: string): Promise<void> {
    await this.#run(DELETE, [id]);
  }

  async oldestPending(
    client: string | undefined,
    evictable: (record: SessionRecord) => boolean,
  ): Promise<SessionRecord | undefined> {
    let offset = 0;
    for (;;) {
      const [records, gone, read] = (await this.#run(PENDING_PAGE, [
        client ?? "",
        String(offset),
        String(PAGE),
      ])) as [string[][], number, number];
      for (const fields of records) {
        const record = decode(fields);
        if (evictable(record)) return record;
      }
      if (read < PAGE) return undefined;
      // Expired ids the page dropped no longer take a place in the set.
      offset += read - gone;
    }
  }

  async due(cutoff: number, pendingCutoff: number): Promise<SessionRecord[]> {
    const [established, pending] = (await this.#run(DUE, [String(cutoff), String(pendingCutoff)])) as [
      string[][],
      string[][],
    ];
    // Least recently active first across both sets (each is in that order already; sort is stable).
    return [...established, ...pending].map(decode).sort((a, b) => a.lastActive - b.lastActive);
  }

  /** Whether Redis answers now (a readiness probe asks). */
  async healthy(): Promise<boolean> {
    try {
      await this.#run(COUNT, [""]);
      return true;
    } catch {
      return false;
    }
  }

  #run(s: Script, args: string[]): Promise<unknown> {
    // Every key is built from the base in the script: the base (its hash tag) routes it in Cluster.
    return command(this.#redis, (client) =>
      runScript(client, s, [`${this.#base}established`], [this.#base, ...args]),
    );
  }
}

const flag = (b: boolean) => (b ? "1" : "0");

/** The record's fields as hash field, value pairs: strings as they are, structured values as JSON. */
function encode(record: SessionRecord): string[] {
  const out = [
    "id",
    record.id,
    "established",
    flag(record.established),
    "lastActive",
    String(record.lastActive),
  ];
  if (record.client !== undefined) out.push("client", record.client);
  if (record.owner !== undefined) out.push("owner", record.owner);
  if (record.protocolVersion !== undefined) out.push("protocolVersion", record.protocolVersion);
  if (record.clientInfo !== undefined) out.push("clientInfo", JSON.stringify(record.clientInfo));
  if (record.clientCapabilities !== undefined)
    out.push("clientCapabilities", JSON.stringify(record.clientCapabilities));
  if (record.logLevel !== undefined) out.push("logLevel", record.logLevel);
  return out;
}

function decode(pairs: string[]): SessionRecord {
  const f: Record<string, string> = {};
  for (let i = 0; i + 1 < pairs.length; i += 2) f[pairs[i]!] = pairs[i + 1]!;
  return {
    id: f.id!,
    established: f.established === "1",
    lastActive: Number(f.lastActive),
    ...(f.client !== undefined ? { client: f.client } : {}),
    ...(f.owner !== undefined ? { owner: f.owner } : {}),
    ...(f.protocolVersion !== undefined ? { protocolVersion: f.protocolVersion } : {}),
    ...(f.clientInfo !== undefined ? { clientInfo: JSON.parse(f.clientInfo) } : {}),
    ...(f.clientCapabilities !== undefined ? { clientCapabilities: JSON.parse(f.clientCapabilities) } : {}),
    ...(f.logLevel !== undefined ? { logLevel: f.logLevel } : {}),
  };
}
