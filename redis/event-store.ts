/**
 * The runtime's EventStore on Redis Streams: one stream key per SSE stream, so every instance behind a
 * load balancer can replay what any of them sent. An event id is `<streamId>#<entry id>` (the entry id
 * Redis gave it), so a client's Last-Event-ID names both the stream and the place in it. An append
 * resolves only once Redis has stored the event; when it cannot, the append rejects (RedisUnavailable:
 * 503 with Retry-After) and the event is never sent with an id.
 */

import type { JsonRpcMessage } from "@mcp-codegen/runtime";
import type { EventStore, PrimingEvent } from "@mcp-codegen/runtime/http";
import { command } from "./command.js";
import type { RedisCommands, RedisConnection } from "./connection.js";
import { runScript, type Script, script } from "./script.js";

export interface RedisEventStoreOptions {
  /** Prepended to every key, so that several servers share one Redis (default "mcp:"). */
  prefix?: string;
  /**
   * Events kept per stream (default 1000), give or take one stream node (Redis trims whole nodes:
   * `stream-node-max-entries`, 100 by default). A client that falls further behind resumes with a gap.
   */
  maxEventsPerStream?: number;
  /**
   * Events older than this are dropped (ms, default one hour), give or take one stream node; a stream
   * not written for this long is deleted whole (its key expires).
   */
  maxAgeMs?: number;
  /**
   * A stream whose last response is stored is kept this long after it (ms, default one minute, at
   * most `maxAgeMs`): time for a client whose connection broke just then to resume; then its key
   * expires. Nothing deletes a stream delivered in full (`expiresStreams`): one round trip less a call.
   */
  endedTtlMs?: number;
}

const SEPARATOR = "#";
/** A Redis stream entry id: milliseconds, a dash, a sequence number. */
const ENTRY_ID = /^(\d{1,16})-(\d{1,16})$/;
/** Entries read per round trip while replaying. */
const PAGE = 100;

/**
 * Appends, then trims by length and by age (Redis's clock, the one that made the entry id) and renews
 * the stream's expiry: one round trip, atomic, one key (so Cluster routes it to the stream's slot).
 * KEYS[1] the stream; ARGV: max events, max age ms, the message, the key's expiry ms.
 */
const APPEND: Script = script(`
local id = redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[1], '*', 'm', ARGV[3])
local ms = tonumber(string.match(id, '^(%d+)'))
redis.call('XTRIM', KEYS[1], 'MINID', '~', string.format('%d', ms - tonumber(ARGV[2])))
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return id
`);

interface Entry {
  id: string;
  message: Record<string, string>;
}

export class RedisEventStore implements EventStore {
  readonly #redis: RedisConnection;
  readonly #prefix: string;
  readonly #maxEvents: string;
  readonly #maxAge: string;
  readonly #endedTtl: string;

  constructor(redis: RedisConnection, options: RedisEventStoreOptions = {}) {
    this.#redis = redis;
    this.#prefix = options.prefix ?? "mcp:";
    this.#maxEvents = String(Math.max(1, Math.floor(options.maxEventsPerStream ?? 1000)));
    this.#maxAge = String(Math.max(1, Math.floor(options.maxAgeMs ?? 3_600_000)));
    const ended = Math.max(1, Math.floor(options.endedTtlMs ?? 60_000));
    this.#endedTtl = String(Math.min(ended, Number(this.#maxAge)));
  }

  /** The stream's key; its id in a hash tag, so that keys added per stream later share its Cluster slot. */
  key(streamId: string): string {
    return `${this.#prefix}events:{${streamId}}`;
  }

  async append(streamId: string, message: JsonRpcMessage | PrimingEvent, last?: boolean): Promise<string> {
    const ttl = last ? this.#endedTtl : this.#maxAge;
    const args = [this.#maxEvents, this.#maxAge, JSON.stringify(message), ttl];
    const entryId = await command(this.#redis, (client) =>
      runScript(client, APPEND, [this.key(streamId)], args),
    );
    if (typeof entryId !== "string") throw new Error(`Redis answered XADD with ${typeof entryId}`);
    return `${streamId}${SEPARATOR}${entryId}`;
  }

  async replayAfter(
    lastEventId: string,
    send: (id: string, message: JsonRpcMessage) => Promise<void>,
  ): Promise<string | undefined> {
    const at = lastEventId.lastIndexOf(SEPARATOR);
    const streamId = lastEventId.slice(0, at);
    const after = lastEventId.slice(at + 1);
    if (at < 0 || !ENTRY_ID.test(after)) return undefined;
    const key = this.key(streamId);
    const [last] = await this.#entries((client) => client.xRevRange(key, "+", "-", { COUNT: 1 }));
    // No entries: the stream was never written, was deleted, or expired.
    if (!last || compareIds(after, last.id) > 0) return undefined;
    // A snapshot up to the last entry now: later events are the transport's to deliver live.
    let from = after;
    while (from !== last.id) {
      const start = `(${from}`;
      const page = await this.#entries((client) => client.xRange(key, start, last.id, { COUNT: PAGE }));
      if (page.length === 0) break;
      for (const entry of page) {
        const message = JSON.parse(entry.message.m ?? "{}") as JsonRpcMessage | PrimingEvent;
        if (!isPriming(message)) await send(`${streamId}${SEPARATOR}${entry.id}`, message);
      }
      from = page.at(-1)!.id;
    }
    return streamId;
  }

  /** Every stream expires: `maxAgeMs` after its last event, `endedTtlMs` after its last response. */
  readonly expiresStreams = true;

  async deleteStream(streamId: string): Promise<void> {
    await command(this.#redis, (client) => client.del(this.key(streamId)));
  }

  async #entries(read: (client: RedisCommands) => Promise<unknown>): Promise<Entry[]> {
    const reply = await command(this.#redis, read);
    return Array.isArray(reply) ? (reply as Entry[]) : [];
  }
}

/** A stream's priming event holds a place (an id) and is never replayed. */
const isPriming = (message: JsonRpcMessage | PrimingEvent): message is PrimingEvent =>
  !("jsonrpc" in message);

/** Orders two entry ids (both matching ENTRY_ID) as Redis does: by milliseconds, then sequence. */
function compareIds(a: string, b: string): number {
  const [, am, as] = ENTRY_ID.exec(a)!;
  const [, bm, bs] = ENTRY_ID.exec(b)!;
  return Number(am) - Number(bm) || Number(as) - Number(bs);
}
