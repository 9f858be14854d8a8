/**
 * The client of the test's stateless session: 2026-07-28's tables (falling back to their legacy
 * handshake for an older server), with the typed methods the generated client has (each request of the
 * tables, named by its handler), so the session drives either era through one interface. The Skills
 * extension's requests are the runtime client's own (`listSkills`, `getSkill`, `readSkillDirectory`).
 */

import { Client, type ClientOptions } from "@mcp-codegen/runtime/client";
import type { McpClient } from "../../../generated/2025-11-25/client.js";
import { protocol } from "../../../generated/2026-07-28/protocol.js";

export function createStatelessClient(options: ClientOptions): McpClient {
  const client = new Client(protocol, options);
  const methods: Record<string, unknown> = {};
  for (const entry of Object.values(protocol.clientRequests))
    methods[entry.handler] = (params: unknown, opts?: unknown) =>
      client.request(entry.method as never, params as never, opts as never);
  return Object.assign(client, methods) as unknown as McpClient;
}
