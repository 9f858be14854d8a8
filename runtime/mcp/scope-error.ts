/**
 * The scopes a JSON-RPC error says a request needs: an `InsufficientScope` (ACCESS_DENIED with
 * `data.requiredScopes`), so that the HTTP transport can answer 403 with a step-up challenge when no
 * byte of the answer has gone out yet. Any other transport passes the error on, and the client still
 * learns what to ask for.
 */

import { ACCESS_DENIED } from "./auth-info.js";

export function requiredScopesOf(error: { code: number; data?: unknown }): string[] | undefined {
  if (error.code !== ACCESS_DENIED) return undefined;
  const required = (error.data as { requiredScopes?: unknown } | undefined)?.requiredScopes;
  return Array.isArray(required) && required.length > 0 && required.every((s) => typeof s === "string")
    ? required
    : undefined;
}
