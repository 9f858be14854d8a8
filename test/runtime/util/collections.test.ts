import { describe, expect, it } from "vitest";
import { type Linked, LinkedSet, SmallMap } from "../../../runtime/util/collections.js";

describe("SmallMap", () => {
  it("holds one entry in fields and more in a Map, as a Map would", () => {
    const small = new SmallMap<string | number, number>();
    expect(small.size).toBe(0);
    small.set(1, 10);
    small.set(1, 11); // replaces, still one entry
    expect([small.size, small.get(1), small.has(1), small.has("1")]).toEqual([1, 11, true, false]);
    small.set("1", 20); // a string key is another key
    expect([small.size, small.get(1), small.get("1")]).toEqual([2, 11, 20]);
    expect(small.delete(1)).toBe(true);
    expect(small.delete(1)).toBe(false);
    expect(small.values()).toEqual([20]);
  });

  it("agrees with Map over a random sequence of operations", () => {
    let seed = 7;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const small = new SmallMap<number, number>();
    const map = new Map<number, number>();
    for (let step = 0; step < 5_000; step++) {
      const key = random(4);
      const op = random(3);
      if (op === 0) {
        small.set(key, step);
        map.set(key, step);
      } else if (op === 1) {
        expect(small.delete(key)).toBe(map.delete(key));
      } else {
        expect(small.get(key)).toBe(map.get(key));
      }
      expect(small.size).toBe(map.size);
      expect(small.has(key)).toBe(map.has(key));
    }
    expect(small.values().sort()).toEqual([...map.values()].sort());
  });

  it("values() is a snapshot: deleting while walking it is safe", () => {
    const small = new SmallMap<number, string>();
    for (const k of [1, 2, 3]) small.set(k, `v${k}`);
    const seen: string[] = [];
    for (const v of small.values()) {
      seen.push(v);
      small.delete(Number(v.slice(1)));
    }
    expect(seen).toEqual(["v1", "v2", "v3"]);
    expect(small.size).toBe(0);
  });
});

describe("LinkedSet", () => {
  interface Item extends Linked<Item> {
    n: number;
  }

  it("agrees with Set over a random sequence of adds and deletes", () => {
    let seed = 11;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const items: Item[] = Array.from({ length: 6 }, (_, n) => ({ n }));
    const linked = new LinkedSet<Item>();
    const set = new Set<Item>();
    for (let step = 0; step < 5_000; step++) {
      const item = items[random(items.length)]!;
      if (random(2) === 0) {
        linked.add(item);
        set.add(item);
      } else {
        expect(linked.delete(item)).toBe(set.delete(item));
      }
      expect(linked.size).toBe(set.size);
      for (const each of items) expect(linked.has(each)).toBe(set.has(each));
    }
    expect(
      linked
        .values()
        .map((i) => i.n)
        .sort(),
    ).toEqual([...set].map((i) => i.n).sort());
  });

  it("is walked newest first, and members may leave while it is walked", () => {
    const linked = new LinkedSet<Item>();
    const items: Item[] = [{ n: 1 }, { n: 2 }, { n: 3 }];
    for (const item of items) linked.add(item);
    const seen: number[] = [];
    for (const item of linked) {
      seen.push(item.n);
      linked.delete(item);
    }
    expect(seen).toEqual([3, 2, 1]);
    expect([linked.size, items.every((i) => i.linkPrev === undefined && i.linkNext === undefined)]).toEqual([
      0,
      true,
    ]);
  });
});
