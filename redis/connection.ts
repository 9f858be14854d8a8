/**
 * One Redis connection as the stores use it: node-redis with bounded waits everywhere. It reconnects
 * after a restart (backoff capped at `maxReconnectDelayMs`); while it is down, commands fail at once
 * (no offline queue: a request waits for nothing that may never come), a command Redis does not answer
 * fails after `commandTimeoutMs`, and at most `maxQueuedCommands` wait at once.
 * Credentials come only from the URL and are never logged: logs and errors name host:port.
 */

import { createClient, createCluster } from "redis";
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
  /** Waits for the commands in flight at most `commandTimeoutMs`, then drops the connection. */
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
  const client = createClient({ url, ...bounded(options) });
  const outages = outageLog(options);
  client.on("error", (error: unknown) => outages.down(where, error));
  client.on("ready", () => outages.up(where));
  await connectWithin(
    options,
    where,
    outages,
    () => client.connect(),
    () => client.destroy(),
  );
  return {
    client,
    where,
    commandTimeoutMs: options.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS,
    close: () => closeWithin(options, client),
  };
}

/**
 * Connects to the Redis Cluster that the nodes at `urls` belong to (a few are enough: the others are
 * discovered). Credentials come from the first URL and are used for every node.
 */
export async function connectRedisCluster(
  urls: readonly string[],
  options: RedisConnectOptions = {},
): Promise<OwnedRedisConnection> {
  if (urls.length === 0) throw new TypeError("connectRedisCluster needs the URL of at least one node");
  const nodes = urls.map(hostOf);
  const where = `cluster ${nodes.join(",")}`;
  const first = new URL(urls[0]!);
  const settings = bounded(options);
  const cluster = createCluster({
    rootNodes: urls.map((url) => ({ url })),
    defaults: {
      ...settings,
      // Discovered nodes get these defaults only: TLS too, when the URLs ask for it.
      socket: first.protocol === "rediss:" ? { ...settings.socket, tls: true as const } : settings.socket,
      ...(first.username ? { username: decodeURIComponent(first.username) } : {}),
      ...(first.password ? { password: decodeURIComponent(first.password) } : {}),
    },
  });
  const outages = outageLog(options);
  const node = (info: { host?: string; port?: number } | undefined) => `${info?.host}:${info?.port}`;
  cluster.on("node-error", (error: unknown, info?: { host?: string; port?: number }) =>
    outages.down(node(info), error),
  );
  cluster.on("node-ready", (info?: { host?: string; port?: number }) => outages.up(node(info)));
  cluster.on("error", (error: unknown) => outages.down(where, error));
  await connectWithin(
    options,
    where,
    outages,
    () => cluster.connect(),
    () => void cluster.destroy(),
  );
  return {
    client: cluster,
    where,
    commandTimeoutMs: options.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS,
    close: () => closeWithin(options, cluster),
  };
}

/** The client settings that keep every wait bounded. */
function bounded(options: RedisConnectOptions) {
  const maxDelay = options.maxReconnectDelayMs ?? 2000;
  return {
    disableOfflineQueue: true,
    commandsQueueMaxLength: options.maxQueuedCommands ?? 10_000,
    socket: {
      connectTimeout: options.connectTimeoutMs ?? 5000,
      reconnectStrategy: (retries: number) => Math.min(50 * 2 ** Math.min(retries, 10), maxDelay),
    },
  };
}

/**
 * One line when a node goes, one when it is back: not one per reconnection attempt. Until the first
 * connection is made, nothing: the start's rejection says why, with the last error as its cause.
 */
function outageLog(options: RedisConnectOptions) {
  const log = options.log ?? ((line: string) => console.error(line));
  const down = new Set<string>();
  const start: { connected: boolean; error?: unknown } = { connected: false };
  return {
    start,
    down(where: string, error: unknown) {
      if (!start.connected) {
        start.error = error;
        return;
      }
      if (down.has(where)) return;
      down.add(where);
      // node-redis errors carry host:port at most, never credentials.
      log(`Redis at ${where} is unreachable, reconnecting: ${describe(error)}`);
    },
    up(where: string) {
      if (down.delete(where)) log(`Redis at ${where} is reachable again`);
    },
  };
}

/**
 * Waits for `connect` at most `connectTimeoutMs`; on failure, gives the client up. A timeout's
 * RedisUnavailable has the last error seen meanwhile (refused, wrong password…) as its cause.
 */
async function connectWithin(
  options: RedisConnectOptions,
  where: string,
  outages: ReturnType<typeof outageLog>,
  connect: () => Promise<unknown>,
  destroy: () => void,
): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const { error } = outages.start;
      reject(new RedisUnavailable(where, error === undefined ? {} : { cause: error }));
    }, options.connectTimeoutMs ?? 5000);
  });
  try {
    await Promise.race([connect(), deadline]);
    outages.start.connected = true;
  } catch (error) {
    destroy();
    throw error instanceof RedisUnavailable ? error : new RedisUnavailable(where, { cause: error });
  } finally {
    clearTimeout(timer);
  }
}

/** A graceful close that a stuck Redis cannot hold up: a server's shutdown must end. */
async function closeWithin(
  options: RedisConnectOptions,
  client: { isOpen: boolean; close(): Promise<void>; destroy(): void },
): Promise<void> {
  if (!client.isOpen) return;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, options.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS);
  });
  try {
    await Promise.race([client.close().catch(() => {}), late]);
  } finally {
    clearTimeout(timer);
    if (client.isOpen) client.destroy();
  }
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
