/**
 * DPoP (RFC 9449) as the OAuth client's sender constraint: a proof on every token request (§5), the
 * token presented as `Authorization: DPoP …` with a fresh proof bound to it by `ath` on every MCP request
 * (§7.1), and the nonce challenges of both servers (§8, §9) answered by one retry with the new nonce.
 *
 *   new OAuthClient({ serverUrl, redirectUri, senderConstraint: new DpopConstraint() })
 */

import type { AuthorizedRequest } from "../http-client/authorizer.js";
import { parseChallenges } from "./challenge.js";
import { DpopProver } from "./dpop-proof.js";
import type { SenderConstraint } from "./sender-constraint.js";
import type { StoredTokens } from "./token-store.js";

/** A `DPoP` challenge with `error="use_dpop_nonce"`, wherever it stands among the response's challenges. */
const wantsNonce = (response: Response) =>
  (parseChallenges(response.headers.get("www-authenticate") ?? "") ?? []).some(
    (c) => c.scheme.toLowerCase() === "dpop" && c.params.error === "use_dpop_nonce",
  );

export class DpopConstraint implements SenderConstraint {
  /** The key pair and the nonces learned; one per client, so every proof names the same key. */
  readonly prover: DpopProver;
  /** The nonce each in-flight MCP request's proof carried: a retry helps only with another one. */
  readonly #sentNonce = new WeakMap<AuthorizedRequest, string | undefined>();
  /** The token request being made (the OAuth client makes one at a time) and the nonce its proof carried. */
  #tokenRequest: { readonly url: string; readonly nonce: string | undefined } | undefined;

  constructor(prover: DpopProver = new DpopProver()) {
    this.prover = prover;
  }

  async tokenRequest(request: { readonly url: string; readonly method: "POST"; readonly headers: Headers }) {
    this.#tokenRequest = { url: request.url, nonce: this.prover.nonce(request.url) };
    request.headers.set("dpop", await this.prover.proof({ method: request.method, url: request.url }));
  }

  /** RFC 9449 §8: a 400 `use_dpop_nonce` with a nonce other than the one just sent is worth one retry. */
  async tokenRefused(response: Response): Promise<boolean> {
    const sent = this.#tokenRequest;
    if (response.status !== 400 || !sent) return false;
    // A copy of the body: the client reads the original for the error when there is no retry.
    const body: unknown = await response
      .clone()
      .json()
      .catch(() => undefined);
    if ((body as { error?: unknown } | undefined)?.error !== "use_dpop_nonce") return false;
    const nonce = this.prover.learnNonce(sent.url, response);
    return nonce !== undefined && nonce !== sent.nonce;
  }

  async present(tokens: StoredTokens, request: AuthorizedRequest): Promise<Record<string, string>> {
    // A server that did not bind the token answers token_type Bearer: it is then presented as one.
    if (tokens.token_type.toLowerCase() !== "dpop") return { authorization: `Bearer ${tokens.access_token}` };
    this.#sentNonce.set(request, this.prover.nonce(request.url));
    return {
      authorization: `DPoP ${tokens.access_token}`,
      dpop: await this.prover.proof({
        method: request.method,
        url: request.url,
        accessToken: tokens.access_token,
      }),
    };
  }

  /** RFC 9449 §9: the MCP server wants a nonce in the proof; one it was already sent is final. */
  challenged(response: Response, request: AuthorizedRequest): boolean {
    if (response.status !== 401 || !wantsNonce(response)) return false;
    const nonce = this.prover.learnNonce(request.url, response);
    return nonce !== undefined && nonce !== this.#sentNonce.get(request);
  }
}
