/**
 * How an access token goes with a request: `Authorization: Bearer <token>` (RFC 6750 §2.1), or for a
 * DPoP-bound token `Authorization: DPoP <token>` with a fresh proof carrying the token's hash (RFC 9449
 * §7.1). The scheme follows the token type the server issued, not what the client asked for.
 */

import type { AuthorizedRequest } from "../http-client/authorizer.js";
import type { DpopProver } from "./dpop-proof.js";

export interface PresentedToken {
  readonly access_token: string;
  readonly token_type: string;
}

export const isDpopToken = (token: PresentedToken): boolean => token.token_type.toLowerCase() === "dpop";

export async function tokenHeaders(
  token: PresentedToken,
  request: AuthorizedRequest,
  dpop: DpopProver | undefined,
): Promise<Record<string, string>> {
  if (!isDpopToken(token)) return { authorization: `Bearer ${token.access_token}` };
  if (!dpop) throw new TypeError("a DPoP-bound token can only be presented with the DPoP key it is bound to");
  return {
    authorization: `DPoP ${token.access_token}`,
    dpop: await dpop.proof({ method: request.method, url: request.url, accessToken: token.access_token }),
  };
}
