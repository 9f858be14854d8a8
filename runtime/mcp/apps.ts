/** The MCP Apps extension's names (`io.modelcontextprotocol/ui`, SEP-1865, stable 2026-01-26), for both sides. */

export const APPS_EXTENSION = "io.modelcontextprotocol/ui";
/** The mime type of a UI resource, exactly (a resource with any other is not an app). */
export const APP_MIME_TYPE = "text/html;profile=mcp-app";
/** What every UI resource URI starts with. */
export const UI_SCHEME = "ui://";

/** The fields of a UI resource's `_meta.ui.csp`, each a list of origins. */
export const UI_CSP_FIELDS = ["connectDomains", "resourceDomains", "frameDomains", "baseUriDomains"] as const;
/** The permissions a UI resource's `_meta.ui.permissions` may ask for, each `{}`. */
export const UI_PERMISSIONS = ["camera", "microphone", "geolocation", "clipboardWrite"] as const;

/**
 * An origin and nothing else: scheme http(s) or ws(s), a host (DNS name, IPv4, or bracketed IPv6; `*.`
 * only as the first label, before at least two more), an optional port; no path, no userinfo. A host
 * pastes each entry into a Content-Security-Policy, where a space, `;`, `,`, quote or `'keyword'` would
 * add to the policy.
 */
const ORIGIN =
  /^(?:https?|wss?):\/\/(?:(?:\*\.)?[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?$/;

/** Whether `entry` may go into a policy as a source (a UI resource's CSP entry). */
export function isCspOrigin(entry: unknown): entry is string {
  if (typeof entry !== "string" || !ORIGIN.test(entry)) return false;
  // A wildcard covers subdomains of a named domain, never of a top-level one (`https://*.com`).
  return !entry.includes("*.") || entry.split("//")[1]!.split(":")[0]!.split(".").length >= 3;
}
