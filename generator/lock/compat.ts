/**
 * Whether a server's contract still fits the clients generated from its lock: each change between two
 * locks, classified **breaking** (a call or a result that worked may now fail) or **compatible**.
 *
 * Arguments are judged by what the new schema accepts compared with the old (a removed type or enum value,
 * a new bound, pattern or format, a new required argument, `additionalProperties: false` — breaking;
 * the opposite — compatible). Outputs are judged the other way round, since the client checks them
 * against the old schema: a new value the old schema rejects is breaking, and so is a property removed
 * (clients read it). Like generator/protocol/diff.ts, properties are followed through inline objects and array
 * items; `$ref`s are followed into the schema's own `$defs`. Keywords compared only as a whole (`anyOf`,
 * `oneOf`, `allOf`, anything unknown) count as breaking when they differ: no proof of compatibility.
 */

import { canonicalJson } from "../contract/load.js";
import { isObject } from "../protocol/load.js";
import { own } from "../util/records.js";
import { type ContractLock, itemKey, LOCK_KINDS, type LockKind } from "./lock.js";
import { compareSkills } from "./skills.js";

export type Level = "breaking" | "compatible";

export interface ContractChange {
  level: Level;
  kind: LockKind | "skills";
  /** The tool's, prompt's or template's name; a resource's URI; a skill's `SKILL.md` URI. */
  name: string;
  /** What changed, in words: `new required argument "c"`. */
  change: string;
}

export interface ContractComparison {
  breaking: number;
  compatible: number;
  changes: ContractChange[];
}

type Raw = Record<string, unknown>;
const same = (a: unknown, b: unknown) => canonicalJson(a) === canonicalJson(b);
const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

const SINGULAR: Record<LockKind | "skills", string> = {
  tools: "tool",
  prompts: "prompt",
  resources: "resource",
  resourceTemplates: "resource template",
  skills: "skill",
};
/** The order changes are reported in. */
const KINDS: readonly (LockKind | "skills")[] = [...LOCK_KINDS, "skills"];

/** Changes from `before` (the lock) to `after` (the live server), sorted by kind, name, level. */
export function compareLocks(before: ContractLock, after: ContractLock): ContractComparison {
  const changes: ContractChange[] = [];
  for (const kind of LOCK_KINDS) {
    const old = new Map(before[kind].map((i) => [itemKey(kind, i), i]));
    const now = new Map(after[kind].map((i) => [itemKey(kind, i), i]));
    const push = (name: string, level: Level, change: string) => changes.push({ level, kind, name, change });
    for (const [name, item] of old) {
      const next = now.get(name);
      if (!next) push(name, "breaking", `${SINGULAR[kind]} removed`);
      else if (item.sha256 !== next.sha256)
        for (const c of compareItem(kind, item.definition, next.definition)) push(name, c.level, c.change);
    }
    for (const name of now.keys()) if (!old.has(name)) push(name, "compatible", `new ${SINGULAR[kind]}`);
  }
  for (const c of compareSkills(before.skills ?? [], after.skills ?? []))
    changes.push({ level: c.level, kind: "skills", name: c.uri, change: c.change });
  const order = (c: ContractChange) => KINDS.indexOf(c.kind);
  changes.sort(
    (a, b) => order(a) - order(b) || cmp(a.name, b.name) || cmp(a.level, b.level) || cmp(a.change, b.change),
  );
  return {
    breaking: changes.filter((c) => c.level === "breaking").length,
    compatible: changes.filter((c) => c.level === "compatible").length,
    changes,
  };
}

interface Found {
  level: Level;
  change: string;
}

/** The changes of one item's definition. */
export function compareItem(kind: LockKind, before: Raw, after: Raw): Found[] {
  const found: Found[] = [];
  const handled = new Set<string>();
  if (kind === "tools") {
    handled.add("inputSchema").add("outputSchema");
    found.push(...compareSchemas(before.inputSchema ?? {}, after.inputSchema ?? {}, "input"));
    if (before.outputSchema !== undefined && after.outputSchema === undefined)
      found.push({
        level: "breaking",
        change: "outputSchema removed (structured output no longer promised)",
      });
    else if (before.outputSchema === undefined && after.outputSchema !== undefined)
      found.push({ level: "compatible", change: "outputSchema added" });
    else if (before.outputSchema !== undefined)
      found.push(...compareSchemas(before.outputSchema, after.outputSchema, "output"));
  }
  if (kind === "prompts") {
    handled.add("arguments");
    found.push(...comparePromptArguments(before.arguments, after.arguments));
  }
  if (kind === "resourceTemplates" && !same(before.uriTemplate, after.uriTemplate)) {
    handled.add("uriTemplate");
    found.push({
      level: "breaking",
      change: `uriTemplate changed: ${JSON.stringify(before.uriTemplate)} → ${JSON.stringify(after.uriTemplate)}`,
    });
  }
  if (kind === "resources") handled.add("uri");
  for (const key of [...new Set([...Object.keys(before), ...Object.keys(after)])].sort(cmp)) {
    if (handled.has(key) || same(own(before, key), own(after, key))) continue;
    // The rest describes the item (title, description, annotations, icons, mimeType, _meta): calls still work.
    found.push({ level: "compatible", change: `${key} changed` });
  }
  return found;
}

function comparePromptArguments(before: unknown, after: unknown): Found[] {
  const list = (v: unknown) =>
    new Map((Array.isArray(v) ? v.filter(isObject) : []).map((a) => [String(a.name), a]));
  const old = list(before);
  const now = list(after);
  const found: Found[] = [];
  for (const [name, a] of old) {
    const b = now.get(name);
    if (!b) found.push({ level: "breaking", change: `argument "${name}" removed` });
    else {
      if (a.required !== true && b.required === true)
        found.push({ level: "breaking", change: `argument "${name}" is now required` });
      if (a.required === true && b.required !== true)
        found.push({ level: "compatible", change: `argument "${name}" is now optional` });
      if (!same(a.description, b.description) || !same(a.title, b.title))
        found.push({ level: "compatible", change: `argument "${name}": description changed` });
    }
  }
  for (const [name, b] of now) {
    if (!old.has(name))
      found.push(
        b.required === true
          ? { level: "breaking", change: `new required argument "${name}"` }
          : { level: "compatible", change: `new optional argument "${name}"` },
      );
  }
  return found;
}

type Role = "input" | "output";

const ANNOTATIONS = new Set(["description", "title", "default", "examples", "deprecated", "$comment"]);
const HANDLED = new Set([
  ...ANNOTATIONS,
  "type",
  "enum",
  "const",
  "properties",
  "required",
  "additionalProperties",
  "items",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "minLength",
  "maxLength",
  "minItems",
  "maxItems",
  "pattern",
  "format",
  "$ref",
  "$defs",
  "definitions",
  "$schema",
]);

/** Upper bounds: a smaller value (or a new one) accepts less. */
const UPPER = ["maximum", "exclusiveMaximum", "maxLength", "maxItems"];
/** Lower bounds: a larger value (or a new one) accepts less. */
const LOWER = ["minimum", "exclusiveMinimum", "minLength", "minItems"];

const typesOf = (node: Raw): Set<string> | undefined =>
  typeof node.type === "string"
    ? new Set([node.type])
    : Array.isArray(node.type)
      ? new Set(node.type.map(String))
      : undefined;

/** `integer` is a part of `number`: a type removed only when no remaining type covers it. */
const covered = (type: string, types: Set<string>) =>
  types.has(type) || (type === "integer" && types.has("number"));

/**
 * Changes between two versions of one schema. For inputs, `narrow` means the new schema accepts less
 * (breaking); for outputs the roles swap: the client's old schema must accept whatever the new one allows.
 */
export function compareSchemas(before: unknown, after: unknown, role: Role): Found[] {
  const found: Found[] = [];
  const rootOld = isObject(before) ? before : {};
  const rootNew = isObject(after) ? after : {};
  const seen = new Set<string>();
  const deref = (node: unknown, root: Raw): Raw => {
    let n = node;
    for (let i = 0; i < 32 && isObject(n) && typeof n.$ref === "string"; i++) {
      const m = /^#\/(\$defs|definitions)\/(.+)$/.exec(n.$ref);
      const defs = m ? root[m[1]!] : undefined;
      const target =
        m && isObject(defs)
          ? own(defs, decodeURIComponent(m[2]!).replaceAll("~1", "/").replaceAll("~0", "~"))
          : n.$ref === "#"
            ? root
            : undefined;
      if (target === undefined) break;
      const { $ref: _, ...siblings } = n;
      n = Object.keys(siblings).length ? { ...(target as Raw), ...siblings } : target;
    }
    return isObject(n) ? n : n === false ? { not: {} } : {};
  };
  const noun = role === "input" ? "argument" : "output property";
  const label = (path: string) =>
    path === "" ? (role === "input" ? "arguments" : "output") : `${noun} "${path}"`;
  /** A change that accepts less (`narrowed`) or more, judged for the role. */
  const judge = (acceptsLess: boolean, change: string) =>
    found.push({ level: acceptsLess === (role === "input") ? "breaking" : "compatible", change });

  /** References being followed on the way here: a recursive schema is followed round its cycle once. */
  const following = new Set<string>();
  const visit = (a0: unknown, b0: unknown, path: string) => {
    const pair = `${canonicalJson(a0)}\u0000${canonicalJson(b0)}`;
    const key = `${path}\u0000${pair}`;
    if (seen.has(key)) return;
    seen.add(key);
    const isRef = (n: unknown) => isObject(n) && n.$ref !== undefined;
    if (!isRef(a0) && !isRef(b0)) return compareNodes(a0, b0, path);
    if (following.has(pair)) return;
    following.add(pair);
    compareNodes(a0, b0, path);
    following.delete(pair);
  };
  const compareNodes = (a0: unknown, b0: unknown, path: string) => {
    const a = deref(a0, rootOld);
    const b = deref(b0, rootNew);
    const where = label(path);

    const ta = typesOf(a);
    const tb = typesOf(b);
    if (ta && tb) {
      const removed = [...ta].filter((t) => !covered(t, tb));
      const added = [...tb].filter((t) => !covered(t, ta));
      // Inputs break when a type is no longer accepted; outputs when a type may now be produced.
      if (removed.length || added.length)
        found.push({
          level: (role === "input" ? removed : added).length > 0 ? "breaking" : "compatible",
          change: `${where}: type ${[...ta].join(" | ")} → ${[...tb].join(" | ")}`,
        });
    } else if (!ta && tb) judge(true, `${where}: now restricted to type ${[...tb].join(", ")}`);
    else if (ta && !tb) judge(false, `${where}: type restriction removed`);

    if (Array.isArray(a.enum) || Array.isArray(b.enum)) {
      const ea = Array.isArray(a.enum) ? a.enum.map((v) => canonicalJson(v)) : undefined;
      const eb = Array.isArray(b.enum) ? b.enum.map((v) => canonicalJson(v)) : undefined;
      if (!ea) judge(true, `${where}: now restricted to ${eb!.join(", ")}`);
      else if (!eb) judge(false, `${where}: enum removed`);
      else {
        const removed = ea.filter((v) => !eb.includes(v));
        const added = eb.filter((v) => !ea.includes(v));
        if (removed.length) judge(true, `${where}: enum value ${removed.join(", ")} removed`);
        if (added.length) judge(false, `${where}: enum value ${added.join(", ")} added`);
      }
    }
    if (!same(a.const, b.const)) {
      if (a.const === undefined) judge(true, `${where}: now must equal ${canonicalJson(b.const)}`);
      else if (b.const === undefined) judge(false, `${where}: const removed`);
      else found.push({ level: "breaking", change: `${where}: const changed` });
    }
    for (const k of UPPER) {
      if (same(a[k], b[k])) continue;
      const x = a[k] as number | undefined;
      const y = b[k] as number | undefined;
      judge(y !== undefined && (x === undefined || y < x), `${where}: ${k} ${x ?? "none"} → ${y ?? "none"}`);
    }
    for (const k of LOWER) {
      if (same(a[k], b[k])) continue;
      const x = a[k] as number | undefined;
      const y = b[k] as number | undefined;
      judge(y !== undefined && (x === undefined || y > x), `${where}: ${k} ${x ?? "none"} → ${y ?? "none"}`);
    }
    for (const k of ["pattern", "format"]) {
      if (same(a[k], b[k])) continue;
      if (a[k] === undefined) judge(true, `${where}: new ${k} ${JSON.stringify(b[k])}`);
      else if (b[k] === undefined) judge(false, `${where}: ${k} removed`);
      else found.push({ level: "breaking", change: `${where}: ${k} changed to ${JSON.stringify(b[k])}` });
    }

    // Objects: properties, required, additionalProperties.
    const pa = isObject(a.properties) ? a.properties : {};
    const pb = isObject(b.properties) ? b.properties : {};
    const ra = new Set(Array.isArray(a.required) ? a.required.map(String) : []);
    const rb = new Set(Array.isArray(b.required) ? b.required.map(String) : []);
    const closedA = a.additionalProperties === false;
    const closedB = b.additionalProperties === false;
    const sub = (name: string) => (path === "" ? name : `${path}.${name}`);
    for (const name of Object.keys(pa).sort(cmp)) {
      if (Object.hasOwn(pb, name)) continue;
      if (role === "output") found.push({ level: "breaking", change: `${label(sub(name))} removed` });
      else judge(closedB, `${label(sub(name))} removed${closedB ? "" : " (no longer declared)"}`);
    }
    for (const name of Object.keys(pb).sort(cmp)) {
      if (Object.hasOwn(pa, name)) continue;
      const what = `new ${rb.has(name) ? "required" : "optional"} ${noun} "${sub(name)}"`;
      // Inputs: only a required one stops old calls. Outputs: only a closed old schema refuses it.
      if (role === "input") found.push({ level: rb.has(name) ? "breaking" : "compatible", change: what });
      else found.push({ level: closedA ? "breaking" : "compatible", change: what });
    }
    for (const name of [...rb].sort(cmp))
      if (!ra.has(name) && Object.hasOwn(pa, name)) judge(true, `${label(sub(name))} is now required`);
    for (const name of [...ra].sort(cmp))
      if (!rb.has(name) && Object.hasOwn(pb, name)) judge(false, `${label(sub(name))} is now optional`);
    // Own keys only: a property may be named `constructor` or `toString`.
    for (const name of Object.keys(pa).sort(cmp))
      if (Object.hasOwn(pb, name)) visit(pa[name], pb[name], sub(name));
    if (!same(a.additionalProperties, b.additionalProperties)) {
      if (closedB) judge(true, `${where}: additionalProperties now false`);
      else if (closedA && b.additionalProperties === undefined)
        judge(false, `${where}: additionalProperties no longer false`);
      else if (isObject(a.additionalProperties) && isObject(b.additionalProperties))
        visit(a.additionalProperties, b.additionalProperties, `${path}.*`);
      else found.push({ level: "breaking", change: `${where}: additionalProperties changed` });
    }
    if (a.items !== undefined || b.items !== undefined) {
      if (a.items !== undefined && b.items !== undefined) visit(a.items, b.items, `${path}[]`);
      else if (b.items === undefined) judge(false, `${where}: items no longer constrained`);
      else judge(true, `${where}: items now constrained`);
    }
    const annotations = [...ANNOTATIONS].filter((k) => !same(a[k], b[k]));
    if (annotations.length)
      found.push({ level: "compatible", change: `${where}: ${annotations.join(", ")} changed` });
    for (const k of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort(cmp)) {
      if (HANDLED.has(k) || same(own(a, k), own(b, k))) continue;
      found.push({ level: "breaking", change: `${where}: ${k} changed (not analysed; assumed breaking)` });
    }
  };
  visit(rootOld, rootNew, "");
  return found;
}

/** The comparison as lines for people: one block per item, breaking first. */
export function renderComparison(c: ContractComparison): string {
  if (c.changes.length === 0) return "no changes: the server matches the lock\n";
  const lines: string[] = [];
  let current = "";
  for (const change of c.changes) {
    const head = `${SINGULAR[change.kind]} ${change.name}`;
    if (head !== current) {
      lines.push(head);
      current = head;
    }
    lines.push(`  ${change.level === "breaking" ? "BREAKING  " : "compatible"} ${change.change}`);
  }
  lines.push(`${c.breaking} breaking, ${c.compatible} compatible`);
  return `${lines.join("\n")}\n`;
}
