/**
 * Who made a request, as a verified access token says: what handlers read as `ctx.auth` when the server is
 * protected, and what scope checks compare against. Kept in mcp/ so the server can check scopes without
 * knowing how the token was verified (auth/ does that).
 */

import { McpError } from "../jsonrpc/messages.js";

export interface AuthInfo {
  /** The token's subject (`sub`), or the client id for a client-credentials token without one. */
  readonly subject: string;
  /** The OAuth client the token was issued to (`client_id`, `azp`), when the token says. */
  readonly clientId?: string;
  /** The scopes granted (`scope` split on spaces, or `scp`). */
  readonly scopes: readonly string[];
  /** Expiry, in seconds since the epoch (`exp`), when the token has one. */
  readonly expiresAt?: number;
  /** The issuer (`iss`) that vouched for the token. */
  readonly issuer?: string;
  /** The resource (audience) the token was issued for. */
  readonly resource?: string;
  /** Every claim of the token (or the introspection answer), for what the fields above do not carry. */
  readonly claims: Readonly<Record<string, unknown>>;
}

/** Whether a value is an `AuthInfo` (a subject string and a scope list), as verifiers make them. */
export function isAuthInfo(value: unknown): value is AuthInfo {
  if (typeof value !== "object" || value === null) return false;
  const v = value as { subject?: unknown; scopes?: unknown };
  return typeof v.subject === "string" && Array.isArray(v.scopes);
}

/** The scopes of `required` that `granted` lacks, in `required`'s order. */
export function missingScopes(granted: readonly string[], required: readonly string[]): string[] {
  if (required.length === 0) return [];
  const have = new Set(granted);
  return required.filter((s) => !have.has(s));
}

/**
 * The JSON-RPC error code of a request its caller may not make (a scope its token lacks, or no verified
 * token where the contract declares `auth`): what transports without HTTP statuses (stdio, in memory)
 * answer. In the range JSON-RPC leaves to servers, clear of the codes MCP and this runtime use.
 */
export const ACCESS_DENIED = -32003;

/**
 * A request needs scopes its token does not carry. The HTTP transport answers 403 with
 * `WWW-Authenticate: Bearer error="insufficient_scope", scope="…"` so the client can step up; `required`
 * is the whole set the operation needs (the client asks for it, plus what it already has). Elsewhere it
 * is the JSON-RPC error ACCESS_DENIED with `data: { requiredScopes, missingScopes }`.
 */
export class InsufficientScope extends McpError {
  override readonly name = "InsufficientScope";
  constructor(
    readonly required: readonly string[],
    readonly missing: readonly string[],
  ) {
    super(ACCESS_DENIED, `insufficient scope: needs ${missing.join(" ")}`, {
      requiredScopes: required,
      missingScopes: missing,
    });
  }
}
