/**
 * A tool's `ui:` (MCP Apps, `io.modelcontextprotocol/ui`): the HTML view a host renders for it. Four forms:
 *
 *   ui: ./ui/counter.html                          the tool's own view, visible to the model and the view
 *   ui: { app: show_counter, visibility: [app] }   another tool's view; `[app]`: only the view may call it
 *   ui: { html, uri?, csp?, permissions?, prefersBorder?, visibility? }
 *   ui: { visibility: [model] }                    no view; `[model]`: views may not call it
 *
 * The HTML is read at generate time (`readUiHtml`: a file inside the project) and served as a `ui://`
 * resource with the extension's mime type and `_meta.ui`; each tool linked to it gets
 * `_meta.ui { resourceUri, visibility }` and the flat `_meta["ui/resourceUri"]` older hosts read.
 * Every check is a ContractError naming the place.
 */

import { readFile, realpath, stat } from "node:fs/promises";
import { dirname, relative, resolve, sep } from "node:path";
import { APP_MIME_TYPE, isCspOrigin, UI_CSP_FIELDS, UI_PERMISSIONS } from "@mcp-codegen/runtime/client";
import { isObject } from "../protocol/load.js";
import type { JsonObject } from "./model.js";

/** The deprecated flat key of the resource URI on a tool's `_meta`. */
export const UI_FLAT_KEY = "ui/resourceUri";
export const VISIBILITIES = ["model", "app"] as const;
export type Visibility = (typeof VISIBILITIES)[number];
const CSP_KEYS = UI_CSP_FIELDS;
const PERMISSIONS = UI_PERMISSIONS;
const OWN_KEYS = new Set(["html", "uri", "csp", "permissions", "prefersBorder", "visibility"]);
const APP_KEYS = new Set(["app", "visibility"]);
/** A contract's problem with a `ui:` (contract/load.ts wraps it into a ContractError of the file). */
export class UiProblem extends Error {
  constructor(
    readonly where: string,
    reason: string,
  ) {
    super(reason);
  }
}

/** The view's HTML as read: its bytes and its path for messages. */
export interface UiHtml {
  bytes: Buffer;
  /** The path as the contract wrote it. */
  path: string;
}

/** The HTML path a `ui:` names (shorthand or `html`), or undefined for `{ app }` and shapes checked later. */
export function uiHtmlPath(ui: unknown): string | undefined {
  if (typeof ui === "string") return ui;
  return isObject(ui) && typeof ui.html === "string" ? ui.html : undefined;
}

/**
 * Reads the HTML a `ui:` names, relative to the declaring file: it must be a file inside `root` (the
 * project), links resolved. `read` receives its path, so the stamp hashes it and an edited view regenerates.
 */
export async function readUiHtml(
  path: string,
  declaringFile: string,
  root: string,
  where: string,
  read?: Set<string>,
): Promise<UiHtml> {
  const at = where;
  if (path === "") throw new UiProblem(at, "must name an HTML file");
  const full = resolve(dirname(declaringFile), path);
  const info = await stat(full).catch(() => undefined);
  if (!info) throw new UiProblem(at, `${path}: no such file`);
  if (!info.isFile()) throw new UiProblem(at, `${path}: not a file`);
  const [real, realRoot] = await Promise.all([realpath(full), realpath(root)]);
  const inside = relative(realRoot, real);
  if (inside === "" || inside.startsWith(`..${sep}`) || inside === ".." || resolve(realRoot, inside) !== real)
    throw new UiProblem(at, `${path} is outside the project (${root})`);
  read?.add(full);
  return { bytes: await readFile(full), path };
}

/** One view, as the contract model holds it. */
export interface ContractUi {
  /** The tool that declares the view. */
  tool: string;
  uri: string;
  /** Its `resources/list` entry: uri, name, mimeType and, when declared, `_meta.ui`. */
  definition: JsonObject;
  /** The HTML as served: text when the bytes are UTF-8 (and encode back to themselves), else base64. */
  content: { text: string } | { blob: string };
  /** The tools linked to it, its own first, then by name, with their visibility. */
  tools: { name: string; visibility: Visibility[] }[];
}

/** A tool's link to a view: what goes in its `_meta.ui`. No `uri`: a visibility alone, no view. */
export interface ToolUi {
  uri?: string;
  visibility: Visibility[];
}

/**
 * Every tool's `ui:` checked and resolved: the views, and each linked tool's link. `html` holds what
 * `readUiHtml` read for the tools that name a file; `taken` the URIs of the contract's other resources.
 */
export function buildUis(
  tools: { name: string; ui: unknown; where: string; html?: UiHtml }[],
  taken: ReadonlyMap<string, string>,
): { uis: ContractUi[]; links: Map<string, ToolUi> } {
  const uis: ContractUi[] = [];
  const links = new Map<string, ToolUi>();
  const own = new Map<string, ContractUi>();
  const uris = new Map(taken);
  for (const t of tools) {
    if (t.ui === undefined || !ownsView(t.ui)) continue;
    const where = `${t.where}.ui`;
    const decl = isObject(t.ui) ? t.ui : { html: t.ui };
    keysOf(decl, OWN_KEYS, where);
    const uri = decl.uri === undefined ? `ui://${t.name}` : decl.uri;
    if (typeof uri !== "string" || !/^ui:\/\/[^\s]+$/.test(uri))
      throw new UiProblem(`${where}.uri`, `must be a ui:// URI without spaces (got ${JSON.stringify(uri)})`);
    const clash = uris.get(uri);
    if (clash) throw new UiProblem(`${where}.uri`, `${uri} is already the URI of ${clash}`);
    uris.set(uri, `${t.where}.ui`);
    const meta: JsonObject = {};
    if (decl.csp !== undefined) meta.csp = csp(decl.csp, `${where}.csp`);
    if (decl.permissions !== undefined)
      meta.permissions = permissions(decl.permissions, `${where}.permissions`);
    if (decl.prefersBorder !== undefined) {
      if (typeof decl.prefersBorder !== "boolean")
        throw new UiProblem(`${where}.prefersBorder`, "must be true or false");
      meta.prefersBorder = decl.prefersBorder;
    }
    // load.ts reads the file a string names; any other html is not a file name.
    if (!t.html) throw new UiProblem(`${where}.html`, "must name an HTML file");
    const text = t.html.bytes.toString("utf8");
    const content = Buffer.from(text, "utf8").equals(t.html.bytes)
      ? { text }
      : { blob: t.html.bytes.toString("base64") };
    const ui: ContractUi = {
      tool: t.name,
      uri,
      definition: {
        uri,
        name: t.name,
        mimeType: APP_MIME_TYPE,
        ...(Object.keys(meta).length > 0 ? { _meta: { ui: meta } } : {}),
      },
      content,
      tools: [],
    };
    own.set(t.name, ui);
    uis.push(ui);
  }
  for (const t of tools) {
    if (t.ui === undefined) continue;
    const where = `${t.where}.ui`;
    let view: ContractUi | undefined = own.get(t.name);
    if (!view && isObject(t.ui) && t.ui.app === undefined) {
      // No html and no app: a visibility alone (the extension's `_meta.ui` without `resourceUri`).
      if (Object.keys(t.ui).some((key) => key !== "visibility") || t.ui.visibility === undefined)
        throw new UiProblem(
          where,
          "must name its view (html: <file>), another tool's (app: <tool>), or only a visibility ({ visibility: [model] })",
        );
      links.set(t.name, { visibility: visibilityOf(t.ui.visibility, `${where}.visibility`) });
      continue;
    }
    if (!view) {
      if (!isObject(t.ui) || t.ui.app === undefined)
        throw new UiProblem(where, "must be an HTML path, { html, … } or { app: <tool>, visibility? }");
      keysOf(t.ui, APP_KEYS, where);
      const app = t.ui.app;
      if (typeof app !== "string" || app === "") throw new UiProblem(`${where}.app`, "must name a tool");
      view = own.get(app);
      if (!view)
        throw new UiProblem(
          `${where}.app`,
          tools.some((o) => o.name === app)
            ? `tool ${app} has no UI of its own (give it ui: <html file>)`
            : `names no tool of this contract: ${app}`,
        );
    }
    const visibility = visibilityOf(isObject(t.ui) ? t.ui.visibility : undefined, `${where}.visibility`);
    links.set(t.name, { uri: view.uri, visibility });
    view.tools.push({ name: t.name, visibility });
  }
  for (const ui of uis)
    ui.tools.sort((a, b) => (a.name === ui.tool ? -1 : b.name === ui.tool ? 1 : a.name < b.name ? -1 : 1));
  return { uis, links };
}

/** The tool's `_meta` with the link: `ui { resourceUri, visibility }` and the flat key; the user's kept. */
export function linkedMeta(meta: unknown, link: ToolUi, where: string): JsonObject {
  if (meta !== undefined && !isObject(meta)) throw new UiProblem(`${where}._meta`, "must be an object");
  const user = (meta ?? {}) as JsonObject;
  for (const key of ["ui", UI_FLAT_KEY])
    if (Object.hasOwn(user, key))
      throw new UiProblem(
        `${where}._meta`,
        `${JSON.stringify(key)} is written from ui:; remove it from _meta`,
      );
  if (link.uri === undefined) return { ...user, ui: { visibility: link.visibility } };
  return { ...user, ui: { resourceUri: link.uri, visibility: link.visibility }, [UI_FLAT_KEY]: link.uri };
}

function ownsView(ui: unknown): boolean {
  return typeof ui === "string" || (isObject(ui) && ui.app === undefined && ui.html !== undefined);
}

function keysOf(value: Record<string, unknown>, allowed: Set<string>, where: string): void {
  for (const key of Object.keys(value))
    if (!allowed.has(key))
      throw new UiProblem(`${where}.${key}`, `unknown field (allowed: ${[...allowed].join(", ")})`);
}

function visibilityOf(value: unknown, where: string): Visibility[] {
  if (value === undefined) return [...VISIBILITIES];
  if (!Array.isArray(value) || value.length === 0)
    throw new UiProblem(where, "must be a non-empty list of model, app");
  const seen = new Set<string>();
  for (const v of value) {
    if (!VISIBILITIES.includes(v)) throw new UiProblem(where, `${JSON.stringify(v)} is not model or app`);
    if (seen.has(v)) throw new UiProblem(where, `${v} is listed twice`);
    seen.add(v);
  }
  return VISIBILITIES.filter((v) => seen.has(v));
}

function csp(value: unknown, where: string): JsonObject {
  if (!isObject(value)) throw new UiProblem(where, `must be an object of ${CSP_KEYS.join(", ")}`);
  const out: JsonObject = {};
  for (const [key, list] of Object.entries(value)) {
    if (!(CSP_KEYS as readonly string[]).includes(key))
      throw new UiProblem(`${where}.${key}`, `unknown field (allowed: ${CSP_KEYS.join(", ")})`);
    if (!Array.isArray(list)) throw new UiProblem(`${where}.${key}`, "must be a list of origins");
    list.forEach((entry, i) => {
      if (!isCspOrigin(entry))
        throw new UiProblem(
          `${where}.${key}[${i}]`,
          `${JSON.stringify(entry)} is not an origin (scheme://host[:port], \`*.\` only as the first label; no path, space, quote or keyword)`,
        );
    });
    out[key] = list as string[];
  }
  return out;
}

function permissions(value: unknown, where: string): JsonObject {
  if (!isObject(value)) throw new UiProblem(where, `must be an object of ${PERMISSIONS.join(", ")}`);
  const out: JsonObject = {};
  for (const [key, setting] of Object.entries(value)) {
    if (!(PERMISSIONS as readonly string[]).includes(key))
      throw new UiProblem(`${where}.${key}`, `unknown permission (allowed: ${PERMISSIONS.join(", ")})`);
    if (!isObject(setting) || Object.keys(setting).length > 0)
      throw new UiProblem(`${where}.${key}`, "must be {} (the extension defines no settings)");
    out[key] = {};
  }
  return out;
}
