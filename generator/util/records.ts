/**
 * Objects keyed by names from schemas, contracts, locks and servers. Such a name may be `__proto__`,
 * `constructor` or `hasOwnProperty`: a map without a prototype stores and finds it like any other, `own`
 * never answers a lookup with an inherited member, and `setOwn` adds a key to an ordinary object (JSON
 * copied key by key) without `__proto__` setting its prototype.
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

/** Whether `key` names a member every object inherits (`constructor`, `toString`, `__proto__`…). */
export const isPrototypeName = (key: string): boolean => Object.hasOwn(Object.prototype, key);

/** Sets `key` as an own property: assigning `__proto__` would set the prototype instead of a key. */
export function setOwn(target: object, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
}
