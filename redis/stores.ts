/**
 * Every store one server shares with its other instances, on one Redis connection: the one entry a
 * server needs (a scaffolded server calls it when `MCP_REDIS_URL` is set). `server` spreads into
 * `createServer`'s options, `http` into `serveHttp`'s; `close()` after the HTTP drain.
 */

import { connectRedis, type RedisConnectOptions } from "./connection.js";
import { RedisEventStore } from "./event-store.js";
import { RedisMessageBus } from "./message-bus.js";
import { RedisResourceSubscriptions } from "./resource-subscriptions.js";
import { RedisSessionStore } from "./session-store.js";
import { RedisStateKeyring } from "./state-keyring.js";
import { RedisTaskStore } from "./task-store.js";
import { RedisUsedStateStore } from "./used-state-store.js";

export interface RedisStoresOptions extends RedisConnectOptions {
  /** Prepended to every key and channel, so that several servers share one Redis (default "mcp:"). */
  prefix?: string;
}

export interface RedisStores {
  /** host:port of the Redis, for logs (never the URL: it may hold credentials). */
  readonly where: string;
  /**
   * For `createServer`: the keys sealing MRTR `requestState`s and their single-use claims, the bus
   * carrying messages between instances (answers, cancellations, progress, fan-out, task status), which
   * sessions subscribed to which resources, and the tasks long-running tools run as (polled, cancelled
   * and fetched on any instance; a task whose instance died reported failed).
   */
  readonly server: {
    stateKeys: RedisStateKeyring;
    usedStateStore: RedisUsedStateStore;
    bus: RedisMessageBus;
    resourceSubscriptions: RedisResourceSubscriptions;
    taskStore: RedisTaskStore;
  };
  /** For `serveHttp`: 2025-era session records (any instance serves a session) and the SSE event logs. */
  readonly http: { sessionStore: RedisSessionStore; eventStore: RedisEventStore };
  /** Drops the bus's subscriber, then the connection (waiting for commands in flight, bounded). */
  close(): Promise<void>;
}

/**
 * Connects once to the Redis at `url` (`redis[s]://[[user][:password]@]host[:port][/db]`) and makes every
 * store on that connection. Rejects with RedisUnavailable (its `toString()` names host:port) when Redis
 * does not answer within `connectTimeoutMs`, and with a TypeError for a URL that is not a Redis URL.
 */
export async function redisStores(url: string, options: RedisStoresOptions = {}): Promise<RedisStores> {
  const { prefix, ...connect } = options;
  const connection = await connectRedis(url, connect);
  const scoped = prefix === undefined ? {} : { prefix };
  const bus = new RedisMessageBus(connection, scoped);
  return {
    where: connection.where,
    server: {
      stateKeys: new RedisStateKeyring(connection, scoped),
      usedStateStore: new RedisUsedStateStore(connection, scoped),
      bus,
      resourceSubscriptions: new RedisResourceSubscriptions(connection, scoped),
      taskStore: new RedisTaskStore(connection, scoped),
    },
    http: {
      sessionStore: new RedisSessionStore(connection, scoped),
      eventStore: new RedisEventStore(connection, scoped),
    },
    close: async () => {
      await bus.close();
      await connection.close();
    },
  };
}
