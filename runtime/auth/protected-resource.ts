/**
 * Protected Resource Metadata (RFC 9728) for an MCP endpoint: the document, the well-known addresses it
 * is served at (path-aware first, then the root, as MCP clients look them up), and the endpoint's
 * canonical resource URI (RFC 8707), the audience its tokens must name.
 */

import type { ProtectedResourceMetadata } from "./metadata.js";

export const PRM_WELL_KNOWN = "/.well-known/oauth-protected-resource";

export interface MetadataOptions {
  /** URL of the MCP endpoint (made canonical). */
  resource: string | URL;
  /** Issuer URLs of the authorization servers whose tokens this server accepts. */
  authorizationServers: readonly string[];
  /** Scopes a client may ask for (`offline_access` is never listed: it concerns the authorization server). */
  scopesSupported?: readonly string[];
  resourceName?: string;
  resourceDocumentation?: string;
  /** DPoP proof algorithms accepted, when DPoP is. */
  dpopAlgorithms?: readonly string[];
  /** Whether only DPoP-bound tokens are accepted. */
  dpopBoundRequired?: boolean;
}

/**
 * The canonical form of a resource URI (RFC 8707 §2, MCP "Canonical Server URI"): absolute http(s),
 * scheme and host lower case, default port dropped, no fragment, no trailing slash (a bare origin has
 * none either). Throws TypeError on a URL that cannot name a resource.
 */
export function canonicalResource(url: string | URL): string {
  const u = new URL(url);
  if (u.protocol !== "https:" && u.protocol !== "http:") {
    throw new TypeError(`a resource URI is http(s), not ${u.protocol}`);
  }
  if (u.username !== "" || u.password !== "") throw new TypeError("a resource URI carries no credentials");
  u.hash = "";
  const path = u.pathname.replace(/\/+$/, "");
  return `${u.protocol}//${u.host}${path}${u.search}`;
}

/**
 * Where the metadata of `resource` is served: `pathAware` inserts the well-known segment between the
 * host and the path (RFC 9728 §3.1); `root` is the fallback MCP clients try next. Equal for a bare origin.
 */
export function protectedResourceMetadataUrls(resource: string | URL): { pathAware: string; root: string } {
  const u = new URL(canonicalResource(resource));
  const root = `${u.protocol}//${u.host}${PRM_WELL_KNOWN}`;
  const path = u.pathname === "/" ? "" : u.pathname;
  return { pathAware: `${root}${path}`, root };
}

/** The metadata document for `options.resource`. */
export function protectedResourceMetadata(options: MetadataOptions): ProtectedResourceMetadata {
  const scopes = [...new Set((options.scopesSupported ?? []).filter((s) => s !== "offline_access"))];
  const dpop = options.dpopAlgorithms ?? [];
  return {
    resource: canonicalResource(options.resource),
    authorization_servers: [...options.authorizationServers],
    bearer_methods_supported: ["header"],
    ...(scopes.length > 0 && { scopes_supported: scopes }),
    ...(options.resourceName !== undefined && { resource_name: options.resourceName }),
    ...(options.resourceDocumentation !== undefined && {
      resource_documentation: options.resourceDocumentation,
    }),
    ...(dpop.length > 0 && {
      dpop_signing_alg_values_supported: [...dpop],
      ...(options.dpopBoundRequired && { dpop_bound_access_tokens_required: true }),
    }),
  };
}
