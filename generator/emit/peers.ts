/**
 * server.ts and client.ts: typed handler interfaces for each side, `createServer` / `createClient`, and the
 * client's typed request methods. Messages the runtime answers itself (initialize, ping, cancellation,
 * progress) get no handler.
 */

import { FILLED_RESULT_MEMBERS, RUNTIME_METHODS } from "@mcp-codegen/runtime";
import { renderTemplate } from "../output/templates.js";
import { commentText, stringLiteral } from "../protocol/escape.js";
import type { SchemaNode } from "../protocol/load.js";
import type { MethodModel, ProtocolModel } from "../protocol/model.js";

/** Members of the runtime Client that typed methods must not shadow. */
const CLIENT_MEMBERS = new Set([
  "connect",
  "close",
  "request",
  "notify",
  "capabilities",
  "protocol",
  "options",
  "serverDescription",
  "protocolVersion",
]);

/** The messages a side's handler interface covers: sent by the other side, not answered by the runtime. */
export function userMethods(model: ProtocolModel, direction: MethodModel["direction"]): MethodModel[] {
  return model.methods.filter(
    (m) => m.direction === direction && m.delivery === "message" && !RUNTIME_METHODS.has(m.method),
  );
}

/** A method of a side's generated handler interface, with its older-era twin in a dual-era version. */
interface HandlerEntry {
  method: MethodModel;
  /** The same message in the embedded handshake era (its handler takes either era's params). */
  older?: MethodModel;
  /** Only the handshake era has it: typed by that era alone. */
  legacyOnly?: boolean;
}

/**
 * The handlers of a side's generated interface: the messages the other side sends that no runtime
 * answers (server→client input requests of the stateless era included), each paired with its older-era
 * twin; then, in a dual-era version, the handshake era's own.
 */
function handlerEntries(model: ProtocolModel, direction: MethodModel["direction"]): HandlerEntry[] {
  const own = model.methods.filter(
    (m) =>
      m.direction === direction &&
      !RUNTIME_METHODS.has(m.method) &&
      (m.delivery === "message" || m.kind === "request"),
  );
  if (!model.legacy) return own.map((method) => ({ method }));
  const key = (m: MethodModel) => `${m.kind} ${m.method}`;
  const older = new Map(userMethods(model.legacy, direction).map((m) => [key(m), m]));
  const paired = own.map((method) => ({ method, older: older.get(key(method)) }));
  const legacyOnly = [...older.values()]
    .filter((m) => !own.some((n) => key(n) === key(m)))
    .map((method) => ({ method, legacyOnly: true }));
  return [...paired, ...legacyOnly];
}

/** Every method with a handler in a side's generated interface (what `generate` compares for stubs). */
export function interfaceMethods(model: ProtocolModel, direction: MethodModel["direction"]): MethodModel[] {
  return handlerEntries(model, direction).map((e) => e.method);
}

export function emitPeers(model: ProtocolModel): Record<string, string> {
  const legacy = model.legacy;
  const docs = new Map(
    [...(legacy?.definitions ?? []), ...model.definitions].map((d) => [d.name, d.description]),
  );
  const typeOf = (m: MethodModel, ns: string) => ({
    params: m.params ? `${ns}.${m.definition}["params"]` : "undefined",
    result: m.result ? `${ns}.${m.result}` : "void",
  });
  const view = (m: MethodModel, ns = "T") => ({
    method: m.method,
    handler: m.handler,
    doc: summary(docs.get(m.definition)),
    required: m.paramsRequired,
    ...typeOf(m, ns),
  });
  /**
   * A handler for a method both eras have takes either era's params and may return either era's result:
   * the union keeps what differs visible (a 2025 client sends no per-request `_meta`). Methods only the
   * older era has are typed by it alone. A request handler's result is the type server.ts exports under
   * the protocol result's name (see handlerResults).
   */
  const entryView = ({ method: m, older, legacyOnly }: HandlerEntry, side: "server" | "client") => {
    const returned = side === "server" && m.kind === "request" && m.result ? { result: m.result } : {};
    if (legacyOnly) return { ...view(m, "L"), ...returned, legacyOnly: true };
    const modern = { ...view(m), ...returned };
    if (!older) return modern;
    const old = typeOf(older, "L");
    return {
      ...modern,
      params: `${modern.params} | ${old.params}`,
      result: `${modern.result}${side === "client" ? ` | ${old.result}` : ""}${m.inputRequired ? " | T.InputRequiredResult" : ""}`,
    };
  };
  const handlersOf = (kind: MethodModel["kind"], direction: MethodModel["direction"]) =>
    handlerEntries(model, direction)
      .filter((e) => e.method.kind === kind)
      .map((e) => entryView(e, direction === "client-to-server" ? "server" : "client"));
  // Requests a server makes of the client, through ctx: JSON-RPC requests, or input requests (MRTR).
  const inputs = model.methods
    .filter(
      (m) => m.kind === "request" && m.direction === "server-to-client" && !RUNTIME_METHODS.has(m.method),
    )
    .map((m) => view(m));

  // initialize belongs to connect(), subscriptions/listen to listen(). In the stateless era the runtime
  // adds each request's `_meta`, so callers pass the params' own members only.
  const methods = model.methods
    .filter(
      (m) => m.kind === "request" && m.direction === "client-to-server" && !CONNECTION_METHODS.has(m.method),
    )
    .map((m) => {
      if (model.lifecycle !== "discover" || !m.params) return view(m);
      const keys = m.paramKeys.filter((k) => !STATELESS_KEYS.has(k));
      const own =
        keys.length > 0
          ? `Pick<T.${m.definition}["params"], ${keys.map((k) => stringLiteral(k)).join(" | ")}>`
          : "";
      return {
        ...view(m),
        params: own ? `${own} & CallMeta` : "CallMeta",
        required: m.requiredParamKeys.some((k) => !STATELESS_KEYS.has(k)),
      };
    });
  const clash = methods.find((m) => CLIENT_MEMBERS.has(m.handler));
  if (clash)
    throw new Error(`client method ${clash.handler} (${clash.method}) would shadow a runtime Client member`);

  const errorCodes = model.errorCodes;
  const resourceNotFound = errorCodes.find((e) => e.name === "RESOURCE_NOT_FOUND")?.name;

  return {
    "server.ts": renderTemplate("server.ts", {
      version: model.protocolVersion,
      legacy: legacy?.protocolVersion,
      results: handlerResults(model).map((r) => ({
        name: r.name,
        type: r.type,
        filled: r.filled.map((k) => `\`${k}\``).join(", "),
        exact: [...r.type.matchAll(/Returned<([\w.]+)/g)].map((m) => `\`${m[1]}\``).join(" | "),
        doc: summary(docs.get(r.name)),
      })),
      requests: handlersOf("request", "client-to-server"),
      notifications: handlersOf("notification", "client-to-server"),
      inputs,
      errorCodes,
      resourceNotFound,
      legacyResourceNotFound: legacy?.errorCodes.find((e) => e.name === "RESOURCE_NOT_FOUND")?.code,
      // From 2026-07-28 an unknown resource is invalid params, with the uri in `data` (SEP-2164).
      stateless: model.lifecycle === "discover",
    }),
    "client.ts": renderTemplate("client.ts", {
      version: model.protocolVersion,
      legacy: legacy?.protocolVersion,
      requests: handlersOf("request", "server-to-client"),
      notifications: handlersOf("notification", "server-to-client"),
      methods,
      stateless: model.lifecycle === "discover",
    }),
  };
}

/** A type server.ts exports for handlers to return: the protocol result as a handler writes it. */
export interface HandlerResult {
  /** The protocol result's name, which the handler-facing type takes. */
  name: string;
  /** `Returned<T.X, …>`, or the union of both eras' in a dual-era version. */
  type: string;
  /** Members the runtime fills in, optional in `type` (stateless era only). */
  filled: string[];
}

/**
 * The result types of ServerHandlers, one per protocol result a request handler returns: the protocol's
 * type with the members the runtime fills in optional and map values accepting undefined (the runtime's
 * `Returned`), so the object literals a handler naturally writes type-check; in a dual-era version the
 * union with the handshake era's. Named after the result, so `ListToolsResult` annotates a handler.
 */
export function handlerResults(model: ProtocolModel): HandlerResult[] {
  const out = new Map<string, HandlerResult>();
  for (const { method: m, older, legacyOnly } of handlerEntries(model, "client-to-server")) {
    if (m.kind !== "request" || !m.result) continue;
    const eras = legacyOnly
      ? [returned(model.legacy!, m, "L")]
      : [returned(model, m, "T"), ...(older?.result ? [returned(model.legacy!, older, "L")] : [])];
    const result = {
      name: m.result,
      type: eras.map((e) => e.type).join(" | "),
      filled: eras.flatMap((e) => e.filled),
    };
    const seen = out.get(result.name);
    if (seen && seen.type !== result.type)
      throw new Error(`handler result ${result.name} is typed two ways: ${seen.type} and ${result.type}`);
    out.set(result.name, result);
  }
  return [...out.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** One era's `Returned<ns.Result, filled>` for a method of `model`. */
function returned(model: ProtocolModel, m: MethodModel, ns: string): { type: string; filled: string[] } {
  const members = memberNames(model, m.result!);
  const candidates =
    model.lifecycle === "discover"
      ? [...FILLED_RESULT_MEMBERS.every, ...(m.cacheable ? FILLED_RESULT_MEMBERS.cacheable : [])]
      : [];
  const filled = candidates.filter((k) => members.has(k));
  const keys = filled.map((k) => stringLiteral(k)).join(" | ");
  return { type: `Returned<${ns}.${m.result}${keys ? `, ${keys}` : ""}>`, filled };
}

/** The property names of a definition, through `$ref` and `allOf`. */
function memberNames(model: ProtocolModel, name: string): Set<string> {
  const names = new Set<string>();
  const visit = (node: SchemaNode | undefined, seen: Set<string>): void => {
    if (!node) return;
    for (const key of Object.keys(node.properties ?? {})) names.add(key);
    for (const part of node.allOf ?? []) visit(part, seen);
    if (node.ref && !seen.has(node.ref)) {
      seen.add(node.ref);
      visit(model.definitions.find((d) => d.name === node.ref)?.schema, seen);
    }
  };
  visit(model.definitions.find((d) => d.name === name)?.schema, new Set([name]));
  return names;
}

/** Requests the runtime Client makes itself (connect) or offers in its own shape (listen()). */
const CONNECTION_METHODS = new Set(["initialize", "subscriptions/listen"]);

/** Params members the stateless runtime fills in itself: per-request `_meta` and the MRTR retry fields. */
const STATELESS_KEYS = new Set(["_meta", "inputResponses", "requestState"]);

/** The first paragraph of a description, on one line, safe inside a doc comment. */
function summary(description: string | undefined): string {
  if (!description) return "";
  return commentText(description.split("\n\n")[0]!.replace(/\s*\n\s*/g, " "));
}
