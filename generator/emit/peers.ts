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

export function emitPeers(model: ProtocolModel): Record<string, string> {
  const docs = new Map(model.definitions.map((d) => [d.name, d.description]));
  const view = (m: MethodModel) => ({
    method: m.method,
    handler: m.handler,
    doc: summary(docs.get(m.definition)),
    params: m.params ? `T.${m.definition}["params"]` : "undefined",
    required: m.paramsRequired,
    result: m.result ? `T.${m.result}` : "void",
  });
  const pick = (kind: MethodModel["kind"], direction: MethodModel["direction"]) =>
    userMethods(model, direction)
      .filter((m) => m.kind === kind)
      .map(view);

  // The client calls ping itself; initialize belongs to connect().
  const methods = model.methods
    .filter((m) => m.kind === "request" && m.direction === "client-to-server" && m.method !== "initialize")
    .map(view);
  const clash = methods.find((m) => CLIENT_MEMBERS.has(m.handler));
  if (clash)
    throw new Error(`client method ${clash.handler} (${clash.method}) would shadow a runtime Client member`);

  const errorCodes = model.errorCodes;
  const resourceNotFound = errorCodes.find((e) => e.name === "RESOURCE_NOT_FOUND")?.name;

  return {
    "server.ts": renderTemplate("server.ts", {
      version: model.protocolVersion,
      requests: pick("request", "client-to-server"),
      notifications: pick("notification", "client-to-server"),
      errorCodes,
      resourceNotFound,
    }),
    "client.ts": renderTemplate("client.ts", {
      version: model.protocolVersion,
      requests: pick("request", "server-to-client"),
      notifications: pick("notification", "server-to-client"),
      methods,
    }),
  };
}

/** The first paragraph of a description, on one line, safe inside a doc comment. */
function summary(description: string | undefined): string {
  if (!description) return "";
  return description
    .split("\n\n")[0]!
    .replace(/\s*\n\s*/g, " ")
    .replaceAll("*/", "*\\/");
}
