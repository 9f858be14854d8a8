/**
 * server.ts and client.ts: typed handler interfaces for each side, `createServer` / `createClient`, and the
 * client's typed request methods. Messages the runtime answers itself (initialize, ping, cancellation,
 * progress) get no handler.
 */

import { RUNTIME_METHODS } from "../../runtime/protocol.js";
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

/**
 * Every method with a handler in a side's generated interface, the handshake-era-only
 * methods of a dual-era version included (what `generate` compares across versions for stubs).
 */
export function interfaceMethods(model: ProtocolModel, direction: MethodModel["direction"]): MethodModel[] {
  const own = userMethods(model, direction);
  const inputs =
    direction === "server-to-client"
      ? model.methods.filter(
          (m) => m.kind === "request" && m.direction === direction && m.delivery === "input",
        )
      : [];
  const legacyOnly = model.legacy
    ? userMethods(model.legacy, direction).filter((m) => !model.methods.some((n) => n.method === m.method))
    : [];
  return [...own, ...inputs, ...legacyOnly];
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
  const dualView = (m: MethodModel, older: MethodModel | undefined, inputRequired: boolean) => {
    const modern = view(m);
    if (!older) return modern;
    const old = typeOf(older, "L");
    return {
      ...modern,
      params: `${modern.params} | ${old.params}`,
      result: `${modern.result} | ${old.result}${inputRequired ? " | T.InputRequiredResult" : ""}`,
    };
  };
  const handlersOf = (kind: MethodModel["kind"], direction: MethodModel["direction"]) => {
    const modern = userMethods(model, direction).filter((m) => m.kind === kind);
    if (!legacy) return modern.map((m) => view(m));
    const older = new Map(
      userMethods(legacy, direction)
        .filter((m) => m.kind === kind)
        .map((m) => [m.method, m]),
    );
    return [
      ...modern.map((m) => dualView(m, older.get(m.method), m.inputRequired)),
      ...[...older.values()]
        .filter((m) => !modern.some((n) => n.method === m.method))
        .map((m) => ({ ...view(m, "L"), legacyOnly: true })),
    ];
  };
  // Requests a server makes of the client, through ctx: JSON-RPC requests, or input requests (MRTR).
  const inputs = model.methods
    .filter(
      (m) => m.kind === "request" && m.direction === "server-to-client" && !RUNTIME_METHODS.has(m.method),
    )
    .map((m) => view(m));
  const clientInputs = legacy
    ? [
        ...model.methods
          .filter((m) => m.kind === "request" && m.direction === "server-to-client" && m.delivery === "input")
          .map((m) => view(m)),
        ...userMethods(legacy, "server-to-client")
          .filter((m) => m.kind === "request" && !model.methods.some((n) => n.method === m.method))
          .map((m) => ({ ...view(m, "L"), legacyOnly: true })),
      ]
    : handlersOf("request", "server-to-client");

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
      requests: clientInputs,
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
