/**
 * Reading a tool's UI: `resources/read` of a `ui://` URI, checked as the extension asks before a host
 * renders anything: the content for that URI, the exact mime type, the HTML as text or base64 (UTF-8),
 * and `_meta.ui` (csp, permissions, domain, prefersBorder) of the right shapes, every CSP entry an origin.
 */

import { ErrorCode, isObject, McpError } from "../jsonrpc/messages.js";
import { APP_MIME_TYPE, UI_CSP_FIELDS, UI_SCHEME } from "../mcp/apps.js";
import { fromBase64 } from "../util/base64.js";
import { cspDomains, type UiCsp, type UiPermissions } from "./apps-policy.js";

/** What a client needs to read a UI: the generated clients and the SDK's have it. */
export interface AppsReadClient {
  readResource(params: { uri: string }, options?: { signal?: AbortSignal }): Promise<unknown>;
}

/** A UI resource, checked: what a host hands its sandbox. */
export interface UiResource {
  readonly uri: string;
  /** The whole HTML document. */
  readonly html: string;
  /** The declared origins (only the extension's four fields, each present only when declared). */
  readonly csp: UiCsp;
  /** The features asked for (only the extension's four keys). */
  readonly permissions: UiPermissions;
  /** The dedicated origin the server asks for (its format is the host's). */
  readonly domain?: string;
  readonly prefersBorder?: boolean;
}

const PERMISSION_KEYS = ["camera", "microphone", "geolocation", "clipboardWrite"] as const;
const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

export interface ReadUiOptions {
  signal?: AbortSignal;
  /**
   * The resource as `resources/list` gave it: its `_meta.ui` is used when the read content carries none
   * (the extension reads the content's first, the listing's as a fallback), checked the same way.
   */
  listed?: { readonly uri?: string; readonly _meta?: unknown };
}

/** Reads and checks the UI resource `uri` (-32602 naming the URI and the field for each refusal). */
export async function readUi(
  client: AppsReadClient,
  uri: string,
  options: ReadUiOptions = {},
): Promise<UiResource> {
  const refuse = (field: string, why: string) =>
    new McpError(ErrorCode.InvalidParams, `UI resource ${JSON.stringify(uri)}: ${field} ${why}`, {
      uri,
      field,
    });
  if (typeof uri !== "string" || !uri.startsWith(UI_SCHEME))
    throw refuse("uri", `must start with ${UI_SCHEME}`);
  const result = await client.readResource({ uri }, options.signal ? { signal: options.signal } : undefined);
  const contents = isObject(result) ? result.contents : undefined;
  if (!Array.isArray(contents)) throw refuse("contents", "must be an array");
  const mine = contents.filter((c) => isObject(c) && c.uri === uri);
  if (mine.length !== 1)
    throw refuse("contents", `must hold exactly one item for this URI (it holds ${mine.length})`);
  const content = mine[0] as Record<string, unknown>;
  if (content.mimeType !== APP_MIME_TYPE)
    throw refuse("mimeType", `must be ${APP_MIME_TYPE}, not ${JSON.stringify(content.mimeType)}`);
  const html = htmlOf(content, refuse);
  let where = "_meta.ui";
  let ui = uiMetaOf(content._meta, "", refuse);
  const listed = options.listed;
  if (ui === undefined && listed !== undefined) {
    if (listed.uri !== undefined && listed.uri !== uri)
      throw refuse("listed.uri", `names another resource (${JSON.stringify(listed.uri)})`);
    where = "listed._meta.ui";
    ui = uiMetaOf(listed._meta, "listed.", refuse);
  }
  if (ui === undefined) return { uri, html, csp: {}, permissions: {} };
  return {
    uri,
    html,
    csp: cspOf(ui.csp, `${where}.csp`, refuse),
    permissions: permissionsOf(ui.permissions, `${where}.permissions`, refuse),
    ...(ui.domain === undefined ? {} : { domain: stringOf(ui.domain, `${where}.domain`, refuse) }),
    ...(ui.prefersBorder === undefined
      ? {}
      : { prefersBorder: booleanOf(ui.prefersBorder, `${where}.prefersBorder`, refuse) }),
  };
}

type Refuse = (field: string, why: string) => McpError;

/** `_meta.ui` of a content or listing (`where` prefixes the fields named), undefined when absent. */
function uiMetaOf(meta: unknown, where: string, refuse: Refuse): Record<string, unknown> | undefined {
  if (meta === undefined) return undefined;
  if (!isObject(meta)) throw refuse(`${where}_meta`, "must be an object");
  if (meta.ui === undefined) return undefined;
  if (!isObject(meta.ui)) throw refuse(`${where}_meta.ui`, "must be an object");
  return meta.ui;
}

function htmlOf(content: Record<string, unknown>, refuse: Refuse): string {
  const { text, blob } = content;
  if ((text === undefined) === (blob === undefined))
    throw refuse("text", "or blob (one of them) must be given");
  if (text !== undefined) return stringOf(text, "text", refuse);
  const bytes = fromBase64(stringOf(blob, "blob", refuse));
  if (!bytes) throw refuse("blob", "must be base64");
  try {
    return strictUtf8.decode(bytes);
  } catch {
    throw refuse("blob", "must be UTF-8 HTML");
  }
}

function cspOf(csp: unknown, where: string, refuse: Refuse): UiCsp {
  if (csp === undefined) return {};
  if (!isObject(csp)) throw refuse(where, "must be an object");
  const out: Record<string, string[]> = {};
  for (const field of UI_CSP_FIELDS) {
    if (csp[field] !== undefined) out[field] = cspDomains(csp, field, where, refuse);
  }
  return out;
}

function permissionsOf(permissions: unknown, where: string, refuse: Refuse): UiPermissions {
  if (permissions === undefined) return {};
  if (!isObject(permissions)) throw refuse(where, "must be an object");
  const out: Record<string, object> = {};
  for (const key of PERMISSION_KEYS) {
    const value = permissions[key];
    if (value === undefined) continue;
    if (!isObject(value)) throw refuse(`${where}.${key}`, "must be an object ({})");
    out[key] = {};
  }
  return out;
}

function stringOf(value: unknown, field: string, refuse: Refuse): string {
  if (typeof value !== "string") throw refuse(field, "must be a string");
  return value;
}

function booleanOf(value: unknown, field: string, refuse: Refuse): boolean {
  if (typeof value !== "boolean") throw refuse(field, "must be a boolean");
  return value;
}
