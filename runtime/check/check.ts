/**
 * What every generated validators.ts builds on: a check is a plain function that returns `undefined` for a
 * valid value and a `Fail` (where and why, with the failures found after it) otherwise. A check goes on
 * after a failure, so one answer names every wrong field, up to `MAX_FAILURES`; it stops a value's own
 * keywords where they cannot apply (a wrong type, a missing property, a string too long for its pattern).
 * Checks allocate nothing on success and load no library, so the method tables cost nothing at startup and little per message; they use no code
 * generation at run time, so they also run where `eval` is forbidden.
 * JSON Schema semantics shared with the zod schemas (formats, lengths in code points, JSON equality) live
 * here too, so both validators judge alike.
 */

/**
 * A failed check: the path of the failing value below the checked one, and what was wrong with it. The
 * failure a check returns is the first it found; `more` holds the others, in the order the check found them.
 */
export interface Fail {
  path: (string | number)[];
  message: string;
  more?: Fail[];
}

/** The most failures one check reports: past it, a check stops (a model needs no more to correct a call). */
export const MAX_FAILURES = 20;

/** A generated validator: `undefined` when `value` is valid. */
export type Check = (value: unknown) => Fail | undefined;

export const fail = (message: string, path: (string | number)[] = []): Fail => ({ path, message });

/** `fail` found below `prefix`: the prefix goes in front of its path (and of those in its `more`). */
export function at(failure: Fail, ...prefix: (string | number)[]): Fail {
  failure.path.unshift(...prefix);
  for (const f of failure.more ?? []) f.path.unshift(...prefix);
  return failure;
}

/**
 * `failure` (and its `more`) after the failures found so far, `first` (undefined for none): what a check
 * returns. A failure already reported (same place, same message: a wrong type seen by two subschemas) is
 * not repeated; failures past `MAX_FAILURES` are dropped.
 */
export function add(first: Fail | undefined, failure: Fail): Fail {
  if (first === undefined) return failure;
  first.more ??= [];
  const more = first.more;
  for (const f of failuresOf(failure)) {
    if (more.length < MAX_FAILURES - 1 && !same(first, f) && !more.some((m) => same(m, f))) more.push(f);
  }
  delete failure.more;
  return first;
}

const same = (a: Fail, b: Fail): boolean =>
  a.message === b.message && a.path.length === b.path.length && a.path.every((p, i) => p === b.path[i]);

/** Whether `first` holds `MAX_FAILURES` failures: a check's loops stop there. */
export const full = (first: Fail): boolean =>
  first.more !== undefined && first.more.length >= MAX_FAILURES - 1;

/** A failure and those in its `more`, in order. */
export const failuresOf = (failure: Fail): Fail[] =>
  failure.more === undefined ? [failure] : [failure, ...failure.more];

export { isObject } from "../jsonrpc/messages.js";

import { duplicateItems, jsonEqual } from "./formats.js";

/** The failures of the branch whose first failure got furthest into the value: the most useful ones to report for a union. */
const deepest = (a: Fail | undefined, b: Fail): Fail =>
  a === undefined || b.path.length > a.path.length ? b : a;

/** `anyOf`: valid when one check passes; otherwise the failures of the branch that got furthest. */
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

/** `propertyNames`: a key's failures, reported at the key and saying that the name is what is wrong. */
export function propertyName(failure: Fail, key: string): Fail {
  for (const f of failuresOf(failure)) {
    f.message = `Invalid property name ${JSON.stringify(key)}: ${f.message}`;
    f.path = [key];
  }
  return failure;
}
