/**
 * What every generated validators.ts builds on: a check is a plain function that returns `undefined` for a
 * valid value and a `Fail` (where and why) otherwise. Checks allocate nothing on success and load no
 * library, so the method tables cost nothing at startup and little per message; they use no code
 * generation at run time, so they also run where `eval` is forbidden.
 * JSON Schema semantics shared with the zod schemas (formats, lengths in code points, JSON equality) live
 * here too, so both validators judge alike.
 */

/** A failed check: the path of the failing value below the checked one, and what was wrong with it. */
export interface Fail {
  path: (string | number)[];
  message: string;
}

/** A generated validator: `undefined` when `value` is valid. */
export type Check = (value: unknown) => Fail | undefined;

export const fail = (message: string, path: (string | number)[] = []): Fail => ({ path, message });

/** `fail` found below `prefix`: the prefix goes in front of its path. */
export function at(failure: Fail, ...prefix: (string | number)[]): Fail {
  failure.path.unshift(...prefix);
  return failure;
}

export { isObject } from "../jsonrpc/messages.js";

import { duplicateItems, jsonEqual } from "./formats.js";

/** The failure that got furthest into the value: the most useful one to report for a union. */
const deepest = (a: Fail | undefined, b: Fail): Fail =>
  a === undefined || b.path.length > a.path.length ? b : a;

/** `anyOf`: valid when one check passes; otherwise the failure that got furthest. */
export function anyOf(value: unknown, checks: readonly Check[]): Fail | undefined {
  let best: Fail | undefined;
  for (const check of checks) {
    const f = check(value);
    if (f === undefined) return undefined;
    best = deepest(best, f);
  }
  return best;
}

/** `oneOf`: valid when exactly one check passes. */
export function oneOf(value: unknown, checks: readonly Check[]): Fail | undefined {
  let best: Fail | undefined;
  let passed = 0;
  for (const check of checks) {
    const f = check(value);
    if (f === undefined) passed++;
    else best = deepest(best, f);
  }
  if (passed === 1) return undefined;
  return passed > 1 ? fail(`Expected exactly one schema to match, ${passed} did`) : best;
}

/** `enum` or `const` with object or array members, compared as JSON. */
export const inJson = (value: unknown, members: readonly unknown[]): boolean =>
  members.some((m) => jsonEqual(value, m));

/** `uniqueItems`: which two items are equal (the first pair), in linear expected time. */
export function uniqueItems(items: readonly unknown[]): Fail | undefined {
  const pair = duplicateItems(items);
  return pair === undefined
    ? undefined
    : fail(`Expected unique items (items ${pair[0]} and ${pair[1]} are equal)`);
}

/** `propertyNames`: a key's failure, reported at the key and saying that the name is what is wrong. */
export function propertyName(failure: Fail, key: string): Fail {
  failure.message = `Invalid property name ${JSON.stringify(key)}: ${failure.message}`;
  failure.path = [key];
  return failure;
}
