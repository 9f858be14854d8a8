/**
 * `@mcp-codegen/runtime/view`: the view side of MCP Apps, for an HTML app in a host's frame. No
 * dependencies and nothing of the server or client: a view's bundle carries only this.
 */

export {
  APPS_PROTOCOL_VERSION,
  connectView,
  type HostInfo,
  View,
  type ViewEvents,
  type ViewHandlers,
  type ViewOptions,
  type ViewPort,
  ViewRequestError,
  type ViewToolResult,
} from "./view.js";
