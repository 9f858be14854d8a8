/**
 * The MCP Apps extension (`io.modelcontextprotocol/ui`, SEP-1865, stable 2026-01-26) as a host's client
 * declares it: the extension's name, the one mime type of a UI resource, and the capability a client
 * created with the `apps` option adds (in `initialize` in the handshake era, in every request's `_meta`
 * in the stateless era).
 */

import { APP_MIME_TYPE, APPS_EXTENSION } from "../mcp/apps.js";
import type { Capabilities } from "../mcp/capabilities.js";

/** The client's `apps` option: `true` declares the HTML apps this runtime's helpers read. */
export type AppsOption = boolean | { readonly mimeTypes: readonly string[] };

/** The capability the `apps` option declares, to merge over the client's others (none for `false`). */
export function appsCapabilities(option: AppsOption | undefined): Capabilities | undefined {
  if (!option) return undefined;
  const mimeTypes = option === true ? [APP_MIME_TYPE] : [...option.mimeTypes];
  return { extensions: { [APPS_EXTENSION]: { mimeTypes } } };
}
