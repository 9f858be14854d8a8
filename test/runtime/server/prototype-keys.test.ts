/**
 * Method names every JS object inherits (`constructor`, `toString`, `__proto__`, `hasOwnProperty`) are
 * just unknown methods: -32601 in both eras, a silent no-op as notifications, nothing printed.
 */
import { describe, expect, it } from "vitest";
import { createServer as createServer2025 } from "../../../generated/2025-11-25/server.js";
import { createServer as createServer2026 } from "../../../generated/2026-07-28/server.js";
import { Connection } from "../../../runtime/jsonrpc/connection.js";
import { createMemoryTransportPair } from "../../../runtime/jsonrpc/memory.js";
import { ErrorCode, McpError } from "../../../runtime/jsonrpc/messages.js";

const NAMES = ["constructor", "toString", "__proto__", "hasOwnProperty", "valueOf", "__defineGetter__"];
const info = { name: "t", version: "1" };
const handlers = { listTools: () => ({ tools: [] }) };

async function peer(server: { connect(t: unknown): Promise<unknown> }) {
  const [a, b] = createMemoryTransportPair();
  await server.connect(a);
  const client = new Connection({ transport: b, onRequest: () => ({}), onNotification: async () => {} });
  await client.start();
  return { client };
}

async function codeOf(p: Promise<unknown>): Promise<number | undefined> {
  return p.then(
    () => undefined,
    (e: unknown) => (e instanceof McpError ? e.code : -1),
  );
}

describe("prototype keys on the wire", () => {
  it("handshake era: each is -32601, before and after initialize; the server reports nothing", async () => {
    const reported: unknown[] = [];
    const { client } = await peer(createServer2025({ info, handlers, onError: (e) => reported.push(e) }));
    for (const m of NAMES) expect(await codeOf(client.request(m, {}))).toBe(ErrorCode.InvalidRequest);
    await client.request("initialize", {
      protocolVersion: "2025-11-25",
      capabilities: {},
      clientInfo: info,
    });
    await client.notify("notifications/initialized", {});
    for (const m of NAMES) {
      expect(await codeOf(client.request(m, {})), m).toBe(ErrorCode.MethodNotFound);
      await client.notify(m, {});
    }
    expect(await client.request("tools/list", {})).toEqual({ tools: [] });
    expect(reported).toEqual([]);
  });

  it("stateless era: each is -32601 with per-request _meta", async () => {
    const reported: unknown[] = [];
    const { client } = await peer(createServer2026({ info, handlers, onError: (e) => reported.push(e) }));
    const _meta = {
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientInfo": info,
      "io.modelcontextprotocol/clientCapabilities": {},
    };
    for (const m of NAMES)
      expect(await codeOf(client.request(m, { _meta })), m).toBe(ErrorCode.MethodNotFound);
    expect(reported).toEqual([]);
  });
});
