/** Making a self-contained schema (its own `$defs`, `$ref: "#"`) part of a contract's definitions. */

import { escapePointer, isObject } from "../protocol/load.js";
import { identifierToken, typeNamesOf } from "../util/mangle.js";
import { own, record, setOwn } from "../util/records.js";

/**
 * One schema made local to `prefix`: its `$defs`/`definitions` (and any other place a `#/...` reference
 * points to) become definitions `<prefix><Name>`, references read `#/$defs/<that name>`, `#` the schema itself.
 */
export function hoistSchema(
  schema: unknown,
  prefix: string,
): { root: unknown; defs: Record<string, unknown> } {
  if (!isObject(schema)) return { root: schema, defs: record() };
  const defs = record<unknown>();
  const named = new Map<string, string>();
  const taken = new Set<string>([prefix]);
  const keysOf = (v: unknown) => (isObject(v) ? Object.keys(v) : []);
  /** The schema's own definitions' names in type names (`point`, `Point` and `po-int` kept apart). */
  const local = typeNamesOf([...keysOf(schema.$defs), ...keysOf(schema.definitions)]);
  const nameFor = (ref: string): string => {
    const known = named.get(ref);
    if (known) return known;
    const path = ref
      .slice(2)
      .split("/")
      .map((t) => decodeURIComponent(t).replaceAll("~1", "/").replaceAll("~0", "~"));
    let target: unknown = schema;
    for (const step of path)
      target = isObject(target) || Array.isArray(target) ? own(target, step) : undefined;
    if (target === undefined) throw new Error(`dangling $ref ${JSON.stringify(ref)}`);
    const base =
      path.length === 2 && (path[0] === "$defs" || path[0] === "definitions")
        ? `${prefix}${local.get(path[1]!)!}`
        : `${prefix}$${path.map(identifierToken).join("$")}`;
    let name = base;
    for (let i = 2; taken.has(name); i++) name = `${base}${i}`;
    taken.add(name);
    named.set(ref, name);
    defs[name] = rewrite(target, true);
    return name;
  };
  const rewrite = (node: unknown, top = false): unknown => {
    if (Array.isArray(node)) return node.map((x) => rewrite(x));
    if (!isObject(node)) return node;
    const out = record<unknown>();
    for (const [k, v] of Object.entries(node)) {
      if (top && (k === "$defs" || k === "definitions" || k === "$schema")) continue;
      if (k === "$ref" && typeof v === "string") {
        if (v === "#") out[k] = `#/$defs/${escapePointer(prefix)}`;
        else if (v.startsWith("#/")) out[k] = `#/$defs/${escapePointer(nameFor(v))}`;
        else throw new Error(`$ref ${JSON.stringify(v)} points outside the schema`);
      } else setOwn(out, k, rewrite(v));
    }
    return out;
  };
  const root = rewrite(schema, true);
  return { root, defs };
}
