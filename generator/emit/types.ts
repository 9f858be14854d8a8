/**
 * types.ts: every definition as an exported TypeScript type, with doc comments from descriptions, written
 * by json-schema-to-typescript. Each `$ref` is handed to it as a named type (`tsType`), so it never
 * dereferences: a definition is emitted once under its own name (no `Annotations1`, `Annotations2`).
 *
 * The types mean what the specification's own schema.ts means (a test holds every common definition
 * mutually assignable with it): an index signature only where the schema states `additionalProperties`,
 * and object types as type literals, not interfaces, so that an object without an index signature is
 * still assignable to one with it (JSON Schema objects are open unless they say otherwise).
 */

import { compile, type JSONSchema } from "json-schema-to-typescript";
import { renderTemplate } from "../output/templates.js";
import { formatTs } from "../output/write.js";
import { docText, printedSource, stringLiteral } from "../protocol/escape.js";
import { isOpaqueObject, isUnconstrained, type SchemaNode } from "../protocol/load.js";
import type { ProtocolModel } from "../protocol/model.js";
import { typeName } from "../protocol/naming.js";

const ROOT = "__McpCodegenRoot";

export async function emitTypes(model: Pick<ProtocolModel, "definitions">): Promise<Record<string, string>> {
  const definitions: Record<string, JSONSchema> = {};
  for (const def of model.definitions) {
    const name = typeName(def.name);
    if (Object.hasOwn(definitions, name))
      throw new Error(`types.ts: two definitions take the type name ${name}`);
    definitions[name] = toJsonSchema(def.schema);
  }
  const stand = standIns(definitions);
  const out = await compile({ title: ROOT, type: "object", additionalProperties: false, definitions }, ROOT, {
    bannerComment: "",
    unreachableDefinitions: true,
    declareExternallyReferenced: true,
    // zod infers arrays, not tuples, for minItems/maxItems; the two must agree (see the parity test).
    ignoreMinAndMaxItems: true,
    format: false,
    strictIndexSignatures: false,
    // No stated additionalProperties: no index signature (the library's default adds one everywhere).
    additionalProperties: false,
    // References are handed over as named types, never `$ref`s: nothing to resolve.
    $refOptions: { resolve: { external: false } },
  });
  // The library's unformatted output has no indentation; its own formatting pass would run prettier.
  const formatted = formatTs(renderTemplate("types.ts", { body: tidy(out) }), "types.ts");
  // The synthetic root the library needs to reach every definition is no type of the schema's.
  const typed = asTypeLiterals(formatted).replace(`export type ${ROOT} = {\n};\n`, "");
  if (typed.includes(ROOT)) throw new Error(`types.ts: the synthetic ${ROOT} is still referenced`);
  let keyed = typed;
  // A function, not a string: `$&`, `$'` and the like in a key must stay text.
  for (const [standIn, key] of stand)
    keyed = keyed.replaceAll(JSON.stringify(standIn), () => stringLiteral(key));
  return { "types.ts": printedSource(keyed) };
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Keys the library cannot take as they are (see standIns). */
const INHERITED = new Set(Object.getOwnPropertyNames(Object.prototype));
const needsStandIn = (key: string) => LONE_SURROGATE.test(key) || INHERITED.has(key);

/**
 * The library's reference resolver walks every key as a URI fragment and throws on one it cannot encode
 * (a lone surrogate), and its linker calls `hasOwnProperty` on every object (a property of that name
 * shadows it): such keys go in as stand-ins (`\u0000k<n>`, never a name of the input's), renamed in
 * place, and the stand-ins' literals are replaced by the names' own afterwards.
 */
function standIns(definitions: Record<string, JSONSchema>): Map<string, string> {
  const stand = new Map<string, string>();
  const text = JSON.stringify(definitions);
  let mark = "\u0000k";
  while (text.includes(JSON.stringify(mark).slice(1, -1))) mark = `\u0000${mark}`;
  const standIn = (key: string): string => {
    if (!needsStandIn(key)) return key;
    const name = `${mark}${stand.size}`;
    stand.set(name, key);
    return name;
  };
  // A patternProperties key appears in the types only in the library's note naming it, which escapes
  // only the first `*/` of it: it always goes in as a stand-in, and tidy() drops the note.
  let patterns = 0;
  const patternKey = () => `${mark}p${patterns++}`;
  const byKey = new Map<string, string>();
  const of = (key: string) => {
    const known = byKey.get(key);
    if (known !== undefined) return known;
    const s = standIn(key);
    byKey.set(key, s);
    return s;
  };
  /** A JSON value (`const`, `enum`, `default`): every object key is data. */
  const data = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(data);
    if (value === null || typeof value !== "object") return value;
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [of(k), data(v)]));
  };
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const x of node) visit(x);
      return;
    }
    if (node === null || typeof node !== "object") return;
    const schema = node as Record<string, unknown>;
    const properties = schema.properties as Record<string, unknown> | undefined;
    if (properties)
      schema.properties = Object.fromEntries(Object.entries(properties).map(([k, v]) => [of(k), v]));
    const patternProperties = schema.patternProperties as Record<string, unknown> | undefined;
    if (patternProperties)
      schema.patternProperties = Object.fromEntries(
        Object.values(patternProperties).map((v) => [patternKey(), v]),
      );
    if (Array.isArray(schema.required)) schema.required = schema.required.map((k: string) => of(k));
    for (const key of ["const", "enum", "default"]) if (key in schema) schema[key] = data(schema[key]);
    for (const [key, value] of Object.entries(schema))
      if (key !== "const" && key !== "enum" && key !== "default") visit(value);
  };
  visit(definitions);
  return stand;
}

/**
 * `export interface X { … }` → `export type X = { … };`. An interface is closed to implicit index
 * signatures (it is not assignable to `{ [k: string]: unknown }`), a type literal is not; the schema's
 * objects are open. Runs on formatted text, where a top-level body ends at the first line that is `}`.
 */
function asTypeLiterals(text: string): string {
  const lines = text.split("\n");
  let open = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const head = /^export interface (\w+) \{(\})?$/.exec(line);
    if (head) {
      lines[i] = `export type ${head[1]} = {${head[2] ? "};" : ""}`;
      open = !head[2];
    } else if (open && line === "}") {
      lines[i] = "};";
      open = false;
    }
  }
  if (open) throw new Error("types.ts: an interface body without its closing line");
  return lines.join("\n");
}

/**
 * Drops the library's "referenced by" notes, which name the synthetic root, wherever in a comment they
 * sit (after a description, alone, or before the "Items:" line of an array's item description), and the
 * blank comment lines and empty comments that leaves.
 */
function tidy(text: string): string {
  return text
    .replace(
      /^ \* This (?:interface|type) was referenced by `[^`]+`'s JSON-Schema\n \* via the `definition` "[^"]+"\.\n/gm,
      "",
    )
    .replace(
      /^ \* This (?:interface|type) was referenced by `[^`]+`'s JSON-Schema definition\n \* via the `patternProperty` "[^"\n]*"\.\n/gm,
      "",
    )
    .replace(/^ \* ?\n(?= \*\/)/gm, "")
    .replace(/^\/\*\*\n(?: \* ?\n)+/gm, "/**\n")
    .replace(/^\/\*\*\n \*\/\n/gm, "");
}

/** The parsed node back as JSON Schema for the library, with references as named types. */
function toJsonSchema(node: SchemaNode): JSONSchema {
  // The library reads `{}` as an object and `{ not: {} }` as one too; say what the booleans mean.
  if (node.bool !== undefined) return { tsType: node.bool ? "unknown" : "never" };
  const out: JSONSchema = {};
  if (node.description !== undefined) out.description = docText(node.description);
  if (node.deprecated) out.deprecated = true;
  // The library reads a keyword-less schema as an object; in JSON Schema it accepts any value.
  if (isUnconstrained(node)) {
    out.tsType = "unknown";
    return out;
  }
  // The specification's `object` (see isOpaqueObject), not `{ [k: string]: unknown }`.
  if (isOpaqueObject(node)) {
    out.tsType = "object";
    return out;
  }
  if (node.ref) {
    if (Object.keys(node).every((k) => k === "pointer" || k === "ref" || k === "description")) {
      out.tsType = typeName(node.ref);
      return out;
    }
    // 2020-12 lets `$ref` sit beside other keywords: both apply, as an intersection.
    const { ref, description: _, ...rest } = node;
    out.allOf = [{ tsType: typeName(ref) }, toJsonSchema(rest)];
    return out;
  }
  if (node.prefixItems && node.type?.includes("array")) return { ...out, ...tupleType(node) };
  if (node.type) out.type = node.type.length === 1 ? node.type[0] : node.type;
  if (node.hasConst) out.const = node.const;
  if (node.enum) out.enum = node.enum;
  if (node.properties) {
    out.properties = Object.fromEntries(
      Object.entries(node.properties).map(([k, v]) => [k, toJsonSchema(v)]),
    );
  }
  if (node.required) out.required = node.required;
  // `false`: no other property, so no index signature (a `never` one would forbid the declared ones).
  if (node.additionalProperties)
    out.additionalProperties =
      node.additionalProperties.bool === false ? false : toJsonSchema(node.additionalProperties);
  if (node.patternProperties) {
    out.patternProperties = Object.fromEntries(
      Object.entries(node.patternProperties).map(([k, v]) => [k, toJsonSchema(v)]),
    );
  }
  // The library reads `{ not: {} }` items as objects; `items: false` allows only the empty array.
  if (node.items) out.items = node.items.bool === false ? { tsType: "never" } : toJsonSchema(node.items);
  if (node.anyOf) out.anyOf = node.anyOf.map(toJsonSchema);
  if (node.oneOf) out.oneOf = node.oneOf.map(toJsonSchema);
  if (node.allOf) out.allOf = node.allOf.map(toJsonSchema);
  return out;
}

/**
 * A node with `prefixItems` as TypeScript tuples, one per length it allows (`[] | [A] | [A, B, ...C[]]`):
 * the library's own tuple reading ignores optional positions once min/max items are ignored.
 */
function tupleType(node: SchemaNode): JSONSchema {
  const { prefixItems, items, minItems, maxItems, anyOf, oneOf, allOf, description: _, ...shape } = node;
  const prefix = prefixItems!.map(toJsonSchema);
  const rest =
    items === undefined ? { tsType: "unknown" } : items.bool === false ? false : toJsonSchema(items);
  const lo = Math.min(minItems ?? 0, prefix.length);
  const hi = Math.min(maxItems ?? prefix.length, prefix.length);
  const open = maxItems === undefined || maxItems > prefix.length;
  const tuples: JSONSchema[] = [];
  for (let n = lo; n <= hi; n++) {
    tuples.push({
      type: "array",
      items: prefix.slice(0, n),
      additionalItems: n === prefix.length && open ? rest : false,
    });
  }
  const others = node.type!.filter((t) => t !== "array");
  const options = others.length === 0 ? tuples : [toJsonSchema({ ...shape, type: others }), ...tuples];
  const typed: JSONSchema = options.length === 1 ? options[0]! : { anyOf: options };
  const applied: JSONSchema[] = [];
  if (anyOf) applied.push({ anyOf: anyOf.map(toJsonSchema) });
  if (oneOf) applied.push({ oneOf: oneOf.map(toJsonSchema) });
  for (const n of allOf ?? []) applied.push(toJsonSchema(n));
  return applied.length === 0 ? typed : { allOf: [typed, ...applied] };
}
