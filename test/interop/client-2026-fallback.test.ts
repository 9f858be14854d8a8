/**
 * The generated 2026-07-28 client is dual-era: against servers that predate the stateless lifecycle it
 * probes server/discover, takes the answer (an error, or an HTTP refusal) for a legacy server, and
 * falls back to the initialize handshake of 2025-11-25, after which it works as the 2025 client does.
 * Real peers only: the official SDK's Streamable HTTP servers (stateful and stateless) and its legacy
 * HTTP+SSE server on 127.0.0.1, and the official server-everything over stdio.
 */
import { createRequire } from "node:module";
import {
  connectHttp,
  type HttpClientTransport,
  StreamableHttpClientTransport,
} from "@mcp-codegen/runtime/http-client";
import { StdioClientTransport } from "@mcp-codegen/runtime/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type * as T from "../../generated/2026-07-28/index.js";
import { createClient, type McpClient } from "../../generated/2026-07-28/index.js";
import {
  type PeerServer,
  startLegacyServer,
  startStreamableServer,
} from "../fixtures/http-client/sdk-servers.js";

const require = createRequire(import.meta.url);
const EVERYTHING = require.resolve("@modelcontextprotocol/server-everything/dist/index.js");

const text = (r: T.CallToolResult) =>
  r.content
    .filter((c) => c.type === "text")
    .map((c) => (c as T.TextContent).text)
    .join("\n");

function makeClient(seen: { sampled: string[]; errors: unknown[] }): McpClient {
  return createClient({
    info: { name: "dual-era-client", version: "1.0.0" },
    onError: (e) => void seen.errors.push(e),
    handlers: {
      createMessage: (params) => {
        const first = (
          Array.isArray(params.messages[0]?.content)
            ? params.messages[0]?.content[0]
            : params.messages[0]?.content
        ) as T.TextContent;
        seen.sampled.push(first.text);
        return {
          role: "assistant",
          content: { type: "text", text: `re: ${first.text}` },
          model: "dual-model",
        };
      },
    },
  });
}

/**
 * The SDK server's echo/count/ask tools, as a client that fell back to 2025-11-25 must reach them;
 * progress and server→client requests need response streams, which a stateless JSON server has not.
 */
function legacyChecks(
  setup: () => Promise<{
    client: McpClient;
    peer: PeerServer;
    seen: { sampled: string[]; errors: unknown[] };
  }>,
  streams: boolean,
) {
  let client: McpClient;
  let peer: PeerServer;
  let seen: { sampled: string[]; errors: unknown[] };
  beforeAll(async () => {
    ({ client, peer, seen } = await setup());
  });
  afterAll(async () => {
    await client.close();
    await peer.close();
  });

  it("probed server/discover first, then initialized with 2025-11-25", () => {
    expect(client.lifecycle).toBe("initialize");
    expect(client.protocolVersion).toBe("2025-11-25");
    expect(client.serverDescription?.serverInfo.name).toBe("sdk-http-peer");
    const posts = peer.requests.filter((r) => r.method === "POST");
    expect(posts[0]?.rpc).toBe("server/discover");
    expect(posts[0]?.headers["mcp-protocol-version"]).toBe("2026-07-28");
    expect(posts[0]?.headers["mcp-method"]).toBe("server/discover");
    const init = posts.find((r) => r.rpc === "initialize")!;
    // The handshake era's own headers: no stateless Mcp-Method.
    expect(init.headers["mcp-method"]).toBeUndefined();
    expect(posts.some((r) => r.rpc === "notifications/initialized")).toBe(true);
  });

  it("lists and calls tools with the negotiated version", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(["ask", "count", "echo"]);
    expect(text(await client.callTool({ name: "echo", arguments: { text: "hi" } }))).toBe("hi");
    const last = peer.requests.filter((r) => r.method === "POST").at(-1)!;
    expect(last.rpc).toBe("tools/call");
    expect(last.headers["mcp-protocol-version"]).toBe("2025-11-25");
  });

  it("reports nothing unexpected (the refused probe is no error)", () => {
    expect(seen.errors).toEqual([]);
  });

  if (!streams) return;

  it("receives progress on the call's stream", async () => {
    const progress: number[] = [];
    await client.callTool(
      { name: "count", arguments: { steps: 2 } },
      { onprogress: (p) => progress.push(p.progress) },
    );
    expect(progress).toEqual([1, 2]);
  });

  it("answers the server's sampling request (a real server→client request in this era)", async () => {
    const result = await client.callTool({ name: "ask", arguments: { question: "why?" } });
    expect(text(result)).toBe("dual-model: re: why?");
    expect(seen.sampled).toEqual(["why?"]);
  });
}

describe("dual-era client → SDK Streamable HTTP server with sessions", () => {
  legacyChecks(async () => {
    const peer = await startStreamableServer();
    const seen = { sampled: [] as string[], errors: [] as unknown[] };
    const client = makeClient(seen);
    const transport = new StreamableHttpClientTransport(peer.url);
    await client.connect(transport);
    // The legacy era is the session era: a session id, which the stateless probe never had.
    expect(transport.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    return { client, peer, seen };
  }, true);
});

describe("dual-era client → SDK Streamable HTTP server, stateless, JSON answers", () => {
  legacyChecks(async () => {
    const peer = await startStreamableServer({ stateless: true, json: true });
    const seen = { sampled: [] as string[], errors: [] as unknown[] };
    const client = makeClient(seen);
    await client.connect(await connectHttp(peer.url));
    return { client, peer, seen };
  }, false);
});

describe("dual-era client → SDK legacy HTTP+SSE server, through connectHttp", () => {
  let peer: PeerServer;
  let client: McpClient;
  let transport: HttpClientTransport;
  beforeAll(async () => {
    peer = await startLegacyServer();
    client = makeClient({ sampled: [], errors: [] });
    transport = await connectHttp(peer.url);
    await client.connect(transport);
  });
  afterAll(async () => {
    await client.close();
    await peer.close();
  });

  it("falls back to initialize, and connectHttp then to the legacy transport", async () => {
    expect(client.protocolVersion).toBe("2025-11-25");
    expect(transport.kind).toBe("sse");
    const first = peer.requests[0]!;
    expect([first.method, first.rpc]).toEqual(["POST", "server/discover"]);
    expect(text(await client.callTool({ name: "echo", arguments: { text: "old" } }))).toBe("old");
  });
});

describe("dual-era client → official server-everything over stdio", () => {
  const seen = { sampled: [] as string[], errors: [] as unknown[] };
  const client = createClient({
    info: { name: "dual-era-client", version: "1.0.0" },
    onError: (e) => void seen.errors.push(e),
    handlers: {
      createMessage: () => ({ role: "assistant", content: { type: "text", text: "sampled" }, model: "m" }),
    },
  });
  beforeAll(async () => {
    await client.connect(
      new StdioClientTransport({ command: process.execPath, args: [EVERYTHING, "stdio"], stderr: "ignore" }),
    );
  });
  afterAll(() => client.close());

  it("falls back to initialize and serves the 2025-11-25 methods", async () => {
    expect(client.lifecycle).toBe("initialize");
    expect(client.protocolVersion).toBe("2025-11-25");
    expect(client.serverDescription?.serverInfo.name).toContain("everything");
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain("echo");
    const echo = await client.callTool({ name: "echo", arguments: { message: "dual" } });
    expect(text(echo)).toContain("dual");
  });

  it("answers the server's sampling request", async () => {
    const { tools } = await client.listTools();
    const sampling = tools.find((t) => t.name.includes("sampling"));
    expect(sampling).toBeDefined();
    const result = await client.callTool({
      name: sampling!.name,
      arguments: { prompt: "hello", maxTokens: 10 },
    });
    expect(JSON.stringify(result.content)).toContain("sampled");
  });

  it("reports nothing unexpected", () => {
    expect(seen.errors).toEqual([]);
  });
});
