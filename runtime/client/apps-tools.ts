/**
 * A host's side of an MCP Apps server's tools: the UI a tool links to, who may see and call it
 * (`_meta.ui.visibility`), the list the model gets, and the handler that routes a view's `tools/call`
 * through the client after checking the tool is one the view may call.
 */

import { ErrorCode, isObject, McpError } from "../jsonrpc/messages.js";
import { UI_SCHEME } from "../mcp/apps.js";

/** The deprecated flat key a tool may name its UI with (still written by ext-apps' `registerAppTool`). */
const FLAT_RESOURCE_URI = "ui/resourceUri";

/** What the helpers read of a `tools/list` entry. */
export interface AppsTool {
  readonly name: string;
  readonly _meta?: { readonly [key: string]: unknown } | undefined;
}

/** The callers of a tool: the agent (`model`) and the tool's views (`app`). */
export type ToolVisibility = "model" | "app";

/** What a client needs to route a view's calls: the generated clients and the SDK's have it. */
export interface AppsCallClient {
  callTool(
    params: { name: string; arguments?: { [key: string]: unknown } },
    options?: { signal?: AbortSignal },
  ): Promise<unknown>;
}

/**
 * The `ui://` URI of the tool's UI (`_meta.ui.resourceUri`, else the deprecated `_meta["ui/resourceUri"]`),
 * undefined when it has none. A tool that names one that is not a `ui://` string is refused (-32602).
 */
export function toolUi(tool: AppsTool): string | undefined {
  const meta = tool._meta;
  if (!isObject(meta)) return undefined;
  const ui = isObject(meta.ui) ? meta.ui : undefined;
  const [uri, field] =
    ui?.resourceUri !== undefined
      ? [ui.resourceUri, "_meta.ui.resourceUri"]
      : [meta[FLAT_RESOURCE_URI], `_meta["${FLAT_RESOURCE_URI}"]`];
  if (uri === undefined) return undefined;
  if (typeof uri === "string" && uri.startsWith(UI_SCHEME)) return uri;
  throw new McpError(
    ErrorCode.InvalidParams,
    `tool ${JSON.stringify(tool.name)}: ${field} must be a ui:// URI, not ${JSON.stringify(uri)}`,
    { tool: tool.name, field },
  );
}

/**
 * Who may use the tool: `_meta.ui.visibility`, both when absent. Values the extension does not name
 * are ignored; a visibility that is not an array grants nothing (hidden from the model, refused to apps).
 */
export function toolVisibility(tool: AppsTool): ReadonlySet<ToolVisibility> {
  const ui = isObject(tool._meta) && isObject(tool._meta.ui) ? tool._meta.ui : undefined;
  const visibility = ui?.visibility;
  if (visibility === undefined) return new Set(["model", "app"]);
  if (!Array.isArray(visibility)) return new Set();
  return new Set(visibility.filter((v): v is ToolVisibility => v === "model" || v === "app"));
}

/** The tools the agent may see and call: the list without those whose visibility lacks `model`. */
export const modelTools = <T extends AppsTool>(tools: readonly T[]): T[] =>
  tools.filter((tool) => toolVisibility(tool).has("model"));

/** A view's `tools/call` params, as the host bridge hands them over. */
export interface AppToolCallParams {
  name: string;
  arguments?: { [key: string]: unknown };
}

/**
 * The handler a host gives its bridge for a view's `tools/call` (ext-apps' `AppBridge.oncalltool`): a
 * tool not in `tools` (this server's `tools/list`, the server the view came from) or whose visibility
 * lacks `app` is refused with -32602 "not available to apps"; the others are called through `client`,
 * whose answer (checked as any call's) goes back to the view. Only `name` and `arguments` are sent.
 */
export function appToolCall(
  client: AppsCallClient,
  tools: readonly AppsTool[],
): (params: AppToolCallParams, extra?: { signal?: AbortSignal }) => Promise<unknown> {
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  return async (params, extra) => {
    if (!isObject(params) || typeof params.name !== "string")
      throw new McpError(ErrorCode.InvalidParams, "tools/call from the app: name must be a string", {
        field: "name",
      });
    const args = params.arguments;
    if (args !== undefined && !isObject(args))
      throw new McpError(ErrorCode.InvalidParams, "tools/call from the app: arguments must be an object", {
        field: "arguments",
      });
    const tool = byName.get(params.name);
    if (!tool || !toolVisibility(tool).has("app"))
      throw new McpError(
        ErrorCode.InvalidParams,
        `tool ${JSON.stringify(params.name)} is not available to apps${tool ? " (its visibility lacks app)" : " (this server lists no such tool)"}`,
        { tool: params.name },
      );
    return client.callTool(
      { name: params.name, ...(args === undefined ? {} : { arguments: args }) },
      extra?.signal ? { signal: extra.signal } : undefined,
    );
  };
}
