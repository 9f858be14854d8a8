/**
 * The generated 2026-07-28 client against this repository's 2026-07-28 everything-server as a real
 * process, over stdio and over Streamable HTTP on 127.0.0.1: the stateless lifecycle end to end
 * (discover, `_meta` on every request, no initialize), multi round-trip input answered by the client's
 * handlers, progress, per-request log levels, x-mcp-header parameters the server checks, cancellation,
 * and subscriptions/listen.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { connectHttp } from "@mcp-codegen/runtime/http-client";
import { StdioClientTransport } from "@mcp-codegen/runtime/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type * as T from "../../generated/2026-07-28/index.js";
import { createClient, type McpClient } from "../../generated/2026-07-28/index.js";
import { REQUEST_CANCELLED } from "../../runtime/jsonrpc/connection.js";
import type { Transport } from "../../runtime/jsonrpc/transport.js";
import { Inbox, TSX } from "../runtime/helpers.js";

const SERVER = fileURLToPath(new URL("../../examples/everything-server/main.ts", import.meta.url));
const V = "2026-07-28";

const text = (r: T.CallToolResult) =>
  r.content
    .filter((c) => c.type === "text")
    .map((c) => (c as T.TextContent).text)
    .join("\n");

interface Seen {
  elicited: string[];
  logs: string[];
  toolChanges: unknown[];
  errors: unknown[];
}

function makeClient(seen: Seen, options: { logLevel?: "info" } = {}): McpClient {
  return createClient({
    info: { name: "client-2026-interop", version: "1.0.0" },
    ...options,
    onError: (e) => void seen.errors.push(e),
    handlers: {
      elicit: (params): T.ElicitResult => {
        seen.elicited.push(params.message);
        if (params.message.includes("color")) return { action: "accept", content: { color: "teal" } };
        if (params.message.includes("context")) return { action: "accept", content: { context: "tests" } };
        return { action: "accept", content: { name: "Ada" } };
      },
      createMessage: () => ({
        role: "assistant",
        content: { type: "text", text: "Paris" },
        model: "interop-model",
      }),
      listRoots: () => ({ roots: [{ uri: "file:///work", name: "work" }] }),
      onLoggingMessage: (params) => void seen.logs.push(String(params.data)),
      onToolListChanged: (_params, ctx) =>
        void seen.toolChanges.push((ctx as { subscriptionId?: unknown }).subscriptionId),
    },
  });
}

const fresh = (): Seen => ({ elicited: [], logs: [], toolChanges: [], errors: [] });

/** The everything-server over HTTP on a free port; resolves with its URL. */
function startHttpServer(): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(
    TSX,
    ["--conditions=mcp-codegen-source", SERVER, "--port", "0", "--host", "127.0.0.1"],
    {
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  const out = new Inbox<string>();
  child.stdout!.on("data", (chunk: Buffer) => out.push(chunk.toString()));
  return out
    .waitFor((s) => /listening on (\S+)/.test(s), "the server's URL", 30_000)
    .then((line) => ({ url: /listening on (\S+)/.exec(line)![1]!, child }));
}

/** What both transports must do the same way. */
function commonChecks(connect: () => Promise<{ client: McpClient; seen: Seen }>) {
  let client: McpClient;
  let seen: Seen;
  beforeAll(async () => {
    ({ client, seen } = await connect());
  });
  afterAll(() => client.close());

  it("discovers the server: stateless lifecycle, no initialize", () => {
    expect(client.lifecycle).toBe("discover");
    expect(client.protocolVersion).toBe(V);
    expect(client.serverDescription?.serverInfo.name).toBe("mcp-codegen-everything-server");
    expect(client.serverDescription?.capabilities.tools).toEqual({ listChanged: true });
  });

  it("lists tools and calls one, with progress", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain("test_input_required_result_multi_round");
    const progress: number[] = [];
    const result = await client.callTool(
      { name: "test_tool_with_progress" },
      { onprogress: (p) => progress.push(p.progress) },
    );
    expect(text(result)).toBe("Tool with progress executed successfully");
    expect(progress).toEqual([0, 50, 100]);
  });

  it("answers two rounds of input requests with the elicit handler", async () => {
    const result = await client.callTool({ name: "test_input_required_result_multi_round" });
    expect(text(result)).toBe("Ada likes teal");
    expect(seen.elicited.slice(-2)).toEqual([
      "Step 1: What is your name?",
      "Step 2: What is your favorite color?",
    ]);
  });

  it("answers elicitation, sampling and roots asked in one round", async () => {
    const result = await client.callTool({ name: "test_input_required_result_multiple_inputs" });
    expect(text(result)).toBe("name=Ada, greeting from interop-model, 1 root(s)");
  });

  it("echoes the server's own requestState", async () => {
    const result = await client.callTool({ name: "test_input_required_result_request_state" });
    expect(text(result)).toBe("state-ok: requestState validated");
  });

  it("runs input rounds on prompts/get too", async () => {
    const prompt = await client.getPrompt({ name: "test_input_required_result_prompt" });
    expect(JSON.stringify(prompt.messages)).toContain("tests");
  });

  it("gets log messages only for requests that carry a log level", async () => {
    await client.callTool({ name: "test_logging_tool" });
    expect(seen.logs).toEqual([]);
    await client.callTool({ name: "test_logging_tool" }, { logLevel: "info" } as never);
    await expect.poll(() => seen.logs.length).toBe(3);
  });

  it("receives tool list changes on a subscription, until it is closed", async () => {
    const sub = await client.listen({ toolsListChanged: true, promptsListChanged: true });
    expect(sub.notifications).toEqual({ toolsListChanged: true, promptsListChanged: true });
    await client.callTool({ name: "test_trigger_tool_change" });
    await expect.poll(() => seen.toolChanges).toEqual([sub.id]);
    await sub.close();
    expect(await sub.closed).toEqual({ by: "client" });
    await client.callTool({ name: "test_trigger_tool_change" });
    // The server forgot the subscription: that change brings it no notification. Proof by a later one:
    // a new subscription's notification for a later change arrives, and nothing came for the old one.
    const after = await client.listen({ toolsListChanged: true });
    await client.callTool({ name: "test_trigger_tool_change" });
    await expect.poll(() => seen.toolChanges).toContain(after.id);
    expect(seen.toolChanges).toEqual([sub.id, after.id]);
    await after.close();
  });

  it("reports nothing unexpected", () => {
    expect(seen.errors).toEqual([]);
  });
}

describe("2026-07-28 client → 2026-07-28 everything-server over stdio", () => {
  commonChecks(async () => {
    const seen = fresh();
    const client = makeClient(seen);
    await client.connect(
      new StdioClientTransport({
        command: TSX,
        args: ["--conditions=mcp-codegen-source", SERVER, "--stdio"],
        stderr: "ignore",
      }),
    );
    return { client, seen };
  });
});

describe("2026-07-28 client → 2026-07-28 everything-server over Streamable HTTP", () => {
  let server: { url: string; child: ChildProcess };
  let transport: Transport;
  beforeAll(async () => {
    server = await startHttpServer();
  });
  afterAll(() => {
    server.child.kill("SIGTERM");
  });

  commonChecks(async () => {
    const seen = fresh();
    const client = makeClient(seen);
    transport = await connectHttp(server.url);
    await client.connect(transport);
    return { client, seen };
  });

  it("sends the x-mcp-header parameter the server checks, encoded when HTTP cannot carry it as is", async () => {
    const seen = fresh();
    const client = makeClient(seen);
    await client.connect(await connectHttp(server.url));
    try {
      await client.listTools();
      for (const region of ["us-west1", " padded ", "Zürich"]) {
        const result = await client.callTool({ name: "test_custom_headers", arguments: { region } });
        expect(text(result)).toBe(`region=${region}`);
      }
    } finally {
      await client.close();
    }
  });

  it("cancels a call by aborting its POST", async () => {
    const seen = fresh();
    const client = makeClient(seen);
    await client.connect(await connectHttp(server.url));
    try {
      const abort = new AbortController();
      const call = client.callTool({ name: "test_tool_with_progress" }, { signal: abort.signal });
      setTimeout(() => abort.abort("enough"), 20);
      await expect(call).rejects.toMatchObject({ code: REQUEST_CANCELLED });
      // The connection is still good for the next call.
      expect(text(await client.callTool({ name: "test_simple_text" }))).toContain("simple");
    } finally {
      await client.close();
    }
  });
});
