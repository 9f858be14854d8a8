/**
 * The scopes a contract requires, by request: `auth.scopes` for every request (initialize and the lists
 * included), and an item's own `scopes` in addition to call, get, read, subscribe to or complete it. A
 * URI needs the scopes of the resource and of every template that names it: which template serves a
 * read is known only once its variables have been checked, and a scope check comes before any check.
 */

import { McpError } from "../jsonrpc/messages.js";
import { ACCESS_DENIED, InsufficientScope, isAuthInfo, missingScopes } from "../mcp/auth-info.js";
import { entryOf } from "../mcp/tables.js";
import type { UriTemplate } from "../mcp/uri-template.js";

/** What `serveContract` hands the server, on each handler it makes (see CONTRACT_SCOPES). */
export interface ScopeTable {
  /** The contract declares `auth`: only a caller with a verified token (an AuthInfo) is served. */
  readonly authRequired: boolean;
  /** The scopes `method` with `params` needs: `auth.scopes`, then the item's own. */
  required(method: string, params: unknown): readonly string[];
  /** Every scope declared, sorted, `offline_access` left out: for `scopes_supported`. */
  readonly supported: readonly string[];
}

/**
 * The key under which each handler `serveContract` makes carries its contract's ScopeTable: the server
 * finds it however the user combined the handlers (spread, picked one by one), so a contract's scopes
 * cannot be left behind by accident.
 */
export const CONTRACT_SCOPES: unique symbol = Symbol.for("mcp-codegen.contractScopes");

const NONE: readonly string[] = Object.freeze([]);

interface Scoped {
  readonly scopes?: readonly string[];
}

/** A contract's scopes, looked up per request: lists joined once here, lookups by own key. */
export class ContractScopes implements ScopeTable {
  readonly authRequired: boolean;
  readonly supported: readonly string[];
  readonly #defaults: readonly string[];
  readonly #tools: Readonly<Record<string, readonly string[]>>;
  readonly #prompts: Readonly<Record<string, readonly string[]>>;
  readonly #resources: ReadonlyMap<string, readonly string[]>;
  /** Only templates with scopes of their own: the others add nothing to the defaults. */
  readonly #templates: readonly { uri: UriTemplate; text: string; scopes: readonly string[] }[];

  constructor(
    auth: { readonly scopes: readonly string[] } | undefined,
    items: {
      tools: Readonly<Record<string, Scoped>>;
      prompts: Readonly<Record<string, Scoped>>;
      resources: readonly (Scoped & { uri: string })[];
      templates: readonly (Scoped & { uri: UriTemplate; text: string })[];
    },
  ) {
    this.authRequired = auth !== undefined;
    this.#defaults = Object.freeze([...(auth?.scopes ?? [])]);
    const joined = (item: Scoped) => this.#with(item.scopes);
    const byName = (table: Readonly<Record<string, Scoped>>) => {
      const out: Record<string, readonly string[]> = Object.create(null);
      for (const [name, item] of Object.entries(table)) out[name] = joined(item);
      return out;
    };
    this.#tools = byName(items.tools);
    this.#prompts = byName(items.prompts);
    this.#resources = new Map(items.resources.map((r) => [r.uri, joined(r)]));
    this.#templates = items.templates
      .filter((t) => t.scopes && t.scopes.length > 0)
      .map((t) => ({ uri: t.uri, text: t.text, scopes: t.scopes! }));
    const all = new Set(this.#defaults);
    for (const item of [
      ...Object.values(items.tools),
      ...Object.values(items.prompts),
      ...items.resources,
      ...items.templates,
    ])
      for (const scope of item.scopes ?? []) all.add(scope);
    all.delete("offline_access");
    this.supported = Object.freeze([...all].sort());
  }

  required(method: string, params: unknown): readonly string[] {
    const p = (typeof params === "object" && params !== null ? params : {}) as Record<string, unknown>;
    switch (method) {
      case "tools/call":
        return this.#named(this.#tools, p.name);
      case "prompts/get":
        return this.#named(this.#prompts, p.name);
      case "resources/read":
      case "resources/subscribe":
      case "resources/unsubscribe":
        return typeof p.uri === "string" ? this.#forUri(p.uri) : this.#defaults;
      case "completion/complete":
        return this.#forReference(p.ref);
      default:
        return this.#defaults;
    }
  }

  /** The defaults, then `extra`'s scopes not among them. */
  #with(extra: readonly string[] | undefined): readonly string[] {
    if (!extra || extra.length === 0) return this.#defaults;
    return Object.freeze([...new Set([...this.#defaults, ...extra])]);
  }

  #named(table: Readonly<Record<string, readonly string[]>>, name: unknown): readonly string[] {
    return (typeof name === "string" ? entryOf(table, name) : undefined) ?? this.#defaults;
  }

  #forUri(uri: string): readonly string[] {
    let scopes = this.#resources.get(uri) ?? this.#defaults;
    for (const t of this.#templates) if (t.uri.match(uri)) scopes = this.#join(scopes, t.scopes);
    return scopes;
  }

  /** Completing a prompt's argument or a template's variable needs what getting or reading it needs. */
  #forReference(ref: unknown): readonly string[] {
    if (typeof ref !== "object" || ref === null) return this.#defaults;
    const r = ref as { type?: unknown; name?: unknown; uri?: unknown };
    if (r.type === "ref/prompt") return this.#named(this.#prompts, r.name);
    const template = this.#templates.find((t) => t.text === r.uri);
    return template ? this.#with(template.scopes) : this.#defaults;
  }

  #join(a: readonly string[], b: readonly string[]): readonly string[] {
    return b.every((s) => a.includes(s)) ? a : [...new Set([...a, ...b])];
  }
}

/** The scope tables of the contracts whose handlers are among `handlers` (serveContract marks them). */
export function contractScopesOf(handlers: object): ScopeTable[] {
  const found = new Set<ScopeTable>();
  for (const handler of Object.values(handlers)) {
    const table =
      typeof handler === "function"
        ? (handler as { [CONTRACT_SCOPES]?: ScopeTable })[CONTRACT_SCOPES]
        : undefined;
    if (table) found.add(table);
  }
  return [...found];
}

/**
 * Why the caller may not make `method`, or undefined when it may: a verified token (AuthInfo) lacking a
 * scope any table requires is InsufficientScope; a caller without one is refused only where a table's
 * contract declares `auth` (nothing is enforced on a server no one protects: stdio, plain HTTP).
 */
export function scopeRefusal(
  tables: readonly ScopeTable[],
  method: string,
  params: unknown,
  auth: unknown,
): McpError | undefined {
  if (!isAuthInfo(auth)) {
    if (!tables.some((t) => t.authRequired)) return undefined;
    return new McpError(
      ACCESS_DENIED,
      "authentication required: this server's contract declares auth, and the request carries no verified token",
      { requiredScopes: requiredBy(tables, method, params) },
    );
  }
  const required = requiredBy(tables, method, params);
  const missing = missingScopes(auth.scopes, required);
  return missing.length > 0 ? new InsufficientScope(required, missing) : undefined;
}

/** The scopes `method` with `params` needs by every table (there is one per contract served). */
export function requiredBy(
  tables: readonly ScopeTable[],
  method: string,
  params: unknown,
): readonly string[] {
  if (tables.length === 0) return NONE;
  if (tables.length === 1) return tables[0]!.required(method, params);
  return [...new Set(tables.flatMap((t) => t.required(method, params)))];
}
