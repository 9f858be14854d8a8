/**
 * The 2026-07-28 client's Streamable HTTP in stateless mode, against a scripted node:http server on
 * 127.0.0.1 that records every HTTP request: the headers of each POST (MCP-Protocol-Version matching the
 * body, Mcp-Method, Mcp-Name, Mcp-Param-* from the tools' x-mcp-header declarations), no session, GET or
 * DELETE; JSON-RPC errors in 400/404 bodies as the request's answer; SSE answers; cancellation by
 * aborting the POST; streams that break are not resumed; subscriptions/listen on a held-open stream.
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { HttpStatusError, StreamableHttpClientTransport } from "@mcp-codegen/runtime/http-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient, type McpClient } from "../../generated/2026-07-28/index.js";
import { REQUEST_CANCELLED } from "../../runtime/jsonrpc/connection.js";
import { ErrorCode, McpError } from "../../runtime/jsonrpc/messages.js";

const V = "2026-07-28";

/** Waits for `promise`, failing after `ms` rather than at the test timeout. */
function within<T>(promise: Promise<T>, what: string, ms = 5000): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
const SUB = "io.modelcontextprotocol/subscriptionId";

// biome-ignore lint/suspicious/noExplicitAny: wire messages are checked field by field.
type Wire = any;

interface Hit {
  method: string;
  headers: IncomingHttpHeaders;
  body?: Wire;
  /** Resolves when the server side of the exchange closed (answered, or the client went away). */
  closed: Promise<void>;
}

const TOOLS = [
  {
    name: "regional",
    inputSchema: {
      type: "object",
      properties: {
        region: { type: "string", "x-mcp-header": "Region" },
        opts: { type: "object", properties: { priority: { type: "integer", "x-mcp-header": "Priority" } } },
        flag: { type: "boolean", "x-mcp-header": "Flag" },
        note: { type: "string", "x-mcp-header": "Note" },
        free: { type: "string" },
      },
    },
  },
  {
    name: "bad",
    inputSchema: { type: "object", properties: { n: { type: "number", "x-mcp-header": "N" } } },
  },
  {
    name: "strict",
    inputSchema: { type: "object", properties: { zone: { type: "string", "x-mcp-header": "Zone" } } },
  },
];

const json = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { "content-type": "application/json", "mcp-session-id": "must-be-ignored" });
  res.end(JSON.stringify(body));
};
const sse = (res: ServerResponse) =>
  res.writeHead(200, { "content-type": "text/event-stream", "mcp-session-id": "must-be-ignored" });
const event = (res: ServerResponse, message: unknown) =>
  res.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);

/**
 * The scripted server. `legacy`: it does not know server/discover (silence), but answers initialize.
 * `auth`: it refuses every request with 401.
 */
async function startScripted(options: { legacy?: boolean; auth?: boolean } = {}) {
  const hits: Hit[] = [];
  let versionRefusals = 0;
  const http = createServer(async (req, res) => {
    const closed = new Promise<void>((resolve) => res.once("close", () => resolve()));
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString("utf8");
    const body = text ? (JSON.parse(text) as Wire) : undefined;
    hits.push({ method: req.method!, headers: req.headers, body, closed });
    if (options.auth) {
      res.writeHead(401, { "www-authenticate": "Bearer" }).end();
      return;
    }
    if (req.method !== "POST") {
      res.writeHead(405).end();
      return;
    }
    const { id, method, params } = body;
    const ok = (result: unknown) => json(res, 200, { jsonrpc: "2.0", id, result });
    if (id === undefined) {
      res.writeHead(202).end();
      return;
    }
    if (options.legacy) {
      if (method === "server/discover") return; // an old server that never answers it
      if (method === "initialize")
        return ok({
          protocolVersion: "2025-11-25",
          capabilities: { tools: {} },
          serverInfo: { name: "old", version: "1" },
        });
      return ok({ tools: [] });
    }
    switch (method) {
      case "server/discover":
        return ok({
          resultType: "complete",
          supportedVersions: [V],
          capabilities: { tools: {}, prompts: {}, resources: {} },
          ttlMs: 0,
          cacheScope: "public",
          _meta: { "io.modelcontextprotocol/serverInfo": { name: "scripted-http", version: "1" } },
        });
      case "tools/list":
        return ok({ resultType: "complete", tools: TOOLS, ttlMs: 0, cacheScope: "public" });
      case "prompts/get":
        return ok({ resultType: "complete", messages: [] });
      case "resources/read":
        return ok({ resultType: "complete", contents: [], ttlMs: 0, cacheScope: "public" });
      case "subscriptions/listen":
        sse(res);
        event(res, {
          jsonrpc: "2.0",
          method: "notifications/subscriptions/acknowledged",
          params: { _meta: { [SUB]: id }, notifications: params.notifications },
        });
        event(res, {
          jsonrpc: "2.0",
          method: "notifications/tools/list_changed",
          params: { _meta: { [SUB]: id } },
        });
        return; // held open until the client closes it
      case "tools/call":
        break;
      default:
        return json(res, 404, {
          jsonrpc: "2.0",
          id,
          error: { code: -32601, message: `Method not found: ${method}` },
        });
    }
    const result = { resultType: "complete", content: [{ type: "text", text: `called ${params.name}` }] };
    switch (params.name) {
      case "stream": {
        sse(res);
        const token = params._meta.progressToken;
        event(res, {
          jsonrpc: "2.0",
          method: "notifications/progress",
          params: { progressToken: token, progress: 1 },
        });
        event(res, { jsonrpc: "2.0", id, result });
        res.end();
        return;
      }
      case "hang":
        sse(res);
        res.write(": waiting\n\n");
        return;
      case "cut":
        sse(res);
        res.end(
          `id: 7\nevent: message\ndata: ${JSON.stringify({ jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: "x" } })}\n\n`,
        );
        return;
      case "versioned":
        if (versionRefusals++ === 0)
          return json(res, 400, {
            jsonrpc: "2.0",
            id: null,
            error: {
              code: -32022,
              message: "Unsupported protocol version",
              data: { supported: [V], requested: V },
            },
          });
        return ok(result);
      case "strict":
        // Checks the header its x-mcp-header declaration asks for, as a server must.
        if (req.headers["mcp-param-zone"] !== params.arguments?.zone)
          return json(res, 400, {
            jsonrpc: "2.0",
            id,
            error: { code: -32020, message: "Header mismatch: Mcp-Param-Zone" },
          });
        return ok(result);
      case "mismatch":
        return json(res, 400, {
          jsonrpc: "2.0",
          id,
          error: { code: -32020, message: "Header mismatch: Mcp-Name" },
        });
      case "broken":
        res.writeHead(500, { "content-type": "text/plain" }).end("boom");
        return;
      default:
        return ok(result);
    }
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  const close = async () => {
    http.closeAllConnections();
    await new Promise<void>((resolve) => http.close(() => resolve()));
  };
  const posts = (rpc?: string) =>
    hits.filter((h) => h.method === "POST" && (rpc === undefined || h.body?.method === rpc));
  return { url, hits, posts, close };
}

const warnings: string[] = [];
const seenChanges: unknown[] = [];
const client: McpClient = createClient({
  info: { name: "http-2026-client", version: "1.0.0" },
  onError: (e) => void warnings.push(e instanceof Error ? e.message : String(e)),
  handlers: {
    onToolListChanged: (_p, ctx) =>
      void seenChanges.push((ctx as { subscriptionId?: unknown }).subscriptionId),
  },
});
let server: Awaited<ReturnType<typeof startScripted>>;

beforeAll(async () => {
  server = await startScripted();
  await client.connect(new StreamableHttpClientTransport(server.url));
});
afterAll(async () => {
  await client.close();
  await server.close();
});

describe("stateless Streamable HTTP: headers", () => {
  it("connects with server/discover, whose POST names its method and version", () => {
    expect(client.lifecycle).toBe("discover");
    const [probe] = server.posts();
    expect(probe!.body.method).toBe("server/discover");
    expect(probe!.headers["mcp-method"]).toBe("server/discover");
    expect(probe!.headers["mcp-protocol-version"]).toBe(V);
  });

  it("leaves out tools whose x-mcp-header declarations are invalid, with a warning", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(["regional", "strict"]);
    expect(warnings).toEqual([
      'tools/list: left out tool "bad": x-mcp-header "N" is on a property of type "number" (string, integer or boolean only)',
    ]);
  });

  it("mirrors the declared arguments into Mcp-Param-* headers, encoding what HTTP cannot carry", async () => {
    await client.callTool({
      name: "regional",
      arguments: { region: "us west 1", opts: { priority: 42 }, flag: false, note: null, free: "x" },
    });
    await client.callTool({ name: "regional", arguments: { region: " Zürich\n", flag: true } });
    const [first, second] = server.posts("tools/call").map((h) => h.headers);
    expect(first!["mcp-param-region"]).toBe("us west 1");
    expect(first!["mcp-param-priority"]).toBe("42");
    expect(first!["mcp-param-flag"]).toBe("false");
    expect(first).not.toHaveProperty("mcp-param-note");
    expect(
      Object.keys(first!)
        .filter((k) => k.startsWith("mcp-param-"))
        .sort(),
    ).toEqual(["mcp-param-flag", "mcp-param-priority", "mcp-param-region"]);
    expect(second!["mcp-param-region"]).toBe(`=?base64?${Buffer.from(" Zürich\n").toString("base64")}?=`);
    expect(second!["mcp-param-flag"]).toBe("true");
    expect(second).not.toHaveProperty("mcp-param-priority");
  });

  it("names the target in Mcp-Name: a tool, a prompt, a resource URI (base64 when not plain ASCII)", async () => {
    await client.callTool({ name: "wétter" });
    await client.getPrompt({ name: "greeting" });
    await client.readResource({ uri: "file:///path/to/file%20name.txt" });
    const names = server
      .posts()
      .slice(-3)
      .map((h) => h.headers["mcp-name"]);
    expect(names).toEqual([
      `=?base64?${Buffer.from("wétter").toString("base64")}?=`,
      "greeting",
      "file:///path/to/file%20name.txt",
    ]);
  });

  it("sends Accept, Content-Type, a version equal to the body's, Mcp-Method, and no session on every POST", () => {
    for (const hit of server.posts()) {
      expect(hit.headers.accept).toBe("application/json, text/event-stream");
      expect(hit.headers["content-type"]).toBe("application/json");
      expect(hit.headers["mcp-protocol-version"]).toBe(
        hit.body.params._meta["io.modelcontextprotocol/protocolVersion"],
      );
      expect(hit.headers["mcp-method"]).toBe(hit.body.method);
      expect(hit.headers["mcp-session-id"]).toBeUndefined();
    }
  });
});

describe("stateless Streamable HTTP: answers", () => {
  it("takes a JSON-RPC error in a 400 body as the request's answer: an unsupported version is retried", async () => {
    const before = server.posts("tools/call").length;
    const result = await client.callTool({ name: "versioned" });
    expect(result.content).toEqual([{ type: "text", text: "called versioned" }]);
    const [refused, retried] = server.posts("tools/call").slice(before);
    expect(retried!.body.id).not.toBe(refused!.body.id);
  });

  it("rejects with the JSON-RPC error of a 400 or 404, not a transport error", async () => {
    const mismatch = await client.callTool({ name: "mismatch" }).catch((e: unknown) => e);
    expect(mismatch).toBeInstanceOf(McpError);
    expect(mismatch).toMatchObject({ code: -32020, message: "Header mismatch: Mcp-Name" });
    const unknown = await client.request("resources/templates/list", {} as never).catch((e: unknown) => e);
    expect(unknown).toBeInstanceOf(McpError);
    expect(unknown).toMatchObject({ code: -32601, message: "Method not found: resources/templates/list" });
  });

  it("rejects with the HTTP status when the body is no JSON-RPC error", async () => {
    const error = await client.callTool({ name: "broken" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HttpStatusError);
    expect((error as HttpStatusError).status).toBe(500);
  });

  it("reads an SSE answer, with the request's progress before it", async () => {
    const progress: number[] = [];
    const result = await client.callTool(
      { name: "stream" },
      { onprogress: (p) => progress.push(p.progress) },
    );
    expect(result.content).toEqual([{ type: "text", text: "called stream" }]);
    expect(progress).toEqual([1]);
  });

  it("does not resume a stream that ended before the response: the request fails at once, no GET", async () => {
    await expect(client.callTool({ name: "cut" })).rejects.toMatchObject({
      code: ErrorCode.ConnectionClosed,
      message: expect.stringMatching(/not resumed/),
    });
  });

  it("cancels by aborting the request's POST, posting no notifications/cancelled", async () => {
    const abort = new AbortController();
    const call = client.callTool({ name: "hang" }, { signal: abort.signal });
    await expect.poll(() => server.posts("tools/call").some((h) => h.body.params.name === "hang")).toBe(true);
    abort.abort("no longer needed");
    await expect(call).rejects.toMatchObject({ code: REQUEST_CANCELLED });
    const hang = server.posts("tools/call").find((h) => h.body.params.name === "hang")!;
    await within(hang.closed, "the hanging call's POST to close");
    expect(server.posts("notifications/cancelled")).toEqual([]);
  });
});

describe("stateless Streamable HTTP: subscriptions/listen", () => {
  it("keeps the listen POST's stream open for notifications, and closes it to end the subscription", async () => {
    const sub = await client.listen({ toolsListChanged: true });
    await expect.poll(() => seenChanges).toEqual([sub.id]);
    const listen = server.posts("subscriptions/listen")[0]!;
    expect(listen.headers["mcp-method"]).toBe("subscriptions/listen");
    await sub.close();
    await within(listen.closed, "the listen POST to close");
    expect(await sub.closed).toEqual({ by: "client" });
    expect(server.posts("notifications/cancelled")).toEqual([]);
  });

  it("never opened a GET stream nor sent DELETE", async () => {
    expect(server.hits.filter((h) => h.method !== "POST")).toEqual([]);
  });
});

describe("a tool called before it was listed", () => {
  it("after HeaderMismatch, lists the tools again and retries once with the headers they declare", async () => {
    const fresh = createClient({ info: { name: "fresh", version: "1" }, onError: () => {} });
    try {
      await fresh.connect(new StreamableHttpClientTransport(server.url));
      const before = server.posts().length;
      const result = await fresh.callTool({ name: "strict", arguments: { zone: "eu-1" } });
      expect(result.content).toEqual([{ type: "text", text: "called strict" }]);
      const sent = server.posts().slice(before);
      expect(sent.map((h) => h.body.method)).toEqual(["tools/call", "tools/list", "tools/call"]);
      expect(sent[0]!.headers).not.toHaveProperty("mcp-param-zone");
      expect(sent[2]!.headers["mcp-param-zone"]).toBe("eu-1");
      // Once only: a mismatch that stays is the caller's to see.
      const error = await fresh.callTool({ name: "mismatch" }).catch((e: unknown) => e);
      expect(error).toMatchObject({ code: -32020 });
      expect(
        server
          .posts()
          .slice(before + 3)
          .map((h) => h.body.method),
      ).toEqual(["tools/call", "tools/list", "tools/call"]);
    } finally {
      await fresh.close();
    }
  });
});

describe("a server that refuses the credentials", () => {
  it("fails the connection with the 401: no fallback to initialize", async () => {
    const guarded = await startScripted({ auth: true });
    const dual = createClient({ info: { name: "dual", version: "1" } });
    try {
      const error = await dual
        .connect(new StreamableHttpClientTransport(guarded.url))
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(HttpStatusError);
      expect((error as HttpStatusError).status).toBe(401);
      expect(guarded.hits.map((h) => h.body?.method)).toEqual(["server/discover"]);
    } finally {
      await guarded.close();
    }
  });
});

describe("a server that never answers server/discover", () => {
  it("is taken for a legacy one after the timeout: the probe's POST is aborted, initialize follows", async () => {
    const legacy = await startScripted({ legacy: true });
    const dual = createClient({ info: { name: "dual", version: "1" }, discoverTimeoutMs: 200 });
    try {
      await dual.connect(new StreamableHttpClientTransport(legacy.url));
      expect(dual.protocolVersion).toBe("2025-11-25");
      const [probe, init] = legacy.posts();
      expect(probe!.body.method).toBe("server/discover");
      await within(probe!.closed, "the probe's POST to close");
      expect(init!.body.method).toBe("initialize");
      expect(init!.headers["mcp-method"]).toBeUndefined();
      expect(legacy.posts("notifications/cancelled")).toEqual([]);
    } finally {
      await dual.close();
      await legacy.close();
    }
  });
});
