/** The MCP Apps extension's names (`io.modelcontextprotocol/ui`, SEP-1865, stable 2026-01-26), for both sides. */

export const APPS_EXTENSION = "io.modelcontextprotocol/ui";
/** The mime type of a UI resource, exactly (a resource with any other is not an app). */
export const APP_MIME_TYPE = "text/html;profile=mcp-app";
/** What every UI resource URI starts with. */
export const UI_SCHEME = "ui://";
