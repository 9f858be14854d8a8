/**
 * How an access token goes with a request: `Authorization: Bearer <token>` (RFC 6750 §2.1), or for a
 * DPoP-bound token `Authorization: DPoP <token>` with a fresh proof carrying the token's hash (RFC 9449
 * §7.1). The scheme follows the token type the server issued, not what the client asked for. JOSE-free:
 * the proofs come from a `DpopSigner` (`DpopProver` in dpop-proof.ts).
 */

import type { AuthorizedRequest } from "../http-client/authorizer.js";

/** What the OAuth client needs of a DPoP key holder. */
export interface DpopSigner {
  /** The JWS algorithm of the proofs (`ES256`, …). */
  readonly algorithm: string;
  /** A fresh proof for one request; with `accessToken`, bound to it by `ath`. */
  proof(request: {
    readonly method: string;
    readonly url: string;
    readonly accessToken?: string;
  }): Promise<string>;
  /** The nonce the next proof for `url` carries (the last one its origin gave), if any. */
  nonce(url: string): string | undefined;
  /**
   * Keeps the `DPoP-Nonce` of a response from `url` for later proofs and returns it; undefined when the
   * response has none (or a malformed one). A refused request is worth sending again only when this
   * differs from the nonce it carried.
   */
  learnNonce(url: string, response: Response): string | undefined;
}

export interface PresentedToken {
  readonly access_token: string;
  readonly token_type: string;
}

export const isDpopToken = (token: PresentedToken): boolean => token.token_type.toLowerCase() === "dpop";

export async function tokenHeaders(
  token: PresentedToken,
  request: AuthorizedRequest,
  dpop: DpopSigner | undefined,
): Promise<Record<string, string>> {
  if (!isDpopToken(token)) return { authorization: `Bearer ${token.access_token}` };
  if (!dpop) throw new TypeError("a DPoP-bound token can only be presented with the DPoP key it is bound to");
  return {
    authorization: `DPoP ${token.access_token}`,
    dpop: await dpop.proof({ method: request.method, url: request.url, accessToken: token.access_token }),
  };
}
