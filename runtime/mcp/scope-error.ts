/**
 * An `InsufficientScope` thrown by a handler, as the JSON-RPC error its client gets: a code of its own and
 * the scopes needed in `data`, so that the HTTP transport can answer 403 with a step-up challenge when no
 * byte of the answer has gone out yet, and any other transport still tells the client what to ask for.
 */

import { McpError } from "../jsonrpc/messages.js";
import type { InsufficientScope } from "./auth-info.js";

/** In the implementation-defined server error range, beside the stateless era's -3202x codes. */
export const INSUFFICIENT_SCOPE_CODE = -32030;

export function insufficientScopeError(error: InsufficientScope): McpError {
  return new McpError(INSUFFICIENT_SCOPE_CODE, error.message, {
    requiredScopes: [...error.required],
    missingScopes: [...error.missing],
  });
}

/** The scopes a JSON-RPC error object says are needed, when it is an insufficient-scope error. */
export function requiredScopesOf(error: { code: number; data?: unknown }): string[] | undefined {
  if (error.code !== INSUFFICIENT_SCOPE_CODE) return undefined;
  const required = (error.data as { requiredScopes?: unknown } | undefined)?.requiredScopes;
  return Array.isArray(required) && required.every((s) => typeof s === "string") ? required : undefined;
}
