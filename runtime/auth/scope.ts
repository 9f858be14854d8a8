/**
 * Which scopes to ask for (the spec's "Scope Selection Strategy" and "Scope Challenge Handling"). Scopes
 * are space-separated strings on the wire; here they are lists without duplicates, in first-seen order.
 */

export const splitScope = (scope: string | undefined): string[] =>
  scope === undefined ? [] : [...new Set(scope.split(/\s+/).filter(Boolean))];

export const joinScope = (scopes: readonly string[]): string | undefined =>
  scopes.length > 0 ? scopes.join(" ") : undefined;

export const unionScopes = (...lists: ReadonlyArray<readonly string[]>): string[] => [
  ...new Set(lists.flat()),
];

export interface ScopeInputs {
  /** `scope` of the server's 401/403 challenge. */
  readonly challenged?: string;
  /** `scopes_supported` of the Protected Resource Metadata. */
  readonly resourceScopes?: readonly string[];
  /** `scopes_supported` of the authorization server metadata: `offline_access` only when it lists it. */
  readonly serverScopes?: readonly string[];
  /** The client wants a refresh token: add `offline_access` when the authorization server offers it. */
  readonly offlineAccess?: boolean;
}

/**
 * The challenge's scope, else every scope the resource lists, else none (the request omits `scope`).
 * `offline_access` is added only to a non-empty request and only when the authorization server lists it:
 * an MCP server should not ask for it, and an AS that does not know it may refuse the whole request.
 */
export function selectScopes(inputs: ScopeInputs): string[] {
  const challenged = splitScope(inputs.challenged);
  const chosen = challenged.length > 0 ? challenged : [...new Set(inputs.resourceScopes ?? [])];
  if (chosen.length > 0 && inputs.offlineAccess && inputs.serverScopes?.includes("offline_access"))
    return unionScopes(chosen, ["offline_access"]);
  return chosen;
}

/**
 * A 403 `insufficient_scope`: the scopes to re-authorize with (what the token had plus what the challenge
 * names), or undefined when the token already had them all, so a new authorization cannot help.
 */
export function stepUpScopes(
  granted: readonly string[],
  challenged: string | undefined,
): string[] | undefined {
  const wanted = splitScope(challenged);
  if (wanted.length === 0 || wanted.every((s) => granted.includes(s))) return undefined;
  return unionScopes(granted, wanted);
}
