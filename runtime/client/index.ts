/** MCP clients on any transport: the runtime behind every generated `createClient`. */

export {
  Client,
  type ClientNotificationContext,
  type ClientOptions,
  type ClientRequestOptions,
  type ListenOptions,
  type ServerDescription,
  type Subscription,
  type SubscriptionEnd,
  type SubscriptionFilter,
} from "./client.js";
