/**
 * Reading a tool's UI: `resources/read` of a `ui://` URI, checked as the extension asks before a host
 * renders anything: the content for that URI, the exact mime type, the HTML as text or base64 (UTF-8),
 * and `_meta.ui` (csp, permissions, domain, prefersBorder) of the right shapes, every CSP entry an origin.
 */

import { ErrorCode, isObject, McpError } from "../jsonrpc/messages.js";
import { fromBase64 } from "../util/base64.js";
import { APP_MIME_TYPE } from "./apps.js";
import { CSP_FIELDS, cspDomains, type UiCsp, type UiPermissions } from "./apps-policy.js";

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

/** Reads and checks the UI resource `uri` (-32602 naming the URI and the field for each refusal). */
export async function readUi(
  client: AppsReadClient,
  uri: string,
  options?: { signal?: AbortSignal },
): Promise<UiResource> {
  const refuse = (field: string, why: string) =>
    new McpError(ErrorCode.InvalidParams, `UI resource ${JSON.stringify(uri)}: ${field} ${why}`, {
      uri,
      field,
    });
  if (typeof uri !== "string" || !uri.startsWith("ui://")) throw refuse("uri", "must start with ui://");
  const result = await client.readResource({ uri }, options?.signal ? { signal: options.signal } : undefined);
  const contents = isObject(result) ? result.contents : undefined;
  if (!Array.isArray(contents)) throw refuse("contents", "must be an array");
  const mine = contents.filter((c) => isObject(c) && c.uri === uri);
  if (mine.length !== 1)
    throw refuse("contents", `must hold exactly one item for this URI (it holds ${mine.length})`);
  const content = mine[0] as Record<string, unknown>;
  if (content.mimeType !== APP_MIME_TYPE)
    throw refuse("mimeType", `must be ${APP_MIME_TYPE}, not ${JSON.stringify(content.mimeType)}`);
  const html = htmlOf(content, refuse);
  const meta = content._meta;
  if (meta !== undefined && !isObject(meta)) throw refuse("_meta", "must be an object");
  const ui = meta?.ui;
  if (ui === undefined) return { uri, html, csp: {}, permissions: {} };
  if (!isObject(ui)) throw refuse("_meta.ui", "must be an object");
  return {
    uri,
    html,
    csp: cspOf(ui.csp, refuse),
    permissions: permissionsOf(ui.permissions, refuse),
    ...(ui.domain === undefined ? {} : { domain: stringOf(ui.domain, "_meta.ui.domain", refuse) }),
    ...(ui.prefersBorder === undefined
      ? {}
      : { prefersBorder: booleanOf(ui.prefersBorder, "_meta.ui.prefersBorder", refuse) }),
  };
}

type Refuse = (field: string, why: string) => McpError;

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

function cspOf(csp: unknown, refuse: Refuse): UiCsp {
  if (csp === undefined) return {};
  if (!isObject(csp)) throw refuse("_meta.ui.csp", "must be an object");
  const out: Record<string, string[]> = {};
  for (const field of CSP_FIELDS) {
    if (csp[field] !== undefined) out[field] = cspDomains(csp, field, "_meta.ui.csp", refuse);
  }
  return out;
}

function permissionsOf(permissions: unknown, refuse: Refuse): UiPermissions {
  if (permissions === undefined) return {};
  if (!isObject(permissions)) throw refuse("_meta.ui.permissions", "must be an object");
  const out: Record<string, object> = {};
  for (const key of PERMISSION_KEYS) {
    const value = permissions[key];
    if (value === undefined) continue;
    if (!isObject(value)) throw refuse(`_meta.ui.permissions.${key}`, "must be an object ({})");
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
