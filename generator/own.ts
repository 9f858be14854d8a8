/**
 * Keys from contracts, locks and servers are data: `__proto__`, `constructor` and `toString` are keys like
 * any other. Maps keyed by them have no prototype (`Object.create(null)`), and JSON copied key by key
 * goes through `setOwn`.
 */

/** Whether `key` names a member every object inherits (`constructor`, `toString`, `__proto__`…). */
export const isPrototypeName = (key: string): boolean => Object.hasOwn(Object.prototype, key);

/** Sets `key` as an own property: assigning `__proto__` would set the prototype instead of a key. */
export function setOwn(target: object, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
}
