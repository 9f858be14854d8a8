/**
 * The first index of each number among an array's items: an open-addressing hash table of item indices
 * in one Int32Array. `uniqueItems` over a body of numbers (600,000 of them in 4 MB) is its hot case, where
 * a `Set` costs several times more (it grows by rehashing and allocates per entry), and hashes integers
 * with a fixed function an attacker could collide. Here the hash is multiply-shift with multipliers
 * drawn per table, so no input collides more than chance allows: linear expected time on any input.
 */
export class NumberIndex {
  readonly #items: readonly unknown[];
  /** Item indices, -1 for an empty slot; at least 1.5 times the items (a power of two). */
  readonly #slots: Int32Array;
  readonly #shift: number;
  readonly #mask: number;
  /** Random odd multipliers: one for integers and a number's low half, one for its high half. */
  readonly #a = (Math.random() * 2 ** 32) | 1;
  readonly #b = (Math.random() * 2 ** 32) | 1;
  /** Scratch for reading a non-integer's bits. */
  readonly #float = new Float64Array(1);
  readonly #bits = new Int32Array(this.#float.buffer);

  constructor(items: readonly unknown[]) {
    this.#items = items;
    let bits = 4;
    while (1 << bits < items.length * 1.5) bits++;
    this.#slots = new Int32Array(1 << bits).fill(-1);
    this.#shift = 32 - bits;
    this.#mask = (1 << bits) - 1;
  }

  /** The index of an earlier item equal to `items[j]` (a number), else adds `j` and answers -1. */
  firstOrAdd(j: number): number {
    const x = this.#items[j] as number;
    let h: number;
    // -0 === 0, so both take 0's slot; NaN equals nothing (as in JSON equality) and is simply added.
    if (x === (x | 0)) h = Math.imul(x, this.#a);
    else {
      this.#float[0] = x;
      h = Math.imul(this.#bits[0]!, this.#a) + Math.imul(this.#bits[1]!, this.#b);
    }
    let slot = (h >>> this.#shift) & this.#mask;
    for (;;) {
      const at = this.#slots[slot]!;
      if (at < 0) {
        this.#slots[slot] = j;
        return -1;
      }
      if (this.#items[at] === x) return at;
      slot = (slot + 1) & this.#mask;
    }
  }
}
