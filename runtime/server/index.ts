/** MCP servers on any transport: the runtime behind every generated `createServer`. */

export type {
  HandlerContext,
  ImplementationInfo,
  InputOptions,
  MethodTypes,
  NotificationContext,
  SessionInfo,
} from "../mcp/handler-context.js";
export { type InputRequest, type InputRequiredResult, inputRequired } from "../mcp/input-rounds.js";
export { notImplemented } from "../mcp/not-implemented.js";
export type { SubscriptionFilter } from "../mcp/subscriptions.js";
export {
  type Completer,
  type ContractImplementation,
  type ContractProtocol,
  type ContractTables,
  describeFailure,
  serveContract,
  type ToolResult,
  toolResult,
} from "./contract.js";
export { type RuntimeServerOptions, Server, type ServerOptions } from "./server.js";
export { type ConnectOptions, type Era, ServerSession } from "./session.js";
