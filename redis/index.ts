/** Redis backends for the runtime's stores, shared by every instance of a server behind a load balancer. */

export {
  connectRedis,
  connectRedisCluster,
  hostOf,
  type OwnedRedisConnection,
  type RedisCommands,
  type RedisConnection,
  type RedisConnectOptions,
} from "./connection.js";
export { RedisEventStore, type RedisEventStoreOptions } from "./event-store.js";
export {
  RedisMessageBus,
  type RedisMessageBusOptions,
  type RedisPubSubClient,
  type RedisSubscriber,
} from "./message-bus.js";
export {
  RedisResourceSubscriptions,
  type RedisResourceSubscriptionsOptions,
} from "./resource-subscriptions.js";
export { RedisSessionStore, type RedisSessionStoreOptions } from "./session-store.js";
export { RedisStateKeyring, type RedisStateKeyringOptions } from "./state-keyring.js";
export { type RedisStores, type RedisStoresOptions, redisStores } from "./stores.js";
export { RedisTaskStore, type RedisTaskStoreOptions } from "./task-store.js";
export { RedisUnavailable } from "./unavailable.js";
export { RedisUsedStateStore, type RedisUsedStateStoreOptions } from "./used-state-store.js";
