/** MCP servers on any transport: the runtime behind every generated `createServer`. */

export { type InputRequest, type InputRequiredResult, inputRequired } from "../mcp/input-rounds.js";
export {
  type ConnectOptions,
  type Era,
  type HandlerContext,
  type ImplementationInfo,
  type InputOptions,
  type MethodTypes,
  type NotificationContext,
  notImplemented,
  Server,
  type ServerOptions,
  ServerSession,
  type SessionInfo,
} from "./server.js";
