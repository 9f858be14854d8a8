/**
 * The one module generated code imports (besides `./zod` for the optional zod schemas): the plain-check
 * helpers, the method-table types, and the server and client the generated factories wrap. Its names are
 * kept stable across runtime versions so committed generated code keeps compiling.
 */

export { anyOf, at, type Check, type Fail, fail, inJson, isObject, oneOf } from "./check/check.js";
export { codePoints, type Format, formats, jsonEqual } from "./check/formats.js";
export {
  Client,
  type ClientNotificationContext,
  type ClientOptions,
  type ClientRequestOptions,
} from "./client/client.js";
export { McpError } from "./jsonrpc/messages.js";
export type { HandlerContext, InputOptions, NotificationContext } from "./mcp/handler-context.js";
export { inputRequired } from "./mcp/input-rounds.js";
export { notImplemented } from "./mcp/not-implemented.js";
export type { CallMeta } from "./mcp/request-meta.js";
export type { ProtocolTables } from "./mcp/tables.js";
export { Server, type ServerOptions } from "./server/server.js";
