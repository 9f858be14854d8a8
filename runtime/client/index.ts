/** MCP clients on any transport: the runtime behind every generated `createClient`. */

export type { SubscriptionFilter } from "../mcp/subscriptions.js";
export {
  Client,
  type ClientNotificationContext,
  type ClientOptions,
  type ClientRequestOptions,
  type ListenOptions,
  type ServerDescription,
  type ToolCallParams,
} from "./client.js";
export type { ClientTaskOptions } from "./client-tasks.js";
export {
  type BindOptions,
  bindContract,
  type ContractClient,
  type ContractClientTables,
  InvalidArgumentsError,
  ToolCallError,
} from "./contract.js";
export type { Subscription, SubscriptionEnd } from "./subscriptions.js";
export type {
  TaskRequest,
  ToolTask,
  ToolTaskInfo,
  ToolTaskStatus,
  ToolTaskWaitOptions,
} from "./tool-task.js";
