/**
 * How deep a value may nest before any check runs on it. JSON parsing has no depth limit, but the checks
 * of recursive schemas (and JSON equality, and serialization) recurse once per level: a value nested
 * 10,000 deep would exhaust the stack. Bounding depth once, before the checks, keeps every one of them
 * within the stack and answers a clear error naming the bound instead.
 */

import type { Fail } from "./check.js";

/** Levels of arrays and objects a checked value may nest (the value itself is level 1). */
export const MAX_DEPTH = 256;

/** Path segments a depth failure names: enough to find the value, without echoing a 256-step path. */
const PATH_SHOWN = 4;

/**
 * A `Fail` when `value` nests arrays and objects more than `max` levels deep, else `undefined`.
 * Iterative, so it cannot exhaust the stack itself; linear in the value's size, allocation-free for
 * primitives, and it stops at the first value too deep.
 */
export function tooDeep(value: unknown, max = MAX_DEPTH): Fail | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const values: unknown[] = [value];
  const depths: number[] = [1];
  while (values.length > 0) {
    const v = values.pop() as object;
    const depth = depths.pop()!;
    if (depth > max)
      return {
        path: pathTo(value, v, depth),
        message: `Nested more than ${max} levels deep below this point`,
      };
    if (Array.isArray(v)) {
      for (const x of v) {
        if (typeof x === "object" && x !== null) {
          values.push(x);
          depths.push(depth + 1);
        }
      }
      continue;
    }
    for (const k in v) {
      if (!Object.hasOwn(v, k)) continue;
      const x = (v as Record<string, unknown>)[k];
      if (typeof x === "object" && x !== null) {
        values.push(x);
        depths.push(depth + 1);
      }
    }
  }
  return undefined;
}

/**
 * The first segments of the path from `root` to `target`, which sits at level `depth`: found by a search
 * that goes no deeper, so that its recursion stays as bounded as the checks'.
 */
function pathTo(root: unknown, target: unknown, depth: number): (string | number)[] {
  const path: (string | number)[] = [];
  const search = (v: unknown, level: number): boolean => {
    if (v === target) return true;
    if (level >= depth || typeof v !== "object" || v === null) return false;
    for (const [k, x] of Array.isArray(v) ? v.entries() : Object.entries(v)) {
      path.push(k);
      if (search(x, level + 1)) return true;
      path.pop();
    }
    return false;
  };
  search(root, 1);
  return path.slice(0, PATH_SHOWN);
}
