/** index.ts: one import path for a version's types, validators and tables. */

import { renderTemplate } from "../output/templates.js";
import type { ProtocolModel } from "../protocol/model.js";
import { schemaName } from "../protocol/naming.js";
import { handlerResults } from "./peers.js";

/** Names protocol.ts, server.ts and client.ts export; a definition of the same name would make the re-exports ambiguous. */
const PROTOCOL_EXPORTS = [
  "PROTOCOL_VERSION",
  "LIFECYCLE",
  "protocol",
  "clientRequests",
  "serverRequests",
  "clientNotifications",
  "serverNotifications",
  "ClientRequests",
  "ServerRequests",
  "ClientNotifications",
  "ServerNotifications",
  "SUPPORTED_VERSIONS",
  "ServerContext",
  "ServerHandlers",
  "CreateServerOptions",
  "McpServer",
  "createServer",
  "errors",
  "notImplemented",
  "RESOURCE_NOT_FOUND",
  "ClientContext",
  "ClientHandlers",
  "ClientMethods",
  "McpClient",
  "CreateClientOptions",
  "createClient",
];

export function emitIndex(model: ProtocolModel): Record<string, string> {
  const taken = new Set(model.definitions.flatMap((d) => [d.name, schemaName(d.name)]));
  const clash = PROTOCOL_EXPORTS.find((n) => taken.has(n));
  if (clash) throw new Error(`definition name ${clash} collides with a protocol.ts export`);
  // server.ts names each handler's result type after the protocol result it stands for. index.ts keeps
  // the protocol's (what the method tables and the client return), by name: an ambiguous `export *`
  // would be an error. Handlers import theirs from server.ts.
  const defined = new Set(model.definitions.map((d) => d.name));
  const results = handlerResults(model)
    .map((r) => r.name)
    .filter((n) => defined.has(n));
  return { "index.ts": renderTemplate("index.ts", { results: results.join(", ") }) };
}
