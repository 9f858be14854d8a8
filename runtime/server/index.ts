/** MCP servers on any transport: the runtime behind every generated `createServer`. */

export { ACCESS_DENIED, type AuthInfo, InsufficientScope, isAuthInfo } from "../mcp/auth-info.js";
export type {
  HandlerContext,
  ImplementationInfo,
  InputOptions,
  MethodTypes,
  NotificationContext,
  SessionInfo,
} from "../mcp/handler-context.js";
export { type InputRequest, type InputRequiredResult, inputRequired } from "../mcp/input-rounds.js";
export {
  type BusListener,
  channels,
  InMemoryMessageBus,
  type MessageBus,
} from "../mcp/message-bus.js";
export { notImplemented } from "../mcp/not-implemented.js";
export {
  InMemoryResourceSubscriptions,
  MAX_SUBSCRIPTIONS_PER_SESSION,
  type ResourceSubscriptionStore,
} from "../mcp/resource-subscriptions.js";
export type { StateCaller } from "../mcp/round-binding.js";
export { InMemoryStateKeyring, type StateKeyring } from "../mcp/state-keyring.js";
export type { StateKey } from "../mcp/state-sealer.js";
export { isUnavailable, STORE_UNAVAILABLE } from "../mcp/store-unavailable.js";
export type { SubscriptionFilter } from "../mcp/subscriptions.js";
export {
  compareTasks,
  DEFAULT_TASK_PAGE,
  InMemoryTaskStore,
  type InMemoryTaskStoreOptions,
  isTerminal,
  LEASE_LAPSED,
  newTaskId,
  type TaskCreation,
  type TaskEnd,
  type TaskError,
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
} from "../mcp/task-store.js";
export { InMemoryUsedStateStore, type UsedStateStore } from "../mcp/used-states.js";
export {
  type Completer,
  type ContractImplementation,
  type ContractProtocol,
  type ContractTables,
  type ContractUiResource,
  describeFailure,
  serveContract,
  type ToolResult,
  toolResult,
} from "./contract.js";
export {
  type ArgumentProblem,
  InvalidArguments,
  invalidArguments,
  notFound,
  ResourceNotFound,
} from "./contract-errors.js";
export type { FanOutTarget } from "./fan-out.js";
export { type RuntimeServerOptions, Server, type ServerOptions } from "./server.js";
export type { TaskOptions } from "./server-tasks.js";
export { type ConnectOptions, type Era, ServerSession } from "./session.js";
export type { SkillDirectoryChild, SkillFileContent, SkillsTable } from "./skills-table.js";
export { SERVER_CLOSED } from "./task-runner.js";
export type { TaskSupport, TaskToolDeclaration } from "./task-support.js";
