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
 * Linear in the value's size, allocation-free when the value is within the bound, and it stops at the
 * first value too deep; its recursion never goes past the bound, so it cannot exhaust the stack itself.
 */
export function tooDeep(value: unknown, max = MAX_DEPTH): Fail | undefined {
  if (!nestsDeeper(value, max)) return undefined;
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
 * Whether `value` nests arrays and objects more than `levels` deep: the common answer, no, found without
 * allocating (every message's params pass here). Recursive, but never more than `levels` + 1 frames deep.
 */
function nestsDeeper(value: unknown, levels: number): boolean {
  if (typeof value !== "object" || value === null) return false;
  if (levels === 0) return true;
  if (Array.isArray(value)) {
    for (const x of value) if (nestsDeeper(x, levels - 1)) return true;
    return false;
  }
  for (const k in value) {
    if (Object.hasOwn(value, k) && nestsDeeper((value as Record<string, unknown>)[k], levels - 1))
      return true;
  }
  return false;
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
 * Values and member names a JSON text may hold before it is parsed, where many clients share one server
 * (the HTTP transports). Parsing and checking cost per value, not per byte: V8 parses a 4 MB body of
 * `{}`s (1.4 million values) in ~200 ms, which every other client would wait through, and a 4 MB string in
 * ~2 ms. 100,000 values parse and check in ~25 ms whatever their shape, leaving room for a busy machine.
 */
export const MAX_TEXT_ITEMS = 100_000;

/** What a JSON text holds too much of to be parsed: levels of nesting, or values and member names. */
export type TextExcess = "depth" | "items";

/**
 * Whether a JSON text nests arrays and objects more than `maxDepth` levels deep, or holds more than
 * `maxItems` values and member names, read without parsing it (brackets, commas and colons outside
 * strings; an empty array or object counts twice); stops at the first excess. For text that is not JSON
 * the answer does not matter: the parser refuses it next.
 */
export function textExcess(
  text: string,
  maxDepth = MAX_TEXT_DEPTH,
  maxItems = Number.POSITIVE_INFINITY,
): TextExcess | undefined {
  // A text holds no more brackets, commas or colons than characters: a short one needs no count at all.
  if (text.length <= maxDepth && text.length < maxItems) return undefined;
  // The engine's native search settles most texts (a long string, a short message) in well under a
  // millisecond, where the scan below takes ~5 ns a character.
  const shallow = occurrences(text, OPENINGS, maxDepth) <= maxDepth;
  const few =
    maxItems === Number.POSITIVE_INFINITY || 1 + occurrences(text, ITEM_MARKS, maxItems) <= maxItems;
  if (shallow && few) return undefined;
  let depth = 0;
  let items = 1;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92)
        i++; // a backslash: the next character is escaped
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) {
      if (++depth > maxDepth) return "depth";
      if (++items > maxItems) return "items";
    } else if (c === 125 || c === 93) depth--;
    else if ((c === 44 || c === 58) && ++items > maxItems) return "items";
  }
  return undefined;
}

/** Whether a JSON text nests arrays and objects more than `max` levels deep (see `textExcess`). */
export const textTooDeep = (text: string, max = MAX_TEXT_DEPTH): boolean => textExcess(text, max) === "depth";

const OPENINGS = ["[", "{"] as const;
/** Every value but the first follows one of these (an empty array or object adds one too many). */
const ITEM_MARKS = ["[", "{", ",", ":"] as const;

/** How many of `marks` the text holds anywhere (strings included), counting no further than `max` + 1. */
function occurrences(text: string, marks: readonly string[], max: number): number {
  let n = 0;
  for (const mark of marks) {
    for (let i = text.indexOf(mark); i >= 0; i = text.indexOf(mark, i + 1)) if (++n > max) return n;
  }
  return n;
}
