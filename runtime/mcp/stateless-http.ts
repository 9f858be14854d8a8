/**
 * What a client speaking a stateless protocol version (2026-07-28 on) hands its HTTP transport: the
 * client knows which headers each message needs, the transport sends them. It lives here so that the
 * client and the HTTP client transports need not import each other.
 */

import type { JsonRpcMessage } from "../jsonrpc/messages.js";

/** How a client speaking a stateless protocol version drives the transport. */
export interface StatelessHttp {
  /** The headers of one outgoing message: MCP-Protocol-Version, Mcp-Method, Mcp-Name, Mcp-Param-*. */
  headersFor(message: JsonRpcMessage): Record<string, string>;
}
