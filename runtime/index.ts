/**
 * @mcp-codegen/runtime: the JSON-RPC layer every MCP peer stands on, for any runtime (no `node:` import
 * here or below). Servers, clients and transports have their own entries: `./server`, `./client`,
 * `./http`, `./http-client`, `./node`.
 */

export {
  Connection,
  type ConnectionOptions,
  type IncomingRequestContext,
  type Progress,
  type ProgressToken,
  REQUEST_CANCELLED,
  type RequestOptions,
} from "./jsonrpc/connection.js";
export { createMemoryTransportPair } from "./jsonrpc/memory.js";
export {
  ErrorCode,
  type JsonRpcErrorObject,
  type JsonRpcFailure,
  type JsonRpcMessage,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type JsonRpcResponse,
  type JsonRpcSuccess,
  McpError,
  type RequestId,
} from "./jsonrpc/messages.js";
export type { MessageExtra, SendOptions, Transport } from "./jsonrpc/transport.js";
export { LOG_LEVELS, type LogLevel } from "./mcp/logging.js";
export { pages, paginate } from "./mcp/pagination.js";
export { FILLED_RESULT_MEMBERS } from "./mcp/returned.js";
export {
  DIRECTORY_MIME_TYPE,
  DIRECTORY_READ,
  isSkillName,
  MAX_SKILL_BYTES,
  MAX_SKILL_FILES,
  RESERVED_META_PREFIX,
  SKILL_DIGEST,
  SKILL_MD_MIME_TYPE,
  SKILL_SCHEME,
  SKILLS_EXTENSION,
  SKILLS_GET,
  SKILLS_LIST,
  type Skill,
  type SkillFile,
  type SkillFrontmatter,
  type SkillsCapability,
} from "./mcp/skills.js";
export {
  type CapabilityRef,
  type Direction,
  type MethodEntry,
  type NotificationEntry,
  type ProtocolTables,
  type RequestEntry,
  RUNTIME_METHODS,
  type SupportedVersion,
} from "./mcp/tables.js";
