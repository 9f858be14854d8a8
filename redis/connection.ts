/**
 * One Redis connection as the stores use it: node-redis with bounded waits everywhere. It reconnects
 * after a restart (backoff capped at `maxReconnectDelayMs`); while it is down, commands fail at once
 * (no offline queue: a request waits for nothing that may never come), a command Redis does not answer
 * fails after `commandTimeoutMs`, and at most `maxQueuedCommands` wait at once.
 * Credentials come only from the URL and are never logged: logs and errors name host:port.
 */

import { createClient } from "redis";
import { DEFAULT_COMMAND_TIMEOUT_MS } from "./command.js";
import { RedisUnavailable } from "./unavailable.js";

/** The commands the stores send. A node-redis client, cluster or pool has them all. */
export interface RedisCommands {
  xRange(key: string, start: string, end: string, options?: { COUNT?: number }): Promise<unknown>;
  xRevRange(key: string, start: string, end: string, options?: { COUNT?: number }): Promise<unknown>;
  evalSha(sha1: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
  eval(script: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
  del(key: string): Promise<unknown>;
  set(
    key: string,
    value: string,
    options: { condition: "NX"; expiration: { type: "PX"; value: number } },
  ): Promise<unknown>;
}

/**
 * What the stores need: the commands, where they go (host:port, for errors: never credentials), and
 * how long to wait for an answer (ms, default 2000). Made by connectRedis, or by hand around a client
 * of your own (a cluster: `{ client: createCluster(...), where: "my-cluster" }`).
 */
export interface RedisConnection {
  readonly client: RedisCommands;
  readonly where: string;
  readonly commandTimeoutMs?: number;
}

export interface RedisConnectOptions {
  /** Longest wait for one command's answer, ms (default 2000): past it the operation fails as RedisUnavailable. */
  commandTimeoutMs?: number;
  /** Most commands waiting for Redis at once (default 10000): beyond, a command fails at once, no pile-up. */
  maxQueuedCommands?: number;
  /** Longest wait for a TCP connection and, at start, for Redis to answer at all, ms (default 5000). */
  connectTimeoutMs?: number;
  /** Reconnection backoff doubles from 50 ms up to this, ms (default 2000); it never gives up. */
  maxReconnectDelayMs?: number;
  /** Where "unreachable" and "reachable again" go, once per outage (default: console.error). */
  log?: (line: string) => void;
}

/** A connection the caller closes. */
export interface OwnedRedisConnection extends RedisConnection {
  close(): Promise<void>;
}

/**
 * Connects to the Redis at `url` (`redis[s]://[[user][:password]@]host[:port][/db]`). Rejects with
 * RedisUnavailable when Redis does not answer within `connectTimeoutMs`.
 */
export async function connectRedis(
  url: string,
  options: RedisConnectOptions = {},
): Promise<OwnedRedisConnection> {
  const where = hostOf(url);
  const log = options.log ?? ((line: string) => console.error(line));
  const connectTimeout = options.connectTimeoutMs ?? 5000;
  const maxDelay = options.maxReconnectDelayMs ?? 2000;
  const client = createClient({
    url,
    disableOfflineQueue: true,
    commandsQueueMaxLength: options.maxQueuedCommands ?? 10_000,
    socket: {
      connectTimeout,
      reconnectStrategy: (retries: number) => Math.min(50 * 2 ** Math.min(retries, 10), maxDelay),
    },
  });
  // One line per outage, not one per attempt; node-redis errors carry host:port at most.
  let down = false;
  client.on("error", (error: unknown) => {
    if (down) return;
    down = true;
    log(`Redis at ${where} is unreachable, reconnecting: ${describe(error)}`);
  });
  client.on("ready", () => {
    if (!down) return;
    down = false;
    log(`Redis at ${where} is reachable again`);
  });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new RedisUnavailable(where)), connectTimeout);
  });
  try {
    await Promise.race([client.connect(), deadline]);
  } catch (error) {
    client.destroy();
    throw error instanceof RedisUnavailable ? error : new RedisUnavailable(where, { cause: error });
  } finally {
    clearTimeout(timer);
  }
  return {
    client,
    where,
    commandTimeoutMs: options.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS,
    close: async () => {
      if (client.isOpen) await client.close();
    },
  };
}

/** host:port of a Redis URL, nothing else of it (the rest may hold credentials). */
export function hostOf(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new TypeError("Redis URL is not a URL (expected redis://host:port)");
  }
  if (parsed.protocol !== "redis:" && parsed.protocol !== "rediss:")
    throw new TypeError(`Redis URL must start with redis:// or rediss://, not ${parsed.protocol}//`);
  return `${parsed.hostname}:${parsed.port || "6379"}`;
}

const describe = (error: unknown) =>
  error instanceof Error ? `${error.name}: ${error.message}` : String(error);
