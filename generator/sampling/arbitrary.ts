/**
 * A schema as a fast-check arbitrary: values the schema accepts, for property tests of a server against
 * its contract (`mcp-codegen test`). It covers what generator/protocol/load.ts accepts: types, const, enum,
 * properties/required/additionalProperties/patternProperties, items and their bounds, string lengths
 * (in code points, as JSON Schema counts), patterns, formats, numeric bounds, anyOf/oneOf, allOf (members
 * merged) and `$ref`s, expanded to a bounded depth so recursive definitions stay finite.
 *
 * Sampling is best effort where JSON Schema is not generative (a oneOf whose branches overlap, two
 * patterns on one string): the caller checks every sample with the emitted validator, so a wrong sample
 * is reported, never sent as if valid.
 */

import fc from "fast-check";
import { isOfType, type Json, type JsonType, type SchemaNode } from "../protocol/load.js";

export interface ArbitraryOptions {
  /** How many `$ref`s deep a value may reach; past it only required members and minimal arrays. */
  maxDepth?: number;
  /** Upper bound on array lengths and extra keys where the schema sets none (default 4). */
  maxItems?: number;
}

/** A schema no value satisfies, or a recursion with no way out: nothing can be sampled. */
export class SampleError extends Error {
  override name = "SampleError";
  constructor(
    readonly pointer: string,
    reason: string,
  ) {
    super(`${pointer || "/"}: ${reason}`);
  }
}

const ALL_TYPES: JsonType[] = ["null", "boolean", "integer", "number", "string", "array", "object"];
const INT_MIN = -(2 ** 31);
const INT_MAX = 2 ** 31 - 1;
/** Past maxDepth a required recursion still expands; this many more levels mean it never ends. */
const HARD_DEPTH_MARGIN = 8;

const codePoints = (s: string): number => {
  let n = 0;
  for (const _ of s) n++;
  return n;
};

/** The arbitrary of `node`, whose `$ref`s name members of `definitions`. */
export function arbitraryOf(
  node: SchemaNode,
  definitions: Readonly<Record<string, SchemaNode>>,
  options: ArbitraryOptions = {},
): fc.Arbitrary<Json> {
  return new Sampler(definitions, options.maxDepth ?? 3, options.maxItems ?? 4).of(node, 0);
}

class Sampler {
  readonly #refs = new Map<string, fc.Arbitrary<Json>>();

  constructor(
    readonly definitions: Readonly<Record<string, SchemaNode>>,
    readonly maxDepth: number,
    readonly maxItems: number,
  ) {}

  of(input: SchemaNode, depth: number): fc.Arbitrary<Json> {
    if (input.bool === false) throw new SampleError(input.pointer, "the schema `false` accepts no value");
    // A bare reference is shared by every place that uses it at the same depth.
    if (input.ref !== undefined && isBareRef(input)) {
      const key = `${input.ref}@${depth}`;
      let arb = this.#refs.get(key);
      if (!arb) {
        arb = this.of(this.#definition(input.ref, input.pointer), depth + 1);
        this.#refs.set(key, arb);
      }
      return arb;
    }
    const { node, depth: d } = this.#flatten(input, depth);
    if (d > this.maxDepth + HARD_DEPTH_MARGIN)
      throw new SampleError(input.pointer, "a recursive definition that no finite value satisfies");
    if (node.bool === false) throw new SampleError(node.pointer, "the schema `false` accepts no value");
    // As in the validators: const and enum stand for the other keywords, but their members keep the type.
    const ofType = (value: Json) => !node.type || node.type.some((t) => isOfType(value, t));
    if (node.hasConst)
      return ofType(node.const as Json)
        ? fc.constant(node.const as Json)
        : unsatisfiable(node, "the const is not of the declared type");
    if (node.enum) {
      const members = node.enum.filter(ofType);
      return members.length > 0
        ? fc.constantFrom(...members)
        : unsatisfiable(node, "no enum member is of the declared type");
    }
    const branches = node.anyOf ?? node.oneOf;
    if (branches) {
      const { anyOf: _a, oneOf: _o, ...rest } = node;
      // Past the depth bound, prefer branches that do not recurse.
      const shallow = d >= this.maxDepth ? branches.filter((b) => !reachesRef(b)) : [];
      const chosen = shallow.length > 0 ? shallow : branches;
      return fc.oneof(...chosen.map((b) => this.of(merge(rest, b), d)));
    }
    if (node.bool === true || isUnconstrained(node)) return anyJson(d >= this.maxDepth ? 0 : 2);
    const types = node.type ?? ALL_TYPES;
    return fc.oneof(...types.map((t) => this.#typed(t, node, d)));
  }

  #definition(name: string, pointer: string): SchemaNode {
    const def = this.definitions[name];
    if (!def) throw new SampleError(pointer, `no definition ${name}`);
    return def;
  }

  /** `$ref` siblings (2020-12) and `allOf` members folded into one node, refs counted in the depth. */
  #flatten(node: SchemaNode, depth: number): { node: SchemaNode; depth: number } {
    let out = node;
    let d = depth;
    for (let guard = 0; out.ref !== undefined || out.allOf !== undefined; guard++) {
      if (guard > this.maxDepth + HARD_DEPTH_MARGIN)
        throw new SampleError(node.pointer, "a recursive definition that no finite value satisfies");
      if (out.ref !== undefined) {
        const { ref, ...rest } = out;
        out = merge(this.#definition(ref, out.pointer), rest);
        d++;
      } else {
        const { allOf, ...rest } = out;
        out = rest;
        for (const member of allOf!) {
          if (member.ref === undefined) out = merge(out, member);
          else {
            // Expanded here: merging a reference would only carry it over as another allOf member.
            const { ref, ...siblings } = member;
            out = merge(merge(out, this.#definition(ref, member.pointer)), siblings);
            d++;
          }
        }
      }
    }
    return { node: out, depth: d };
  }

  #typed(type: JsonType, node: SchemaNode, depth: number): fc.Arbitrary<Json> {
    switch (type) {
      case "null":
        return fc.constant(null);
      case "boolean":
        return fc.boolean();
      case "integer":
        return integers(node) ?? unsatisfiable(node, "no integer lies within the bounds");
      case "number":
        return numbers(node);
      case "string":
        return strings(node);
      case "array":
        return this.#array(node, depth);
      case "object":
        return this.#object(node, depth);
    }
  }

  #array(node: SchemaNode, depth: number): fc.Arbitrary<Json> {
    const minLength = node.minItems ?? 0;
    const cap = depth >= this.maxDepth ? minLength : minLength + this.maxItems;
    const maxLength = Math.min(node.maxItems ?? cap, cap);
    if (maxLength < minLength) return unsatisfiable(node, "minItems exceeds maxItems");
    if (maxLength === 0) return fc.constant([]);
    const items = node.items ? this.of(node.items, depth) : anyJson(1);
    return fc.array(items, { minLength, maxLength });
  }

  #object(node: SchemaNode, depth: number): fc.Arbitrary<Json> {
    const required = [...new Set(node.required ?? [])];
    const properties = node.properties ?? {};
    const deep = depth >= this.maxDepth;
    // No prototype: a property may be named `__proto__` or `constructor` (fc.record keeps them own).
    const model: Record<string, fc.Arbitrary<Json>> = Object.create(null);
    for (const name of Object.keys(properties)) {
      if (deep && !required.includes(name)) continue;
      model[name] = this.of(properties[name]!, depth);
    }
    for (const name of required) {
      if (model[name]) continue;
      // A required name the properties do not describe: additionalProperties or a pattern governs it.
      const pattern = Object.entries(node.patternProperties ?? {}).find(([p]) => matches(p, name));
      model[name] = pattern
        ? this.of(pattern[1], depth)
        : node.additionalProperties
          ? this.of(node.additionalProperties, depth)
          : anyJson(1);
    }
    const declared = fc.record(model, { requiredKeys: required }) as fc.Arbitrary<Record<string, Json>>;
    if (deep) return declared.map(plain);
    const extras = this.#extraKeys(node, Object.keys(model), depth);
    if (!extras) return declared.map(plain);
    return fc
      .tuple(declared, fc.option(extras, { freq: 3 }))
      .map(([own, more]) => plain({ ...(more ?? {}), ...own }));
  }

  /** Keys beyond the declared ones that the schema still allows, with values it accepts for them. */
  #extraKeys(node: SchemaNode, declared: string[], depth: number): fc.Arbitrary<Record<string, Json>> | null {
    const patterns = Object.entries(node.patternProperties ?? {});
    const taken = new Set(declared);
    const parts: fc.Arbitrary<Record<string, Json>>[] = [];
    for (const [pattern, schema] of patterns) {
      const others = patterns.filter(([p]) => p !== pattern).map(([p]) => p);
      const key = fc
        .stringMatching(new RegExp(pattern, "u"))
        .filter((k) => !taken.has(k) && safeKey(k) && !others.some((p) => matches(p, k)));
      parts.push(fc.dictionary(key, this.of(schema, depth), { maxKeys: 2 }));
    }
    const additional = node.additionalProperties;
    if (additional?.bool !== false) {
      const key = fc
        .string({ minLength: 1, maxLength: 8 })
        .filter((k) => !taken.has(k) && safeKey(k) && !patterns.some(([p]) => matches(p, k)));
      parts.push(fc.dictionary(key, additional ? this.of(additional, depth) : anyJson(1), { maxKeys: 2 }));
    }
    if (parts.length === 0) return null;
    return fc.tuple(...parts).map((maps) => Object.assign({}, ...maps) as Record<string, Json>);
  }
}

/** A JSON value; `depth` bounds nesting. */
function anyJson(depth: number): fc.Arbitrary<Json> {
  return fc.jsonValue({ maxDepth: depth }) as fc.Arbitrary<Json>;
}

function unsatisfiable(node: SchemaNode, reason: string): never {
  throw new SampleError(node.pointer, reason);
}

const isBareRef = (node: SchemaNode): boolean =>
  Object.keys(node).every((k) => k === "pointer" || k === "ref" || k === "description" || k === "deprecated");

function isUnconstrained(node: SchemaNode): boolean {
  return Object.keys(node).every(
    (k) => k === "pointer" || k === "description" || k === "deprecated" || k === "bool",
  );
}

/** Whether a schema mentions a `$ref` anywhere inside it. */
function reachesRef(node: SchemaNode): boolean {
  if (node.ref !== undefined) return true;
  const children = [
    ...Object.values(node.properties ?? {}),
    ...Object.values(node.patternProperties ?? {}),
    ...(node.additionalProperties ? [node.additionalProperties] : []),
    ...(node.items ? [node.items] : []),
    ...(node.anyOf ?? []),
    ...(node.oneOf ?? []),
    ...(node.allOf ?? []),
  ];
  return children.some(reachesRef);
}

const matches = (pattern: string, key: string): boolean => new RegExp(pattern, "u").test(key);

/** Keys every validator reads the same way (`__proto__` would be a prototype, not a member). */
const safeKey = (key: string): boolean => key !== "__proto__";

/** fast-check's records may have a null prototype; a plain object is what JSON would give. */
const plain = (value: Record<string, Json>): Json => ({ ...value });

function integers(node: SchemaNode): fc.Arbitrary<Json> | null {
  const lower = tighter(node.minimum, node.exclusiveMinimum, true);
  const upper = tighter(node.maximum, node.exclusiveMaximum, false);
  let min = lower ? (lower.excluded ? Math.floor(lower.value) + 1 : Math.ceil(lower.value)) : undefined;
  let max = upper ? (upper.excluded ? Math.ceil(upper.value) - 1 : Math.floor(upper.value)) : undefined;
  // Unbounded sides reach 32 bits (or past the other bound); fast-check's integers stay in the safe range.
  min = Math.max(min ?? Math.min(INT_MIN, (max ?? 0) - 1000), Number.MIN_SAFE_INTEGER);
  max = Math.min(max ?? Math.max(INT_MAX, min + 1000), Number.MAX_SAFE_INTEGER);
  if (min > max) return null;
  return fc.integer({ min, max });
}

function numbers(node: SchemaNode): fc.Arbitrary<Json> {
  const lower = tighter(node.minimum, node.exclusiveMinimum, true);
  const upper = tighter(node.maximum, node.exclusiveMaximum, false);
  const doubles = fc.double({
    noNaN: true,
    noDefaultInfinity: true,
    ...(lower ? { min: lower.value, minExcluded: lower.excluded } : {}),
    ...(upper ? { max: upper.value, maxExcluded: upper.excluded } : {}),
  });
  const ints = integers(node);
  return ints ? fc.oneof(ints, doubles) : doubles;
}

/** Of an inclusive and an exclusive bound, the one that binds (`lower`: the greater, else the lesser). */
function tighter(
  inclusive: number | undefined,
  exclusive: number | undefined,
  lower: boolean,
): { value: number; excluded: boolean } | undefined {
  if (exclusive === undefined)
    return inclusive === undefined ? undefined : { value: inclusive, excluded: false };
  if (inclusive === undefined) return { value: exclusive, excluded: true };
  const exclusiveBinds = lower ? exclusive >= inclusive : exclusive <= inclusive;
  return exclusiveBinds ? { value: exclusive, excluded: true } : { value: inclusive, excluded: false };
}

function strings(node: SchemaNode): fc.Arbitrary<Json> {
  const minLength = node.minLength ?? 0;
  const maxLength = node.maxLength;
  if (maxLength !== undefined && maxLength < minLength) unsatisfiable(node, "minLength exceeds maxLength");
  const inLength = (s: string) => {
    const n = codePoints(s);
    return n >= minLength && (maxLength === undefined || n <= maxLength);
  };
  let base: fc.Arbitrary<string> | undefined;
  if (node.format === "uri") base = uris();
  else if (node.format === "byte") base = fc.base64String();
  else if (node.format === "uri-template") base = uriTemplates();
  if (node.pattern !== undefined) {
    const pattern = new RegExp(node.pattern, "u");
    base = base ? base.filter((s) => pattern.test(s)) : fc.stringMatching(pattern);
  }
  if (base) return base.filter(inLength);
  const bounds = { minLength, ...(maxLength === undefined ? { maxLength: minLength + 16 } : { maxLength }) };
  // Mostly readable text, sometimes any code point: a server must take both.
  return fc.oneof(
    { arbitrary: fc.string(bounds), weight: 3 },
    { arbitrary: fc.string({ ...bounds, unit: codePoint }), weight: 1 },
  );
}

/**
 * Any Unicode scalar value, one code point a unit (so lengths count as JSON Schema counts them). Built
 * here: fast-check's `binary` unit takes seconds to set up on first use.
 */
const codePoint: fc.Arbitrary<string> = fc
  .oneof(fc.integer({ min: 0, max: 0xd7ff }), fc.integer({ min: 0xe000, max: 0x10ffff }))
  .map((n) => String.fromCodePoint(n));

/**
 * RFC 3986 URIs: web addresses, and other schemes with any URI characters (queries and fragments too)
 * after the colon. fast-check's own query and fragment options take seconds to set up on first use.
 */
function uris(): fc.Arbitrary<string> {
  const other = fc
    .tuple(
      fc.constantFrom("file", "urn", "mailto", "data", "x-app"),
      fc.stringMatching(/^[A-Za-z0-9\-._~!$&'()*+,;=:@/?#%]{0,24}$/),
    )
    .map(([scheme, rest]) => `${scheme}:${rest}`);
  return fc.oneof(fc.webUrl(), other);
}

/** RFC 6570 templates: literal segments and `{var}` / `{+var}` / `{?a,b}` expressions. */
function uriTemplates(): fc.Arbitrary<string> {
  const name = fc.stringMatching(/^[a-z][a-z0-9_]{0,5}$/);
  const expression = fc
    .tuple(fc.constantFrom("", "+", "#", "/", "?", "&"), fc.array(name, { minLength: 1, maxLength: 2 }))
    .map(([op, names]) => `{${op}${names.join(",")}}`);
  const literal = fc.stringMatching(/^[a-z0-9:/._-]{1,6}$/);
  return fc.array(fc.oneof(literal, expression), { maxLength: 4 }).map((parts) => parts.join(""));
}

/**
 * Two schemas as one, best effort: what allOf and a `$ref`'s siblings require together. Types
 * intersect, bounds tighten, properties and required lists unite (shared properties merge), and two
 * sets of union branches become their pairwise merges.
 */
export function merge(a: SchemaNode, b: SchemaNode): SchemaNode {
  if (a.bool === false || b.bool === false) return { pointer: a.pointer, bool: false };
  if (a.bool === true || isUnconstrained(a)) return { ...b, pointer: a.pointer };
  if (b.bool === true || isUnconstrained(b)) return a;
  const out: SchemaNode = { ...a };
  if (b.ref !== undefined) {
    // A reference is expanded by the sampler: carry it as one more allOf member.
    const { ref, ...rest } = b;
    out.allOf = [...(a.allOf ?? []), { pointer: b.pointer, ref }];
    return merge(out, rest);
  }
  if (b.allOf) out.allOf = [...(a.allOf ?? []), ...b.allOf];
  if (b.type) {
    if (!a.type) out.type = b.type;
    else {
      const both = a.type.flatMap((t): JsonType[] =>
        b.type!.includes(t)
          ? [t]
          : t === "number" && b.type!.includes("integer")
            ? ["integer"]
            : t === "integer" && b.type!.includes("number")
              ? ["integer"]
              : [],
      );
      out.type = [...new Set(both)];
      if (out.type.length === 0) return { pointer: a.pointer, bool: false };
    }
  }
  if (b.hasConst) {
    out.hasConst = true;
    out.const = b.const;
  }
  if (b.enum)
    out.enum = a.enum
      ? a.enum.filter((x) => b.enum!.some((y) => JSON.stringify(x) === JSON.stringify(y)))
      : b.enum;
  if (out.enum && out.enum.length === 0) return { pointer: a.pointer, bool: false };
  if (b.properties) {
    const properties: Record<string, SchemaNode> = Object.assign(Object.create(null), a.properties);
    for (const [k, v] of Object.entries(b.properties))
      properties[k] = properties[k] ? merge(properties[k]!, v) : v;
    out.properties = properties;
  }
  if (b.patternProperties) out.patternProperties = { ...(a.patternProperties ?? {}), ...b.patternProperties };
  if (b.required) out.required = [...new Set([...(a.required ?? []), ...b.required])];
  if (b.additionalProperties)
    out.additionalProperties = a.additionalProperties
      ? merge(a.additionalProperties, b.additionalProperties)
      : b.additionalProperties;
  if (b.items) out.items = a.items ? merge(a.items, b.items) : b.items;
  for (const key of ["minItems", "minLength", "minimum", "exclusiveMinimum"] as const)
    if (b[key] !== undefined) out[key] = a[key] === undefined ? b[key] : Math.max(a[key]!, b[key]!);
  for (const key of ["maxItems", "maxLength", "maximum", "exclusiveMaximum"] as const)
    if (b[key] !== undefined) out[key] = a[key] === undefined ? b[key] : Math.min(a[key]!, b[key]!);
  if (b.pattern !== undefined && a.pattern === undefined) out.pattern = b.pattern;
  if (b.format !== undefined && a.format === undefined) out.format = b.format;
  const unionA = a.anyOf ?? a.oneOf;
  const unionB = b.anyOf ?? b.oneOf;
  if (unionB) {
    delete out.anyOf;
    delete out.oneOf;
    const key = (a.oneOf ?? b.oneOf) ? "oneOf" : "anyOf";
    out[key] = unionA ? unionA.flatMap((x) => unionB.map((y) => merge(x, y))) : unionB;
  }
  return out;
}
