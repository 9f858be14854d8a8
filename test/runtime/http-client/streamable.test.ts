/**
 * The generated 2025-11-25 client over StreamableHttpClientTransport against the official SDK's McpServer
 * and StreamableHTTPServerTransport on node:http: stateful (session id, SSE answers, a sampling request
 * back to our ClientHandlers, a notification on the standalone GET stream, DELETE on close) and stateless
 * (JSON answers, no session, no GET, no DELETE).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as V from "../../../generated/2025-11-25/index.js";
import { HttpStatusError, StreamableHttpClientTransport } from "../../../runtime/http-client/index.js";
import { type PeerServer, startStreamableServer } from "../../fixtures/http-client/sdk-servers.js";

const text = (r: V.CallToolResult) =>
  r.content
    .filter((c) => c.type === "text")
    .map((c) => (c as V.TextContent).text)
    .join("\n");

function makeClient(seen: { sampled: string[]; toolListChanged: number }) {
  return V.createClient({
    info: { name: "generated-http-client", version: "1.0.0" },
    handlers: {
      createMessage: (params) => {
        const first = params.messages[0]?.content as V.TextContent;
        seen.sampled.push(first.text);
        return {
          role: "assistant",
          content: { type: "text", text: `re: ${first.text}` },
          model: "our-model",
        };
      },
      onToolListChanged: () => {
        seen.toolListChanged++;
      },
    },
  });
}

describe("Streamable HTTP client → SDK server, stateful", () => {
  let peer: PeerServer;
  const seen = { sampled: [] as string[], toolListChanged: 0 };
  const client = makeClient(seen);
  let transport: StreamableHttpClientTransport;

  beforeAll(async () => {
    peer = await startStreamableServer();
    transport = new StreamableHttpClientTransport(peer.url, { headers: { authorization: "Bearer t0ken" } });
    await client.connect(transport);
  });
  afterAll(async () => {
    await client.close();
    await peer.close();
  });

  it("initializes and keeps the session id the server assigned", () => {
    expect(client.protocolVersion).toBe("2025-11-25");
    expect(client.serverDescription?.serverInfo.name).toBe("sdk-http-peer");
    expect(transport.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(peer.sessions.has(transport.sessionId!)).toBe(true);
    const [init, initialized] = peer.requests.filter((r) => r.method === "POST");
    expect(init?.rpc).toBe("initialize");
    expect(init?.headers["mcp-session-id"]).toBeUndefined();
    expect(init?.headers.accept).toBe("application/json, text/event-stream");
    expect(init?.headers["content-type"]).toBe("application/json");
    expect(init?.headers.authorization).toBe("Bearer t0ken");
    expect(initialized?.rpc).toBe("notifications/initialized");
    expect(initialized?.headers["mcp-session-id"]).toBe(transport.sessionId);
  });

  it("lists and calls tools, sending session id and protocol version", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(["ask", "count", "echo"]);
    expect(text(await client.callTool({ name: "echo", arguments: { text: "hello" } }))).toBe("hello");
    const last = peer.requests.filter((r) => r.method === "POST").at(-1)!;
    expect(last.rpc).toBe("tools/call");
    expect(last.headers["mcp-session-id"]).toBe(transport.sessionId);
    expect(last.headers["mcp-protocol-version"]).toBe("2025-11-25");
  });

  it("receives progress on the call's SSE stream", async () => {
    const progress: number[] = [];
    const result = await client.callTool(
      { name: "count", arguments: { steps: 3 } },
      { onprogress: (p) => progress.push(p.progress) },
    );
    expect(text(result)).toBe("counted to 3");
    expect(progress).toEqual([1, 2, 3]);
  });

  it("answers the server's sampling request through ClientHandlers.createMessage", async () => {
    const result = await client.callTool({ name: "ask", arguments: { question: "what is MCP?" } });
    expect(seen.sampled).toEqual(["what is MCP?"]);
    expect(text(result)).toBe("our-model: re: what is MCP?");
    // Our answer went back as a POST of its own.
    expect(peer.requests.some((r) => r.method === "POST" && r.rpc === undefined)).toBe(true);
  });

  it("receives a notification on the standalone GET stream", async () => {
    await expect.poll(() => peer.requests.some((r) => r.method === "GET")).toBe(true);
    const get = peer.requests.find((r) => r.method === "GET")!;
    expect(get.headers.accept).toBe("text/event-stream");
    expect(get.headers["mcp-session-id"]).toBe(transport.sessionId);
    expect(get.headers["last-event-id"]).toBeUndefined();
    const session = peer.sessions.get(transport.sessionId!)!;
    // The server drops notifications sent before the GET stream is registered: send until one arrives.
    for (let i = 0; i < 40 && seen.toolListChanged === 0; i++) {
      session.server.sendToolListChanged();
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(seen.toolListChanged).toBeGreaterThan(0);
  });

  it("rejects with the status and the JSON-RPC message of an HTTP error", async () => {
    const bare = new StreamableHttpClientTransport(peer.url);
    await bare.start();
    const error = await bare.send({ jsonrpc: "2.0", id: 1, method: "tools/list" }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(HttpStatusError);
    expect((error as HttpStatusError).status).toBe(400);
    expect((error as Error).message).toMatch(/answered 400 Bad Request: No session \(-32000\)/);
    await bare.close();
  });

  it("ends the session with DELETE on close, then fires onclose once", async () => {
    const sessionId = transport.sessionId!;
    let closed = 0;
    const other = makeClient({ sampled: [], toolListChanged: 0 });
    const t2 = new StreamableHttpClientTransport(peer.url);
    await other.connect(t2);
    const id2 = t2.sessionId!;
    const previous = t2.onclose;
    t2.onclose = () => {
      closed++;
      previous?.();
    };
    await other.close();
    await t2.close();
    expect(closed).toBe(1);
    const del = peer.requests.find((r) => r.method === "DELETE");
    expect(del?.headers["mcp-session-id"]).toBe(id2);
    expect(peer.sessions.has(id2)).toBe(false);
    expect(t2.sessionId).toBeUndefined();
    expect(peer.sessions.has(sessionId)).toBe(true);
    await expect(t2.send({ jsonrpc: "2.0", method: "notifications/initialized" })).rejects.toThrow(
      /not open/,
    );
  });
});

describe("Streamable HTTP client → SDK server, stateless", () => {
  let peer: PeerServer;
  const client = makeClient({ sampled: [], toolListChanged: 0 });
  let transport: StreamableHttpClientTransport;

  beforeAll(async () => {
    peer = await startStreamableServer({ stateless: true, json: true });
    transport = new StreamableHttpClientTransport(peer.url);
    await client.connect(transport);
  });
  afterAll(() => peer.close());

  it("works without a session: JSON answers, no GET stream", async () => {
    expect(transport.sessionId).toBeUndefined();
    expect(text(await client.callTool({ name: "echo", arguments: { text: "stateless" } }))).toBe("stateless");
    const { tools } = await client.listTools();
    expect(tools).toHaveLength(3);
    expect(peer.requests.every((r) => r.method === "POST")).toBe(true);
    expect(peer.requests.every((r) => r.headers["mcp-session-id"] === undefined)).toBe(true);
  });

  it("sends no DELETE on close, having no session", async () => {
    await client.close();
    expect(peer.requests.some((r) => r.method === "DELETE")).toBe(false);
  });
});
