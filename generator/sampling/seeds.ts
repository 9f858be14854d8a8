/**
 * The inputs `mcp-codegen test` tries before sampled ones: the contract's whole-input examples, then one
 * input per example position with each annotated argument or variable set to its example (the rest from
 * a small valid sample), then the defaults. Data-backed items (a task by id) answer these with real data
 * where a sampled id finds nothing; an input whose required fields all come from `examples` is one the
 * server is expected to know (`fromExamples`).
 */

import type { ItemTest, JsonObject } from "../contract/model.js";
import type { Json } from "../protocol/load.js";

export interface Seed {
  value: JsonObject;
  /** Every required field (or the whole input) was given by the contract's `examples`. */
  fromExamples: boolean;
  /** Where it came from, for a message: `examples[0]`, `examples of id`, `default`, `defaults of id`. */
  origin: string;
}

export function seedsOf(
  test: ItemTest | undefined,
  base: Readonly<JsonObject>,
  required: readonly string[],
): Seed[] {
  if (!test) return [];
  const out: Seed[] = [];
  test.examples?.forEach((value, i) => {
    out.push({ value, fromExamples: true, origin: `examples[${i}]` });
  });
  const fields = Object.entries(test.fields ?? {});
  const withExamples = fields.filter(([, f]) => f.examples && f.examples.length > 0);
  const positions = Math.max(0, ...withExamples.map(([, f]) => f.examples!.length));
  const given = new Set(withExamples.map(([name]) => name));
  const fromExamples = required.every((r) => given.has(r));
  const names = withExamples.map(([name]) => name).join(", ");
  for (let i = 0; i < positions; i++) {
    const value: JsonObject = { ...base };
    for (const [name, f] of withExamples) value[name] = f.examples![i % f.examples!.length]!;
    out.push({ value, fromExamples, origin: `examples of ${names}` });
  }
  if (test.default) out.push({ value: test.default, fromExamples: false, origin: "default" });
  const defaults = fields.filter(([, f]) => f.default !== undefined);
  if (defaults.length > 0) {
    const value: JsonObject = { ...base };
    for (const [name, f] of defaults) value[name] = f.default as Json;
    out.push({
      value,
      fromExamples: false,
      origin: `defaults of ${defaults.map(([n]) => n).join(", ")}`,
    });
  }
  const seen = new Set<string>();
  return out.filter((s) => {
    const key = JSON.stringify(s.value);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
