/**
 * A server generated for 2025-11-25 alone, reached by clients of protocol 2026-07-28, over real HTTP
 * on 127.0.0.1 (with sessions and without) and over stdio. Their first request (the server/discover
 * probe, its version in `_meta` and the MCP-Protocol-Version header) is answered as the stateless era
 * answers a version a server lacks: UnsupportedProtocolVersion (-32022, HTTP 400) listing the versions
 * it speaks, so a dual-era client falls back to initialize and a client of 2026-07-28 alone says why it
 * cannot connect. Clients: this project's (dual-era, and 2026-07-28 alone) and the official v2 SDK's
 * (`versionNegotiation` auto, and pinned to 2026-07-28).
 */
import { fileURLToPath } from "node:url";
import { Client as ClientV2, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport as StdioV2 } from "@modelcontextprotocol/client/stdio";
import { afterAll, describe, expect, it } from "vitest";
import { createClient } from "../../generated/2026-07-28/index.js";
import { protocol } from "../../generated/2026-07-28/protocol.js";
import { Client } from "../../runtime/client/client.js";
import { StreamableHttpClientTransport } from "../../runtime/http-client/streamable-http.js";
import type { Transport } from "../../runtime/jsonrpc/transport.js";
import { serveHttp } from "../../runtime/node/http.js";
import { StdioClientTransport } from "../../runtime/node/stdio-client.js";
import { featureServer } from "../fixtures/http/feature-server.js";

const REPO = fileURLToPath(new URL("../../", import.meta.url));
const SPEAKS = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];
const UNSUPPORTED = `Unsupported protocol version: 2026-07-28 (supported: ${SPEAKS.join(", ")})`;
const STDIO = {
  command: `${REPO}node_modules/.bin/tsx`,
  args: ["--conditions=mcp-codegen-source", `${REPO}test/fixtures/interop/feature-server.ts`, "2025-11-25"],
  stderr: "ignore" as const,
};

const cleanups: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

async function httpPeer(stateless: boolean): Promise<string> {
  const http = await serveHttp(await featureServer("2025-11-25"), { port: 0, stateless });
  cleanups.push(() => http.close());
  return http.url;
}

const info = { name: "client-2026", version: "1.0.0" };

/** Rejection message of `promise` (which must reject). */
const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error("connected, but should have been refused");
    },
    (error: unknown) => (error as Error).message,
  );

describe.each([
  { name: "HTTP with sessions", peer: () => httpPeer(false) },
  { name: "HTTP without sessions", peer: () => httpPeer(true) },
])("2025-11-25 server over $name", ({ peer }) => {
  it("answers the 2026-07-28 probe with UnsupportedProtocolVersion (400, the request's id, the versions it speaks)", async () => {
    const url = await peer();
    const response = await fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": "server/discover",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 7,
        method: "server/discover",
        params: {
          _meta: {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
          },
        },
      }),
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      jsonrpc: "2.0",
      id: 7,
      error: { code: -32022, message: UNSUPPORTED, data: { supported: SPEAKS, requested: "2026-07-28" } },
    });
  });

  it("this project's clients: the dual-era one falls back to 2025-11-25; one of 2026-07-28 alone names the versions", async () => {
    const url = await peer();
    const dual = createClient({ info, handlers: {} });
    await dual.connect(new StreamableHttpClientTransport(url));
    cleanups.push(() => dual.close());
    expect(dual.lifecycle).toBe("initialize");
    expect(dual.protocolVersion).toBe("2025-11-25");
    expect((await dual.listTools({})).tools.length).toBeGreaterThan(0);

    const only2026 = new Client({ ...protocol, legacy: undefined }, { info, handlers: {} });
    expect(await refusal(only2026.connect(new StreamableHttpClientTransport(url)))).toBe(
      `the server supports protocol versions ${SPEAKS.join(", ")}; this client speaks 2026-07-28`,
    );
  });

  it("the official v2 client: auto falls back and lists tools; pinned to 2026-07-28 it is told the versions", async () => {
    const url = await peer();
    const auto = new ClientV2(info, { versionNegotiation: { mode: "auto" } });
    await auto.connect(new StreamableHTTPClientTransport(new URL(url)));
    cleanups.push(() => auto.close());
    expect((await auto.listTools()).tools.length).toBeGreaterThan(0);

    const pinned = new ClientV2(info, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
    expect(await refusal(pinned.connect(new StreamableHTTPClientTransport(new URL(url))))).toContain(
      UNSUPPORTED,
    );
  });
});

describe("2025-11-25 server over stdio", () => {
  it("this project's clients: the dual-era one falls back to 2025-11-25; one of 2026-07-28 alone names the versions", async () => {
    const dual = createClient({ info, handlers: {} });
    await dual.connect(new StdioClientTransport(STDIO));
    cleanups.push(() => dual.close());
    expect(dual.protocolVersion).toBe("2025-11-25");
    expect((await dual.listTools({})).tools.length).toBeGreaterThan(0);

    const only2026 = new Client({ ...protocol, legacy: undefined }, { info, handlers: {} });
    const transport: Transport = new StdioClientTransport(STDIO);
    cleanups.push(() => transport.close());
    expect(await refusal(only2026.connect(transport))).toBe(
      `the server supports protocol versions ${SPEAKS.join(", ")}; this client speaks 2026-07-28`,
    );
  });

  it("the official v2 client: auto falls back and lists tools; pinned to 2026-07-28 it is told the versions", async () => {
    const auto = new ClientV2(info, { versionNegotiation: { mode: "auto" } });
    await auto.connect(new StdioV2(STDIO));
    cleanups.push(() => auto.close());
    expect((await auto.listTools()).tools.length).toBeGreaterThan(0);

    const pinned = new ClientV2(info, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
    const transport = new StdioV2(STDIO);
    cleanups.push(() => transport.close());
    expect(await refusal(pinned.connect(transport))).toContain(UNSUPPORTED);
  });
});
