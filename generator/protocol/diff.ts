/**
 * What changed between two protocol models: methods, definitions, properties, capabilities and error
 * codes. Pure data in, pure data out (JSON-serialisable, every list sorted), so the same diff renders as
 * text, markdown or JSON and two runs over the same schemas are byte-identical.
 */

import type { Json, SchemaNode } from "./load.js";
import { childNodes, type MethodModel, type ProtocolModel, type Side } from "./model.js";

export interface MethodKey {
  method: string;
  kind: MethodModel["kind"];
  direction: MethodModel["direction"];
}

export interface FieldChange {
  field: "params" | "result" | "capability";
  before: string | null;
  after: string | null;
}

export interface MethodChange extends MethodKey {
  changes: FieldChange[];
}

export interface PropertyChange {
  definition: string;
  /** Dotted path inside the definition; `[]` steps into array items, `*` into a map's values, "" is the definition itself. */
  path: string;
  before?: string;
  after?: string;
  /** For an added property: whether it is required (a required addition breaks older senders). */
  required?: boolean;
}

export interface CapabilityChange {
  side: Side;
  path: string;
}

export interface ErrorCode {
  definition: string;
  code: number;
}

export interface ErrorCodeChange {
  definition: string;
  before: number;
  after: number;
}

export interface DiffSummary {
  methodsAdded: number;
  methodsRemoved: number;
  methodsChanged: number;
  definitionsAdded: number;
  definitionsRemoved: number;
  propertiesAdded: number;
  propertiesRemoved: number;
  propertiesRetyped: number;
  madeRequired: number;
  madeOptional: number;
  capabilitiesAdded: number;
  capabilitiesRemoved: number;
  errorCodesAdded: number;
  errorCodesRemoved: number;
  errorCodesChanged: number;
  total: number;
}

export interface ProtocolDiff {
  from: { protocolVersion: string; sha256: string };
  to: { protocolVersion: string; sha256: string };
  methods: { added: MethodKey[]; removed: MethodKey[]; changed: MethodChange[] };
  definitions: { added: string[]; removed: string[] };
  properties: {
    added: PropertyChange[];
    removed: PropertyChange[];
    retyped: PropertyChange[];
    madeRequired: PropertyChange[];
    madeOptional: PropertyChange[];
  };
  capabilities: { added: CapabilityChange[]; removed: CapabilityChange[] };
  errorCodes: { added: ErrorCode[]; removed: ErrorCode[]; changed: ErrorCodeChange[] };
  summary: DiffSummary;
}

export function diffModels(from: ProtocolModel, to: ProtocolModel): ProtocolDiff {
  const methods = diffMethods(from, to);
  const defsFrom = definitionMap(from);
  const defsTo = definitionMap(to);
  const definitions = {
    added: [...defsTo.keys()].filter((n) => !defsFrom.has(n)).sort(cmp),
    removed: [...defsFrom.keys()].filter((n) => !defsTo.has(n)).sort(cmp),
  };
  const properties = diffProperties(defsFrom, defsTo);
  const capabilities = diffCapabilities(defsFrom, defsTo);
  const errorCodes = diffErrorCodes(defsFrom, defsTo);
  const counts = {
    methodsAdded: methods.added.length,
    methodsRemoved: methods.removed.length,
    methodsChanged: methods.changed.length,
    definitionsAdded: definitions.added.length,
    definitionsRemoved: definitions.removed.length,
    propertiesAdded: properties.added.length,
    propertiesRemoved: properties.removed.length,
    propertiesRetyped: properties.retyped.length,
    madeRequired: properties.madeRequired.length,
    madeOptional: properties.madeOptional.length,
    capabilitiesAdded: capabilities.added.length,
    capabilitiesRemoved: capabilities.removed.length,
    errorCodesAdded: errorCodes.added.length,
    errorCodesRemoved: errorCodes.removed.length,
    errorCodesChanged: errorCodes.changed.length,
  };
  return {
    from: { protocolVersion: from.protocolVersion, sha256: from.schemaSha256 },
    to: { protocolVersion: to.protocolVersion, sha256: to.schemaSha256 },
    methods,
    definitions,
    properties,
    capabilities,
    errorCodes,
    summary: { ...counts, total: Object.values(counts).reduce((a, b) => a + b, 0) },
  };
}

const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

type Defs = ReadonlyMap<string, SchemaNode>;

function definitionMap(model: ProtocolModel): Defs {
  return new Map(model.definitions.map((d) => [d.name, d.schema]));
}

// ---- methods ----

// A method sent both ways (ping, progress, cancelled) is one entry per direction, as in the model.
const methodId = (m: MethodKey): string => `${m.kind} ${m.method} ${m.direction}`;

const methodKey = (m: MethodModel): MethodKey => ({ method: m.method, kind: m.kind, direction: m.direction });

const compareMethods = (a: MethodKey, b: MethodKey): number =>
  cmp(a.method, b.method) || cmp(a.direction, b.direction) || cmp(a.kind, b.kind);

function diffMethods(from: ProtocolModel, to: ProtocolModel): ProtocolDiff["methods"] {
  const before = new Map(from.methods.map((m) => [methodId(m), m]));
  const after = new Map(to.methods.map((m) => [methodId(m), m]));
  const changed: MethodChange[] = [];
  for (const [id, a] of before) {
    const b = after.get(id);
    if (!b) continue;
    const changes = methodFields(a).flatMap(([field, x], i): FieldChange[] => {
      const y = methodFields(b)[i]![1];
      return x === y ? [] : [{ field, before: x, after: y }];
    });
    if (changes.length > 0) changed.push({ ...methodKey(a), changes });
  }
  return {
    added: to.methods
      .filter((m) => !before.has(methodId(m)))
      .map(methodKey)
      .sort(compareMethods),
    removed: from.methods
      .filter((m) => !after.has(methodId(m)))
      .map(methodKey)
      .sort(compareMethods),
    changed: changed.sort(compareMethods),
  };
}

/** What a method's signature is made of, each as a comparable string. */
function methodFields(m: MethodModel): [FieldChange["field"], string | null][] {
  return [
    ["params", m.params ? [m.params.definition, ...m.params.path].join(".") : null],
    ["result", m.result],
    ["capability", m.capability ? `${m.capability.side}: ${m.capability.path.join(".")}` : null],
  ];
}

// ---- properties ----

interface PropertyFacts {
  type: string;
  required: boolean;
  /** The object path it was found under; "" for the definition's own properties. */
  container: string;
}

interface Walked {
  props: Map<string, PropertyFacts>;
  /** Paths whose inline object was walked; a `$ref` is never walked. */
  containers: Set<string>;
}

function diffProperties(defsFrom: Defs, defsTo: Defs): ProtocolDiff["properties"] {
  const out: ProtocolDiff["properties"] = {
    added: [],
    removed: [],
    retyped: [],
    madeRequired: [],
    madeOptional: [],
  };
  for (const [definition, a] of defsFrom) {
    const b = defsTo.get(definition);
    if (!b) continue;
    const rootBefore = typeSummary(a);
    const rootAfter = typeSummary(b);
    // A union definition (ContentBlock, …) changes by its members, which only the root summary shows.
    if (rootBefore !== rootAfter)
      out.retyped.push({ definition, path: "", before: rootBefore, after: rootAfter });
    const x = walkProperties(a);
    const y = walkProperties(b);
    // Only the topmost addition or removal is reported: its children come and go with it.
    const bothWalked = (container: string) => x.containers.has(container) && y.containers.has(container);
    for (const [path, p] of x.props) {
      const q = y.props.get(path);
      if (!q) {
        if (bothWalked(p.container)) out.removed.push({ definition, path, before: p.type });
        continue;
      }
      if (p.type !== q.type) out.retyped.push({ definition, path, before: p.type, after: q.type });
      if (!p.required && q.required) out.madeRequired.push({ definition, path });
      if (p.required && !q.required) out.madeOptional.push({ definition, path });
    }
    for (const [path, q] of y.props) {
      if (!x.props.has(path) && bothWalked(q.container)) {
        out.added.push({ definition, path, after: q.type, required: q.required });
      }
    }
  }
  const byPlace = (p: PropertyChange, q: PropertyChange) =>
    cmp(p.definition, q.definition) || cmp(p.path, q.path);
  for (const list of Object.values(out)) list.sort(byPlace);
  return out;
}

/** Every property reachable through inline objects (and inline array items / map values), never through a `$ref`. */
function walkProperties(root: SchemaNode): Walked {
  const walked: Walked = { props: new Map(), containers: new Set() };
  const visit = (node: SchemaNode, container: string) => {
    walked.containers.add(container);
    const required = requiredOf(node);
    for (const [name, child] of Object.entries(objectProperties(node))) {
      const path = container === "" ? name : `${container}.${name}`;
      walked.props.set(path, { type: typeSummary(child), required: required.has(name), container });
      for (const [inner, suffix] of inlineContainers(child)) visit(inner, `${path}${suffix}`);
    }
  };
  visit(root, "");
  return walked;
}

/** The node's own properties plus those of its inline `allOf` branches (an intersection has them all). */
function objectProperties(node: SchemaNode): Record<string, SchemaNode> {
  const merged: Record<string, SchemaNode> = { ...node.properties };
  for (const branch of node.allOf ?? []) {
    if (!branch.ref) Object.assign(merged, objectProperties(branch));
  }
  return merged;
}

function requiredOf(node: SchemaNode): Set<string> {
  const names = new Set(node.required ?? []);
  for (const branch of node.allOf ?? []) {
    if (!branch.ref) for (const n of requiredOf(branch)) names.add(n);
  }
  return names;
}

/** Inline objects under a property worth walking, with the path suffix that leads into them. */
function inlineContainers(node: SchemaNode, suffix = ""): [SchemaNode, string][] {
  if (node.ref) return [];
  const found: [SchemaNode, string][] = [];
  if (Object.keys(objectProperties(node)).length > 0) found.push([node, suffix]);
  if (node.items) found.push(...inlineContainers(node.items, `${suffix}[]`));
  const values = node.additionalProperties;
  if (values && values.bool === undefined) found.push(...inlineContainers(values, `${suffix}.*`));
  return found;
}

/** A short, stable description of what a schema accepts: `string | integer`, `array<ref X>`, `"2.0"`. */
export function typeSummary(node: SchemaNode): string {
  if (node.bool !== undefined) return node.bool ? "unknown" : "never";
  const parts: string[] = [];
  if (node.ref) parts.push(`ref ${node.ref}`);
  const own = ownType(node);
  if (own) parts.push(own);
  if (node.anyOf) parts.push(union(node.anyOf));
  if (node.oneOf) parts.push(union(node.oneOf));
  for (const branch of node.allOf ?? []) parts.push(typeSummary(branch));
  if (parts.length === 0) return "unknown";
  return parts.length === 1 ? parts[0]! : parts.map((p) => (p.includes(" | ") ? `(${p})` : p)).join(" & ");
}

function union(branches: SchemaNode[]): string {
  // Sorted so that reordering a union's members is not reported as a change.
  return [...new Set(branches.map(typeSummary))].sort(cmp).join(" | ");
}

function ownType(node: SchemaNode): string | undefined {
  if (node.hasConst) return literal(node.const ?? null);
  if (node.enum) return [...node.enum.map(literal)].sort(cmp).join(" | ");
  const types = node.type ?? (node.properties ? ["object" as const] : []);
  if (types.length === 0) return undefined;
  return types
    .map((t) => {
      if (t === "array") return `array<${node.items ? typeSummary(node.items) : "unknown"}>`;
      if (t === "string" && node.format) return `string (${node.format})`;
      if (t === "object" && !node.properties && node.additionalProperties?.bool === undefined) {
        return node.additionalProperties ? `record<${typeSummary(node.additionalProperties)}>` : "object";
      }
      return t;
    })
    .join(" | ");
}

const literal = (value: Json): string => JSON.stringify(value);

// ---- capabilities ----

const CAPABILITY_ROOTS: [Side, string][] = [
  ["server", "ServerCapabilities"],
  ["client", "ClientCapabilities"],
];

function diffCapabilities(defsFrom: Defs, defsTo: Defs): ProtocolDiff["capabilities"] {
  const added: CapabilityChange[] = [];
  const removed: CapabilityChange[] = [];
  for (const [side, root] of CAPABILITY_ROOTS) {
    const before = capabilityPaths(defsFrom, root);
    const after = capabilityPaths(defsTo, root);
    for (const path of after) if (!before.has(path)) added.push({ side, path });
    for (const path of before) if (!after.has(path)) removed.push({ side, path });
  }
  const order = (a: CapabilityChange, b: CapabilityChange) => cmp(a.side, b.side) || cmp(a.path, b.path);
  return { added: added.sort(order), removed: removed.sort(order) };
}

/** Dotted paths of every named capability, following `$ref`s (capabilities moved into definitions in 2026). */
function capabilityPaths(defs: Defs, root: string): Set<string> {
  const paths = new Set<string>();
  const visit = (node: SchemaNode | undefined, prefix: string, seen: ReadonlySet<string>) => {
    for (const [name, child] of Object.entries(resolveProperties(node, defs).props)) {
      const path = prefix === "" ? name : `${prefix}.${name}`;
      paths.add(path);
      const { refs } = resolveProperties(child, defs);
      // A definition already on the way down would recurse forever (JSONValue-style cycles).
      if (!refs.some((r) => seen.has(r))) visit(child, path, new Set([...seen, ...refs]));
    }
  };
  visit(defs.get(root), "", new Set([root]));
  return paths;
}

/** Properties of a node after following `$ref`s and `allOf`, with the definitions followed. */
function resolveProperties(
  node: SchemaNode | undefined,
  defs: Defs,
  followed: string[] = [],
): { props: Record<string, SchemaNode>; refs: string[] } {
  const props: Record<string, SchemaNode> = { ...node?.properties };
  if (node?.ref && !followed.includes(node.ref)) {
    followed.push(node.ref);
    Object.assign(props, resolveProperties(defs.get(node.ref), defs, followed).props);
  }
  for (const branch of node?.allOf ?? [])
    Object.assign(props, resolveProperties(branch, defs, followed).props);
  return { props, refs: followed };
}

// ---- error codes ----

function diffErrorCodes(defsFrom: Defs, defsTo: Defs): ProtocolDiff["errorCodes"] {
  const before = errorCodes(defsFrom);
  const after = errorCodes(defsTo);
  const added: ErrorCode[] = [];
  const removed: ErrorCode[] = [];
  const changed: ErrorCodeChange[] = [];
  for (const definition of new Set([...before.keys(), ...after.keys()])) {
    const x = before.get(definition) ?? [];
    const y = after.get(definition) ?? [];
    // One code on each side that differs is a renumbering; anything else is additions and removals.
    if (x.length === 1 && y.length === 1 && x[0] !== y[0]) {
      changed.push({ definition, before: x[0]!, after: y[0]! });
      continue;
    }
    for (const code of y) if (!x.includes(code)) added.push({ definition, code });
    for (const code of x) if (!y.includes(code)) removed.push({ definition, code });
  }
  const order = (a: { definition: string; code?: number }, b: { definition: string; code?: number }) =>
    cmp(a.definition, b.definition) || (a.code ?? 0) - (b.code ?? 0);
  return { added: added.sort(order), removed: removed.sort(order), changed: changed.sort(order) };
}

/** Definition → the numeric `const`s of every `code` property inside it (inline, not through refs). */
function errorCodes(defs: Defs): Map<string, number[]> {
  const found = new Map<string, number[]>();
  for (const [name, schema] of defs) {
    const codes = new Set<number>();
    const visit = (node: SchemaNode) => {
      const code = node.properties?.code;
      if (code?.hasConst && typeof code.const === "number") codes.add(code.const);
      for (const child of childNodes(node)) visit(child);
    };
    visit(schema);
    if (codes.size > 0)
      found.set(
        name,
        [...codes].sort((a, b) => a - b),
      );
  }
  return found;
}

// ---- rendering ----

const EMPTY = "no differences";

const methodLine = (m: MethodKey): string => `${m.kind} ${m.method} (${m.direction})`;
const fieldLine = (c: FieldChange): string => `${c.field} ${c.before ?? "none"} → ${c.after ?? "none"}`;
const place = (p: PropertyChange): string => (p.path === "" ? p.definition : `${p.definition}.${p.path}`);
const capabilityLine = (c: CapabilityChange): string => `${c.side}: ${c.path}`;

function summaryLine(s: DiffSummary): string {
  return [
    `methods +${s.methodsAdded} -${s.methodsRemoved} ~${s.methodsChanged}`,
    `definitions +${s.definitionsAdded} -${s.definitionsRemoved}`,
    `properties +${s.propertiesAdded} -${s.propertiesRemoved} ~${s.propertiesRetyped + s.madeRequired + s.madeOptional}`,
    `capabilities +${s.capabilitiesAdded} -${s.capabilitiesRemoved}`,
    `error codes +${s.errorCodesAdded} -${s.errorCodesRemoved} ~${s.errorCodesChanged}`,
  ].join(", ");
}

/** Grouped listing: `+` added, `-` removed, `~` changed. */
export function renderText(diff: ProtocolDiff): string {
  const lines = [`MCP schema ${diff.from.protocolVersion} → ${diff.to.protocolVersion}`];
  if (diff.summary.total === 0) return `${lines[0]}: ${EMPTY}\n`;
  lines.push(summaryLine(diff.summary));
  const section = (title: string, body: string[]) => {
    if (body.length > 0) lines.push("", `${title}:`, ...body.map((l) => `  ${l}`));
  };
  const { methods, definitions, properties, capabilities, errorCodes: codes } = diff;
  section("Methods", [
    ...methods.added.map((m) => `+ ${methodLine(m)}`),
    ...methods.removed.map((m) => `- ${methodLine(m)}`),
    ...methods.changed.map((m) => `~ ${methodLine(m)}: ${m.changes.map(fieldLine).join("; ")}`),
  ]);
  section("Definitions", [
    ...definitions.added.map((d) => `+ ${d}`),
    ...definitions.removed.map((d) => `- ${d}`),
  ]);
  section("Properties", [
    ...properties.added.map((p) => `+ ${place(p)}: ${p.after}${p.required ? " (required)" : ""}`),
    ...properties.removed.map((p) => `- ${place(p)}: ${p.before}`),
    ...properties.retyped.map((p) => `~ ${place(p)}: ${p.before} → ${p.after}`),
    ...properties.madeRequired.map((p) => `~ ${place(p)}: optional → required`),
    ...properties.madeOptional.map((p) => `~ ${place(p)}: required → optional`),
  ]);
  section("Capabilities", [
    ...capabilities.added.map((c) => `+ ${capabilityLine(c)}`),
    ...capabilities.removed.map((c) => `- ${capabilityLine(c)}`),
  ]);
  section("Error codes", [
    ...codes.added.map((e) => `+ ${e.definition}: ${e.code}`),
    ...codes.removed.map((e) => `- ${e.definition}: ${e.code}`),
    ...codes.changed.map((e) => `~ ${e.definition}: ${e.before} → ${e.after}`),
  ]);
  return `${lines.join("\n")}\n`;
}

/** Inline code in a table cell: a `|` would end the cell even inside backticks (GFM). */
const code = (s: string): string => `\`${s.replaceAll("|", "\\|")}\``;

function table(head: string[], rows: string[][]): string[] {
  return [
    `| ${head.join(" | ")} |`,
    `|${head.map(() => "---").join("|")}|`,
    ...rows.map((r) => `| ${r.join(" | ")} |`),
  ];
}

/** Headed sections with tables, for release notes and pull requests. */
export function renderMarkdown(diff: ProtocolDiff): string {
  const title = `# MCP schema ${diff.from.protocolVersion} → ${diff.to.protocolVersion}`;
  if (diff.summary.total === 0) return `${title}\n\n${EMPTY}\n`;
  const out = [title, "", summaryLine(diff.summary)];
  const section = (heading: string, body: string[]) => {
    if (body.length > 0) out.push("", `## ${heading}`, "", ...body);
  };
  const { methods, definitions, properties, capabilities, errorCodes: codes } = diff;
  const methodRow = (change: string, m: MethodKey, details = ""): string[] => [
    change,
    code(m.method),
    m.kind,
    m.direction,
    details,
  ];
  const methodRows = [
    ...methods.added.map((m) => methodRow("added", m)),
    ...methods.removed.map((m) => methodRow("removed", m)),
    ...methods.changed.map((m) =>
      methodRow(
        "changed",
        m,
        m.changes
          .map((c) => `${c.field} ${code(c.before ?? "none")} → ${code(c.after ?? "none")}`)
          .join("; "),
      ),
    ),
  ];
  section(
    "Methods",
    methodRows.length ? table(["change", "method", "kind", "direction", "details"], methodRows) : [],
  );
  section("Definitions", [
    ...definitions.added.map((d) => `- added ${code(d)}`),
    ...definitions.removed.map((d) => `- removed ${code(d)}`),
  ]);
  const propRow = (change: string, p: PropertyChange, before?: string, after?: string): string[] => [
    change,
    code(place(p)),
    before === undefined ? "" : code(before),
    after === undefined ? "" : code(after),
  ];
  const propRows = [
    ...properties.added.map((p) => propRow(p.required ? "added (required)" : "added", p, undefined, p.after)),
    ...properties.removed.map((p) => propRow("removed", p, p.before)),
    ...properties.retyped.map((p) => propRow("retyped", p, p.before, p.after)),
    ...properties.madeRequired.map((p) => propRow("made required", p, "optional", "required")),
    ...properties.madeOptional.map((p) => propRow("made optional", p, "required", "optional")),
  ];
  section("Properties", propRows.length ? table(["change", "property", "before", "after"], propRows) : []);
  section("Capabilities", [
    ...capabilities.added.map((c) => `- added ${c.side}: ${code(c.path)}`),
    ...capabilities.removed.map((c) => `- removed ${c.side}: ${code(c.path)}`),
  ]);
  const codeRows = [
    ...codes.added.map((e) => ["added", code(e.definition), "", String(e.code)]),
    ...codes.removed.map((e) => ["removed", code(e.definition), String(e.code), ""]),
    ...codes.changed.map((e) => ["changed", code(e.definition), String(e.before), String(e.after)]),
  ];
  section("Error codes", codeRows.length ? table(["change", "definition", "before", "after"], codeRows) : []);
  return `${out.join("\n")}\n`;
}
