/**
 * Placeholder handlers: what `mcp-codegen init` and `generate` write for methods not yet written. Server
 * and client treat a stub as an absent handler.
 */

import { ErrorCode, McpError } from "../jsonrpc/messages.js";

const NOT_IMPLEMENTED = Symbol.for("mcp-codegen.notImplemented");

/**
 * A placeholder handler (what `mcp-codegen init` and `generate` write for methods not yet written): it
 * type-checks as any handler, declares no capability, and answers -32601 as if absent.
 */
// biome-ignore lint/suspicious/noExplicitAny: a stub must fit every handler signature.
export function notImplemented(method: string): (...args: any[]) => never {
  const stub = () => {
    throw new McpError(ErrorCode.MethodNotFound, `Method not found: ${method} is not implemented yet`);
  };
  return Object.assign(stub, { [NOT_IMPLEMENTED]: true });
}

export const isStub = (handler: unknown): boolean =>
  typeof handler === "function" && (handler as unknown as Record<symbol, unknown>)[NOT_IMPLEMENTED] === true;
