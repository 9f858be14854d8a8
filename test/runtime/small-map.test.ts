import { describe, expect, it } from "vitest";
import { SmallMap } from "../../runtime/jsonrpc/small-map.js";

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
