/**
 * The runtime's MessageBus on Redis pub/sub: what one instance publishes, every instance subscribed to the
 * channel gets. Subscriptions share one dedicated connection (a subscribed connection can send nothing
 * else), made by `duplicate()` on first use; each channel is subscribed in Redis once, however many
 * listeners it has here. On Redis Cluster, `sharded` uses SPUBLISH/SSUBSCRIBE (Redis 7): a channel lives
 * on its slot's node instead of being broadcast to every node.
 *
 * Pub/sub is at most once: a message published while a subscriber's connection is down (a Redis restart,
 * a network cut) is lost for it. That suits fan-out (`channels.fanOut`: list-changed, resources/updated,
 * where a lost notification costs a client a refresh), not messages that must arrive: answers to
 * server→client requests and cancellations (`channels.session`, `channels.request`) need an
 * acknowledgement, which Streams give (a later step).
 */

import type { BusListener, MessageBus } from "@mcp-codegen/runtime/server";
import { command } from "./command.js";
import type { RedisConnection } from "./connection.js";
import { unavailableOr } from "./unavailable.js";

/** node-redis's pub/sub listener: the message, then its channel. */
type PubSubListener = (message: string, channel: string) => void;

/** The subscribing side of a node-redis client or cluster. */
export interface RedisSubscriber {
  readonly isReady: boolean;
  on(event: "error", listener: (error: unknown) => void): unknown;
  connect(): Promise<unknown>;
  subscribe(channel: string, listener: PubSubListener): Promise<unknown>;
  unsubscribe(channel: string, listener?: PubSubListener): Promise<unknown>;
  sSubscribe(channel: string, listener: PubSubListener): Promise<unknown>;
  sUnsubscribe(channel: string, listener?: PubSubListener): Promise<unknown>;
  destroy(): unknown;
}

/** A node-redis client or cluster, as the bus uses it. */
export interface RedisPubSubClient {
  readonly isReady: boolean;
  publish(channel: string, message: string): Promise<number>;
  sPublish(channel: string, message: string): Promise<number>;
  duplicate(): RedisSubscriber;
}

export interface RedisMessageBusOptions {
  /** Prepended to every channel, so that several servers share one Redis (default "mcp:"). */
  prefix?: string;
  /** SPUBLISH/SSUBSCRIBE (Redis 7 sharded pub/sub), for Redis Cluster (default false). */
  sharded?: boolean;
  /** Where a listener's error goes (default: nowhere); it does not stop the other listeners. */
  onError?: (error: unknown) => void;
}

export class RedisMessageBus implements MessageBus {
  readonly #redis: RedisConnection;
  readonly #client: RedisPubSubClient;
  readonly #prefix: string;
  readonly #sharded: boolean;
  readonly #onError: (error: unknown) => void;
  readonly #listeners = new Map<string, Set<BusListener>>();
  /** Each channel's subscription in Redis, under way or done. */
  readonly #subscribed = new Map<string, Promise<void>>();
  #subscriber: Promise<RedisSubscriber> | undefined;

  constructor(redis: RedisConnection, options: RedisMessageBusOptions = {}) {
    this.#redis = redis;
    this.#client = redis.client as unknown as RedisPubSubClient;
    this.#prefix = options.prefix ?? "mcp:";
    this.#sharded = options.sharded ?? false;
    this.#onError = options.onError ?? (() => {});
  }

  /** The Redis channel a bus channel is published on. */
  channel(name: string): string {
    return `${this.#prefix}bus:${name}`;
  }

  /** Resolves to the number of instances (subscribed connections) that got it: PUBLISH's answer. */
  async publish(channel: string, message: unknown): Promise<number> {
    const text = JSON.stringify(message);
    const key = this.channel(channel);
    return command(this.#redis, () =>
      this.#sharded ? this.#client.sPublish(key, text) : this.#client.publish(key, text),
    );
  }

  async subscribe(channel: string, listener: BusListener): Promise<() => void> {
    // Each subscription is its own entry, even for a listener given twice.
    const entry: BusListener = (message: unknown) => listener(message);
    let listeners = this.#listeners.get(channel);
    if (!listeners) {
      listeners = new Set();
      this.#listeners.set(channel, listeners);
      this.#subscribed.set(channel, this.#subscribeInRedis(channel));
    }
    try {
      // A channel's later subscribers wait for its subscription in Redis too: none resolves before it.
      await this.#subscribed.get(channel);
    } catch (error) {
      if (this.#listeners.get(channel) === listeners && listeners.size === 0) this.#forget(channel);
      throw error;
    }
    listeners.add(entry);
    return () => {
      const current = this.#listeners.get(channel);
      if (!current?.delete(entry) || current.size > 0) return;
      this.#forget(channel);
      void this.#unsubscribe(channel);
    };
  }

  /** Whether both connections are up (a readiness probe asks). */
  async healthy(): Promise<boolean> {
    if (!this.#client.isReady) return false;
    if (!this.#subscriber) return true;
    return (await this.#subscriber.catch(() => undefined))?.isReady ?? false;
  }

  /** Drops the subscribing connection (the publishing one is the caller's). */
  async close(): Promise<void> {
    const subscriber = await this.#subscriber?.catch(() => undefined);
    this.#subscriber = undefined;
    this.#listeners.clear();
    this.#subscribed.clear();
    subscriber?.destroy();
  }

  async #subscribeInRedis(channel: string): Promise<void> {
    const subscriber = await this.#connected();
    const key = this.channel(channel);
    await command(this.#redis, () =>
      this.#sharded
        ? subscriber.sSubscribe(key, this.#deliver(channel))
        : subscriber.subscribe(key, this.#deliver(channel)),
    );
  }

  #forget(channel: string): void {
    this.#listeners.delete(channel);
    this.#subscribed.delete(channel);
  }

  #deliver(channel: string): PubSubListener {
    return (text) => {
      let message: unknown;
      try {
        message = JSON.parse(text);
      } catch (error) {
        this.#onError(error);
        return;
      }
      // A snapshot: a listener may unsubscribe (itself or another) while the message is delivered.
      for (const listener of [...(this.#listeners.get(channel) ?? [])]) {
        try {
          listener(message);
        } catch (error) {
          this.#onError(error);
        }
      }
    };
  }

  async #unsubscribe(channel: string): Promise<void> {
    try {
      const subscriber = await this.#connected();
      // Subscribed again meanwhile: keep it.
      if (this.#listeners.has(channel)) return;
      const key = this.channel(channel);
      await command(this.#redis, () =>
        this.#sharded ? subscriber.sUnsubscribe(key) : subscriber.unsubscribe(key),
      );
    } catch (error) {
      // Redis is down: its restart forgets the subscription; else it delivers to no listener here.
      this.#onError(error);
    }
  }

  /** The subscribing connection, made on first use; a failed attempt is forgotten, so the next retries. */
  #connected(): Promise<RedisSubscriber> {
    this.#subscriber ??= (async () => {
      const subscriber = this.#client.duplicate();
      // The connection's own client logs outages; this one reconnects (and resubscribes) on its own.
      subscriber.on("error", () => {});
      try {
        await command(this.#redis, () => subscriber.connect());
        return subscriber;
      } catch (error) {
        subscriber.destroy();
        throw unavailableOr(error, this.#redis.where);
      }
    })();
    this.#subscriber.catch(() => {
      this.#subscriber = undefined;
    });
    return this.#subscriber;
  }
}
