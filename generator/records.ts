/**
 * Objects keyed by names from schemas, contracts, locks and servers. Such a name may be `__proto__`,
 * `constructor` or `hasOwnProperty`: a map without a prototype stores and finds it like any other, and
 * `own` never answers a lookup with an inherited member.
 */

/** An empty map of names (no prototype: every key is an ordinary own key). */
export const record = <T>(): Record<string, T> => Object.create(null) as Record<string, T>;

/** `entries` as a map of names, without a prototype. */
export function recordOf<T>(entries: Iterable<readonly [string, T]>): Record<string, T> {
  const out = record<T>();
  for (const [k, v] of entries) out[k] = v;
  return out;
}

/** `object[key]` when `object` has it as its own property, else undefined (never an inherited member). */
export const own = (object: object, key: string): unknown =>
  Object.hasOwn(object, key) ? (object as Record<string, unknown>)[key] : undefined;
