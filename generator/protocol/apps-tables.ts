/**
 * What the MCP Apps schema (ext-apps' schema.json) does not state: which way each message travels, the
 * result of a request that has no `<X>Result` definition, and the core MCP messages a view may send its
 * host. One entry each, with the reason; `appsModel` fails when an entry matches nothing or a message of
 * the schema has no entry, so the tables follow the schema.
 */

import type { TableEntry } from "./tables.js";

/** Who sends a message: the view (the app in its frame), the host, or the host's sandbox proxy. */
export type AppsDirection = "view-to-host" | "host-to-view" | "proxy-to-host" | "host-to-proxy";

/** Message definition → its direction (specification/2026-01-26/apps.mdx, "Communication protocol"). */
export const APPS_DIRECTION: TableEntry<AppsDirection>[] = [
  { key: "McpUiInitializeRequest", value: "view-to-host", why: "the view opens the session" },
  { key: "McpUiInitializedNotification", value: "view-to-host", why: "the view confirms initialization" },
  { key: "McpUiOpenLinkRequest", value: "view-to-host", why: "the view asks the host to open a URL" },
  {
    key: "McpUiDownloadFileRequest",
    value: "view-to-host",
    why: "the view asks the host to download a file",
  },
  { key: "McpUiMessageRequest", value: "view-to-host", why: "the view sends a message into the chat" },
  {
    key: "McpUiRequestDisplayModeRequest",
    value: "view-to-host",
    why: "the view asks for inline, fullscreen or pip",
  },
  {
    key: "McpUiUpdateModelContextRequest",
    value: "view-to-host",
    why: "the view updates what the model sees next turn",
  },
  { key: "McpUiSizeChangedNotification", value: "view-to-host", why: "the view reports its content size" },
  {
    key: "McpUiRequestTeardownNotification",
    value: "view-to-host",
    why: "the view asks the host to close it",
  },
  { key: "McpUiToolInputNotification", value: "host-to-view", why: "the host sends the tool's arguments" },
  {
    key: "McpUiToolInputPartialNotification",
    value: "host-to-view",
    why: "the host streams partial arguments",
  },
  { key: "McpUiToolResultNotification", value: "host-to-view", why: "the host sends the tool's result" },
  { key: "McpUiToolCancelledNotification", value: "host-to-view", why: "the host reports a cancelled call" },
  {
    key: "McpUiHostContextChangedNotification",
    value: "host-to-view",
    why: "the host reports theme, size or mode changes",
  },
  { key: "McpUiResourceTeardownRequest", value: "host-to-view", why: "the host tears the view down" },
  {
    key: "McpUiSandboxProxyReadyNotification",
    value: "proxy-to-host",
    why: "a web host's sandbox proxy says it can take the HTML",
  },
  {
    key: "McpUiSandboxResourceReadyNotification",
    value: "host-to-proxy",
    why: "the host hands the sandbox proxy the HTML, CSP and permissions",
  },
];

/** Request definition → the core result check it is answered with, where the schema defines no `<X>Result`. */
export const APPS_RESULT_OF: TableEntry<string>[] = [
  {
    key: "McpUiUpdateModelContextRequest",
    value: "EmptyResult",
    why: "the host acknowledges an update with an empty result; the schema has no McpUiUpdateModelContextResult",
  },
];

/**
 * The core MCP messages a view may send its host, which the host forwards to the server the view came
 * from (or answers itself): checked with the core protocol's validators of `APPS_CORE_VERSION`.
 */
export const APPS_CORE_MESSAGES: TableEntry<{
  kind: "request" | "notification";
  definition: string;
  result: string | null;
}>[] = [
  {
    key: "tools/call",
    value: { kind: "request", definition: "CallToolRequest", result: "CallToolResult" },
    why: "a view calls its server's tools (those whose visibility has `app`) through the host",
  },
  {
    key: "resources/read",
    value: { kind: "request", definition: "ReadResourceRequest", result: "ReadResourceResult" },
    why: "a view reads its server's resources through the host",
  },
  {
    key: "ping",
    value: { kind: "request", definition: "PingRequest", result: "EmptyResult" },
    why: "either side may check the other is alive",
  },
  {
    key: "notifications/message",
    value: { kind: "notification", definition: "LoggingMessageNotification", result: null },
    why: "a view logs to the host",
  },
];

/**
 * Corrections to the published Apps schema where it says other than ext-apps' own zod schemas, from which
 * it is written (zod's `toJSONSchema`, output mode) and which ext-apps runs: applied before anything
 * reads it (apps-fixes.ts; the differential test's ajv judges the corrected document too), each named in
 * every emitted file.
 */
export const APPS_SCHEMA_FIXES: TableEntry<null>[] = [
  {
    key: "open-objects",
    value: null,
    why: "zod objects are rendered with `additionalProperties: false`, but they accept unknown keys (`z.object` strips them, `.passthrough()` keeps them), which is how newer hosts and views add fields; the objects are read as open",
  },
  {
    key: "optional-undefined",
    value: null,
    why: "zod's `S | undefined` is rendered `anyOf: [S, {}]` (JSON has no undefined), which accepts any value, and its key stays `required`; it is read as S, and the key may be absent",
  },
  {
    key: "defaults",
    value: null,
    why: "a member with a zod default (`content: []`) is rendered required, but zod accepts it absent and fills it in",
  },
  {
    key: "base64",
    value: null,
    why: "the core content blocks ext-apps takes from the SDK check `blob` and image or audio `data` as base64, which the rendering lost; they get `format: byte`, as in the core schema",
  },
];

/**
 * The core protocol version whose validators check the core messages above (and APPS_RESULT_OF): the
 * registry's default, the newest handshake-era version, whose shapes ext-apps' SDK v2 speaks.
 */
export const APPS_CORE_VERSION = "2025-11-25";
