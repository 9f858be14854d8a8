/**
 * Where sender-constrained tokens (DPoP, RFC 9449) plug into the OAuth client: a proof on each token
 * request, the token presented with a fresh proof on each MCP request, and the nonce challenges of both
 * (RFC 9449 §8 and §9) answered by a retry. Without one, tokens are bearer tokens.
 */

import type { AuthorizedRequest } from "../http-client/authorizer.js";
import type { StoredTokens } from "./token-store.js";

export interface SenderConstraint {
  /** Adds the proof to a token request about to be sent (called again for a retry). */
  tokenRequest(request: {
    readonly url: string;
    readonly method: "POST";
    readonly headers: Headers;
  }): Promise<void>;
  /**
   * The token endpoint refused the request: true to send it once more (a nonce learned). Read its headers
   * only: on false its body is read for the error the caller gets.
   */
  tokenRefused?(response: Response): boolean | Promise<boolean>;
  /** The headers presenting `tokens` on this request (replacing `Authorization: Bearer …`). */
  present(tokens: StoredTokens, request: AuthorizedRequest): Promise<Record<string, string>>;
  /** A 401/403 from the MCP server that this constraint answers itself (a nonce): true to retry. */
  challenged?(response: Response, request: AuthorizedRequest): boolean | Promise<boolean>;
}
