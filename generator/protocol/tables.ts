/**
 * The few facts the schema does not state. One entry each, with the reason. The generator records which
 * entries it used; `checkTables` fails a run over every known version when an entry matches nothing, so
 * a table never outlives the schema quirk it papers over.
 */

export interface TableEntry<T> {
  key: string;
  value: T;
  why: string;
}

/** Request definition → result definition, where `<X>Request` has no `<X>Result`. */
export const RESULT_OF: TableEntry<string>[] = [
  {
    key: "PingRequest",
    value: "EmptyResult",
    why: "ping is answered with an empty result; no PingResult exists",
  },
  { key: "SetLevelRequest", value: "EmptyResult", why: "logging/setLevel returns an empty result" },
  { key: "SubscribeRequest", value: "EmptyResult", why: "resources/subscribe returns an empty result" },
  { key: "UnsubscribeRequest", value: "EmptyResult", why: "resources/unsubscribe returns an empty result" },
];

/**
 * Method → capability path, where the rule in model.ts (first method segment names the capability, a
 * matching sub-flag refines it) does not find the capability the spec text assigns.
 */
export const CAPABILITY_OF: TableEntry<string[]>[] = [
  {
    key: "completion/complete",
    value: ["completions"],
    why: "the capability is spelled `completions`, the method segment `completion`",
  },
  {
    key: "resources/unsubscribe",
    value: ["resources", "subscribe"],
    why: "unsubscribing is offered exactly where subscribing is",
  },
  {
    key: "notifications/resources/updated",
    value: ["resources", "subscribe"],
    why: "update notifications are sent only for subscriptions",
  },
  { key: "notifications/message", value: ["logging"], why: "log message notifications belong to `logging`" },
];

/** Definition → handler name, where the naming rule would mislead. */
export const HANDLER_NAME: TableEntry<string>[] = [
  {
    key: "ClientNotification",
    value: "onCancelled",
    why: "from 2026-07-28 the client's only notification (cancelled) is declared inline as ClientNotification",
  },
];

/** Requests whose handler exceptions are reported inside the result rather than as a JSON-RPC error. */
export const ERROR_AS_RESULT: TableEntry<"isError">[] = [
  {
    key: "tools/call",
    value: "isError",
    why: "tool execution errors belong in CallToolResult (isError) so the model sees them; lookup errors stay protocol errors",
  },
];

/** Error codes the spec text assigns but the schema does not define, keyed by the method that uses them. */
export const ERROR_CODE_OF: TableEntry<{ name: string; code: number }>[] = [
  {
    key: "resources/read",
    value: { name: "RESOURCE_NOT_FOUND", code: -32002 },
    why: "server/resources (Error Handling): an unknown resource SHOULD be answered with -32002",
  },
];

/**
 * Corrections to a published schema.json where it contradicts the specification's own schema.ts (from
 * which schema.json is generated). Applied to the parsed document before anything else reads it; the
 * ajv differential test checks the validators against the corrected document. Key: `Definition/property`.
 */
export const SCHEMA_FIXES: TableEntry<{
  definition: string;
  /** The property whose subtree is fixed; without one, the whole definition. */
  property?: string;
  from: string[];
  to: string[];
}>[] = [
  {
    key: "ElicitResult/content",
    value: {
      definition: "ElicitResult",
      property: "content",
      from: ["string", "integer", "boolean"],
      to: ["string", "number", "boolean"],
    },
    why: "schema.ts types form answers as string | number | boolean | string[]; schema.json narrowed number to integer, which refuses answers like 95.5 that the conformance suite sends",
  },
  {
    key: "JSONValue",
    value: {
      definition: "JSONValue",
      from: ["string", "integer", "boolean"],
      to: ["string", "number", "boolean", "null"],
    },
    why: "schema.ts declares JSONValue as string | number | boolean | null | JSONObject | JSONArray; schema.json's scalar branch lost null and narrowed number to integer, which refuses a null or 0.5 anywhere a JSON value may go",
  },
];

export const TABLES = {
  RESULT_OF,
  CAPABILITY_OF,
  HANDLER_NAME,
  ERROR_AS_RESULT,
  ERROR_CODE_OF,
  SCHEMA_FIXES,
} as const;

/**
 * Applies SCHEMA_FIXES to a parsed schema document in place: within `definition`'s `property` subtree
 * (or the whole definition), every `type` array equal to `from` becomes `to`. Returns the keys of the fixes that changed something.
 */
export function applySchemaFixes(doc: Record<string, unknown>): string[] {
  const defs = (doc.$defs ?? doc.definitions) as
    | Record<string, { properties?: Record<string, unknown> }>
    | undefined;
  const applied: string[] = [];
  for (const fix of SCHEMA_FIXES) {
    const definition = defs?.[fix.value.definition];
    const root = fix.value.property === undefined ? definition : definition?.properties?.[fix.value.property];
    let changed = false;
    const walk = (node: unknown): void => {
      if (Array.isArray(node)) node.forEach(walk);
      else if (node && typeof node === "object") {
        const n = node as Record<string, unknown>;
        if (Array.isArray(n.type) && JSON.stringify(n.type) === JSON.stringify(fix.value.from)) {
          n.type = [...fix.value.to];
          changed = true;
        }
        Object.values(n).forEach(walk);
      }
    };
    walk(root);
    if (changed) applied.push(fix.key);
  }
  return applied;
}

/** Entries never used across the given runs. Keys of `used` are `<TABLE>:<key>`. */
export function unusedTableEntries(used: Iterable<string>): string[] {
  const seen = new Set(used);
  const out: string[] = [];
  for (const [table, entries] of Object.entries(TABLES)) {
    for (const e of entries) if (!seen.has(`${table}:${e.key}`)) out.push(`${table}:${e.key}`);
  }
  return out;
}

/**
 * From this version on, arguments that fail a tool's inputSchema are a tool execution error (an
 * `isError` result the model can read and correct, SEP-1303); before it, the tools page lists invalid
 * arguments among the protocol errors (-32602). Served contracts answer by the negotiated version.
 */
export const TOOL_ARGUMENT_ERRORS_AS_RESULTS_SINCE = "2025-11-25";
