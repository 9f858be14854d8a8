/**
 * `uniqueItems` (runtime/check/formats.ts `duplicateItems`, which the plain checks and the zod helper
 * share): the same first equal pair as comparing every pair, in linear expected time.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { uniqueItems } from "../../../runtime/check/check.js";
import { duplicateItems, jsonEqual } from "../../../runtime/check/formats.js";
import { canonicalJson } from "../../../runtime/util/canonical-json.js";

/** The definition: the first `j`, then the first `i < j`, with JSON-equal items. */
function pairwise(items: readonly unknown[]): [number, number] | undefined {
  for (let j = 1; j < items.length; j++) {
    for (let i = 0; i < j; i++) if (jsonEqual(items[i], items[j])) return [i, j];
  }
  return undefined;
}

describe("uniqueItems", () => {
  it("reports the first equal pair, as comparing every pair does (JSON values with repeats)", () => {
    // Small pools of values, so arrays longer than the pairwise threshold repeat some.
    const pool = fc.array(fc.jsonValue({ maxDepth: 2 }), { minLength: 1, maxLength: 12 });
    fc.assert(
      fc.property(
        pool.chain((values) =>
          fc.array(
            fc.nat(values.length - 1).map((i) => structuredClone(values[i])),
            { maxLength: 40 },
          ),
        ),
        (items) => {
          expect(duplicateItems(items)).toEqual(pairwise(items));
        },
      ),
      { seed: 21, numRuns: 500 },
    );
  });

  it("compares as JSON: 1 and 1.0 equal, key order irrelevant, a string never equal to an object", () => {
    const filler = Array.from({ length: 10 }, (_, i) => `filler ${i}`);
    const pairOf = (text: string) => duplicateItems([...filler, ...(JSON.parse(text) as unknown[])]);
    expect(pairOf("[1, 1.0]")).toEqual([10, 11]);
    expect(pairOf('[{"a": 1, "b": [1, {"c": 2}]}, {"b": [1.0, {"c": 2}], "a": 1}]')).toEqual([10, 11]);
    expect(pairOf('["{\\"a\\":1}", {"a": 1}]')).toBeUndefined();
    expect(pairOf('[1, "1", true, "true", null, "null", [1], {"0": 1}, [], {}]')).toBeUndefined();
    expect(pairOf('[{"a": "1"}, {"a": 1}, [[1]], [["1"]], {"a": null}, {}]')).toBeUndefined();
    expect(pairOf("[0, 3, -0]")).toEqual([10, 12]);
    // The message names the pair the first repeated item makes.
    expect(uniqueItems([...filler, "x", "y", "y", "x"])).toEqual({
      path: [],
      message: "Expected unique items (items 11 and 12 are equal)",
    });
  });

  it("keys objects by a canonical form that is equal exactly when the values are", () => {
    expect(canonicalJson(JSON.parse('{"b": 1.0, "a": [true, null, "x"]}'))).toBe(
      '{"a":[true,null,"x"],"b":1}',
    );
    expect(canonicalJson({ __proto__: null, constructor: 1 })).toBe('{"constructor":1}');
  });

  it("checks the largest allowed body's worth of distinct items in linear time", () => {
    // 4 MB of distinct integers (the HTTP body limit) is ~600k items: comparing every pair took minutes.
    const items = Array.from({ length: 600_000 }, (_, i) => i);
    const objects = Array.from({ length: 100_000 }, (_, i) => ({ k: i, v: [i, `${i}`] }));
    const started = performance.now();
    expect(duplicateItems(items)).toBeUndefined();
    expect(duplicateItems(objects)).toBeUndefined();
    expect(duplicateItems([...items, 599_999])).toEqual([599_999, 600_000]);
    expect(performance.now() - started).toBeLessThan(2000);
  });
});
