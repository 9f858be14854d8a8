/**
 * server.ts and client.ts: typed handler interfaces for each side, `createServer` / `createClient`, and the
 * client's typed request methods. Messages the runtime answers itself (initialize, ping, cancellation,
 * progress) get no handler.
 */

import { RUNTIME_METHODS } from "@mcp-codegen/runtime";
import type { MethodModel, ProtocolModel } from "../model.js";
import { renderTemplate } from "../templates.js";

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
   * older era has are typed by it alone.
   */
  const entryView = ({ method: m, older, legacyOnly }: HandlerEntry) => {
    if (legacyOnly) return { ...view(m, "L"), legacyOnly: true };
    const modern = view(m);
    if (!older) return modern;
    const old = typeOf(older, "L");
    return {
      ...modern,
      params: `${modern.params} | ${old.params}`,
      result: `${modern.result} | ${old.result}${m.inputRequired ? " | T.InputRequiredResult" : ""}`,
    };
  };
  const handlersOf = (kind: MethodModel["kind"], direction: MethodModel["direction"]) =>
    handlerEntries(model, direction)
      .filter((e) => e.method.kind === kind)
      .map(entryView);
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
          ? `Pick<T.${m.definition}["params"], ${keys.map((k) => JSON.stringify(k)).join(" | ")}>`
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

/** Requests the runtime Client makes itself (connect) or offers in its own shape (listen()). */
const CONNECTION_METHODS = new Set(["initialize", "subscriptions/listen"]);

/** Params members the stateless runtime fills in itself: per-request `_meta` and the MRTR retry fields. */
const STATELESS_KEYS = new Set(["_meta", "inputResponses", "requestState"]);

/** The first paragraph of a description, on one line, safe inside a doc comment. */
function summary(description: string | undefined): string {
  if (!description) return "";
  return description
    .split("\n\n")[0]!
    .replace(/\s*\n\s*/g, " ")
    .replaceAll("*/", "*\\/");
}
