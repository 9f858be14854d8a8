/**
 * Finding the authorization server of an MCP server: its Protected Resource Metadata (from the 401's
 * `resource_metadata`, else the well-known addresses, path-aware first), the authorization server it
 * names, and that server's metadata (RFC 8414 and OpenID discovery in the spec's order, the `issuer`
 * checked against the one the address was built from, RFC 8414 §3.3). A server without metadata is a
 * 2025-03-26 server: its origin is the authorization base, with metadata there or the default endpoints.
 */

import { readJson, requestDeadline } from "./bounded-json.js";
import { OAuthClientError } from "./errors.js";
import {
  type AuthorizationServerMetadata,
  checkResourceMetadata,
  checkServerMetadata,
  type ProtectedResourceMetadata,
} from "./metadata.js";
import { resourceCovers } from "./resource.js";
import {
  authorizationServerMetadataUrls,
  legacyAuthorizationBase,
  legacyDefaultEndpoints,
  protectedResourceMetadataUrls,
} from "./well-known.js";

/** MCP clients send the version they speak with metadata requests (the spec's SHOULD). */
export interface DiscoveryOptions {
  readonly fetch?: typeof fetch;
  readonly protocolVersion?: string;
}

const fetcher = (options: DiscoveryOptions): typeof fetch => options.fetch ?? ((i, init) => fetch(i, init));

/** GET a JSON document; undefined on a 4xx (not there), a throw on anything else. */
async function getJson(url: URL, options: DiscoveryOptions): Promise<unknown> {
  const headers: Record<string, string> = { accept: "application/json" };
  if (options.protocolVersion) headers["mcp-protocol-version"] = options.protocolVersion;
  let response: Response;
  try {
    response = await fetcher(options)(url, { headers, redirect: "error", signal: requestDeadline() });
  } catch (error) {
    throw new OAuthClientError(
      "discovery_failed",
      `could not fetch ${url.href}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  if (response.status >= 400 && response.status < 500) {
    await response.body?.cancel().catch(() => {});
    return undefined;
  }
  if (!response.ok) {
    await response.body?.cancel().catch(() => {});
    throw new OAuthClientError(
      "discovery_failed",
      `${url.href} answered ${response.status}`,
      response.status,
    );
  }
  let doc: unknown;
  try {
    doc = await readJson(response, url.href);
  } catch (error) {
    throw new OAuthClientError("discovery_failed", error instanceof Error ? error.message : String(error));
  }
  if (doc === undefined) throw new OAuthClientError("discovery_failed", `${url.href} did not answer JSON`);
  return doc;
}

export interface DiscoveredResource {
  readonly metadata: ProtectedResourceMetadata;
  /** Where it was read. */
  readonly url: string;
}

/**
 * The Protected Resource Metadata of the MCP server at `serverUrl` (at `resourceMetadataUrl` when the 401
 * named one, else at the well-known addresses), or undefined when it publishes none
 * (a 2025-03-26 server). Its `resource` must identify this server (`resource_mismatch` otherwise): a
 * document naming another resource would have the client ask for a token meant for someone else.
 */
export async function discoverProtectedResource(
  serverUrl: string | URL,
  resourceMetadataUrl: string | undefined,
  options: DiscoveryOptions = {},
): Promise<DiscoveredResource | undefined> {
  // The challenge's address first; the well-known ones still when it has no document.
  const wellKnown = protectedResourceMetadataUrls(serverUrl);
  const named = resourceMetadataUrl === undefined ? undefined : new URL(resourceMetadataUrl, serverUrl);
  const candidates = named ? [named, ...wellKnown.filter((u) => u.href !== named.href)] : wellKnown;
  for (const url of candidates) {
    const doc = await getJson(url, options);
    if (doc === undefined) continue;
    const metadata = checkResourceMetadata(doc);
    if (typeof metadata === "string")
      throw new OAuthClientError(
        "discovery_failed",
        `protected resource metadata at ${url.href}: ${metadata}`,
      );
    if (!resourceCovers(metadata.resource, serverUrl))
      throw new OAuthClientError(
        "resource_mismatch",
        `the protected resource metadata at ${url.href} is for ${JSON.stringify(metadata.resource)}, not ${new URL(serverUrl).href}: refused`,
      );
    return { metadata, url: url.href };
  }
  return undefined;
}

/**
 * The metadata of the authorization server `issuer`, from the first of its well-known addresses that has
 * one. Its `issuer` must be `issuer` exactly (`issuer_mismatch` otherwise: metadata naming another issuer
 * is not used, RFC 8414 §3.3). Undefined when none of the addresses has a document.
 */
export async function discoverAuthorizationServer(
  issuer: string,
  options: DiscoveryOptions = {},
): Promise<AuthorizationServerMetadata | undefined> {
  for (const url of authorizationServerMetadataUrls(issuer)) {
    const doc = await getJson(url, options);
    if (doc === undefined) continue;
    const metadata = checkServerMetadata(doc);
    if (typeof metadata === "string")
      throw new OAuthClientError(
        "discovery_failed",
        `authorization server metadata at ${url.href}: ${metadata}`,
      );
    if (metadata.issuer !== issuer)
      throw new OAuthClientError(
        "issuer_mismatch",
        `the metadata at ${url.href} names issuer ${JSON.stringify(metadata.issuer)}, not ${JSON.stringify(issuer)}: refused (RFC 8414 §3.3)`,
      );
    return metadata;
  }
  return undefined;
}

/** Where the client stands with one MCP server: what it found, for one login. */
export interface Discovery {
  /** Undefined for a 2025-03-26 server (no Protected Resource Metadata). */
  readonly resource?: DiscoveredResource;
  readonly issuer: string;
  readonly server: AuthorizationServerMetadata;
  /** False when the endpoints are the 2025-03-26 defaults (no metadata at all). */
  readonly fromMetadata: boolean;
}

/**
 * Everything discovery yields for the MCP server at `serverUrl`. The first authorization server of the
 * metadata is used (the spec leaves the choice to the client). Without Protected Resource Metadata, the
 * server's origin is the issuer (2025-03-26), with its metadata or the default endpoints.
 */
export async function discover(
  serverUrl: string | URL,
  resourceMetadataUrl: string | undefined,
  options: DiscoveryOptions = {},
): Promise<Discovery> {
  const resource = await discoverProtectedResource(serverUrl, resourceMetadataUrl, options);
  if (resource) {
    const issuer = resource.metadata.authorization_servers?.[0];
    if (!issuer)
      throw new OAuthClientError(
        "discovery_failed",
        `the protected resource metadata at ${resource.url} names no authorization server`,
      );
    const server = await discoverAuthorizationServer(issuer, options);
    if (!server)
      throw new OAuthClientError(
        "discovery_failed",
        `the authorization server ${issuer} publishes no metadata at ${authorizationServerMetadataUrls(issuer)
          .map((u) => u.href)
          .join(", ")}`,
      );
    return { resource, issuer, server, fromMetadata: true };
  }
  const issuer = legacyAuthorizationBase(serverUrl);
  const server = await discoverAuthorizationServer(issuer, options);
  if (server) return { issuer, server, fromMetadata: true };
  return { issuer, server: { issuer, ...legacyDefaultEndpoints(serverUrl) }, fromMetadata: false };
}
