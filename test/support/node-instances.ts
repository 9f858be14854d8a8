/**
 * Instances for a parsed schema (generator/protocol/load.ts nodes), aimed at the edges of every keyword: numbers
 * around bounds and multiples, arrays around their lengths with duplicated items, objects with and
 * without required, dependent and extra keys, strings from the format samples and their mutations, values
 * of the `not` and `if` schemas. Roughly half come out valid; the ajv oracle decides which.
 */
import type { Json, SchemaNode } from "../../generator/protocol/load.js";
import { mutate, SAMPLES } from "./format-samples.js";
import type { Rng } from "./prng.js";

const KEYS = ["a", "b", "n", "kind", "card", "billing", "cvv", "x", "ab", "abcde", "A1", "toString", ""];
const MUTABLE = new Set(["email", "uuid", "date", "duration", "ipv4", "ipv6", "hostname"]);
const STRINGS = [
  "",
  "a",
  "ab",
  "abc",
  "abcd",
  "admin",
  "root",
  "cmd",
  "😀😀",
  "x y",
  "12:30",
  "23:59:59.5",
  "24:00",
];

export class NodeInstances {
  constructor(
    private readonly defs: Record<string, SchemaNode>,
    private readonly rng: Rng,
  ) {}

  /** A value aimed at `node`, with nested values `depth` levels down at most. */
  value(node: SchemaNode, depth = 3): Json {
    const r = this.rng;
    if (depth < 0 || node.bool !== undefined || r.chance(0.08)) return this.any(depth);
    if (node.not && r.chance(0.25)) return this.value(node.not, depth);
    if (node.if && r.chance(0.25)) return this.value(node.if, depth);
    if (node.then && r.chance(0.2)) return this.value(node.then, depth);
    if (node.else && r.chance(0.2)) return this.value(node.else, depth);
    if (node.hasConst) return r.chance(0.9) ? node.const! : this.any(depth);
    if (node.enum) return r.chance(0.9) ? r.pick(node.enum) : this.any(depth);
    const branches = [...(node.anyOf ?? []), ...(node.oneOf ?? []), ...(node.allOf ?? [])];
    if (node.ref && (!node.type || r.chance(0.5))) return this.value(this.defs[node.ref]!, depth - 1);
    if (branches.length > 0 && (!node.type || r.chance(0.5))) return this.value(r.pick(branches), depth);
    if (!node.type) return this.any(depth);
    switch (r.pick(node.type)) {
      case "string":
        return this.string(node);
      case "number":
      case "integer":
        return this.number(node, node.type.includes("number"));
      case "boolean":
        return r.chance(0.5);
      case "null":
        return null;
      case "array":
        return this.array(node, depth);
      default:
        return this.object(node, depth);
    }
  }

  private any(depth: number): Json {
    const r = this.rng;
    switch (r.int(depth > 0 ? 8 : 6)) {
      case 0:
        return null;
      case 1:
        return r.chance(0.5);
      case 2:
        return r.pick([0, 1, -1, 2.5, 5, 10, 1e21]);
      case 3:
      case 4:
        return r.pick(STRINGS);
      case 5:
        return r.pick(["admin", "cmd", 3]);
      case 6:
        return [this.any(depth - 1), this.any(depth - 1)].slice(0, r.int(3));
      default:
        return r.chance(0.5) ? {} : { [r.pick(KEYS)]: this.any(depth - 1) };
    }
  }

  private string(node: SchemaNode): string {
    const r = this.rng;
    if (node.format) {
      const sample = r.pick(SAMPLES[node.format]!);
      // Mutations only for formats whose mutations ajv-formats judges by the same grammar (format-samples.ts).
      return MUTABLE.has(node.format) && r.chance(0.3) ? mutate(sample, r) : sample;
    }
    const s = r.pick(STRINGS);
    return r.chance(0.2) ? mutate(s, r) : s;
  }

  private number(node: SchemaNode, fractional: boolean): number {
    const r = this.rng;
    const anchors = [0, 1, -1, 3, 7, 100];
    for (const b of [node.minimum, node.maximum, node.exclusiveMinimum, node.exclusiveMaximum]) {
      if (b !== undefined) anchors.push(b);
    }
    let v = r.pick(anchors);
    if (node.multipleOf !== undefined && r.chance(0.7)) v = r.range(-20, 20) * node.multipleOf;
    if (r.chance(0.3)) v += r.pick([1, -1, 0.5, 0.001]);
    // As a person writes numbers (0.68, not 68 * 0.01 = 0.6799999999999999); the rounding error of
    // binary arithmetic is where decimal multipleOf and ajv's multipleOfPrecision part ways.
    v = Number(v.toPrecision(12));
    if (!fractional && r.chance(0.9)) v = Math.round(v);
    return v;
  }

  private array(node: SchemaNode, depth: number): Json[] {
    const r = this.rng;
    const prefix = node.prefixItems ?? [];
    const lengths = [0, 1, 2, 3, prefix.length, prefix.length + 1];
    for (const n of [node.minItems, node.maxItems])
      if (n !== undefined) lengths.push(n, n + 1, Math.max(0, n - 1));
    const length = r.pick(lengths);
    const out: Json[] = [];
    for (let i = 0; i < length; i++) {
      const schema = prefix[i] ?? node.items;
      out.push(schema ? this.value(schema, depth - 1) : this.any(depth - 1));
    }
    if (node.uniqueItems && out.length > 1 && r.chance(0.4)) {
      out[r.int(out.length)] = structuredClone(out[r.int(out.length)]!);
    }
    return out;
  }

  private object(node: SchemaNode, depth: number): Record<string, Json> {
    const r = this.rng;
    const out: Record<string, Json> = {};
    const props = node.properties ?? {};
    const required = new Set(node.required ?? []);
    for (const [key, schema] of Object.entries(props)) {
      if (r.chance(required.has(key) ? 0.92 : 0.5)) out[key] = this.value(schema, depth - 1);
    }
    const rest = node.additionalProperties;
    for (const key of required) {
      if (!(key in out) && r.chance(0.9)) out[key] = rest ? this.value(rest, depth - 1) : this.any(depth - 1);
    }
    for (const [key, needed] of Object.entries(node.dependentRequired ?? {})) {
      if (!(key in out) || r.chance(0.3)) continue;
      for (const n of needed) if (!(n in out)) out[n] = props[n] ? this.value(props[n], depth - 1) : "x";
    }
    const extra = r.int(node.maxProperties !== undefined ? node.maxProperties + 2 : 3);
    for (let i = 0; i < extra; i++) {
      const key = r.pick(KEYS);
      if (key in out) continue;
      const patterns = Object.entries(node.patternProperties ?? {});
      const schema =
        patterns.find(([p]) => new RegExp(p, "u").test(key))?.[1] ?? node.additionalProperties ?? props[key];
      out[key] = schema ? this.value(schema, depth - 1) : this.any(depth - 1);
    }
    return out;
  }
}
