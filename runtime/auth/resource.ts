/**
 * The protected resource's identity (RFC 8707, RFC 9728 §3.3): the canonical URI of an MCP server, and
 * whether the `resource` a metadata document names may stand for the server the client is talking to.
 */

/** Lower-case scheme and host, no fragment, no trailing slash on a path (the spec's canonical form). */
export function canonicalResource(serverUrl: string | URL): string {
  const url = new URL(serverUrl);
  url.hash = "";
  const text = url.href;
  return url.pathname === "/" && !url.search ? text.replace(/\/$/, "") : text.replace(/\/+(\?|$)/, "$1");
}

/**
 * True when `resource` (from Protected Resource Metadata) identifies the server at `serverUrl`: the same
 * origin, and a path equal to the server's or an ancestor of it at a segment boundary (metadata at the
 * root may name the origin). Anything else is another resource: a token for it must not be requested.
 */
export function resourceCovers(resource: string, serverUrl: string | URL): boolean {
  let named: URL;
  try {
    named = new URL(resource);
  } catch {
    return false;
  }
  const server = new URL(serverUrl);
  if (named.origin !== server.origin || named.hash) return false;
  const base = named.pathname.replace(/\/+$/, "");
  const path = server.pathname.replace(/\/+$/, "");
  return path === base || path.startsWith(`${base}/`);
}
