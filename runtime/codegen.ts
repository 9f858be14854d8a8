/**
 * What generated code shares: the plain-check helpers, the method-table types, handler context types and
 * the result helpers. The generated server.ts also imports `./server`, client.ts `./client`, schemas.ts
 * `./zod`; nothing here loads the server or the client, so a server never loads the client's code. Its
 * names are kept stable across runtime versions so committed generated code keeps compiling.
 */

export {
  add,
  anyOf,
  at,
  type Check,
  type Fail,
  fail,
  full,
  inJson,
  isObject,
  oneOf,
  propertyName,
  uniqueItems,
} from "./check/check.js";
export { boundsDepth, tooDeep } from "./check/depth.js";
export { codePoints, type Format, formats, isMultipleOf, jsonEqual, ownKeyCount } from "./check/formats.js";
export { McpError } from "./jsonrpc/messages.js";
export type { HandlerContext, InputOptions, NotificationContext } from "./mcp/handler-context.js";
export { inputRequired } from "./mcp/input-rounds.js";
export { notImplemented } from "./mcp/not-implemented.js";
export type { CallMeta } from "./mcp/request-meta.js";
export type { Returned, Sendable } from "./mcp/returned.js";
export type { ProtocolTables } from "./mcp/tables.js";
export {
  type TemplatePart,
  type TemplateValues,
  type TemplateVariable,
  UriTemplate,
} from "./mcp/uri-template.js";
