/**
 * The client of the test's stateless session: 2026-07-28's tables (falling back to their legacy
 * handshake for an older server), plus `resources/directory/read`, the Skills extension's directory
 * listing, which the generated tables do not hold (the extension publishes no schema) and the runtime
 * client sends only through its tables. Its checks are written from the specification: params
 * `{ uri, cursor? }`, result `{ resources: [{ uri, name, … }], nextCursor? }`. The typed methods are the
 * generated client's: each request of the tables, named by its handler.
 */

import { DIRECTORY_READ } from "@mcp-codegen/runtime";
import { Client, type ClientOptions } from "@mcp-codegen/runtime/client";
import type { ProtocolTables } from "@mcp-codegen/runtime/codegen";
import type { McpClient } from "../../../generated/2025-11-25/client.js";
import { protocol } from "../../../generated/2026-07-28/protocol.js";

type Fail = { path: (string | number)[]; message: string };
const fail = (message: string, ...path: (string | number)[]): Fail => ({ path, message });
const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

function directoryParams(params: unknown): Fail | undefined {
  if (!isObject(params)) return fail("must be an object");
  if (typeof params.uri !== "string") return fail("must be a string", "uri");
  if (params.cursor !== undefined && typeof params.cursor !== "string")
    return fail("must be a string", "cursor");
  return undefined;
}

function directoryResult(result: unknown): Fail | undefined {
  if (!isObject(result)) return fail("must be an object");
  if (!Array.isArray(result.resources)) return fail("must be an array", "resources");
  for (const [i, r] of result.resources.entries()) {
    if (!isObject(r)) return fail("must be an object", "resources", i);
    if (typeof r.uri !== "string") return fail("must be a string", "resources", i, "uri");
    if (typeof r.name !== "string") return fail("must be a string", "resources", i, "name");
  }
  if (result.nextCursor !== undefined && typeof result.nextCursor !== "string")
    return fail("must be a string", "nextCursor");
  return undefined;
}

/** 2026-07-28's tables with `resources/directory/read` (gated by the caller on `directoryRead`). */
const tables: ProtocolTables = {
  ...protocol,
  clientRequests: {
    ...protocol.clientRequests,
    [DIRECTORY_READ]: {
      method: DIRECTORY_READ,
      direction: "client-to-server",
      handler: "readDirectory",
      params: directoryParams,
      result: directoryResult,
      delivery: "message",
      capability: null,
    },
  },
};

/** What a directory page holds. */
export interface DirectoryPage {
  resources: Record<string, unknown>[];
  nextCursor?: string;
}

/** The stateless session's client: the session's typed methods, and `readDirectory`. */
export type StatelessClient = McpClient & {
  readDirectory(params: { uri: string; cursor?: string }): Promise<DirectoryPage>;
};

export function createStatelessClient(options: ClientOptions): StatelessClient {
  const client = new Client(tables, options);
  const methods: Record<string, unknown> = {};
  for (const entry of Object.values(tables.clientRequests))
    methods[entry.handler] = (params: unknown, opts?: unknown) =>
      client.request(entry.method as never, params as never, opts as never);
  return Object.assign(client, methods) as unknown as StatelessClient;
}
