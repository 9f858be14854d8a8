/**
 * The legacy HTTP+SSE transport (2024-11-05) against the SDK's SSEServerTransport, and connectHttp, the
 * spec's backwards-compatibility procedure: Streamable HTTP first, the legacy transport on 400/404/405.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as V from "../../../generated/2025-11-25/index.js";
import { connectHttp, SseClientTransport } from "../../../runtime/http-client/index.js";
import {
  type PeerServer,
  startLegacyServer,
  startStreamableServer,
} from "../../fixtures/http-client/sdk-servers.js";

const text = (r: V.CallToolResult) => (r.content[0] as V.TextContent).text;

function makeClient(sampled: string[] = []) {
  return V.createClient({
    info: { name: "legacy-client", version: "1.0.0" },
    onError: () => {},
    handlers: {
      createMessage: (params) => {
        const question = (params.messages[0]!.content as V.TextContent).text;
        sampled.push(question);
        return {
          role: "assistant",
          content: { type: "text", text: `re: ${question}` },
          model: "legacy-model",
        };
      },
    },
  });
}

let legacy: PeerServer;
let streamable: PeerServer;
beforeAll(async () => {
  [legacy, streamable] = await Promise.all([startLegacyServer(), startStreamableServer()]);
});
afterAll(async () => {
  await Promise.all([legacy.close(), streamable.close()]);
});

describe("SseClientTransport → SDK SSEServerTransport", () => {
  it("connects through the endpoint event, calls tools, answers sampling, and closes", async () => {
    const sampled: string[] = [];
    const client = makeClient(sampled);
    const transport = new SseClientTransport(legacy.url, {
      headers: () => ({ authorization: "Bearer legacy" }),
    });
    await client.connect(transport);
    expect(transport.endpoint?.pathname).toBe("/messages");
    expect(transport.endpoint?.searchParams.get("sessionId")).toMatch(/^[0-9a-f-]{36}$/);
    expect(client.serverDescription?.serverInfo.name).toBe("sdk-http-peer");

    expect(text(await client.callTool({ name: "echo", arguments: { text: "over sse" } }))).toBe("over sse");
    const progress: number[] = [];
    await client.callTool(
      { name: "count", arguments: { steps: 2 } },
      { onprogress: (p) => progress.push(p.progress) },
    );
    expect(progress).toEqual([1, 2]);
    expect(text(await client.callTool({ name: "ask", arguments: { question: "legacy?" } }))).toBe(
      "legacy-model: re: legacy?",
    );
    expect(sampled).toEqual(["legacy?"]);

    const get = legacy.requests.find((r) => r.method === "GET")!;
    expect(get.headers.accept).toBe("text/event-stream");
    expect(get.headers.authorization).toBe("Bearer legacy");
    expect(
      legacy.requests.filter((r) => r.method === "POST").every((r) => r.path.startsWith("/messages?")),
    ).toBe(true);

    const sessionId = transport.endpoint!.searchParams.get("sessionId")!;
    expect(legacy.sessions.has(sessionId)).toBe(true);
    await client.close();
    await expect.poll(() => legacy.sessions.has(sessionId)).toBe(false);
  });

  it("closes when the server ends the stream", async () => {
    const client = makeClient();
    const transport = new SseClientTransport(legacy.url);
    let closed = 0;
    await client.connect(transport);
    const previous = transport.onclose;
    transport.onclose = () => {
      closed++;
      previous?.();
    };
    const sessionId = transport.endpoint!.searchParams.get("sessionId")!;
    await legacy.sessions.get(sessionId)!.transport.close();
    await expect.poll(() => closed).toBe(1);
    await expect(client.ping()).rejects.toThrow();
  });

  it("refuses a URL that is not an SSE stream", async () => {
    const transport = new SseClientTransport(legacy.url.replace("/sse", "/other"));
    await expect(transport.start()).rejects.toThrow(/answered 404/);
  });
});

describe("connectHttp", () => {
  it("falls back to the legacy transport when the POST is refused (404)", async () => {
    const before = legacy.requests.length;
    const transport = await connectHttp(legacy.url);
    const client = makeClient();
    await client.connect(transport);
    expect(transport.kind).toBe("sse");
    expect(transport.sessionId).toBeUndefined();
    expect(text(await client.callTool({ name: "echo", arguments: { text: "fell back" } }))).toBe("fell back");
    const seen = legacy.requests.slice(before);
    expect(seen[0]).toMatchObject({ method: "POST", path: "/sse", rpc: "initialize" });
    expect(seen[1]).toMatchObject({ method: "GET", path: "/sse" });
    expect(seen[2]).toMatchObject({ method: "POST", rpc: "initialize" });
    expect(seen[2]!.path).toMatch(/^\/messages\?sessionId=/);
    await client.close();
  });

  it("uses Streamable HTTP when the server speaks it", async () => {
    const before = streamable.requests.length;
    const transport = await connectHttp(streamable.url, { openStandaloneStream: false });
    const client = makeClient();
    await client.connect(transport);
    expect(transport.kind).toBe("streamable-http");
    expect(transport.sessionId).toBeDefined();
    expect(transport.protocolVersion).toBe("2025-11-25");
    expect(text(await client.callTool({ name: "echo", arguments: { text: "streamable" } }))).toBe(
      "streamable",
    );
    const seen = streamable.requests.slice(before);
    expect(seen.every((r) => r.method === "POST")).toBe(true);
    expect(seen.at(-1)!.headers["mcp-protocol-version"]).toBe("2025-11-25");
    await client.close();
    await expect.poll(() => streamable.requests.at(-1)?.method).toBe("DELETE");
  });

  it("reports both failures when the URL speaks neither", async () => {
    const transport = await connectHttp(streamable.url.replace("/mcp", "/nothing"));
    const client = makeClient();
    await expect(client.connect(transport)).rejects.toThrow(
      /refused a Streamable HTTP POST \(404\) and is no legacy HTTP\+SSE server either: GET .* answered 404/,
    );
    expect(transport.kind).toBeUndefined();
  });
});
