/**
 * How deep a value may nest before any check runs on it. JSON parsing has no depth limit, but the checks
 * of recursive schemas (and JSON equality, and serialization) recurse once per level: a value nested
 * 10,000 deep would exhaust the stack. Bounding depth once, before the checks, keeps every one of them
 * within the stack and answers a clear error naming the bound instead.
 */

import type { Fail } from "./check.js";

/** Levels of arrays and objects a checked value may nest (the value itself is level 1). */
export const MAX_DEPTH = 256;

/**
 * Levels a JSON text may nest before it is parsed at all. Parsing is linear but slow per level (V8 takes
 * ~150 ms for a 4 MB body 280,000 levels deep, ~5 ms for 10,000), so a text nested beyond this is
 * refused unparsed (a parse error); anything shallower is parsed, and its params then meet `MAX_DEPTH`
 * with the path named.
 */
export const MAX_TEXT_DEPTH = 10_000;

/** Marks a check that bounds the depth of what it checks itself (see `boundsDepth`). */
const BOUNDS_DEPTH: unique symbol = Symbol.for("mcp-codegen.boundsDepth");

/**
 * `check`, marked as bounding depth itself: the runtime then runs it without refusing a value nested past
 * `MAX_DEPTH` first. For a check that mends what is too deep (a pulled list leaves out one entry too deep
 * rather than losing the whole list); it must keep its own recursion bounded.
 */
export function boundsDepth<C extends (value: unknown) => Fail | undefined>(check: C): C {
  return Object.assign(check, { [BOUNDS_DEPTH]: true });
}

/** Whether `check` was marked by `boundsDepth`. */
export const isDepthBounded = (check: object): boolean => BOUNDS_DEPTH in check;

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

/**
 * Whether a JSON text nests arrays and objects more than `max` levels deep, read without parsing it
 * (brackets outside strings); stops at the first level too deep. For text that is not JSON the answer
 * does not matter: the parser refuses it next.
 */
export function textTooDeep(text: string, max = MAX_TEXT_DEPTH): boolean {
  if (fewOpenings(text, max)) return false;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92)
        i++; // a backslash: the next character is escaped
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) {
      if (++depth > max) return true;
    } else if (c === 125 || c === 93) depth--;
  }
  return false;
}

/**
 * Whether the text holds at most `max` of `[` and `{` in all, so cannot nest deeper: found with the
 * engine's native search, which settles most bodies (a long string, an array of numbers) in well under
 * a millisecond where the scan above takes ~5 ns a character.
 */
function fewOpenings(text: string, max: number): boolean {
  let n = 0;
  for (const opening of ["[", "{"]) {
    for (let i = text.indexOf(opening); i >= 0; i = text.indexOf(opening, i + 1)) if (++n > max) return false;
  }
  return true;
}
