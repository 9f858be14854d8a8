/**
 * What the HTTP transport asks of a protected resource (`StreamableHttpOptions.auth`, made by
 * `protect()`): its metadata document at the well-known addresses, the verdict on a request's
 * credentials, the refusal of a request lacking scopes. Kept free of JOSE so that runtime/http can
 * name it without loading jose.
 */

import type { AuthInfo } from "../mcp/auth-info.js";
import type { AuthRequest } from "./verifier.js";

/** An answer refusing a request: its status, headers (`WWW-Authenticate`, `DPoP-Nonce`) and a message. */
export interface Refusal {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly message: string;
}

export type Verdict = { readonly auth: AuthInfo } | { readonly refusal: Refusal };

export interface ResourceGuard {
  /** The canonical resource URI of the endpoint (the audience its tokens name). */
  readonly resource: string;
  /** The Protected Resource Metadata as JSON text when `pathname` is one of its well-known addresses. */
  metadataAt(pathname: string): string | undefined;
  /** Checks the request's credentials (size, placement, token, DPoP proof, the default scopes). */
  authorize(request: AuthRequest): Promise<Verdict>;
  /**
   * The 403 for a request that needs `required` (besides the default scopes) when `auth` lacks some;
   * undefined when it has them all.
   */
  scopeRefusal(auth: AuthInfo, required: readonly string[], request: AuthRequest): Refusal | undefined;
  /**
   * The 403 naming `required` (with the default scopes), for a step-up a handler asked for; `auth` (the
   * caller's) picks the challenge's scheme: DPoP for a DPoP-bound token.
   */
  insufficientScope(required: readonly string[], auth?: AuthInfo): Refusal;
}
