/**
 * The runtime's TaskStore on Redis: a task created on one instance is polled, answered, cancelled and
 * fetched on any other, and a task whose runner's instance died is reported failed by the next read. A
 * task is one hash with a TTL (its own, from creation); a sorted set of every task by expiry bounds the
 * total and finds the expired, one per owner by creation answers `list`. Every operation is one Lua
 * script on Redis's clock (`TIME`), so a status change and its checks (owner, holder, terminal, lease)
 * are atomic across instances, and instances' clocks do not matter.
 */

import {
  DEFAULT_TASK_PAGE,
  LEASE_LAPSED,
  newTaskId,
  type TaskCreation,
  type TaskEnd,
  type TaskInit,
  type TaskListOptions,
  type TaskOutcome,
  type TaskPage,
  type TaskRecord,
  type TaskStatus,
  type TaskStore,
  type TaskStoreLimits,
  type TaskUpdate,
  taskCursor,
} from "@mcp-codegen/runtime/server";
import { command } from "./command.js";
import type { RedisConnection } from "./connection.js";
import { runScript, type Script, script } from "./script.js";

export interface RedisTaskStoreOptions extends TaskStoreLimits {
  /** Prepended to every key, so that several servers share one Redis (default "mcp:"). */
  prefix?: string;
}

/** Expired tasks forgotten per round, and rounds per operation at most: each call's work is bounded. */
const PURGE_BATCH = 500;
const PURGE_ROUNDS = 4;

/** A Lua long string: no escaping needed for text without "]==]". */
const lua = (text: string) => `[==[${text}]==]`;

/**
 * Shared by the scripts. ARGV[1] is the key base `<prefix>{tasks}:` (one hash tag: every key of the store
 * in one Cluster slot, so a script may name the keys it builds from it). Keys: t:<id> (the task's hash),
 * all (zset id → expiry), owner-of (hash id → owner), by:<owner> (zset id → createdAt).
 * Hash fields: the record's scalars; result and error as JSON; holder and leaseUntil while it runs;
 * in:<key> (asked, JSON) and out:<key> (answered, JSON).
 */
const LIB = `
local base = ARGV[1]
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
local function int(n) return string.format('%.0f', n) end
local TERMINAL = { completed = true, failed = true, cancelled = true }
local function forget(id)
  local owner = redis.call('HGET', base .. 'owner-of', id)
  if owner then redis.call('ZREM', base .. 'by:' .. owner, id) end
  redis.call('HDEL', base .. 'owner-of', id)
  redis.call('ZREM', base .. 'all', id)
  redis.call('DEL', base .. 't:' .. id)
end
local function purge()
  for _ = 1, ${PURGE_ROUNDS} do
    local ids = redis.call('ZRANGEBYSCORE', base .. 'all', '-inf', int(now), 'LIMIT', 0, ${PURGE_BATCH})
    for _, id in ipairs(ids) do forget(id) end
    if #ids < ${PURGE_BATCH} then return end
  end
end
local function settle(key, fields)
  local drop = { 'holder', 'leaseUntil' }
  for _, field in ipairs(redis.call('HKEYS', key)) do
    if string.sub(field, 1, 3) == 'in:' then drop[#drop + 1] = field end
  end
  redis.call('HDEL', key, unpack(drop))
  fields[#fields + 1] = 'lastUpdatedAt'
  fields[#fields + 1] = int(now)
  redis.call('HSET', key, unpack(fields))
end
local function live(id)
  local key = base .. 't:' .. id
  local f = redis.call('HMGET', key, 'createdAt', 'ttlMs', 'status', 'leaseUntil')
  if not f[1] then return nil end
  if now >= tonumber(f[1]) + tonumber(f[2]) then forget(id); return nil end
  if not TERMINAL[f[3]] and f[4] and tonumber(f[4]) < now then
    settle(key, { 'status', 'failed', 'error', ${lua(JSON.stringify(LEASE_LAPSED))}, 'statusMessage', ${lua(LEASE_LAPSED.message)} })
  end
  return key
end
local function status(key) return redis.call('HGET', key, 'status') end
-- Byte order, as sorted sets and JavaScript order ids (Lua's own < follows the server's locale).
local function above(a, b)
  for i = 1, math.min(#a, #b) do
    local x, y = string.byte(a, i), string.byte(b, i)
    if x ~= y then return x > y end
  end
  return #a > #b
end
local function whose(key, owner) return redis.call('HGET', key, 'owner') == owner end
`;

/** ARGV: base, id, owner, ttl, leaseMs, maxTasks, maxPerOwner, then field, value pairs. */
const CREATE: Script = script(`${LIB}
local id, owner, ttl = ARGV[2], ARGV[3], tonumber(ARGV[4])
purge()
if redis.call('ZCARD', base .. 'all') >= tonumber(ARGV[6]) then return {'full'} end
if redis.call('ZCARD', base .. 'by:' .. owner) >= tonumber(ARGV[7]) then return {'owner-full'} end
local key = base .. 't:' .. id
if redis.call('EXISTS', key) == 1 then return {'taken'} end
redis.call('HSET', key, 'status', 'working', 'createdAt', int(now), 'lastUpdatedAt', int(now),
  'leaseUntil', int(now + tonumber(ARGV[5])), unpack(ARGV, 8))
redis.call('PEXPIRE', key, ARGV[4])
redis.call('ZADD', base .. 'all', int(now + ttl), id)
redis.call('HSET', base .. 'owner-of', id, owner)
redis.call('ZADD', base .. 'by:' .. owner, int(now), id)
return {'ok', redis.call('HGETALL', key)}
`);

/** ARGV: base, id, owner. The task's fields (empty: none for this owner). */
const GET: Script = script(`${LIB}
local key = live(ARGV[2])
if not key or not whose(key, ARGV[3]) then return {} end
return redis.call('HGETALL', key)
`);

/**
 * ARGV: base, owner, after createdAt ('' from the start), after id, limit. The page's tasks (at most
 * limit + 1: one more says there are more).
 */
const LIST: Script = script(`${LIB}
purge()
local owner, limit = ARGV[2], tonumber(ARGV[5])
local from = ARGV[3] ~= '' and ARGV[3] or '-inf'
local scored = redis.call('ZRANGEBYSCORE', base .. 'by:' .. owner, from, '+inf', 'WITHSCORES')
local out = {}
for i = 1, #scored, 2 do
  local id, at = scored[i], scored[i + 1]
  if ARGV[3] == '' or tonumber(at) > tonumber(ARGV[3]) or above(id, ARGV[4]) then
    local key = live(id)
    if key then out[#out + 1] = redis.call('HGETALL', key) end
    if #out > limit then break end
  end
end
return out
`);

/** ARGV: base, id, holder, then field, value pairs. Answers {outcome, fields}. */
const UPDATE: Script = script(`${LIB}
local key = live(ARGV[2])
if not key then return {'unknown'} end
if TERMINAL[status(key)] then return {'terminal', redis.call('HGETALL', key)} end
if redis.call('HGET', key, 'holder') ~= ARGV[3] then return {'not-holder', redis.call('HGETALL', key)} end
redis.call('HSET', key, 'lastUpdatedAt', int(now), unpack(ARGV, 4))
return {'ok', redis.call('HGETALL', key)}
`);

/** ARGV: base, id, holder, then field, value pairs of the end. */
const FINISH: Script = script(`${LIB}
local key = live(ARGV[2])
if not key then return {'unknown'} end
if TERMINAL[status(key)] then return {'terminal', redis.call('HGETALL', key)} end
if redis.call('HGET', key, 'holder') ~= ARGV[3] then return {'not-holder', redis.call('HGETALL', key)} end
settle(key, { unpack(ARGV, 4) })
return {'ok', redis.call('HGETALL', key)}
`);

/** ARGV: base, id, owner, then field, value pairs of the end (cancelled). */
const CANCEL: Script = script(`${LIB}
local key = live(ARGV[2])
if not key or not whose(key, ARGV[3]) then return {'unknown'} end
if TERMINAL[status(key)] then return {'terminal', redis.call('HGETALL', key)} end
settle(key, { unpack(ARGV, 4) })
return {'ok', redis.call('HGETALL', key)}
`);

/** ARGV: base, id, owner, then key, response (JSON) pairs. */
const RESPOND: Script = script(`${LIB}
local key = live(ARGV[2])
if not key or not whose(key, ARGV[3]) then return {'unknown'} end
if TERMINAL[status(key)] then return {'terminal', redis.call('HGETALL', key)} end
local changed = false
for i = 4, #ARGV - 1, 2 do
  if redis.call('HDEL', key, 'in:' .. ARGV[i]) == 1 then
    redis.call('HSET', key, 'out:' .. ARGV[i], ARGV[i + 1])
    changed = true
  end
end
if changed then
  local outstanding = false
  for _, field in ipairs(redis.call('HKEYS', key)) do
    if string.sub(field, 1, 3) == 'in:' then outstanding = true; break end
  end
  if not outstanding and status(key) == 'input_required' then redis.call('HSET', key, 'status', 'working') end
  redis.call('HSET', key, 'lastUpdatedAt', int(now))
end
return {'ok', redis.call('HGETALL', key)}
`);

/** ARGV: base, id, holder, leaseMs. The task's fields (empty: gone). */
const RENEW: Script = script(`${LIB}
local key = live(ARGV[2])
if not key then return {} end
if not TERMINAL[status(key)] and redis.call('HGET', key, 'holder') == ARGV[3] then
  redis.call('HSET', key, 'leaseUntil', int(now + tonumber(ARGV[4])))
end
return redis.call('HGETALL', key)
`);

const PING: Script = script(`${LIB}
return 1
`);

export class RedisTaskStore implements TaskStore {
  readonly #redis: RedisConnection;
  readonly #base: string;
  readonly #maxTasks: string;
  readonly #maxPerOwner: string;

  constructor(redis: RedisConnection, options: RedisTaskStoreOptions = {}) {
    this.#redis = redis;
    this.#base = `${options.prefix ?? "mcp:"}{tasks}:`;
    this.#maxTasks = String(options.maxTasks ?? 10_000);
    this.#maxPerOwner = String(options.maxTasksPerOwner ?? 100);
  }

  /** A task's key (its hash): `<prefix>{tasks}:t:<id>`. */
  key(taskId: string): string {
    return `${this.#base}t:${taskId}`;
  }

  async create(init: TaskInit): Promise<TaskCreation> {
    const fields = [
      "taskId",
      "",
      "owner",
      init.owner,
      "method",
      init.method,
      "ttlMs",
      String(ms(init.ttlMs)),
    ];
    fields.push("holder", init.holder);
    if (init.pollIntervalMs !== undefined) fields.push("pollIntervalMs", String(ms(init.pollIntervalMs)));
    if (init.statusMessage !== undefined) fields.push("statusMessage", init.statusMessage);
    for (;;) {
      // 128 random bits: a clash is as good as impossible, and the script refuses one anyway.
      const taskId = newTaskId();
      fields[1] = taskId;
      const [reply, pairs] = (await this.#run(CREATE, [
        taskId,
        init.owner,
        String(ms(init.ttlMs)),
        String(ms(init.leaseMs)),
        this.#maxTasks,
        this.#maxPerOwner,
        ...fields,
      ])) as [string, string[]?];
      if (reply === "ok") return { ok: true, task: decode(pairs!) };
      if (reply === "full" || reply === "owner-full") return { ok: false, reason: reply };
    }
  }

  async get(taskId: string, owner: string): Promise<TaskRecord | undefined> {
    const pairs = (await this.#run(GET, [taskId, owner])) as string[];
    return pairs.length === 0 ? undefined : decode(pairs);
  }

  async list(owner: string, options: TaskListOptions = {}): Promise<TaskPage> {
    const after = options.cursor === undefined ? undefined : taskCursor.decode(options.cursor);
    const limit = Math.max(1, Math.floor(options.limit ?? DEFAULT_TASK_PAGE));
    const rows = (await this.#run(LIST, [
      owner,
      after === undefined ? "" : String(after.createdAt),
      after?.taskId ?? "",
      String(limit),
    ])) as string[][];
    const tasks = rows.slice(0, limit).map(decode);
    return {
      tasks,
      ...(rows.length > limit ? { nextCursor: taskCursor.encode(tasks[tasks.length - 1]!) } : {}),
    };
  }

  async update(taskId: string, holder: string, change: TaskUpdate): Promise<TaskOutcome> {
    const fields: string[] = [];
    if (change.status !== undefined) fields.push("status", change.status);
    if (change.statusMessage !== undefined) fields.push("statusMessage", change.statusMessage);
    if (change.pollIntervalMs !== undefined) fields.push("pollIntervalMs", String(ms(change.pollIntervalMs)));
    for (const [key, request] of Object.entries(change.inputRequests ?? {}))
      fields.push(`in:${key}`, JSON.stringify(request));
    return outcome(await this.#run(UPDATE, [taskId, holder, ...fields]));
  }

  async finish(taskId: string, holder: string, end: TaskEnd): Promise<TaskOutcome> {
    return outcome(await this.#run(FINISH, [taskId, holder, ...endFields(end)]));
  }

  async cancel(taskId: string, owner: string, statusMessage?: string): Promise<TaskOutcome> {
    const end: TaskEnd = { status: "cancelled", ...(statusMessage !== undefined ? { statusMessage } : {}) };
    return outcome(await this.#run(CANCEL, [taskId, owner, ...endFields(end)]));
  }

  async respond(
    taskId: string,
    owner: string,
    responses: Readonly<Record<string, unknown>>,
  ): Promise<TaskOutcome> {
    const pairs = Object.entries(responses).flatMap(([key, response]) => [key, JSON.stringify(response)]);
    return outcome(await this.#run(RESPOND, [taskId, owner, ...pairs]));
  }

  async renew(taskId: string, holder: string, leaseMs: number): Promise<TaskRecord | undefined> {
    const pairs = (await this.#run(RENEW, [taskId, holder, String(ms(leaseMs))])) as string[];
    return pairs.length === 0 ? undefined : decode(pairs);
  }

  /** Whether Redis answers now (a readiness probe asks). */
  async healthy(): Promise<boolean> {
    try {
      await this.#run(PING, []);
      return true;
    } catch {
      return false;
    }
  }

  #run(s: Script, args: string[]): Promise<unknown> {
    // Every key is built from the base in the script: the base (its hash tag) routes it in Cluster.
    return command(this.#redis, (client) =>
      runScript(client, s, [`${this.#base}all`], [this.#base, ...args]),
    );
  }
}

/** A whole number of ms, at least 1 (Redis's PEXPIRE and the scores take integers). */
const ms = (n: number) => Math.max(1, Math.floor(n));

function endFields(end: TaskEnd): string[] {
  const out = ["status", end.status];
  if (end.statusMessage !== undefined) out.push("statusMessage", end.statusMessage);
  if (end.status === "completed") out.push("result", JSON.stringify(end.result));
  if (end.status === "failed") out.push("error", JSON.stringify(end.error));
  return out;
}

function outcome(reply: unknown): TaskOutcome {
  const [what, pairs] = reply as [string, string[]?];
  if (what === "ok") return { ok: true, task: decode(pairs!) };
  if (what === "terminal" || what === "not-holder") return { ok: false, reason: what, task: decode(pairs!) };
  return { ok: false, reason: "unknown" };
}

function decode(pairs: string[]): TaskRecord {
  const f: Record<string, string> = {};
  const asked: Record<string, unknown> = {};
  const answered: Record<string, unknown> = {};
  let anyAsked = false;
  let anyAnswered = false;
  for (let i = 0; i + 1 < pairs.length; i += 2) {
    const field = pairs[i]!;
    const value = pairs[i + 1]!;
    if (field.startsWith("in:")) {
      asked[field.slice(3)] = JSON.parse(value);
      anyAsked = true;
    } else if (field.startsWith("out:")) {
      answered[field.slice(4)] = JSON.parse(value);
      anyAnswered = true;
    } else f[field] = value;
  }
  return {
    taskId: f.taskId!,
    owner: f.owner!,
    method: f.method!,
    status: f.status as TaskStatus,
    ...(f.statusMessage !== undefined ? { statusMessage: f.statusMessage } : {}),
    createdAt: Number(f.createdAt),
    lastUpdatedAt: Number(f.lastUpdatedAt),
    ttlMs: Number(f.ttlMs),
    ...(f.pollIntervalMs !== undefined ? { pollIntervalMs: Number(f.pollIntervalMs) } : {}),
    ...(f.result !== undefined ? { result: JSON.parse(f.result) } : {}),
    ...(f.error !== undefined ? { error: JSON.parse(f.error) } : {}),
    ...(anyAsked ? { inputRequests: asked } : {}),
    ...(anyAnswered ? { inputResponses: answered } : {}),
    ...(f.holder !== undefined ? { lease: { holder: f.holder, until: Number(f.leaseUntil) } } : {}),
  };
}
