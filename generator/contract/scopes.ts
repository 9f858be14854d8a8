/**
 * The OAuth scopes a contract declares: `auth: { scopes }` at the top (every request needs them) and
 * `scopes` on a tool, prompt, resource or template (needed, beyond those, to call, get or read it). Each
 * is an RFC 6749 §3.3 scope token: one or more printable ASCII characters other than space, `"` and `\`.
 */

import { isObject } from "../protocol/load.js";

/** A reason a `scopes` list is refused, with where in it (`scopes[2]`), or undefined when it is fine. */
export interface ScopeProblem {
  readonly where: string;
  readonly reason: string;
}

/** RFC 6749 §3.3: scope-token = 1*( %x21 / %x23-5B / %x5D-7E ). */
const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]+$/;

/**
 * `offline_access` asks the authorization server for a refresh token (OpenID Connect Core §11); no
 * request to an MCP server can need it, and MCP 2026-07-28 keeps it out of `scopes_supported`.
 */
export const OFFLINE_ACCESS = "offline_access";

/** `value` as a list of scope tokens, or what is wrong with it (`where` names the list: `tools.add.scopes`). */
export function scopeList(value: unknown, where: string): string[] | ScopeProblem {
  if (!Array.isArray(value))
    return { where, reason: 'must be a list of OAuth scopes (scopes: ["notes:read"])' };
  const seen = new Set<string>();
  for (const [i, scope] of value.entries()) {
    const at = `${where}[${i}]`;
    if (typeof scope !== "string") return { where: at, reason: "must be a string (an OAuth scope)" };
    if (scope === "") return { where: at, reason: "is empty: a scope has at least one character" };
    if (!SCOPE_TOKEN.test(scope))
      return {
        where: at,
        reason: `${JSON.stringify(scope)} is not an OAuth scope (RFC 6749 §3.3: printable ASCII without space, " or \\)`,
      };
    if (scope === OFFLINE_ACCESS)
      return {
        where: at,
        reason: `${OFFLINE_ACCESS} asks for a refresh token; no request can require it`,
      };
    if (seen.has(scope)) return { where: at, reason: `${JSON.stringify(scope)} is listed twice` };
    seen.add(scope);
  }
  return value as string[];
}

/** The top-level `auth:` section: `{ scopes?: [...] }`. */
export function authSection(value: unknown): { scopes: string[] } | ScopeProblem {
  if (!isObject(value)) return { where: "auth", reason: "must be an object: auth: { scopes: [...] }" };
  for (const key of Object.keys(value))
    if (key !== "scopes") return { where: `auth.${key}`, reason: "unknown field (allowed: scopes)" };
  const scopes = value.scopes === undefined ? [] : scopeList(value.scopes, "auth.scopes");
  return Array.isArray(scopes) ? { scopes } : scopes;
}

/** Every scope the contract names, sorted: what the server's `scopes_supported` lists. */
export function scopesSupported(lists: readonly (readonly string[] | undefined)[]): string[] {
  const all = new Set<string>();
  for (const list of lists) for (const scope of list ?? []) if (scope !== OFFLINE_ACCESS) all.add(scope);
  return [...all].sort();
}
