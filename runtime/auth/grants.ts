/**
 * The grants that need no browser: client credentials (OAuth 2.1 §4.2, the MCP extension SEP-1046), JWT
 * bearer (RFC 7523 §2.1: workload identity federation, SEP-1933, and the second step of enterprise-managed
 * authorization, SEP-990), and token exchange (RFC 8693) of an ID token for an Identity Assertion JWT
 * Authorization Grant (ID-JAG), the first step of SEP-990. Each returns the form of a token request;
 * `requestGrant` sends it.
 */

export const GRANT_CLIENT_CREDENTIALS = "client_credentials";
export const GRANT_JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer";
export const GRANT_TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange";
export const TOKEN_TYPE_ID_TOKEN = "urn:ietf:params:oauth:token-type:id_token";
export const TOKEN_TYPE_ID_JAG = "urn:ietf:params:oauth:token-type:id-jag";

export interface GrantScope {
  /** Space-separated scopes; left out when undefined or empty. */
  readonly scope?: string;
  /** The protected resource (RFC 8707), the MCP server's canonical URI. */
  readonly resource?: string;
}

function withScope(grant: Record<string, string>, { scope, resource }: GrantScope): Record<string, string> {
  if (scope) grant.scope = scope;
  if (resource) grant.resource = resource;
  return grant;
}

export function clientCredentialsGrant(options: GrantScope = {}): Record<string, string> {
  return withScope({ grant_type: GRANT_CLIENT_CREDENTIALS }, options);
}

/** RFC 7523 §2.1: the assertion (a workload JWT, or an ID-JAG) is the grant. */
export function jwtBearerGrant(options: GrantScope & { readonly assertion: string }): Record<string, string> {
  if (!options.assertion) throw new TypeError("a JWT bearer grant needs an assertion");
  return withScope({ grant_type: GRANT_JWT_BEARER, assertion: options.assertion }, options);
}

export interface IdJagExchange extends GrantScope {
  /** The user's ID token from the enterprise identity provider. */
  readonly idToken: string;
  /** The issuer identifier of the authorization server that will accept the ID-JAG. */
  readonly audience: string;
}

/** At the identity provider: the ID token in, an ID-JAG for `audience` and `resource` out. */
export function idJagTokenExchange(options: IdJagExchange): Record<string, string> {
  if (!options.idToken) throw new TypeError("a token exchange needs the ID token");
  if (!options.audience) throw new TypeError("a token exchange for an ID-JAG needs the audience");
  return withScope(
    {
      grant_type: GRANT_TOKEN_EXCHANGE,
      requested_token_type: TOKEN_TYPE_ID_JAG,
      audience: options.audience,
      subject_token: options.idToken,
      subject_token_type: TOKEN_TYPE_ID_TOKEN,
    },
    options,
  );
}
