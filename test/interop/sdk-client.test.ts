/**
 * The official @modelcontextprotocol/sdk Client drives a server written only as generated ServerHandlers
 * (test/fixtures/interop/feature-server.ts) over real stdio, once per initialize-era protocol version.
 */
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  LoggingMessageNotificationSchema,
  McpError,
  ResourceUpdatedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { afterAll, describe, expect, it } from "vitest";

const REPO = fileURLToPath(new URL("../../", import.meta.url));
const VERSIONS = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"] as const;
const clients: Client[] = [];
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
});

async function connect(version: string) {
  const client = new Client(
    { name: "sdk-interop", version: "1.0.0" },
    { capabilities: { sampling: {}, elicitation: {} } },
  );
  const logs: unknown[] = [];
  const updates: string[] = [];
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params));
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updates.push(n.params.uri));
  client.setRequestHandler(CreateMessageRequestSchema, async (req) => {
    const first = req.params.messages[0]?.content as { type: string; text?: string };
    return { role: "assistant", content: { type: "text", text: `echo ${first.text}` }, model: "sdk-model" };
  });
  client.setRequestHandler(ElicitRequestSchema, async () => ({ action: "accept", content: { name: "Ada" } }));
  const transport = new StdioClientTransport({
    command: `${REPO}node_modules/.bin/tsx`,
    args: ["--conditions=mcp-codegen-source", `${REPO}test/fixtures/interop/feature-server.ts`, version],
    stderr: "pipe",
  });
  await client.connect(transport);
  clients.push(client);
  return { client, logs, updates };
}

const text = (r: unknown) => ((r as { content: { text: string }[] }).content[0] as { text: string }).text;

describe.each(VERSIONS)("official SDK client → generated server over stdio, protocol %s", (version) => {
  let peer: Awaited<ReturnType<typeof connect>>;

  it("initializes, negotiating this version", async () => {
    peer = await connect(version);
    expect(peer.client.getServerVersion()).toEqual({ name: "feature-server", version: "1.0.0" });
    expect(peer.client.getInstructions()).toBe("A test server written only as generated handlers.");
    const caps = peer.client.getServerCapabilities();
    expect(caps).toMatchObject({ tools: {}, resources: { subscribe: true }, prompts: {}, logging: {} });
    if (version !== "2024-11-05") expect(caps?.completions).toEqual({});
    expect(text(await peer.client.callTool({ name: "whoami" }))).toBe(`${version} sdk-interop`);
    await expect(peer.client.ping()).resolves.toEqual({});
  });

  it("lists tools across pages with opaque cursors", async () => {
    const names: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await peer.client.listTools(cursor ? { cursor } : {});
      names.push(...page.tools.map((t) => t.name));
      cursor = page.nextCursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(3);
    expect(names).toEqual([
      "echo",
      "progress",
      "fail",
      "slow",
      "sample",
      "elicit",
      "whoami",
      "cancelled-count",
    ]);
    await expect(peer.client.listTools({ cursor: "not-a-cursor" })).rejects.toMatchObject({ code: -32602 });
  });

  it("calls tools: echo, progress in n steps, a throwing tool, an unknown tool", async () => {
    expect(text(await peer.client.callTool({ name: "echo", arguments: { text: "héllo" } }))).toBe("héllo");
    const progress: number[] = [];
    const done = await peer.client.callTool({ name: "progress", arguments: { steps: 5 } }, undefined, {
      onprogress: (p) => progress.push(p.progress),
    });
    expect(text(done)).toBe("done in 5 steps");
    expect(progress).toEqual([1, 2, 3, 4, 5]);
    const failed = await peer.client.callTool({ name: "fail" });
    expect(failed.isError).toBe(true);
    expect(text(failed)).toBe("the tool failed on purpose");
    const unknown = await peer.client.callTool({ name: "nope" }).catch((e: unknown) => e);
    expect(unknown).toBeInstanceOf(McpError);
    expect((unknown as McpError).code).toBe(-32602);
  });

  it("reads, lists and subscribes to resources", async () => {
    const first = await peer.client.listResources();
    expect(first.resources.map((r) => r.uri)).toEqual(["test://static/1", "test://static/2"]);
    const second = await peer.client.listResources({ cursor: first.nextCursor! });
    expect(second.resources.map((r) => r.uri)).toEqual(["test://static/3"]);
    expect(second.nextCursor).toBeUndefined();
    const read = await peer.client.readResource({ uri: "test://dynamic/7" });
    expect(read.contents).toEqual([
      { uri: "test://dynamic/7", mimeType: "text/plain", text: "content of 7" },
    ]);
    await expect(peer.client.readResource({ uri: "other://x" })).rejects.toMatchObject({ code: -32002 });
    const templates = await peer.client.listResourceTemplates();
    expect(templates.resourceTemplates[0]?.uriTemplate).toBe("test://dynamic/{id}");
    await peer.client.subscribeResource({ uri: "test://static/1" });
    await expect.poll(() => peer.updates).toEqual(["test://static/1"]);
    await peer.client.unsubscribeResource({ uri: "test://static/1" });
  });

  it("lists and gets prompts, completes arguments", async () => {
    expect((await peer.client.listPrompts()).prompts[0]?.name).toBe("greet");
    const prompt = await peer.client.getPrompt({ name: "greet", arguments: { who: "MCP" } });
    expect(prompt.messages[0]?.content).toEqual({ type: "text", text: "Hello, MCP!" });
    await expect(peer.client.getPrompt({ name: "nope" })).rejects.toMatchObject({ code: -32602 });
    const completion = await peer.client.complete({
      ref: { type: "ref/prompt", name: "greet" },
      argument: { name: "who", value: "a" },
    });
    expect(completion.completion.values).toEqual(["alpha"]);
  });

  it("honours logging/setLevel for log notifications", async () => {
    peer.logs.length = 0;
    await peer.client.setLoggingLevel("info");
    await peer.client.callTool({ name: "whoami" });
    await expect.poll(() => peer.logs.length).toBe(1);
    expect(peer.logs[0]).toEqual({ level: "info", data: { tool: "whoami" }, logger: "feature-server" });
  });

  it("cancels a slow tool", async () => {
    const before = Number(text(await peer.client.callTool({ name: "cancelled-count" })));
    const controller = new AbortController();
    const call = peer.client.callTool({ name: "slow" }, undefined, { signal: controller.signal });
    setTimeout(() => controller.abort("user gave up"), 50);
    await expect(call).rejects.toThrow();
    await expect
      .poll(async () => Number(text(await peer.client.callTool({ name: "cancelled-count" }))))
      .toBe(before + 1);
  });

  it("sends a sampling request to the client", async () => {
    expect(text(await peer.client.callTool({ name: "sample", arguments: { text: "ping" } }))).toBe(
      "sampled: echo ping (sdk-model)",
    );
  });

  it("sends an elicitation request where the version has one", async () => {
    const result = peer.client.callTool({ name: "elicit" });
    if (version === "2024-11-05" || version === "2025-03-26") {
      // No elicitation/create in these versions: the server refuses to send it.
      await expect(result).rejects.toMatchObject({ code: -32601 });
    } else {
      expect(text(await result)).toBe('elicited: accept {"name":"Ada"}');
    }
  });
});
