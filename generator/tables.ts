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

export const TABLES = { RESULT_OF, CAPABILITY_OF, HANDLER_NAME, ERROR_AS_RESULT, ERROR_CODE_OF } as const;

/** Entries never used across the given runs. Keys of `used` are `<TABLE>:<key>`. */
export function unusedTableEntries(used: Iterable<string>): string[] {
  const seen = new Set(used);
  const out: string[] = [];
  for (const [table, entries] of Object.entries(TABLES)) {
    for (const e of entries) if (!seen.has(`${table}:${e.key}`)) out.push(`${table}:${e.key}`);
  }
  return out;
}
