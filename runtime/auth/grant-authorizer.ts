/**
 * An Authorizer for the grants a program runs on its own, with no user at a browser: client credentials,
 * workload identity (JWT bearer), enterprise-managed authorization (ID-JAG). On the first 401 it finds the
 * authorization server (`discover`), obtains a token (`obtain`), and presents it on every request, with a
 * DPoP proof when the token is bound. A resource server's `use_dpop_nonce` (RFC 9449 §9) is answered by
 * sending the request again with the nonce. A grant the server refuses is thrown to the caller as is:
 * never retried, never swapped for another grant.
 */

import type { AuthorizedRequest, Authorizer } from "../http-client/authorizer.js";
import type { DpopProver } from "./dpop-proof.js";
import type { TokenResponse } from "./grant-request.js";
import { isDpopToken, tokenHeaders } from "./token-presentation.js";

/** Where a token for the refusing resource comes from. */
export interface GrantTarget {
  /** The resource's identifier as its Protected Resource Metadata publishes it (RFC 8707 `resource`). */
  readonly resource: string;
  /** The authorization server's issuer identifier. */
  readonly issuer: string;
  readonly tokenEndpoint: string;
  /** The scope to ask for (from the challenge or the metadata), if any. */
  readonly scope?: string;
}

export interface GrantAuthorizerOptions {
  /** From the 401 (its `WWW-Authenticate`) and the request, the resource and its authorization server. */
  discover(response: Response, request: AuthorizedRequest): Promise<GrantTarget>;
  /** Runs the grant at `target`; `dpop` is set when tokens are to be bound to that key. */
  obtain(target: GrantTarget, dpop: DpopProver | undefined): Promise<TokenResponse>;
  /** Ask for DPoP-bound tokens and prove possession of this key on every request. */
  dpop?: DpopProver;
  /** Seconds before `expires_in` runs out when a token counts as expired. Default 30. */
  expirySkewSeconds?: number;
}

/** A DPoP challenge asking for a nonce (RFC 9449 §9); the scheme and parameter compare case-insensitively. */
const USE_DPOP_NONCE = /(^|[\s,])dpop\s.*\berror\s*=\s*"?use_dpop_nonce"?/i;

export class GrantAuthorizer implements Authorizer {
  readonly #options: GrantAuthorizerOptions;
  #target: GrantTarget | undefined;
  #token: TokenResponse | undefined;
  /** Milliseconds since the epoch, when the token stops being good; undefined when the server said not. */
  #expiresAt: number | undefined;
  /** Requests the current token went with: a token refused on its first use is not replaced in a loop. */
  #uses = 0;

  constructor(options: GrantAuthorizerOptions) {
    this.#options = options;
  }

  async headers(request: AuthorizedRequest): Promise<Record<string, string>> {
    if (this.#token && this.#target && this.#expiresAt !== undefined && Date.now() >= this.#expiresAt)
      await this.#obtain(this.#target);
    if (!this.#token) return {};
    this.#uses++;
    return tokenHeaders(this.#token, request, this.#options.dpop);
  }

  async challenged(response: Response, request: AuthorizedRequest): Promise<boolean> {
    if (response.status !== 401) return false;
    const dpop = this.#options.dpop;
    if (this.#token && isDpopToken(this.#token) && dpop) {
      const header = response.headers.get("www-authenticate") ?? "";
      if (USE_DPOP_NONCE.test(header)) return dpop.learnNonce(request.url, response);
    }
    if (this.#token && this.#uses <= 1) return false;
    const target = await this.#options.discover(response, request);
    await this.#obtain(target);
    return true;
  }

  async #obtain(target: GrantTarget): Promise<void> {
    this.#token = undefined;
    this.#target = target;
    const token = await this.#options.obtain(target, this.#options.dpop);
    const skew = (this.#options.expirySkewSeconds ?? 30) * 1000;
    // A lifetime shorter than the skew still gets half of itself, so a short-lived token is used at all.
    const lifetime = token.expires_in === undefined ? undefined : token.expires_in * 1000;
    this.#expiresAt =
      lifetime === undefined ? undefined : Date.now() + Math.max(lifetime - skew, lifetime / 2);
    this.#token = token;
    this.#uses = 0;
  }
}
