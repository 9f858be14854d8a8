/**
 * Ready-made `obtain` functions for GrantAuthorizer, one per grant a program runs without a user:
 * client credentials, a JWT bearer assertion (workload identity federation), and enterprise-managed
 * authorization (an ID token exchanged at the identity provider for an ID-JAG, then the ID-JAG presented
 * to the MCP server's authorization server).
 */

import type { ClientAuthenticator } from "./client-authenticators.js";
import type { DpopProver } from "./dpop-proof.js";
import type { GrantTarget } from "./grant-authorizer.js";
import { OAuthError, requestGrant, type TokenResponse } from "./grant-request.js";
import { clientCredentialsGrant, idJagTokenExchange, jwtBearerGrant, TOKEN_TYPE_ID_JAG } from "./grants.js";

export type ObtainToken = (target: GrantTarget, dpop: DpopProver | undefined) => Promise<TokenResponse>;

/** A value, or a function that gives a current one (a workload token is rotated by its platform). */
export type Fresh<T> = T | (() => T | Promise<T>);
const current = async <T>(value: Fresh<T>): Promise<T> =>
  typeof value === "function" ? (value as () => T | Promise<T>)() : value;

export interface ClientCredentialsOptions {
  readonly authenticate: ClientAuthenticator;
  readonly fetch?: typeof fetch;
}

export function clientCredentialsToken(options: ClientCredentialsOptions): ObtainToken {
  return (target, dpop) =>
    requestGrant({
      tokenEndpoint: target.tokenEndpoint,
      issuer: target.issuer,
      grant: clientCredentialsGrant(target),
      authenticate: options.authenticate,
      dpop,
      fetch: options.fetch,
    });
}

export interface JwtBearerOptions {
  /** The workload's JWT (its audience must be the authorization server's issuer). */
  readonly assertion: Fresh<string>;
  /** Usually `publicClient(id)`: the assertion itself identifies the workload. */
  readonly authenticate: ClientAuthenticator;
  readonly fetch?: typeof fetch;
}

export function jwtBearerToken(options: JwtBearerOptions): ObtainToken {
  return async (target, dpop) =>
    requestGrant({
      tokenEndpoint: target.tokenEndpoint,
      issuer: target.issuer,
      grant: jwtBearerGrant({ ...target, assertion: await current(options.assertion) }),
      authenticate: options.authenticate,
      dpop,
      fetch: options.fetch,
    });
}

export interface EnterpriseManagedOptions {
  /** The enterprise identity provider, where the user's ID token is exchanged for an ID-JAG. */
  readonly identityProvider: {
    readonly tokenEndpoint: string;
    readonly issuer: string;
    /** The client's registration at the identity provider. */
    readonly authenticate: ClientAuthenticator;
    /** The user's ID token from signing in at the identity provider. */
    readonly idToken: Fresh<string>;
  };
  /** The client's registration at the MCP server's authorization server. */
  readonly authenticate: ClientAuthenticator;
  readonly fetch?: typeof fetch;
}

export function enterpriseManagedToken(options: EnterpriseManagedOptions): ObtainToken {
  const idp = options.identityProvider;
  return async (target, dpop) => {
    const exchanged = await requestGrant({
      tokenEndpoint: idp.tokenEndpoint,
      issuer: idp.issuer,
      grant: idJagTokenExchange({ ...target, idToken: await current(idp.idToken), audience: target.issuer }),
      authenticate: idp.authenticate,
      fetch: options.fetch,
      name: "the identity provider",
    });
    // RFC 8693 §2.2.1 makes issued_token_type required; an access token here would be the wrong thing to present.
    if (exchanged.issued_token_type !== TOKEN_TYPE_ID_JAG)
      throw new OAuthError(
        "invalid_response",
        `the exchange issued ${exchanged.issued_token_type ?? "no issued_token_type"}, not an ID-JAG`,
        200,
        "the identity provider",
      );
    return requestGrant({
      tokenEndpoint: target.tokenEndpoint,
      issuer: target.issuer,
      grant: jwtBearerGrant({ ...target, assertion: exchanged.access_token }),
      authenticate: options.authenticate,
      dpop,
      fetch: options.fetch,
    });
  };
}
