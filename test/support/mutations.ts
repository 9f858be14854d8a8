/**
 * Mutation families applied to one Site of a valid instance. A mutation only aims at invalidity;
 * whether the result is really invalid is for the ajv oracle to say.
 */
import { FORMAT_VIOLATIONS, isKnownFormat } from "./formats.js";
import { deepEqual } from "./local-check.js";
import {
  acceptsEverything,
  isPlainObject,
  pointerOf,
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
import type { Path, Site, ValueGenerator } from "./value-gen.js";

export const MUTATION_FAMILIES = [
  "drop-required",
  "wrong-type",
  "extra-property",
  "outside-enum",
  "wrong-const",
  "nested-shape",
  "bad-format",
  "out-of-range",
  "bad-length",
  "top-level",
] as const;
export type MutationFamily = (typeof MUTATION_FAMILIES)[number];
export type SiteFamily = Exclude<MutationFamily, "top-level">;

export interface Mutation {
  value: unknown;
  kind: string;
}

/** Whole-document oddities every definition is also tried against. */
export const TOP_LEVEL_ODDITIES: readonly Mutation[] = [
  { value: null, kind: "top-level:null" },
  { value: [], kind: "top-level:array" },
  { value: "", kind: "top-level:string" },
  { value: 0, kind: "top-level:zero" },
  { value: {}, kind: "top-level:object" },
];

const WRONG_SAMPLES: Record<number, readonly unknown[]> = {
  [T_NULL]: [null],
  [T_BOOL]: [true, false],
  [T_INT]: [0, 42, -1],
  [T_FRAC]: [2.5, -0.5],
  [T_STR]: ["wrong", "42", ""],
  [T_ARR]: [[], ["x"]],
  [T_OBJ]: [{}, { x: 1 }],
};
const NESTED_PRIMITIVES: readonly unknown[] = ["shape", 0, true, null, []];
const EXTRA_NAMES = ["extra", "unexpected", "x-extra"];

function requiredPresent(members: SchemaObject[], value: Record<string, unknown>): string[] {
  return [...new Set(members.flatMap((m) => m.required ?? []))].filter((k) => Object.hasOwn(value, k));
}

function hasBounds(m: SchemaObject): boolean {
  return [m.minimum, m.maximum, m.exclusiveMinimum, m.exclusiveMaximum].some((b) => b !== undefined);
}

function hasLength(m: SchemaObject, value: unknown): boolean {
  if (Array.isArray(value)) return m.maxItems !== undefined || (m.minItems ?? 0) > 0;
  return typeof value === "string" && (m.maxLength !== undefined || (m.minLength ?? 0) > 0);
}

function hasObjectKeywords(m: SchemaObject): boolean {
  return m.properties !== undefined || m.required !== undefined || m.additionalProperties !== undefined;
}

/** Deep copy of `base` with the node at `path` replaced (the root when `path` is empty). */
function replaceAt(base: unknown, path: Path, value: unknown): unknown {
  if (path.length === 0) return value;
  const copy = structuredClone(base);
  let node = copy as Record<string | number, unknown>;
  for (const token of path.slice(0, -1)) node = node[token] as Record<string | number, unknown>;
  node[path[path.length - 1]!] = value;
  return copy;
}

export class Mutator {
  constructor(
    private readonly gen: ValueGenerator,
    private readonly defName: string,
  ) {}

  private get rng() {
    return this.gen.rng;
  }

  /** Families that make sense at `site`. */
  applicable(site: Site): SiteFamily[] {
    const { members: ms, value: v } = site;
    const families: SiteFamily[] = [];
    if (isPlainObject(v) && requiredPresent(ms, v).length > 0) families.push("drop-required");
    if (site.allowed !== T_ALL) families.push("wrong-type");
    const restricts = (m: SchemaObject) =>
      m.additionalProperties !== undefined && !acceptsEverything(m.additionalProperties);
    if (isPlainObject(v) && ms.some(restricts)) families.push("extra-property");
    if (ms.some((m) => m.enum !== undefined)) families.push("outside-enum");
    if (ms.some((m) => "const" in m)) families.push("wrong-const");
    if (isPlainObject(v) && ms.some(hasObjectKeywords)) families.push("nested-shape");
    if (typeof v === "string" && ms.some((m) => m.format !== undefined && isKnownFormat(m.format))) {
      families.push("bad-format");
    }
    if (typeof v === "number" && ms.some(hasBounds)) families.push("out-of-range");
    if (ms.some((m) => hasLength(m, v))) families.push("bad-length");
    return families;
  }

  apply(family: SiteFamily, site: Site, base: unknown): Mutation {
    switch (family) {
      case "drop-required":
        return this.dropRequired(site, base);
      case "extra-property":
        return this.at(family, site, base, this.extraProperty(site));
      case "nested-shape":
        return this.at(family, site, base, this.nestedShape());
      default:
        return this.at(family, site, base, this.replacement(family, site));
    }
  }

  private at(family: SiteFamily, site: Site, base: unknown, value: unknown): Mutation {
    return { value: replaceAt(base, site.path, value), kind: `${family}:${pointerOf(site.path)}` };
  }

  private replacement(family: SiteFamily, site: Site): unknown {
    switch (family) {
      case "wrong-type":
        return this.wrongTypeValue(site.allowed);
      case "outside-enum":
        return this.outsideEnum(site);
      case "wrong-const":
        return this.wrongConst(site);
      case "bad-format":
        return this.badFormat(site);
      case "out-of-range":
        return this.outOfRange(site);
      default:
        return this.badLength(site);
    }
  }

  private dropRequired(site: Site, base: unknown): Mutation {
    const key = this.rng.pick(requiredPresent(site.members, site.value as Record<string, unknown>));
    const { [key]: _dropped, ...rest } = site.value as Record<string, unknown>;
    return {
      value: replaceAt(base, site.path, rest),
      kind: `drop-required:${pointerOf([...site.path, key])}`,
    };
  }

  /** A value whose JSON type lies outside `allowed` (2.5 where only integers are allowed). */
  private wrongTypeValue(allowed: number): unknown {
    const bits = TYPE_BITS.filter((b) => (allowed & b) === 0);
    if (bits.length === 0) return this.rng.pick(NESTED_PRIMITIVES);
    return structuredClone(this.rng.pick(WRONG_SAMPLES[this.rng.pick(bits)]!));
  }

  private extraProperty(site: Site): Record<string, unknown> {
    const object = site.value as Record<string, unknown>;
    const declared = new Set(site.members.flatMap((m) => Object.keys(m.properties ?? {})));
    const key = EXTRA_NAMES.find((k) => !declared.has(k) && !Object.hasOwn(object, k)) ?? "extra-extra";
    const { schemas, forbidden } = this.gen.propertySchemas(site.members, key);
    // Where the extra value has a schema, break that schema; where extras are banned, anything will do.
    const allowed = forbidden ? T_ALL : this.gen.typesOfAll(this.gen.expand(schemas));
    const value = allowed === T_ALL ? this.rng.pick(["surprise", 1, null, {}]) : this.wrongTypeValue(allowed);
    return { ...object, [key]: structuredClone(value) };
  }

  /** Another definition's valid instance, or a primitive, in place of an object. */
  private nestedShape(): unknown {
    if (this.rng.chance(0.5)) return this.rng.pick(NESTED_PRIMITIVES);
    const doc = this.gen.doc;
    const others = doc
      .definitionNames()
      .filter((n) => n !== this.defName && (doc.typesOf(doc.definition(n)) & T_OBJ) !== 0);
    if (others.length === 0) return this.rng.pick(NESTED_PRIMITIVES);
    const other = doc.definition(this.rng.pick(others));
    return this.gen.detached([other], Math.max(0, this.gen.maxDepth - 2));
  }

  private outsideEnum(site: Site): unknown {
    const values = site.members.find((m) => m.enum !== undefined)!.enum!;
    const candidates: unknown[] = ["not-in-enum", "", null];
    for (const v of values) {
      if (typeof v === "string") candidates.push(v.toUpperCase(), `${v} `);
      if (typeof v === "number") candidates.push(v + 1, String(v));
    }
    return this.rng.pick(candidates.filter((c) => !values.some((v) => deepEqual(v, c))));
  }

  private wrongConst(site: Site): unknown {
    const value = site.members.find((m) => "const" in m)!.const;
    const candidates: unknown[] = [];
    if (typeof value === "string") {
      // Another message's const (e.g. "tools/list" for "tools/call") is the most plausible mix-up.
      const others = this.gen.doc.constValues().filter((c) => typeof c === "string" && c !== value);
      if (others.length > 0) candidates.push(this.rng.pick(others), this.rng.pick(others));
      candidates.push(`${value}-x`, value.toUpperCase(), "");
    } else if (typeof value === "number") {
      candidates.push(value + 1, -value - 1, String(value));
    } else {
      candidates.push("wrong", null, !value);
    }
    const different = candidates.filter((c) => !deepEqual(c, value));
    return this.rng.pick(different.length > 0 ? different : ["wrong"]);
  }

  private badFormat(site: Site): string {
    const format = site.members.find((m) => m.format !== undefined && isKnownFormat(m.format))!.format!;
    return this.rng.pick(FORMAT_VIOLATIONS[format]!);
  }

  private outOfRange(site: Site): number {
    const candidates: number[] = [];
    for (const m of site.members) {
      if (m.minimum !== undefined) candidates.push(m.minimum - 1, m.minimum - 0.5);
      if (m.maximum !== undefined) candidates.push(m.maximum + 1, m.maximum + 0.5);
      if (m.exclusiveMinimum !== undefined) candidates.push(m.exclusiveMinimum);
      if (m.exclusiveMaximum !== undefined) candidates.push(m.exclusiveMaximum);
    }
    return this.rng.pick(candidates);
  }

  /** One item/character past maxItems/maxLength, or one short of minItems/minLength. */
  private badLength(site: Site): unknown {
    const value = site.value;
    const ms = site.members;
    const max = Math.min(...ms.map((m) => (Array.isArray(value) ? m.maxItems : m.maxLength) ?? Infinity));
    const min = Math.max(...ms.map((m) => (Array.isArray(value) ? m.minItems : m.minLength) ?? 0));
    const lengths = [...(Number.isFinite(max) ? [max + 1] : []), ...(min > 0 ? [min - 1] : [])];
    const length = this.rng.pick(lengths);
    if (typeof value === "string") return "x".repeat(length);
    const items = value as unknown[];
    const fill = () =>
      this.gen.detached(
        ms.flatMap((m) => (m.items === undefined ? [] : [m.items])),
        this.gen.maxDepth,
      );
    return Array.from({ length }, (_, i) =>
      items.length > 0 ? structuredClone(items[i % items.length]) : fill(),
    );
  }
}
