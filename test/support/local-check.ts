/**
 * A small validator for the supported keyword set. It lets the generator aim mutations at
 * instances that are probably invalid without depending on ajv; the ajv oracle stays the judge.
 */
import { formatAccepts } from "./formats.js";
import {
  isPlainObject,
  type Schema,
  type SchemaDoc,
  type SchemaObject,
  typeBitOf,
  typeKeywordBits,
} from "./schema-doc.js";

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((v, i) => deepEqual(v, b[i]));
  }
  if (isPlainObject(a) && isPlainObject(b)) {
    const keys = Object.keys(a);
    return (
      keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && deepEqual(a[k], b[k]))
    );
  }
  return false;
}

const regexCache = new Map<string, RegExp>();
export function regex(pattern: string): RegExp {
  let re = regexCache.get(pattern);
  if (!re) {
    re = new RegExp(pattern, "u");
    regexCache.set(pattern, re);
  }
  return re;
}

export function conforms(doc: SchemaDoc, schema: Schema, value: unknown): boolean {
  if (typeof schema === "boolean") return schema;
  return (
    typeOk(schema, value) &&
    valueOk(schema, value) &&
    combinatorsOk(doc, schema, value) &&
    (!isPlainObject(value) || objectOk(doc, schema, value)) &&
    (!Array.isArray(value) || arrayOk(doc, schema, value)) &&
    (typeof value !== "string" || stringOk(schema, value)) &&
    (typeof value !== "number" || numberOk(schema, value))
  );
}

function typeOk(s: SchemaObject, value: unknown): boolean {
  if (s.type === undefined) return true;
  return (typeKeywordBits(s.type) & typeBitOf(value)) !== 0;
}

function valueOk(s: SchemaObject, value: unknown): boolean {
  if ("const" in s && !deepEqual(s.const, value)) return false;
  return s.enum === undefined || s.enum.some((v) => deepEqual(v, value));
}

function combinatorsOk(doc: SchemaDoc, s: SchemaObject, value: unknown): boolean {
  if (s.$ref !== undefined && !conforms(doc, doc.resolve(s.$ref), value)) return false;
  if (s.allOf && !s.allOf.every((b) => conforms(doc, b, value))) return false;
  if (s.anyOf && !s.anyOf.some((b) => conforms(doc, b, value))) return false;
  return !s.oneOf || s.oneOf.filter((b) => conforms(doc, b, value)).length === 1;
}

function objectOk(doc: SchemaDoc, s: SchemaObject, value: Record<string, unknown>): boolean {
  for (const key of s.required ?? []) if (!Object.hasOwn(value, key)) return false;
  for (const [key, v] of Object.entries(value)) {
    let matched = false;
    const prop = s.properties?.[key];
    if (prop !== undefined && Object.hasOwn(s.properties!, key)) {
      matched = true;
      if (!conforms(doc, prop, v)) return false;
    }
    for (const [pattern, sub] of Object.entries(s.patternProperties ?? {})) {
      if (!regex(pattern).test(key)) continue;
      matched = true;
      if (!conforms(doc, sub, v)) return false;
    }
    if (!matched && s.additionalProperties !== undefined && !conforms(doc, s.additionalProperties, v))
      return false;
  }
  return true;
}

function arrayOk(doc: SchemaDoc, s: SchemaObject, value: unknown[]): boolean {
  if (s.minItems !== undefined && value.length < s.minItems) return false;
  if (s.maxItems !== undefined && value.length > s.maxItems) return false;
  const items = s.items;
  return items === undefined || value.every((v) => conforms(doc, items, v));
}

export function stringOk(s: SchemaObject, value: string): boolean {
  // ajv counts code points, not UTF-16 units.
  const length = [...value].length;
  if (s.minLength !== undefined && length < s.minLength) return false;
  if (s.maxLength !== undefined && length > s.maxLength) return false;
  if (s.pattern !== undefined && !regex(s.pattern).test(value)) return false;
  return s.format === undefined || formatAccepts(s.format, value);
}

export function numberOk(s: SchemaObject, value: number): boolean {
  if (s.minimum !== undefined && value < s.minimum) return false;
  if (s.maximum !== undefined && value > s.maximum) return false;
  if (s.exclusiveMinimum !== undefined && value <= s.exclusiveMinimum) return false;
  return s.exclusiveMaximum === undefined || value < s.exclusiveMaximum;
}
