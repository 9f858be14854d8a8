/**
 * protocol.ts: the version string, the lifecycle style and the method tables (method → direction,
 * handler name, params/result validators, gating capability), as values for the runtime and as
 * interfaces for the compiler. Tables follow the schema's four unions, so a method sent both ways
 * (ping, progress, cancelled) has one entry per direction.
 */

import { renderTemplate } from "../output/templates.js";
import type { MethodModel, ProtocolModel } from "../protocol/model.js";
import { checkName, paramsCheckName } from "../protocol/naming.js";
import { group, print } from "./layout.js";

const TABLES = [
  {
    name: "clientRequests",
    typeName: "ClientRequests",
    kind: "request",
    direction: "client-to-server",
    doc: "Requests a client sends and a server handles.",
  },
  {
    name: "serverRequests",
    typeName: "ServerRequests",
    kind: "request",
    direction: "server-to-client",
    doc: "Requests a server sends and a client handles.",
  },
  {
    name: "clientNotifications",
    typeName: "ClientNotifications",
    kind: "notification",
    direction: "client-to-server",
    doc: "Notifications a client sends.",
  },
  {
    name: "serverNotifications",
    typeName: "ServerNotifications",
    kind: "notification",
    direction: "server-to-client",
    doc: "Notifications a server sends.",
  },
] as const;

export function emitProtocol(model: ProtocolModel): Record<string, string> {
  const defs = new Map(model.definitions.map((d) => [d.name, d.schema]));
  const entry = (m: MethodModel) => {
    const message = defs.get(m.definition)!;
    if (!message.properties || message.ref || message.anyOf || message.allOf || message.oneOf) {
      // The params check reads the message's own `params` property.
      throw new Error(`${message.pointer}: message ${m.definition} is not a plain object schema`);
    }
    return {
      method: m.method,
      direction: m.direction,
      handler: m.handler,
      paramsCheck: paramsCheckName(m.definition),
      result: m.result ? checkName(m.result) : null,
      resultType: m.result,
      delivery: m.delivery,
      paramsType: m.params ? `${m.definition}["params"]` : "undefined",
      capability: m.capability
        ? `{ side: ${JSON.stringify(m.capability.side)}, path: [${m.capability.path.map((p) => JSON.stringify(p)).join(", ")}], leaf: ${JSON.stringify(m.capability.leaf)} }`
        : "null",
      errorAsResult: m.errorAsResult,
      inputRequired: m.inputRequired,
      cacheable: m.cacheable,
    };
  };
  const tables = TABLES.map((t) => ({
    ...t,
    entries: model.methods.filter((m) => m.kind === t.kind && m.direction === t.direction).map(entry),
  }));
  const supported = model.supportedVersions.map(
    (v) => `{ version: ${JSON.stringify(v.version)}, batches: ${v.batches} }`,
  );
  const text = renderTemplate("protocol.ts", {
    version: model.protocolVersion,
    lifecycle: model.lifecycle,
    legacy: model.legacy?.protocolVersion,
    supported: print(group("[", supported, "]")),
    tables,
  });
  return { "protocol.ts": text };
}
