/**
 * The first index of each JSON value among an array's items: an open-addressing hash table of item
 * indices in one Int32Array, keyed by a structural hash. `uniqueItems` over a 4 MB body (600,000
 * numbers, or 100,000 values of small objects) is its hot case: a `Set` of canonical texts costs several times more
 * (a string built and hashed per item, the table grown by rehashing). The hash is seeded per table
 * (random odd multipliers), so no input collides more than chance allows, and JSON-equal values hash
 * alike: members in any order, 1 and 1.0. Equal hashes are confirmed by `equal`, so a collision costs
 * a comparison, never a wrong answer.
 */

import { MAX_DEPTH } from "./depth.js";

export class ValueIndex {
  readonly #items: readonly unknown[];
  readonly #equal: (a: unknown, b: unknown) => boolean;
  /** Item indices, -1 for an empty slot; at least 1.5 times the items (a power of two). */
  readonly #slots: Int32Array;
  /** Each added item's hash, by item index. */
  readonly #hashes: Int32Array;
  readonly #shift: number;
  /** Random odd multipliers: integers and a float's low half; a float's high half; strings; arrays. */
  readonly #a = odd();
  readonly #b = odd();
  readonly #c = odd();
  readonly #d = odd();
  /** Scratch for reading a non-integer's bits. */
  readonly #float = new Float64Array(1);
  readonly #bits = new Int32Array(this.#float.buffer);

  constructor(items: readonly unknown[], equal: (a: unknown, b: unknown) => boolean) {
    this.#items = items;
    this.#equal = equal;
    let bits = 4;
    while (1 << bits < items.length * 1.5) bits++;
    this.#slots = new Int32Array(1 << bits).fill(-1);
    this.#hashes = new Int32Array(items.length);
    this.#shift = 32 - bits;
  }

  /** The index of an earlier item equal to `items[j]`, else adds `j` and answers -1. */
  firstOrAdd(j: number): number {
    const item = this.#items[j];
    const h = this.#hash(item, 0);
    this.#hashes[j] = h;
    const mask = this.#slots.length - 1;
    let slot = h >>> this.#shift;
    for (;;) {
      const at = this.#slots[slot]!;
      if (at < 0) {
        this.#slots[slot] = j;
        return -1;
      }
      if (this.#hashes[at] === h && this.#equal(this.#items[at], item)) return at;
      slot = (slot + 1) & mask;
    }
  }

  /**
   * A mixed 32-bit hash of a JSON value. Past `MAX_DEPTH` (checked values never nest that deep) it
   * answers a constant, so that whatever it is given, it recurses a bounded number of levels.
   */
  #hash(value: unknown, depth: number): number {
    switch (typeof value) {
      case "number":
        return mix(this.#number(value));
      case "string":
        return mix(this.#string(value) ^ 0x5bd1e995);
      case "boolean":
        return value ? 0x2f1b3c5d : 0x6a09e667;
      case "object":
        break;
      default:
        return 0x1f83d9ab;
    }
    if (value === null) return 0x3c6ef372;
    if (depth >= MAX_DEPTH) return 0x510e527f;
    if (Array.isArray(value)) {
      let h = 0x9b05688c ^ value.length;
      for (const element of value) h = Math.imul(h ^ this.#hash(element, depth + 1), this.#d);
      return mix(h);
    }
    // Members combine by addition, so their order does not matter.
    let sum = 0x7137449;
    for (const key in value) {
      if (!Object.hasOwn(value, key)) continue;
      const member = (value as Record<string, unknown>)[key];
      sum = (sum + mix(this.#string(key) + Math.imul(this.#hash(member, depth + 1), this.#d))) | 0;
    }
    return mix(sum);
  }

  #number(x: number): number {
    // -0 === 0, so both hash as 0; NaN equals nothing (as in JSON equality), so any hash will do.
    if (x === (x | 0)) return Math.imul(x, this.#a);
    this.#float[0] = x;
    return Math.imul(this.#bits[0]!, this.#a) + Math.imul(this.#bits[1]!, this.#b);
  }

  #string(s: string): number {
    let h = Math.imul(s.length, this.#c);
    for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), this.#c);
    return h;
  }
}

const odd = () => (Math.random() * 2 ** 32) | 1;

/** The finalizer of MurmurHash3: every input bit reaches every output bit. */
function mix(h: number): number {
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return h ^ (h >>> 16);
}
