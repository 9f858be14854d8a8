/**
 * Builds instances that are valid by construction. A position in the instance is described by the
 * conjunction of every schema that applies there (`$ref` targets and `allOf` members flattened,
 * one `anyOf`/`oneOf` branch chosen per combinator), so merged objects such as
 * `allOf: [Result, Task]` get the union of properties and the strictest bounds.
 * Every generated position is recorded as a Site that the mutators can later aim at.
 */
import { FORMAT_SAMPLES } from "./formats.js";
import { conforms, deepEqual, numberOk, regex, stringOk } from "./local-check.js";
import type { Rng } from "./prng.js";
import {
  type Schema,
  type SchemaDoc,
  type SchemaObject,
  T_ALL,
  T_ARR,
  T_BOOL,
  T_FRAC,
  T_INT,
  T_NULL,
  T_OBJ,
  T_STR,
  TYPE_BITS,
} from "./schema-doc.js";

export type Path = (string | number)[];

export interface Site {
  path: Path;
  /** Every schema that applies here, with the chosen combinator branches included. */
  members: SchemaObject[];
  /** Types the position admits before a branch was chosen (anyOf counted as a union). */
  allowed: number;
  value: unknown;
}

// A `false` schema; `enum: []` makes both typesOf() and conforms() reject everything.
const NEVER: SchemaObject = Object.freeze({ enum: [] });

const INTEGERS = [0, 1, -1, 7, 42, 1000, -2147483648, 2147483648, 9007199254740991, 1e20, -1e20];
const FRACTIONS = [0.5, 2.5, -3.75, 0.25, 0.999, 1e-7, 123.456, -0.5, 1.5e10];
const STRINGS = [
  "",
  "a",
  "hello",
  "Hello, world!",
  "ünïcødé ✓",
  "line\nbreak",
  "2.0",
  "null",
  "tools/call",
  "🙂",
  "x".repeat(64),
];
const EXTRA_KEYS = ["extra", "x-vendor", "_private", "a b", "0", "ünï", "nested.key"];

export class ValueGenerator {
  sites: Site[] = [];
  private readonly branchUse = new Map<readonly Schema[], number[]>();

  constructor(
    readonly doc: SchemaDoc,
    readonly rng: Rng,
    readonly maxDepth: number,
  ) {}

  /** A fresh valid instance of `schema`; `sites` then describes its positions. */
  instance(schema: Schema, startDepth = 0): unknown {
    this.sites = [];
    return this.gen([schema], [], startDepth);
  }

  /** Generate without disturbing the recorded sites (for values spliced in by mutators). */
  detached(schemas: Schema[], depth: number): unknown {
    const saved = this.sites;
    this.sites = [];
    const value = this.gen(schemas, [], depth);
    this.sites = saved;
    return value;
  }

  gen(schemas: Schema[], path: Path, depth: number): unknown {
    // Required properties must still be produced past the limit; a runaway means a schema
    // whose every option recurses, which the schemas do not contain.
    if (depth > this.maxDepth + 32) throw new Error(`instance too deep at ${path.join("/")}`);
    const members = this.expand(schemas);
    const allowed = this.typesOfAll(members);
    this.chooseBranches(members, depth);
    const value = this.valueFor(members, path, depth);
    this.sites.push({ path, members, allowed, value });
    return value;
  }

  /** Flatten `$ref` and `allOf` into a list of schema objects that all apply. */
  expand(schemas: Schema[], out: SchemaObject[] = [], seen = new Set<object>()): SchemaObject[] {
    for (const s of schemas) {
      const obj = s === true ? undefined : s === false ? NEVER : s;
      if (!obj || seen.has(obj)) continue;
      seen.add(obj);
      out.push(obj);
      if (obj.$ref !== undefined) this.expand([this.doc.resolve(obj.$ref)], out, seen);
      if (obj.allOf) this.expand(obj.allOf, out, seen);
    }
    return out;
  }

  typesOfAll(members: SchemaObject[]): number {
    return members.reduce((acc, m) => acc & this.doc.typesOf(m), T_ALL);
  }

  /** Pick one branch per anyOf/oneOf, including those that appear inside chosen branches. */
  private chooseBranches(members: SchemaObject[], depth: number): void {
    const seen = new Set<object>(members);
    for (let i = 0; i < members.length; i++) {
      for (const branches of [members[i]!.anyOf, members[i]!.oneOf]) {
        if (!branches || branches.length === 0) continue;
        const branch = this.chooseBranch(branches, this.typesOfAll(members), depth);
        members.push(...this.expand([branch], [], seen));
      }
    }
  }

  private chooseBranch(branches: readonly Schema[], allowed: number, depth: number): Schema {
    let candidates = branches
      .map((_, i) => i)
      .filter((i) => (this.doc.typesOf(branches[i]!) & allowed) !== 0);
    if (candidates.length === 0) candidates = branches.map((_, i) => i);
    if (depth >= this.maxDepth) {
      // At the depth limit take the branch that terminates soonest (e.g. JSONValue's primitives).
      const heights = candidates.map((i) => this.doc.heightOf(branches[i]!));
      const best = Math.min(...heights);
      return branches[this.rng.pick(candidates.filter((_, k) => heights[k] === best))]!;
    }
    // Least-used branch first, ties broken at random: every branch gets exercised, in varied combinations.
    const use = this.branchUse.get(branches) ?? branches.map(() => 0);
    this.branchUse.set(branches, use);
    const least = Math.min(...candidates.map((i) => use[i]!));
    const index = this.rng.pick(candidates.filter((i) => use[i] === least));
    use[index]!++;
    return branches[index]!;
  }

  private valueFor(members: SchemaObject[], path: Path, depth: number): unknown {
    const fixed = this.constantChoices(members);
    if (fixed) return fixed.length > 0 ? structuredClone(this.rng.pick(fixed)) : null;
    const type = this.pickType(members, depth);
    switch (type) {
      case T_NULL:
        return null;
      case T_BOOL:
        return this.rng.chance(0.5);
      case T_INT:
      case T_FRAC:
        return this.number(members, type === T_INT);
      case T_STR:
        return this.string(members);
      case T_ARR:
        return this.array(members, path, depth);
      case T_OBJ:
        return this.object(members, path, depth);
      default:
        return this.anyValue(members, depth);
    }
  }

  /** A random JSON value for an untyped position, re-drawn if a stray keyword (e.g. minimum) rejects it. */
  private anyValue(members: SchemaObject[], depth: number): unknown {
    let value = this.randomJson(depth);
    for (let attempt = 0; attempt < 8 && !members.every((m) => conforms(this.doc, m, value)); attempt++) {
      value = this.randomJson(depth);
    }
    return value;
  }

  /** Values allowed by const/enum that also satisfy every other member; undefined when unconstrained. */
  private constantChoices(members: SchemaObject[]): unknown[] | undefined {
    let choices: unknown[] | undefined;
    for (const m of members) {
      const own = "const" in m ? [m.const] : m.enum;
      if (own) choices = choices ? choices.filter((c) => own.some((o) => deepEqual(o, c))) : own;
    }
    if (!choices) return undefined;
    const fitting = choices.filter((c) => members.every((m) => conforms(this.doc, m, c)));
    return fitting.length > 0 ? fitting : choices;
  }

  /** A type bit to generate, or 0 for "any JSON value". */
  private pickType(members: SchemaObject[], depth: number): number {
    const allowed = this.typesOfAll(members);
    if (allowed === 0) return T_NULL;
    if (allowed === T_ALL) {
      if (members.some((m) => m.properties || m.required || m.additionalProperties !== undefined))
        return T_OBJ;
      if (members.some((m) => m.items !== undefined)) return T_ARR;
      return 0;
    }
    let bits = TYPE_BITS.filter((b) => (allowed & b) !== 0);
    if (depth >= this.maxDepth) {
      const flat = bits.filter((b) => b !== T_ARR && b !== T_OBJ);
      if (flat.length > 0) bits = flat;
    }
    return this.rng.pick(bits);
  }

  private number(members: SchemaObject[], integer: boolean): number {
    const bounds = members.flatMap((m) => [m.minimum, m.maximum].filter((b) => b !== undefined));
    const pool = [
      ...(integer ? INTEGERS : FRACTIONS),
      ...bounds.filter((b) => Number.isInteger(b) === integer),
    ];
    const fitting = pool.filter((n) => members.every((m) => numberOk(m, n)));
    if (fitting.length > 0) return this.rng.pick(fitting);
    return this.numberBetween(members, integer);
  }

  /** Fallback for narrow ranges the pools miss: the midpoint, rounded for integers. */
  private numberBetween(members: SchemaObject[], integer: boolean): number {
    const lows = members.flatMap((m) => [m.minimum, m.exclusiveMinimum].filter((b) => b !== undefined));
    const highs = members.flatMap((m) => [m.maximum, m.exclusiveMaximum].filter((b) => b !== undefined));
    const lo = lows.length ? Math.max(...lows) : (highs.length ? Math.min(...highs) : 0) - 10;
    const hi = highs.length ? Math.min(...highs) : lo + 10;
    const mid = (lo + hi) / 2;
    return integer ? Math.round(mid) : mid;
  }

  private string(members: SchemaObject[]): string {
    const format = members.find((m) => m.format !== undefined)?.format;
    const pool = (format !== undefined && FORMAT_SAMPLES[format]) || STRINGS;
    const fitting = pool.filter((s) => members.every((m) => stringOk(m, s)));
    if (fitting.length > 0) return this.rng.pick(fitting);
    const min = Math.max(0, ...members.map((m) => m.minLength ?? 0));
    return "a".repeat(min);
  }

  private array(members: SchemaObject[], path: Path, depth: number): unknown[] {
    const items = members.flatMap((m) => (m.items === undefined ? [] : [m.items]));
    const min = Math.max(0, ...members.map((m) => m.minItems ?? 0));
    const max = Math.min(
      Number.POSITIVE_INFINITY,
      ...members.map((m) => m.maxItems ?? Number.POSITIVE_INFINITY),
    );
    let length = min;
    if (depth < this.maxDepth) {
      // Now and then fill a small maxItems to the brim: the boundary is where validators disagree.
      const full = max <= 128 && this.rng.chance(0.05);
      length = full ? max : min + this.rng.int(Math.min(3, max - min) + 1);
    }
    return Array.from({ length }, (_, i) => this.gen(items, [...path, i], depth + 1));
  }

  private object(members: SchemaObject[], path: Path, depth: number): Record<string, unknown> {
    const atLimit = depth >= this.maxDepth;
    const required = new Set(members.flatMap((m) => m.required ?? []));
    const declared = new Set([...members.flatMap((m) => Object.keys(m.properties ?? {})), ...required]);
    const out: Record<string, unknown> = {};
    for (const key of declared) {
      const { schemas, forbidden } = this.propertySchemas(members, key);
      const wanted = required.has(key) || (!forbidden && !atLimit && this.rng.chance(0.5));
      if (wanted) out[key] = this.gen(schemas, [...path, key], depth + 1);
    }
    if (!atLimit) this.addExtraKeys(members, declared, out, path, depth);
    return out;
  }

  private addExtraKeys(
    members: SchemaObject[],
    declared: Set<string>,
    out: Record<string, unknown>,
    path: Path,
    depth: number,
  ): void {
    // Maps (additionalProperties with a schema) get entries more often than merely open objects.
    const isMap = members.some((m) => typeof m.additionalProperties === "object");
    if (!this.rng.chance(isMap ? 0.6 : 0.35)) return;
    const wanted = 1 + this.rng.int(2);
    for (let n = 0; n < wanted; n++) {
      const key = this.rng.pick(EXTRA_KEYS);
      if (declared.has(key) || Object.hasOwn(out, key)) continue;
      const { schemas, forbidden } = this.propertySchemas(members, key);
      if (!forbidden) out[key] = this.gen(schemas, [...path, key], depth + 1);
    }
  }

  /** Schemas constraining `key` in an object under `members`; `forbidden` if additionalProperties: false bars it. */
  propertySchemas(members: SchemaObject[], key: string): { schemas: Schema[]; forbidden: boolean } {
    const schemas: Schema[] = [];
    let forbidden = false;
    for (const m of members) {
      let matched = false;
      if (m.properties && Object.hasOwn(m.properties, key)) {
        schemas.push(m.properties[key]!);
        matched = true;
      }
      for (const [pattern, sub] of Object.entries(m.patternProperties ?? {})) {
        if (!regex(pattern).test(key)) continue;
        schemas.push(sub);
        matched = true;
      }
      if (matched || m.additionalProperties === undefined) continue;
      if (m.additionalProperties === false) forbidden = true;
      else schemas.push(m.additionalProperties);
    }
    return { schemas, forbidden };
  }

  /** Any JSON value; containers only above the depth limit. */
  randomJson(depth: number): unknown {
    const kinds = depth >= this.maxDepth ? 5 : 7;
    switch (this.rng.int(kinds)) {
      case 0:
        return null;
      case 1:
        return this.rng.chance(0.5);
      case 2:
        return this.rng.pick(INTEGERS);
      case 3:
        return this.rng.pick(FRACTIONS);
      case 4:
        return this.rng.pick(STRINGS);
      case 5:
        return Array.from({ length: this.rng.int(3) }, () => this.randomJson(depth + 1));
      default:
        return Object.fromEntries(
          Array.from({ length: this.rng.int(3) }, () => [
            this.rng.pick(EXTRA_KEYS),
            this.randomJson(depth + 1),
          ]),
        );
    }
  }
}
