/**
 * schemas.ts: one zod v4 validator `<Name>Schema` per definition, accepting exactly what the JSON Schema
 * accepts (the ajv differential test holds it to that). Objects are never stripped: open objects are
 * `looseObject`, closed ones `strictObject`, so a validated message keeps every field it arrived with.
 */

import { renderTemplate } from "../output/templates.js";
import { dataLiteral, objectKey, stringLiteral } from "../protocol/escape.js";
import { isOfType, isOpaqueObject, isUnconstrained, type Json, type SchemaNode } from "../protocol/load.js";
import type { ProtocolModel } from "../protocol/model.js";
import { schemaName } from "../protocol/naming.js";
import { SCHEMA_FIXES } from "../protocol/tables.js";
import { DEFAULT_PATTERN_MAX_LENGTH } from "../util/backtracking.js";
import { type Doc, group, print } from "./layout.js";

export function emitZod(model: Pick<ProtocolModel, "definitions" | "schemaFixes">): Record<string, string> {
  const byName = new Map(model.definitions.map((d) => [d.name, d]));
  const order = topologicalOrder(model);
  const emitted = new Set<string>();
  const recursive = recursiveDefinitions(model);
  const helpers = new Set<string>();

  const blocks = order.map((name) => {
    const def = byName.get(name)!;
    const ctx: Ctx = { emitted, helpers };
    const body = expr(def.schema, ctx);
    emitted.add(name);
    // A recursive validator needs its type spelled out: inference cannot see through z.lazy cycles.
    const annotation = recursive.has(name) ? `: z.ZodType<T.${name}>` : "";
    return print([`export const ${schemaName(name)}${annotation} = `, body, ";"]);
  });

  const text = renderTemplate("schemas.ts", {
    helpers: [...helpers].sort().join(", "),
    typesImport: recursive.size > 0,
    fixes: SCHEMA_FIXES.filter((f) => model.schemaFixes.includes(f.key)).map((f) => ({
      key: f.key,
      why: f.why,
    })),
    blocks: blocks.join("\n\n"),
  });
  return { "schemas.ts": text };
}

interface Ctx {
  emitted: Set<string>;
  helpers: Set<string>;
}

function expr(node: SchemaNode, ctx: Ctx): Doc {
  if (node.bool === true) return "z.unknown()";
  if (node.bool === false) return "z.never()";
  const parts: Doc[] = [];
  const base = typedExpr(node, ctx);
  if (base) parts.push(base);
  if (node.ref)
    parts.push(ctx.emitted.has(node.ref) ? schemaName(node.ref) : `z.lazy(() => ${schemaName(node.ref)})`);
  if (node.anyOf) parts.push(union(node.anyOf.map((n) => expr(n, ctx))));
  if (node.oneOf) {
    const options = node.oneOf.map((n) => expr(n, ctx));
    if (options.length === 1) parts.push(options[0]!);
    else {
      ctx.helpers.add("oneOf");
      parts.push(["oneOf(", group("[", options, "]"), ")"]);
    }
  }
  for (const n of node.allOf ?? []) parts.push(expr(n, ctx));
  const checks = applicatorChecks(node, ctx);
  // A closed object (`z.strictObject`) intersected with what the applicators allow would let their keys in.
  if (parts.length > 1 && closedObject(node)) {
    ctx.helpers.add("onlyProperties");
    checks.unshift(`onlyProperties(${dataLiteral(Object.keys(node.properties ?? {}))})`);
  }
  const combined =
    parts.length === 0 ? "z.unknown()" : parts.reduce((acc, p) => group("z.intersection(", [acc, p], ")"));
  return checks.length === 0 ? combined : [combined, group(".check(", checks, ")")];
}

/** `not` and `if`/`then`/`else`, which judge the whole value: refinements on it. */
function applicatorChecks(node: SchemaNode, ctx: Ctx): Doc[] {
  const checks: Doc[] = [];
  if (node.not) {
    ctx.helpers.add("not");
    checks.push(group("not(", [expr(node.not, ctx)], ")"));
  }
  const then = node.then && constrains(node.then) ? node.then : undefined;
  const otherwise = node.else && constrains(node.else) ? node.else : undefined;
  if (node.if && (then || otherwise)) {
    ctx.helpers.add("ifThenElse");
    const branch = (n: SchemaNode | undefined): Doc => (n ? expr(n, ctx) : "undefined");
    checks.push(group("ifThenElse(", [expr(node.if, ctx), branch(then), branch(otherwise)], ")"));
  }
  return checks;
}

/** An object that objectShape writes as `z.strictObject`: `additionalProperties: false`, no patterns. */
const closedObject = (node: SchemaNode): boolean =>
  node.type?.includes("object") === true &&
  node.additionalProperties?.bool === false &&
  node.patternProperties === undefined;

/** Whether a schema can refuse anything (a `{}` or `true` accepts every value and needs no check). */
const constrains = (node: SchemaNode): boolean => node.bool !== true && !isUnconstrained(node);

const union = (options: Doc[]): Doc =>
  options.length === 1 ? options[0]! : ["z.union(", group("[", options, "]"), ")"];

/** The constraint from type/const/enum and the keywords of each type; undefined when there is none. */
function typedExpr(node: SchemaNode, ctx: Ctx): Doc | undefined {
  const allowed = (v: Json): boolean => !node.type || node.type.some((t) => isOfType(v, t));
  if (node.hasConst) return allowed(node.const!) ? literal(node.const!, ctx) : "z.never()";
  if (node.enum) {
    const values = node.enum.filter(allowed);
    if (values.length === 0) return "z.never()";
    if (values.every((v) => typeof v === "string"))
      return [
        "z.enum(",
        group(
          "[",
          values.map((v) => dataLiteral(v)),
          "]",
        ),
        ")",
      ];
    return union(values.map((v) => literal(v, ctx)));
  }
  if (!node.type) return undefined;
  return union(node.type.map((t) => typeBranch(t, node, ctx)));
}

function typeBranch(type: string, node: SchemaNode, ctx: Ctx): Doc {
  switch (type) {
    case "string":
      return stringExpr(node, ctx);
    case "number":
      return `z.number()${bounds(node)}${multipleOf(node, ctx)}`;
    case "integer":
      ctx.helpers.add("integer");
      return `integer()${bounds(node)}${multipleOf(node, ctx)}`;
    case "boolean":
      return "z.boolean()";
    case "null":
      return "z.null()";
    case "array":
      return arrayExpr(node, ctx);
    case "object":
      return objectExpr(node, ctx);
    default:
      throw new Error(`unreachable type ${type}`);
  }
}

function stringExpr(node: SchemaNode, ctx: Ctx): string {
  const checks: string[] = [];
  if (node.minLength !== undefined) {
    ctx.helpers.add("minLength");
    checks.push(`minLength(${node.minLength})`);
  }
  if (node.maxLength !== undefined) {
    ctx.helpers.add("maxLength");
    checks.push(`maxLength(${node.maxLength})`);
  }
  if (node.pattern !== undefined) {
    // Compiled once with the schema; run only on strings no longer than maxLength or the default limit.
    ctx.helpers.add("pattern");
    checks.push(
      `pattern(new RegExp(${stringLiteral(node.pattern)}, "u"), ${node.maxLength ?? DEFAULT_PATTERN_MAX_LENGTH})`,
    );
  }
  if (node.format !== undefined) {
    ctx.helpers.add("format");
    checks.push(`format(${stringLiteral(node.format)})`);
  }
  return checks.length === 0 ? "z.string()" : `z.string().check(${checks.join(", ")})`;
}

function arrayExpr(node: SchemaNode, ctx: Ctx): Doc {
  if (node.uniqueItems) ctx.helpers.add("uniqueItems");
  const unique = node.uniqueItems ? ".check(uniqueItems())" : "";
  if (!node.prefixItems) {
    const items = node.items ? expr(node.items, ctx) : "z.unknown()";
    const min = node.minItems === undefined ? "" : `.min(${node.minItems})`;
    const max = node.maxItems === undefined ? "" : `.max(${node.maxItems})`;
    return [group("z.array(", [items], ")"), min, max, unique];
  }
  // A tuple: positions from minItems on may be missing; `items` (or any value) fills the rest.
  const required = node.minItems ?? 0;
  const elements = node.prefixItems.map(
    (p, i): Doc => (i < required ? expr(p, ctx) : [expr(p, ctx), ".optional()"]),
  );
  const rest =
    node.items === undefined ? ["z.unknown()"] : node.items.bool === false ? [] : [expr(node.items, ctx)];
  const lengths: string[] = [];
  if (node.minItems !== undefined && node.minItems > node.prefixItems.length)
    lengths.push(`z.minLength(${node.minItems})`);
  if (node.maxItems !== undefined) lengths.push(`z.maxLength(${node.maxItems})`);
  const checks = lengths.length === 0 ? "" : `.check(${lengths.join(", ")})`;
  return [group("z.tuple(", [group("[", elements, "]"), ...rest], ")"), checks, unique];
}

function multipleOf(node: SchemaNode, ctx: Ctx): string {
  if (node.multipleOf === undefined) return "";
  ctx.helpers.add("multipleOf");
  return `.check(multipleOf(${node.multipleOf}))`;
}

function bounds(node: SchemaNode): string {
  let out = "";
  if (node.minimum !== undefined) out += `.gte(${node.minimum})`;
  if (node.exclusiveMinimum !== undefined) out += `.gt(${node.exclusiveMinimum})`;
  if (node.maximum !== undefined) out += `.lte(${node.maximum})`;
  if (node.exclusiveMaximum !== undefined) out += `.lt(${node.exclusiveMaximum})`;
  return out;
}

function objectExpr(node: SchemaNode, ctx: Ctx): Doc {
  const base = objectShape(node, ctx);
  const checks = objectChecks(node, ctx);
  return checks.length === 0 || base === "z.never()" ? base : [base, group(".check(", checks, ")")];
}

/** The whole-object keywords as refinements: property counts, `dependentRequired`, `propertyNames`. */
function objectChecks(node: SchemaNode, ctx: Ctx): Doc[] {
  const checks: Doc[] = [];
  for (const key of ["minProperties", "maxProperties"] as const) {
    if (node[key] === undefined) continue;
    ctx.helpers.add(key);
    checks.push(`${key}(${node[key]})`);
  }
  if (node.dependentRequired) {
    ctx.helpers.add("dependentRequired");
    checks.push(`dependentRequired(${dataLiteral(node.dependentRequired)})`);
  }
  if (node.propertyNames && constrains(node.propertyNames)) {
    ctx.helpers.add("propertyNames");
    checks.push(group("propertyNames(", [expr(node.propertyNames, ctx)], ")"));
  }
  return checks;
}

function objectShape(node: SchemaNode, ctx: Ctx): Doc {
  // Inferred as `object`, as types.ts types it (a looseObject would infer an index signature).
  if (isOpaqueObject(node)) {
    ctx.helpers.add("anyObject");
    return "anyObject()";
  }
  const required = new Set(node.required ?? []);
  const props = node.properties ?? {};
  const entries: Doc[] = Object.entries(props).map(([key, schema]) => [
    `${objectKey(key)}: `,
    expr(schema, ctx),
    required.has(key) ? "" : ".optional()",
  ]);
  const additional = node.additionalProperties;
  const open = additional === undefined || additional.bool === true || isUnconstrained(additional);
  // `required` may name properties the object does not describe: present, and as an additional property
  // subject to `additionalProperties` (a shape key would escape `catchall`).
  const undeclared =
    additional && !open && additional.bool !== false && !node.patternProperties
      ? expr(additional, ctx)
      : "z.unknown()";
  for (const key of required)
    if (!Object.hasOwn(props, key)) entries.push([`${objectKey(key)}: `, undeclared]);
  const shape = group("{", entries, "}");

  if (node.patternProperties) {
    ctx.helpers.add("patternProperties");
    const patterns = Object.entries(node.patternProperties).map(([re, schema]) =>
      group("[", [`new RegExp(${stringLiteral(re)}, "u")`, expr(schema, ctx)], "]"),
    );
    const extra = open ? "undefined" : additional.bool === false ? "false" : expr(additional, ctx);
    // Only `properties` names are declared: a key that `required` alone names is still additional.
    const declared = dataLiteral(Object.keys(props));
    const most = String(DEFAULT_PATTERN_MAX_LENGTH);
    const check = group("patternProperties(", [declared, group("[", patterns, "]"), extra, most], ")");
    return ["z.looseObject(", shape, ")", group(".check(", [check], ")")];
  }
  if (open) return ["z.looseObject(", shape, ")"];
  // A required key that no property declares is an additional property, which a closed object refuses.
  if (additional.bool === false && [...required].some((k) => !Object.hasOwn(props, k))) return "z.never()";
  if (additional.bool === false) return ["z.strictObject(", shape, ")"];
  return ["z.object(", shape, ")", group(".catchall(", [expr(additional, ctx)], ")")];
}

function literal(value: Json, ctx: Ctx): string {
  if (value === null) return "z.null()";
  if (typeof value === "object") {
    ctx.helpers.add("constant");
    return `constant(${dataLiteral(value)} as const)`;
  }
  return `z.literal(${dataLiteral(value)})`;
}

/** Definitions in dependency order (a definition after what it references), ties broken by name. */
export function topologicalOrder(model: Pick<ProtocolModel, "definitions">): string[] {
  const refs = new Map(model.definitions.map((d) => [d.name, d.refs]));
  const out: string[] = [];
  const state = new Map<string, "visiting" | "done">();
  const visit = (name: string) => {
    if (state.has(name)) return;
    state.set(name, "visiting");
    for (const r of refs.get(name) ?? []) visit(r);
    state.set(name, "done");
    out.push(name);
  };
  for (const name of [...refs.keys()].sort()) visit(name);
  return out;
}

/** Definitions that can reach themselves through references. */
export function recursiveDefinitions(model: Pick<ProtocolModel, "definitions">): Set<string> {
  const refs = new Map(model.definitions.map((d) => [d.name, d.refs]));
  const out = new Set<string>();
  for (const start of refs.keys()) {
    const seen = new Set<string>();
    const stack = [...(refs.get(start) ?? [])];
    while (stack.length > 0) {
      const n = stack.pop()!;
      if (n === start) {
        out.add(start);
        break;
      }
      if (seen.has(n)) continue;
      seen.add(n);
      stack.push(...(refs.get(n) ?? []));
    }
  }
  return out;
}
