/**
 * validators.ts: one plain check function `check<Name>` per definition, plus `check<Message>$params` for
 * every method's message, which the method tables use. A check accepts exactly what the JSON Schema
 * accepts (the ajv differential test holds it to that, as it holds the zod schemas), returns `undefined`
 * for a valid value and otherwise every failure, up to the runtime's `MAX_FAILURES`, in the order the
 * checks run (below), and allocates nothing on success.
 * Constructs mirror emit/zod.ts: const/enum take precedence over type keywords; every other keyword
 * present must hold.
 *
 * Order: a node's own keywords first (type, then its type's keywords: for an object its properties by
 * name in code-unit order, `required` names it does not describe, other keys in the value's order, then
 * property counts, `dependentRequired`, `propertyNames`; an array's items by index), then `$ref`, `anyOf`,
 * `oneOf`, `allOf`, `not`, `if`. Failures accumulate in the local `r` (`add`); what cannot apply after a
 * failure is skipped (a wrong type's keywords, a missing property's schema, the pattern of a string too
 * long to run it on), and loops stop once `r` is `full`.
 */

import { renderTemplate } from "../output/templates.js";
import { dataLiteral, memberAccess, stringLiteral } from "../protocol/escape.js";
import { isOfType, isUnconstrained, type Json, type SchemaNode } from "../protocol/load.js";
import type { MethodModel, ProtocolModel } from "../protocol/model.js";
import { checkName, paramsCheckName } from "../protocol/naming.js";
import { DEFAULT_PATTERN_MAX_LENGTH } from "../util/backtracking.js";
import { identifierToken } from "../util/mangle.js";

export interface ValidatorOptions {
  /**
   * The longest string (in characters, code points) a `pattern` is run on when its schema sets no
   * `maxLength`: a longer one fails before the regular expression runs, so no string costs more than
   * this much backtracking (default `DEFAULT_PATTERN_MAX_LENGTH`; mcp-codegen.json `patternMaxLength`).
   */
  patternMaxLength?: number;
  /**
   * Patterns that backtrack catastrophically on strings shorter than `patternMaxLength`, each with the
   * longest string it may run on (`backtrackingRisk`'s `safeMaxLength`); where the schema sets no
   * `maxLength`, that bound applies instead (`generate` warns about each).
   */
  patternBounds?: ReadonlyMap<string, number>;
}

export function emitValidators(
  model: Pick<ProtocolModel, "definitions"> & { methods: readonly Pick<MethodModel, "definition">[] },
  options: ValidatorOptions = {},
): Record<string, string> {
  const module: Module = {
    hoisted: [],
    names: new Map(),
    helpers: new Set(["type Fail"]),
    functions: new Map(),
    patternMaxLength: options.patternMaxLength ?? DEFAULT_PATTERN_MAX_LENGTH,
    patternBounds: options.patternBounds ?? new Map(),
  };
  const defs = new Map(model.definitions.map((d) => [d.name, d.schema]));
  const params = [...new Set(model.methods.map((m) => m.definition))].sort().map((name) => {
    const message = defs.get(name)!;
    // A message without a params property accepts any params (the schema leaves them open).
    const node: SchemaNode = message.properties?.params ?? {
      pointer: `${message.pointer}/properties/params`,
    };
    const fn = paramsCheckName(name);
    module.functions.set(node.pointer, fn);
    return { fn, node, optional: !(message.required?.includes("params") ?? false) };
  });
  const functions: string[] = [];
  for (const def of [...model.definitions].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    functions.push(`export ${checkFunction(checkName(def.name), def.schema, module)}`);
  }
  for (const p of params) functions.push(`export ${checkFunction(p.fn, p.node, module, p.optional)}`);
  const text = renderTemplate("validators.ts", {
    helpers: [...module.helpers].sort((a, b) => bare(a).localeCompare(bare(b))).join(", "),
    hoisted: module.hoisted.join("\n"),
    functions: functions.join("\n\n"),
  });
  return { "validators.ts": text };
}

const bare = (helper: string) => helper.replace(/^type /, "");

interface Module {
  /** Module-level constants and functions (regexes, union branches, sets), in emission order. */
  hoisted: string[];
  /** Hoisted name → the pointer it was made for: a second pointer with the same name is a bug. */
  names: Map<string, string>;
  /** What the module imports from @mcp-codegen/runtime/codegen. */
  helpers: Set<string>;
  /** Nodes that have an exported function of their own (a message's params), by pointer. */
  functions: Map<string, string>;
  /** See `ValidatorOptions.patternMaxLength`. */
  patternMaxLength: number;
  /** See `ValidatorOptions.patternBounds`. */
  patternBounds: ReadonlyMap<string, number>;
}

/** Per-function state: local names are numbered within the function, which only it can see. */
interface Scope {
  module: Module;
  next: number;
  /** The function being written, which does not call itself for its own node. */
  self: string;
}

/** Lines of a function body, indented. */
class Lines {
  readonly out: string[] = [];
  depth = 1;
  line(text: string): void {
    this.out.push(`${"  ".repeat(this.depth)}${text}`);
  }
  block(open: string, body: () => void): void {
    this.line(open);
    this.depth++;
    body();
    this.depth--;
    this.line("}");
  }
}

function checkFunction(name: string, node: SchemaNode, module: Module, optional = false): string {
  const w = new Lines();
  const scope: Scope = { module, next: 0, self: name };
  if (optional) w.line("if (v === undefined) return undefined;");
  w.line("let r: Fail | undefined;");
  emitNode(node, "v", [], w, scope);
  w.line("return r;");
  return `function ${name}(v: unknown): Fail | undefined {\n${w.out.join("\n")}\n}`;
}

/** The path literal for `fail(..., path)`: JSON-quoted keys and index variables. */
const pathArg = (path: string[]): string => (path.length === 0 ? "" : `, [${path.join(", ")}]`);

/** The statement that adds a failure to the function's failures `r`. */
function failWith(message: string, path: string[], scope: Scope): string {
  scope.module.helpers.add("fail");
  scope.module.helpers.add("add");
  return `r = add(r, fail(${stringLiteral(message)}${pathArg(path)}));`;
}

/** `if (cond) <failure>`, then `body` (a node's checks that apply only when `cond` is false) under `else`. */
function unless(cond: string, failure: string, body: () => void, w: Lines): void {
  const start = w.out.length;
  w.depth++;
  body();
  w.depth--;
  const inner = w.out.splice(start);
  w.line(`if (${cond}) ${failure}`);
  if (inner.length === 0) return;
  w.line("else {");
  w.out.push(...inner);
  w.line("}");
}

/** The first line of a loop body over a value's parts: once `r` holds the most failures, stop. */
function stopWhenFull(w: Lines, scope: Scope): void {
  scope.module.helpers.add("full");
  w.line("if (r !== undefined && full(r)) return r;");
}

/** Runs `call` (a check on the value at `path`), adding its failures to the function's. */
function callCheck(call: string, path: string[], w: Lines, scope: Scope): void {
  const e = `e${scope.next++}`;
  scope.module.helpers.add("add");
  w.line(`const ${e} = ${call};`);
  if (path.length === 0) w.line(`if (${e} !== undefined) r = add(r, ${e});`);
  else {
    scope.module.helpers.add("at");
    w.line(`if (${e} !== undefined) r = add(r, at(${e}, ${path.join(", ")}));`);
  }
}

/** Statements that return a Fail when `v` (an identifier) does not match `node`, and fall through otherwise. */
function emitNode(node: SchemaNode, v: string, path: string[], w: Lines, scope: Scope): void {
  if (node.bool === true) return;
  if (node.bool === false) {
    w.line(failWith("No value is allowed here", path, scope));
    return;
  }
  const named = scope.module.functions.get(node.pointer);
  if (named !== undefined && named !== scope.self) {
    callCheck(`${named}(${v})`, path, w, scope);
    return;
  }
  emitTyped(node, v, path, w, scope);
  if (node.ref) callCheck(`${checkName(node.ref)}(${v})`, path, w, scope);
  if (node.anyOf) emitUnion("anyOf", node.anyOf, node, v, path, w, scope);
  if (node.oneOf) emitUnion("oneOf", node.oneOf, node, v, path, w, scope);
  for (const n of node.allOf ?? []) emitNode(n, v, path, w, scope);
  if (node.not) {
    const fn = branchFunction(node.not, scope);
    w.line(
      `if (${fn}(${v}) === undefined) ${failWith("Expected not to match the `not` schema", path, scope)}`,
    );
  }
  emitCondition(node, v, path, w, scope);
}

/** `if`/`then`/`else`: which of `then` and `else` applies depends on whether `if` holds. */
function emitCondition(node: SchemaNode, v: string, path: string[], w: Lines, scope: Scope): void {
  const then = node.then && constrains(node.then) ? node.then : undefined;
  const otherwise = node.else && constrains(node.else) ? node.else : undefined;
  if (!node.if || (!then && !otherwise)) return;
  const holds = `${branchFunction(node.if, scope)}(${v}) === undefined`;
  if (then && otherwise) {
    w.line(`if (${holds}) {`);
    w.depth++;
    emitNode(then, v, path, w, scope);
    w.depth--;
    w.block("} else {", () => emitNode(otherwise, v, path, w, scope));
  } else if (then) w.block(`if (${holds}) {`, () => emitNode(then, v, path, w, scope));
  else w.block(`if (!(${holds})) {`, () => emitNode(otherwise!, v, path, w, scope));
}

/** A check function for a union branch: the referenced definition's, or a hoisted one. */
function branchFunction(node: SchemaNode, scope: Scope): string {
  const onlyRef =
    node.ref !== undefined &&
    Object.keys(node).every((k) => k === "pointer" || k === "ref" || k === "description");
  if (onlyRef) return checkName(node.ref!);
  const name = hoistName("check", node.pointer, scope.module);
  scope.module.hoisted.push(checkFunction(name, node, scope.module));
  return name;
}

function emitUnion(
  kind: "anyOf" | "oneOf",
  branches: SchemaNode[],
  node: SchemaNode,
  v: string,
  path: string[],
  w: Lines,
  scope: Scope,
): void {
  if (branches.length === 1) {
    emitNode(branches[0]!, v, path, w, scope);
    return;
  }
  const fns = branches.map((b) => branchFunction(b, scope));
  const list = hoistName(kind, node.pointer, scope.module);
  scope.module.helpers.add("type Check");
  scope.module.hoisted.push(`const ${list}: readonly Check[] = [${fns.join(", ")}];`);
  scope.module.helpers.add(kind);
  callCheck(`${kind}(${v}, ${list})`, path, w, scope);
}

/** const/enum, or the type test and the keywords of each type. */
function emitTyped(node: SchemaNode, v: string, path: string[], w: Lines, scope: Scope): void {
  const allowed = (value: Json): boolean => !node.type || node.type.some((t) => isOfType(value, t));
  if (node.hasConst) {
    emitMembers(allowed(node.const!) ? [node.const!] : [], node, v, path, w, scope);
    return;
  }
  if (node.enum) {
    emitMembers(node.enum.filter(allowed), node, v, path, w, scope);
    return;
  }
  if (!node.type) return;
  // integer ⊂ number, and both take the same keywords: a list with both is just number.
  const types = node.type.includes("number") ? node.type.filter((t) => t !== "integer") : node.type;
  if (types.length === 1) {
    const t = types[0]!;
    unless(
      `!(${typeTest(t, v, scope)})`,
      failWith(`Expected ${t}`, path, scope),
      () => emitKeywords(t, node, v, path, w, scope),
      w,
    );
    return;
  }
  types.forEach((t, i) => {
    w.line(`${i === 0 ? "" : "} else "}if (${typeTest(t, v, scope)}) {`);
    w.depth++;
    emitKeywords(t, node, v, path, w, scope);
    w.depth--;
  });
  w.block("} else {", () => w.line(failWith(`Expected ${types.join(" or ")}`, path, scope)));
}

function emitMembers(
  members: Json[],
  node: SchemaNode,
  v: string,
  path: string[],
  w: Lines,
  scope: Scope,
): void {
  if (members.length === 0) {
    w.line(failWith("No value is allowed here", path, scope));
    return;
  }
  const message =
    members.length === 1
      ? `Expected ${JSON.stringify(members[0])}`
      : `Expected one of ${members.map((m) => JSON.stringify(m)).join(", ")}`;
  if (members.every((m) => m === null || typeof m !== "object")) {
    w.line(
      `if (${members.map((m) => `${v} !== ${dataLiteral(m)}`).join(" && ")}) ${failWith(message, path, scope)}`,
    );
    return;
  }
  const list = hoistName("members", node.pointer, scope.module);
  scope.module.hoisted.push(`const ${list}: readonly unknown[] = ${dataLiteral(members)};`);
  scope.module.helpers.add("inJson");
  w.line(`if (!inJson(${v}, ${list})) ${failWith(message, path, scope)}`);
}

function typeTest(type: string, v: string, scope: Scope): string {
  switch (type) {
    case "string":
      return `typeof ${v} === "string"`;
    case "number":
      return `typeof ${v} === "number" && Number.isFinite(${v})`;
    case "integer":
      return `typeof ${v} === "number" && Number.isInteger(${v})`;
    case "boolean":
      return `typeof ${v} === "boolean"`;
    case "null":
      return `${v} === null`;
    case "array":
      return `Array.isArray(${v})`;
    case "object":
      scope.module.helpers.add("isObject");
      return `isObject(${v})`;
    default:
      throw new Error(`unreachable type ${type}`);
  }
}

/** The keywords of one type, for a `v` already known to be of it. */
function emitKeywords(
  type: string,
  node: SchemaNode,
  v: string,
  path: string[],
  w: Lines,
  scope: Scope,
): void {
  switch (type) {
    case "string":
      emitString(node, v, path, w, scope);
      return;
    case "number":
    case "integer":
      for (const [key, op, words] of BOUNDS) {
        const bound = node[key];
        if (bound !== undefined)
          w.line(`if (${v} ${op} ${bound}) ${failWith(`Expected ${words} ${bound}`, path, scope)}`);
      }
      if (node.multipleOf !== undefined) {
        scope.module.helpers.add("isMultipleOf");
        w.line(
          `if (!isMultipleOf(${v}, ${node.multipleOf})) ${failWith(`Expected a multiple of ${node.multipleOf}`, path, scope)}`,
        );
      }
      return;
    case "array":
      emitArray(node, v, path, w, scope);
      return;
    case "object":
      emitObject(node, v, path, w, scope);
      return;
  }
}

const BOUNDS = [
  ["minimum", "<", "at least"],
  ["exclusiveMinimum", "<=", "more than"],
  ["maximum", ">", "at most"],
  ["exclusiveMaximum", ">=", "less than"],
] as const;

/**
 * Code-point length tests that count code points only when the UTF-16 length cannot decide (a string
 * has between length/2 and length code points): most strings are judged without reading them.
 */
const longerThan = (v: string, n: number) =>
  `${v}.length > ${n} && (${v}.length > ${2 * n} || codePoints(${v}) > ${n})`;
const shorterThan = (v: string, n: number) => `${v}.length < ${2 * n} && codePoints(${v}) < ${n}`;

function emitString(node: SchemaNode, v: string, path: string[], w: Lines, scope: Scope): void {
  if (node.minLength !== undefined || node.maxLength !== undefined) scope.module.helpers.add("codePoints");
  if (node.minLength !== undefined)
    w.line(
      `if (${shorterThan(v, node.minLength)}) ${failWith(`Expected at least ${node.minLength} characters`, path, scope)}`,
    );
  // `maxLength`, else the pattern limit, bounds what the expression (compiled once, at module level) runs
  // on: a longer string fails that bound and is not matched.
  const tooLong =
    node.maxLength !== undefined
      ? { cond: longerThan(v, node.maxLength), message: `Expected at most ${node.maxLength} characters` }
      : node.pattern !== undefined
        ? patternLimit(v, [node.pattern], "characters", scope)
        : undefined;
  if (tooLong !== undefined) {
    unless(
      tooLong.cond,
      failWith(tooLong.message, path, scope),
      () => {
        if (node.pattern === undefined) return;
        const re = hoistName("pattern", node.pointer, scope.module);
        scope.module.hoisted.push(`const ${re} = new RegExp(${stringLiteral(node.pattern)}, "u");`);
        w.line(`if (!${re}.test(${v})) ${failWith(`Expected to match ${node.pattern}`, path, scope)}`);
      },
      w,
    );
  }
  if (node.format !== undefined) {
    scope.module.helpers.add("formats");
    w.line(
      `if (!formats[${stringLiteral(node.format)}](${v})) ${failWith(`Invalid ${node.format}`, path, scope)}`,
    );
  }
}

/**
 * When a string (`what`: a value's characters, or a property name) is too long to run `patterns` on:
 * longer than `patternMaxLength`, or than the bound of a pattern that backtracks sooner.
 */
function patternLimit(
  v: string,
  patterns: readonly string[],
  what: string,
  scope: Scope,
): { cond: string; message: string } {
  const { patternMaxLength, patternBounds } = scope.module;
  const most = Math.min(patternMaxLength, ...patterns.map((p) => patternBounds.get(p) ?? patternMaxLength));
  scope.module.helpers.add("codePoints");
  return {
    cond: longerThan(v, most),
    message: `Expected at most ${most} ${what} (the most a pattern is checked on)`,
  };
}

function emitArray(node: SchemaNode, v: string, path: string[], w: Lines, scope: Scope): void {
  if (node.minItems !== undefined)
    w.line(
      `if (${v}.length < ${node.minItems}) ${failWith(`Expected at least ${node.minItems} items`, path, scope)}`,
    );
  if (node.maxItems !== undefined)
    w.line(
      `if (${v}.length > ${node.maxItems}) ${failWith(`Expected at most ${node.maxItems} items`, path, scope)}`,
    );
  if (node.uniqueItems) {
    scope.module.helpers.add("uniqueItems");
    callCheck(`uniqueItems(${v})`, path, w, scope);
  }
  const prefix = node.prefixItems ?? [];
  prefix.forEach((schema, index) => {
    if (!constrains(schema)) return;
    const x = `x${scope.next++}`;
    w.block(`if (${v}.length > ${index}) {`, () => {
      w.line(`const ${x}: unknown = ${v}[${index}];`);
      emitNode(schema, x, [...path, String(index)], w, scope);
    });
  });
  if (!node.items || !constrains(node.items)) return;
  if (node.items.bool === false) {
    const most = prefix.length;
    w.line(
      `if (${v}.length > ${most}) ${failWith(`Expected at most ${most} item${most === 1 ? "" : "s"}`, path, scope)}`,
    );
    return;
  }
  const i = `i${scope.next++}`;
  const x = `x${scope.next++}`;
  w.block(`for (let ${i} = ${prefix.length}; ${i} < ${v}.length; ${i}++) {`, () => {
    stopWhenFull(w, scope);
    w.line(`const ${x}: unknown = ${v}[${i}];`);
    emitNode(node.items!, x, [...path, i], w, scope);
  });
}

/** Names an Object.prototype member: read only when the object itself has it. */
const INHERITED = new Set(Object.getOwnPropertyNames(Object.prototype));

function emitObject(node: SchemaNode, v: string, path: string[], w: Lines, scope: Scope): void {
  emitObjectShape(node, v, path, w, scope);
  emitObjectKeywords(node, v, path, w, scope);
}

/** The whole-object keywords: property counts, `dependentRequired`, `propertyNames`. */
function emitObjectKeywords(node: SchemaNode, v: string, path: string[], w: Lines, scope: Scope): void {
  const { minProperties: min, maxProperties: max } = node;
  if (min !== undefined || max !== undefined) {
    scope.module.helpers.add("ownKeyCount");
    const n = `n${scope.next++}`;
    w.line(`const ${n} = ownKeyCount(${v});`);
    if (min !== undefined)
      w.line(
        `if (${n} < ${min}) ${failWith(`Expected at least ${min} propert${min === 1 ? "y" : "ies"}`, path, scope)}`,
      );
    if (max !== undefined)
      w.line(
        `if (${n} > ${max}) ${failWith(`Expected at most ${max} propert${max === 1 ? "y" : "ies"}`, path, scope)}`,
      );
  }
  for (const key of Object.keys(node.dependentRequired ?? {}).sort()) {
    const needed = node.dependentRequired![key]!.filter((d) => d !== key);
    if (needed.length === 0) continue;
    w.block(`if (Object.hasOwn(${v}, ${stringLiteral(key)})) {`, () => {
      for (const d of needed) {
        w.line(
          `if (!Object.hasOwn(${v}, ${stringLiteral(d)})) ${failWith(`Required (because ${stringLiteral(key)} is present)`, [...path, stringLiteral(d)], scope)}`,
        );
      }
    });
  }
  if (node.propertyNames && constrains(node.propertyNames)) {
    const fn = branchFunction(node.propertyNames, scope);
    const k = `k${scope.next++}`;
    const e = `e${scope.next++}`;
    scope.module.helpers.add("propertyName");
    scope.module.helpers.add("add");
    w.block(`for (const ${k} in ${v}) {`, () => {
      stopWhenFull(w, scope);
      w.line(`if (!Object.hasOwn(${v}, ${k})) continue;`);
      w.line(`const ${e} = ${fn}(${k});`);
      if (path.length === 0) w.line(`if (${e} !== undefined) r = add(r, propertyName(${e}, ${k}));`);
      else {
        scope.module.helpers.add("at");
        w.line(`if (${e} !== undefined) r = add(r, at(propertyName(${e}, ${k}), ${path.join(", ")}));`);
      }
    });
  }
}

/** `properties`, `required`, `patternProperties` and `additionalProperties`. */
function emitObjectShape(node: SchemaNode, v: string, path: string[], w: Lines, scope: Scope): void {
  const props = node.properties ?? {};
  const required = new Set(node.required ?? []);
  for (const key of Object.keys(props).sort()) {
    const schema = props[key]!;
    const isRequired = required.has(key);
    if (!isRequired && !constrains(schema)) continue;
    const p = `p${scope.next++}`;
    const access = memberAccess(v, key);
    w.line(
      INHERITED.has(key)
        ? `const ${p}: unknown = Object.hasOwn(${v}, ${stringLiteral(key)}) ? ${access} : undefined;`
        : `const ${p} = ${access};`,
    );
    const below = [...path, stringLiteral(key)];
    if (isRequired) {
      unless(
        `${p} === undefined`,
        failWith("Required", below, scope),
        () => emitNode(schema, p, below, w, scope),
        w,
      );
    } else {
      w.block(`if (${p} !== undefined) {`, () => emitNode(schema, p, below, w, scope));
    }
  }
  // `required` may name properties the object does not describe: present, with any value.
  for (const key of [...required].filter((k) => !Object.hasOwn(props, k)).sort()) {
    w.line(
      `if (!Object.hasOwn(${v}, ${stringLiteral(key)})) ${failWith("Required", [...path, stringLiteral(key)], scope)}`,
    );
  }
  const additional = node.additionalProperties;
  const open = additional === undefined || additional.bool === true || isUnconstrained(additional);
  const patterns = Object.entries(node.patternProperties ?? {});
  if (open && patterns.length === 0) return;

  // Only `properties` names are declared: a key that `required` alone names is still additional.
  const declared = Object.keys(props).sort();
  const k = `k${scope.next++}`;
  const x = `x${scope.next++}`;
  const known =
    declared.length === 0 ? "false" : declared.map((d) => `${k} === ${stringLiteral(d)}`).join(" || ");
  w.block(`for (const ${k} of Object.keys(${v})) {`, () => {
    stopWhenFull(w, scope);
    const below = [...path, k];
    if (patterns.length === 0) {
      w.line(`if (${known}) continue;`);
      if (additional!.bool === false) w.line(failWith("Unexpected property", below, scope));
      else {
        w.line(`const ${x} = ${v}[${k}];`);
        emitNode(additional!, x, below, w, scope);
      }
      return;
    }
    const m = `m${scope.next++}`;
    const limit = patternLimit(
      k,
      patterns.map(([source]) => source),
      "characters in a property name",
      scope,
    );
    w.block(`if (${limit.cond}) {`, () => {
      w.line(failWith(limit.message, below, scope));
      w.line("continue;");
    });
    w.line(`const ${x} = ${v}[${k}];`);
    w.line(`let ${m} = ${known};`);
    for (const [source, schema] of patterns) {
      const re = hoistName("pattern", `${node.pointer}/patternProperties/${source}`, scope.module);
      scope.module.hoisted.push(`const ${re} = new RegExp(${stringLiteral(source)}, "u");`);
      w.block(`if (${re}.test(${k})) {`, () => {
        w.line(`${m} = true;`);
        emitNode(schema, x, below, w, scope);
      });
    }
    if (open) return;
    w.line(`if (${m}) continue;`);
    if (additional!.bool === false) w.line(failWith("Unexpected property", below, scope));
    else emitNode(additional!, x, below, w, scope);
  });
}

/** Whether a schema can refuse anything (a `{}` or `true` accepts every value and needs no code). */
const constrains = (node: SchemaNode): boolean => node.bool !== true && !isUnconstrained(node);

/**
 * A module-level name for what sits at `pointer`: stable, since it depends on the position alone, and
 * distinct for distinct positions (identifierToken keeps `a-b` and `a_b` apart).
 */
function hoistName(kind: string, pointer: string, module: Module): string {
  const tokens = pointer
    .split("/")
    .slice(1)
    .filter((t, i) => !(i === 0 && (t === "definitions" || t === "$defs")))
    .map((t) => identifierToken(t.replaceAll("~1", "/").replaceAll("~0", "~")));
  const name = `${kind}$${tokens.join("$")}`;
  const owner = module.names.get(name);
  if (owner !== undefined && owner !== pointer)
    throw new Error(`${pointer}: hoisted name ${name} is taken by ${owner}`);
  module.names.set(name, pointer);
  return name;
}
