/**
 * The grants that need no browser, as `OAuthClientOptions.grant`: client credentials (OAuth 2.1 §4.2, the
 * MCP extension SEP-1046), JWT bearer (RFC 7523 §2.1: workload identity federation, SEP-1933), and
 * enterprise-managed authorization (SEP-990): the user's ID token exchanged (RFC 8693) at the enterprise
 * identity provider for an Identity Assertion JWT Authorization Grant (ID-JAG), which is then the JWT
 * bearer assertion at the MCP server's authorization server. The OAuth client adds `resource`, `scope`
 * and the client's authentication; a refusal is thrown to the caller as is, never retried with another
 * grant.
 */

import { BUILT_IN_CLIENT_AUTHENTICATION } from "./client-auth.js";
import type { Grant } from "./oauth-client.js";
import { requestToken } from "./token-request.js";

export const GRANT_CLIENT_CREDENTIALS = "client_credentials";
export const GRANT_JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer";
export const GRANT_TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange";
export const TOKEN_TYPE_ID_TOKEN = "urn:ietf:params:oauth:token-type:id_token";
export const TOKEN_TYPE_ID_JAG = "urn:ietf:params:oauth:token-type:id-jag";

/** A value, or a function giving the current one (a workload token is rotated by its platform). */
export type Fresh<T> = T | (() => T | Promise<T>);
const current = async <T>(value: Fresh<T>): Promise<T> =>
  typeof value === "function" ? (value as () => T | Promise<T>)() : value;

/** The client authenticates as itself (its registration's method) and gets a token for itself. */
export function clientCredentials(): Grant {
  return (context) => context.requestToken({ grant_type: GRANT_CLIENT_CREDENTIALS });
}

/** RFC 7523 §2.1: the assertion (a workload's JWT, audience the authorization server) is the grant. */
export function jwtBearer(assertion: Fresh<string>): Grant {
  return async (context) => {
    const value = await current(assertion);
    if (!value) throw new TypeError("a JWT bearer grant needs an assertion");
    return context.requestToken({ grant_type: GRANT_JWT_BEARER, assertion: value });
  };
}

export interface EnterpriseIdentityProvider {
  /** The identity provider's issuer identifier and token endpoint. */
  readonly issuer: string;
  readonly tokenEndpoint: string;
  /** This client's registration at the identity provider (a secret makes it `client_secret_basic`). */
  readonly clientId: string;
  readonly clientSecret?: string;
  /** The user's ID token from signing in at the identity provider. */
  readonly idToken: Fresh<string>;
  readonly fetch?: typeof fetch;
}

/**
 * SEP-990: at the identity provider, the ID token in and an ID-JAG out, for the MCP server's
 * authorization server (`audience`, its issuer) and resource; then the ID-JAG as a JWT bearer grant there.
 */
export function enterpriseManaged(idp: EnterpriseIdentityProvider): Grant {
  return async (context) => {
    const client = {
      client_id: idp.clientId,
      ...(idp.clientSecret !== undefined && { client_secret: idp.clientSecret }),
    };
    const idJag = await requestToken({
      grant: {
        grant_type: GRANT_TOKEN_EXCHANGE,
        requested_token_type: TOKEN_TYPE_ID_JAG,
        audience: context.issuer,
        subject_token: await current(idp.idToken),
        subject_token_type: TOKEN_TYPE_ID_TOKEN,
      },
      ...(context.resource !== undefined && { resource: context.resource }),
      ...(context.scope !== undefined && { scope: context.scope }),
      authenticate:
        BUILT_IN_CLIENT_AUTHENTICATION[idp.clientSecret === undefined ? "none" : "client_secret_basic"]!,
      context: {
        client,
        issuer: idp.issuer,
        tokenEndpoint: idp.tokenEndpoint,
        server: { issuer: idp.issuer, token_endpoint: idp.tokenEndpoint },
      },
      ...(idp.fetch && { fetch: idp.fetch }),
      // Anything else (an access token for the IdP itself) is not a grant the authorization server takes.
      issuedTokenType: TOKEN_TYPE_ID_JAG,
    });
    return context.requestToken({ grant_type: GRANT_JWT_BEARER, assertion: idJag.access_token });
  };
}
