/**
 * Keys from contracts, locks and servers are data: `__proto__`, `constructor` and `toString` are keys like
 * any other. Maps keyed by them have no prototype (`Object.create(null)`); JSON copied key by key sets
 * each key here, since assigning `__proto__` would set the copy's prototype instead of a key.
 */
/** Whether `key` names a member every object inherits (`constructor`, `toString`, `__proto__`…). */
export const isPrototypeName = (key: string): boolean => Object.hasOwn(Object.prototype, key);

export function setOwn(target: object, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
}
