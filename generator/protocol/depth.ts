/**
 * How deeply JSON may nest where the generator reads it. Reading, hashing, emitting and formatting all
 * recurse, so a deep enough schema or value would exhaust the stack; past these limits it is refused (or,
 * from a server, typed loosely) with a message naming the place. The official schemas nest 12 levels.
 */

import { escapePointer } from "./load.js";

/** A schema (or a value inside one: `const`, `default`…) that is compiled into types and checks. */
export const MAX_DEPTH = 128;

/** A definition kept in a lock as the server sent it, not compiled (hashing and comparing still recurse). */
export const MAX_LOCK_DEPTH = 1024;

/**
 * The JSON pointer of the first object or array in `value` that lies deeper than `limit` levels (the
 * value itself, if an object or array, is level 1), or undefined. Recurses at most `limit` levels.
 */
export function tooDeep(value: unknown, limit: number = MAX_DEPTH): string | undefined {
  const visit = (node: unknown, level: number): string[] | undefined => {
    if (typeof node !== "object" || node === null) return undefined;
    if (level > limit) return [];
    const entries: [string, unknown][] = Array.isArray(node)
      ? node.map((v, i) => [String(i), v])
      : Object.entries(node);
    for (const [key, child] of entries) {
      const below = visit(child, level + 1);
      if (below) return [key, ...below];
    }
    return undefined;
  };
  const path = visit(value, 1);
  return path?.map((p) => `/${escapePointer(p)}`).join("");
}

/** A place `tooDeep` found, as messages show it: its first levels (the whole pointer is as long as the limit). */
export const shortPointer = (pointer: string): string =>
  pointer.length > 60 ? `${pointer.slice(0, 60)}…` : pointer;

/** Why a place `tooDeep` found is refused. */
export const depthReason = (limit: number = MAX_DEPTH): string =>
  `nested deeper than ${limit} levels, the generator's limit`;
