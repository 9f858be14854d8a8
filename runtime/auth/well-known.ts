/**
 * The addresses a client tries for metadata, in the order the specification gives (2025-11-25 and later,
 * "Protected Resource Metadata Discovery" and "Authorization Server Metadata Discovery"). Pure: no fetch.
 */

const PRM = "/.well-known/oauth-protected-resource";
const OAUTH = "/.well-known/oauth-authorization-server";
const OIDC = "/.well-known/openid-configuration";

/** The URL's path without a trailing slash ("" for the root), query and fragment dropped. */
const pathOf = (url: URL) => url.pathname.replace(/\/+$/, "");

/**
 * RFC 9728 §3.1 for the MCP endpoint: the path-aware address first (`/.well-known/oauth-protected-resource/mcp`
 * for `https://host/mcp`), then the root one; one address when the endpoint is the root.
 */
export function protectedResourceMetadataUrls(serverUrl: string | URL): URL[] {
  const url = new URL(serverUrl);
  const path = pathOf(url);
  const root = new URL(PRM, url.origin);
  return path ? [new URL(`${PRM}${path}`, url.origin), root] : [root];
}

/**
 * RFC 8414 §3.1 and OpenID Connect Discovery for an issuer. With a path (`https://as/tenant1`): OAuth
 * path-inserted, OpenID path-inserted, OpenID path-appended. Without: OAuth, then OpenID. Never the root
 * documents for an issuer with a path: they describe another issuer.
 */
export function authorizationServerMetadataUrls(issuer: string | URL): URL[] {
  const url = new URL(issuer);
  const path = pathOf(url);
  if (!path) return [new URL(OAUTH, url.origin), new URL(OIDC, url.origin)];
  return [
    new URL(`${OAUTH}${path}`, url.origin),
    new URL(`${OIDC}${path}`, url.origin),
    new URL(`${path}${OIDC}`, url.origin),
  ];
}

/**
 * 2025-03-26: the authorization base URL is the MCP server's URL with the path dropped; its endpoints,
 * when it publishes no metadata, are these defaults.
 */
export function legacyAuthorizationBase(serverUrl: string | URL): string {
  return new URL(serverUrl).origin;
}

export function legacyDefaultEndpoints(serverUrl: string | URL) {
  const origin = new URL(serverUrl).origin;
  return {
    authorization_endpoint: `${origin}/authorize`,
    token_endpoint: `${origin}/token`,
    registration_endpoint: `${origin}/register`,
  };
}
