/**
 * Strict parse of an MCP schema.json (draft-07 `definitions` or 2020-12 `$defs`) into a typed tree.
 * Anything the emitters could not honour exactly is an error naming the file and the JSON pointer:
 * silently ignoring a keyword would make the zod validators looser than the schema.
 */

import { formats } from "@mcp-codegen/runtime/codegen";
import type { Dialect } from "../../schema/registry.js";
import { record, recordOf } from "../util/records.js";
import { depthReason, MAX_DEPTH, shortPointer, tooDeep } from "./depth.js";
import { applySchemaFixes } from "./tables.js";

export type { Dialect };

export type JsonType = "string" | "number" | "integer" | "boolean" | "object" | "array" | "null";
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** One schema position. `pointer` is its JSON pointer in the source document. */
export interface SchemaNode {
  pointer: string;
  /** `true` / `false` boolean schemas; `{}` is `{ bool: undefined }` with no keywords. */
  bool?: boolean;
  ref?: string;
  type?: JsonType[];
  const?: Json;
  hasConst?: boolean;
  enum?: Json[];
  properties?: Record<string, SchemaNode>;
  required?: string[];
  additionalProperties?: SchemaNode;
  patternProperties?: Record<string, SchemaNode>;
  /** 2020-12 tuple positions; `items` then applies to the positions after them. */
  prefixItems?: SchemaNode[];
  items?: SchemaNode;
  minItems?: number;
  maxItems?: number;
  /** Present only when `true` (`uniqueItems: false` constrains nothing). */
  uniqueItems?: true;
  minProperties?: number;
  maxProperties?: number;
  propertyNames?: SchemaNode;
  dependentRequired?: Record<string, string[]>;
  multipleOf?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  anyOf?: SchemaNode[];
  oneOf?: SchemaNode[];
  allOf?: SchemaNode[];
  not?: SchemaNode;
  if?: SchemaNode;
  then?: SchemaNode;
  else?: SchemaNode;
  description?: string;
  deprecated?: boolean;
}

export interface ParsedSchema {
  file: string;
  dialect: Dialect;
  /** Where definitions live: `definitions` (draft-07) or `$defs` (2020-12). */
  defsKey: "definitions" | "$defs";
  definitions: Record<string, SchemaNode>;
  /** tables.SCHEMA_FIXES entries that corrected this document. */
  fixes: string[];
}

export class SchemaLoadError extends Error {
  constructor(
    readonly file: string,
    readonly pointer: string,
    readonly reason: string,
  ) {
    super(`${file}#${pointer}: ${reason}`);
    this.name = "SchemaLoadError";
  }
}

const DIALECTS: Record<string, Dialect> = {
  "http://json-schema.org/draft-07/schema#": "draft-07",
  "http://json-schema.org/draft-07/schema": "draft-07",
  "https://json-schema.org/draft/2020-12/schema": "2020-12",
};

const JSON_TYPES = new Set<string>(["string", "number", "integer", "boolean", "object", "array", "null"]);

/**
 * Keywords that only annotate: accepted and, where useful (description), kept. `readOnly`/`writeOnly` and
 * the `content*` pair assert nothing in either dialect (2020-12 makes content checks opt-in; ajv does not
 * make them), so a validator that ignores them judges exactly as the schema does.
 */
const ANNOTATIONS = new Set([
  "description",
  "title",
  "default",
  "examples",
  "deprecated",
  "$comment",
  "readOnly",
  "writeOnly",
  "contentEncoding",
  "contentMediaType",
]);

/** Keywords 2020-12 introduced: draft-07 validators (ajv among them) ignore them, so they are refused there. */
const ONLY_2020_12 = new Set(["prefixItems", "dependentRequired", "$anchor"]);

/** Formats both validators assert (runtime/check/formats.ts); any other format is refused, never unchecked. */
export const SUPPORTED_FORMATS: ReadonlySet<string> = new Set(Object.keys(formats));

/**
 * `x-…` keywords are extensions that constrain nothing (2026-07-28's `x-mcp-header` names the HTTP header
 * a tool argument is mirrored into): kept on the wire by whoever sends the schema, ignored by validators.
 */
export const isExtension = (key: string): boolean => key.startsWith("x-");

/** A schema with no constraining keyword (`{}`, maybe annotated): it accepts every value. */
export function isUnconstrained(node: SchemaNode): boolean {
  return Object.keys(node).every((k) => k === "pointer" || k === "description" || k === "deprecated");
}

/**
 * `{ type: "object", additionalProperties: true }` with no (or empty) `properties` and nothing else:
 * how the specification's schema.json states its TypeScript `object` (any object, no members known),
 * as opposed to `additionalProperties: {}`, its `{ [key: string]: unknown }`. The two differ in
 * TypeScript (`object` has no index signature), so the emitters keep them apart.
 */
export function isOpaqueObject(node: SchemaNode): boolean {
  if (node.additionalProperties?.bool !== true) return false;
  if (node.type?.length !== 1 || node.type[0] !== "object") return false;
  if (node.properties && Object.keys(node.properties).length > 0) return false;
  return Object.keys(node).every((k) => OPAQUE_OBJECT_KEYS.has(k));
}

const OPAQUE_OBJECT_KEYS = new Set([
  "pointer",
  "description",
  "deprecated",
  "type",
  "properties",
  "additionalProperties",
]);

/** Whether a JSON value is of a JSON Schema type (`integer`: a number without a fractional part). */
export function isOfType(value: Json, type: string): boolean {
  switch (type) {
    case "null":
      return value === null;
    case "array":
      return Array.isArray(value);
    case "object":
      return typeof value === "object" && value !== null && !Array.isArray(value);
    case "integer":
      return typeof value === "number" && Number.isInteger(value);
    default:
      return typeof value === type;
  }
}

export function escapePointer(token: string): string {
  return token.replaceAll("~", "~0").replaceAll("/", "~1");
}

/** Parse schema text. Throws SchemaLoadError on anything not JSON, not an MCP JSON Schema, or unsupported. */
export function parseSchema(text: string, file: string): ParsedSchema {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new SchemaLoadError(file, "", `not valid JSON (${(e as Error).message})`);
  }
  if (!isObject(doc)) throw new SchemaLoadError(file, "", "not a JSON Schema: the document is not an object");
  checkDepth(doc, file);
  const fixes = applySchemaFixes(doc);
  const declared = doc.$schema;
  if (typeof declared !== "string") {
    throw new SchemaLoadError(file, "/$schema", "not a JSON Schema: `$schema` is missing");
  }
  const dialect = dialectOf(declared, file, "/$schema");
  const defsKey = dialect === "draft-07" ? "definitions" : "$defs";
  if (!isObject(doc[defsKey])) {
    throw new SchemaLoadError(file, `/${defsKey}`, `not an MCP schema: no \`${defsKey}\` object`);
  }
  return { ...parseDefinitions(doc, file, dialect), fixes };
}

/**
 * Parse an already-parsed document of users' definitions (a contract's tool schemas) into the same shape
 * as `parseSchema`, with the same strictness. Unlike a protocol schema it needs no `$schema` (the caller
 * names the dialect; a `$schema` that is present must agree) and may have no definitions at all, and no
 * protocol fixes apply to it.
 */
export function parseSchemaDocument(doc: object, file: string, dialect: Dialect): ParsedSchema {
  if (!isObject(doc)) throw new SchemaLoadError(file, "", "not a JSON Schema: the document is not an object");
  checkDepth(doc, file);
  const declared = doc.$schema;
  if (declared !== undefined) {
    if (typeof declared !== "string" || dialectOf(declared, file, "/$schema") !== dialect) {
      throw new SchemaLoadError(
        file,
        "/$schema",
        `the document declares ${JSON.stringify(declared)}, expected the ${dialect} dialect`,
      );
    }
  }
  const defsKey = dialect === "draft-07" ? "definitions" : "$defs";
  const defs = doc[defsKey];
  if (defs !== undefined && !isObject(defs)) {
    throw new SchemaLoadError(file, `/${defsKey}`, `\`${defsKey}\` must be an object of schemas`);
  }
  return { ...parseDefinitions({ ...doc, [defsKey]: defs ?? {} }, file, dialect), fixes: [] };
}

/** Refuses a document whose definitions nest deeper than MAX_DEPTH (they sit two levels down). */
function checkDepth(doc: Record<string, unknown>, file: string): void {
  const deep = tooDeep(doc, MAX_DEPTH + 2);
  if (deep !== undefined) throw new SchemaLoadError(file, shortPointer(deep), depthReason());
}

function dialectOf(declared: string, file: string, pointer: string): Dialect {
  const dialect = DIALECTS[declared];
  if (!dialect) {
    throw new SchemaLoadError(file, pointer, `unsupported JSON Schema dialect ${JSON.stringify(declared)}`);
  }
  return dialect;
}

/** The definitions of a document whose dialect is known and whose definitions object exists. */
function parseDefinitions(
  doc: Record<string, unknown>,
  file: string,
  dialect: Dialect,
): Omit<ParsedSchema, "fixes"> {
  const defsKey = dialect === "draft-07" ? "definitions" : "$defs";
  const rawDefs = doc[defsKey] as Record<string, unknown>;
  for (const key of Object.keys(doc)) {
    // A root `$id` (ext-apps' schema) only names the document: every `$ref` here is a `#/…` pointer into it.
    if (key !== "$schema" && key !== "$id" && key !== defsKey && !ANNOTATIONS.has(key)) {
      throw new SchemaLoadError(file, `/${escapePointer(key)}`, `unsupported top-level keyword \`${key}\``);
    }
  }
  const ctx: Ctx = { file, dialect, defsKey, names: new Set(Object.keys(rawDefs)) };
  const definitions = record<SchemaNode>();
  for (const name of Object.keys(rawDefs).sort()) {
    definitions[name] = parseNode(rawDefs[name], `/${defsKey}/${escapePointer(name)}`, ctx, true);
  }
  return { file, dialect, defsKey, definitions };
}

interface Ctx {
  file: string;
  dialect: Dialect;
  defsKey: string;
  names: Set<string>;
}

/** A JSON object: not null, not an array. */
export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * `root`: the node is a definition itself, where zod's `z.toJSONSchema` puts a `$schema`.
 * `applies`: the types the instance is known to have, when the node is an applicator's subschema
 * (`allOf`/`anyOf`/`oneOf`/`not`/`if`/`then`/`else`) of a node that declares them.
 */
function parseNode(raw: unknown, pointer: string, ctx: Ctx, root = false, applies?: JsonType[]): SchemaNode {
  if (typeof raw === "boolean") return { pointer, bool: raw };
  if (!isObject(raw)) throw new SchemaLoadError(ctx.file, pointer, "a schema must be an object or a boolean");
  const node: SchemaNode = { pointer };
  const fail = (key: string, reason: string): never => {
    throw new SchemaLoadError(ctx.file, `${pointer}/${escapePointer(key)}`, reason);
  };
  const declared = typeList(raw.type);
  const known = declared ?? applies;
  const sub = (key: string, v: unknown) => parseNode(v, `${pointer}/${escapePointer(key)}`, ctx);
  /** A subschema applied to this same instance: it knows this node's type. */
  const applied = (key: string, v: unknown) =>
    parseNode(v, `${pointer}/${escapePointer(key)}`, ctx, false, known);
  const nonNegInt = (key: string, v: unknown): number =>
    typeof v === "number" && Number.isInteger(v) && v >= 0 ? v : fail(key, "must be a non-negative integer");
  const num = (key: string, v: unknown): number =>
    typeof v === "number" && Number.isFinite(v) ? v : fail(key, "must be a number");
  const schemaList = (key: string, v: unknown, inherit?: JsonType[]): SchemaNode[] =>
    Array.isArray(v) && v.length > 0
      ? v.map((x, i) => parseNode(x, `${pointer}/${escapePointer(key)}/${i}`, ctx, false, inherit))
      : fail(key, "must be a non-empty array of schemas");
  const schemaMap = (key: string, v: unknown): Record<string, SchemaNode> => {
    if (!isObject(v)) return fail(key, "must be an object of schemas");
    const out = record<SchemaNode>();
    for (const k of Object.keys(v)) {
      out[k] = parseNode(v[k], `${pointer}/${escapePointer(key)}/${escapePointer(k)}`, ctx);
    }
    return out;
  };

  for (const [key, value] of Object.entries(raw)) {
    if (ctx.dialect === "draft-07" && ONLY_2020_12.has(key)) {
      fail(key, `\`${key}\` is a 2020-12 keyword, which draft-07 validators ignore`);
    }
    switch (key) {
      case "$schema":
        // Harmless only where it restates the document's dialect at a definition's root.
        if (!root) fail(key, "`$schema` is only allowed at the root of a definition");
        if (typeof value !== "string" || DIALECTS[value] !== ctx.dialect) {
          fail(
            key,
            `\`$schema\` ${JSON.stringify(value)} differs from the document's ${ctx.dialect} dialect`,
          );
        }
        break;
      case "$anchor":
        // Only `#/$defs/<Name>` references are accepted, so no reference can resolve through an anchor.
        if (typeof value !== "string") fail(key, "must be a string");
        break;
      case "$id":
        // A new base URI would change what a `$ref` below it resolves against; without one it is inert.
        if (typeof value !== "string") fail(key, "must be a string");
        if (containsRef(raw))
          fail(key, "`$id` above a `$ref` is not supported (it changes what the `$ref` resolves against)");
        break;
      case "$ref":
        node.ref = resolveRef(value, `${pointer}/$ref`, ctx);
        break;
      case "type": {
        const list = Array.isArray(value) ? value : [value];
        if (list.length === 0 || !list.every((t) => typeof t === "string" && JSON_TYPES.has(t))) {
          fail(key, `unknown type ${JSON.stringify(value)}`);
        }
        node.type = list as JsonType[];
        break;
      }
      case "const":
        node.const = value as Json;
        node.hasConst = true;
        break;
      case "enum":
        if (!Array.isArray(value) || value.length === 0) fail(key, "must be a non-empty array");
        node.enum = value as Json[];
        break;
      case "properties":
        node.properties = schemaMap(key, value);
        break;
      case "patternProperties":
        node.patternProperties = schemaMap(key, value);
        for (const p of Object.keys(node.patternProperties))
          checkPattern(p, `${pointer}/patternProperties`, ctx);
        break;
      case "required":
        if (!Array.isArray(value) || !value.every((x) => typeof x === "string")) {
          fail(key, "must be an array of strings");
        }
        node.required = value as string[];
        break;
      case "additionalProperties":
        node.additionalProperties = sub(key, value);
        break;
      case "items":
        if (Array.isArray(value)) {
          fail(key, "tuple `items` (an array) is not supported; 2020-12 spells tuples `prefixItems`");
        }
        node.items = sub(key, value);
        break;
      case "prefixItems":
        node.prefixItems = schemaList(key, value);
        break;
      case "uniqueItems":
        if (typeof value !== "boolean") fail(key, "must be a boolean");
        if (value) node.uniqueItems = true;
        break;
      case "minItems":
      case "maxItems":
      case "minLength":
      case "maxLength":
      case "minProperties":
      case "maxProperties":
        node[key] = nonNegInt(key, value);
        break;
      case "multipleOf":
        if (!(typeof value === "number" && Number.isFinite(value) && value > 0)) {
          fail(key, "must be a number greater than 0");
        }
        node.multipleOf = value as number;
        break;
      case "propertyNames":
        node.propertyNames = sub(key, value);
        break;
      case "dependentRequired": {
        if (!isObject(value)) fail(key, "must be an object of string arrays");
        const deps = value as Record<string, unknown>;
        for (const [k, list] of Object.entries(deps)) {
          if (!Array.isArray(list) || !list.every((x) => typeof x === "string")) {
            throw new SchemaLoadError(
              ctx.file,
              `${pointer}/dependentRequired/${escapePointer(k)}`,
              "must be an array of strings",
            );
          }
        }
        node.dependentRequired = recordOf(Object.entries(deps as Record<string, string[]>));
        break;
      }
      case "not":
      case "if":
      case "then":
      case "else":
        node[key] = applied(key, value);
        break;
      case "minimum":
      case "maximum":
        node[key] = num(key, value);
        break;
      case "exclusiveMinimum":
      case "exclusiveMaximum":
        if (typeof value === "boolean") fail(key, "draft-04 boolean form is not supported");
        node[key] = num(key, value);
        break;
      case "pattern":
        if (typeof value !== "string") fail(key, "must be a string");
        checkPattern(value as string, `${pointer}/pattern`, ctx);
        node.pattern = value as string;
        break;
      case "format":
        if (typeof value !== "string" || !SUPPORTED_FORMATS.has(value)) {
          fail(
            key,
            `unsupported format ${JSON.stringify(value)} (supported: ${[...SUPPORTED_FORMATS].join(", ")})`,
          );
        }
        node.format = value as string;
        break;
      case "anyOf":
      case "oneOf":
      case "allOf":
        node[key] = schemaList(key, value, known);
        break;
      case "description":
        if (typeof value !== "string") fail(key, "must be a string");
        node.description = value as string;
        break;
      case "deprecated":
        node.deprecated = value === true;
        break;
      default:
        if (!ANNOTATIONS.has(key) && !isExtension(key)) fail(key, `unsupported keyword \`${key}\``);
    }
  }
  for (const key of ["then", "else"] as const) {
    if (node[key] !== undefined && node.if === undefined)
      fail(key, `\`${key}\` without \`if\` has no effect`);
  }
  checkTypedKeywords(node, fail, applies);
  // In draft-07 `$ref` replaces its siblings; only annotations survive.
  if (ctx.dialect === "draft-07" && node.ref !== undefined) {
    return {
      pointer,
      ref: node.ref,
      ...(node.description === undefined ? {} : { description: node.description }),
    };
  }
  return node;
}

/** Keywords that constrain only values of one type; which JSON type each belongs to. */
const TYPED_KEYWORDS: Record<string, JsonType[]> = {
  properties: ["object"],
  required: ["object"],
  additionalProperties: ["object"],
  patternProperties: ["object"],
  minProperties: ["object"],
  maxProperties: ["object"],
  propertyNames: ["object"],
  dependentRequired: ["object"],
  prefixItems: ["array"],
  items: ["array"],
  minItems: ["array"],
  maxItems: ["array"],
  uniqueItems: ["array"],
  minLength: ["string"],
  maxLength: ["string"],
  pattern: ["string"],
  format: ["string"],
  minimum: ["number", "integer"],
  maximum: ["number", "integer"],
  exclusiveMinimum: ["number", "integer"],
  exclusiveMaximum: ["number", "integer"],
  multipleOf: ["number", "integer"],
};

/**
 * Such keywords pass every value of another type. The emitters attach them to the matching `type` branch,
 * so a node using them must declare that type; the official schemas always do. A subschema of an
 * applicator (`anyOf: [{ required: [phone] }, { required: [email] }]` under `type: object`) sees only
 * values of its parent's type, so it takes that type: the same values pass, and the emitters see a type.
 */
function checkTypedKeywords(
  node: SchemaNode,
  fail: (key: string, reason: string) => never,
  applies: JsonType[] | undefined,
): void {
  const typed = Object.keys(TYPED_KEYWORDS).filter((k) => node[k as keyof SchemaNode] !== undefined);
  if (typed.length === 0) return;
  if (node.type === undefined && applies?.length === 1) node.type = [...applies];
  for (const key of typed) {
    const types = TYPED_KEYWORDS[key]!;
    if (!node.type?.some((t) => types.includes(t))) {
      fail(key, `\`${key}\` without \`type: ${types.join(" | ")}\` is not supported`);
    }
  }
}

/** `type`'s value as a list, when it is a valid one (parseNode reports an invalid one). */
function typeList(value: unknown): JsonType[] | undefined {
  const list = Array.isArray(value) ? value : value === undefined ? [] : [value];
  return list.length > 0 && list.every((t) => typeof t === "string" && JSON_TYPES.has(t))
    ? (list as JsonType[])
    : undefined;
}

/** Whether a raw schema holds a `$ref` string anywhere (conservatively: one inside `const` data counts too). */
function containsRef(raw: unknown): boolean {
  if (Array.isArray(raw)) return raw.some(containsRef);
  if (!isObject(raw)) return false;
  return Object.entries(raw).some(([k, v]) => (k === "$ref" && typeof v === "string") || containsRef(v));
}

function resolveRef(value: unknown, pointer: string, ctx: Ctx): string {
  if (typeof value !== "string") throw new SchemaLoadError(ctx.file, pointer, "`$ref` must be a string");
  const prefix = `#/${ctx.defsKey}/`;
  if (!value.startsWith(prefix)) {
    throw new SchemaLoadError(
      ctx.file,
      pointer,
      `unsupported \`$ref\` ${JSON.stringify(value)} (expected ${prefix}<Name>)`,
    );
  }
  const name = value.slice(prefix.length).replaceAll("~1", "/").replaceAll("~0", "~");
  if (!ctx.names.has(name)) {
    throw new SchemaLoadError(
      ctx.file,
      pointer,
      `dangling \`$ref\` ${JSON.stringify(value)}: no such definition`,
    );
  }
  return name;
}

function checkPattern(pattern: string, pointer: string, ctx: Ctx): void {
  try {
    new RegExp(pattern, "u");
  } catch (e) {
    throw new SchemaLoadError(
      ctx.file,
      pointer,
      `invalid regular expression ${JSON.stringify(pattern)}: ${(e as Error).message}`,
    );
  }
}
