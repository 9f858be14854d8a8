/**
 * The generated server and client of every initialize-era version, talking over the in-memory pair:
 * lifecycle, dispatch, validation, gating, errors, progress, logging, cancellation, server→client requests.
 */
import { describe, expect, it } from "vitest";
import * as V2024 from "../../../generated/2024-11-05/index.js";
import * as V2025 from "../../../generated/2025-11-25/index.js";
import { createMemoryTransportPair } from "../../../runtime/jsonrpc/memory.js";
import { McpError } from "../../../runtime/jsonrpc/messages.js";

const info = { name: "test", version: "1.0.0" };

function serverHandlers(): V2025.ServerHandlers {
  return {
    listTools: () => ({ tools: [{ name: "echo", inputSchema: { type: "object" } }] }),
    callTool: async (params, ctx) => {
      if (params.name === "echo")
        return { content: [{ type: "text", text: String(params.arguments?.text) }] };
      if (params.name === "boom") throw new Error("kaput");
      if (params.name === "progress") {
        for (let i = 1; i <= 3; i++) await ctx.progress?.(i, 3, `step ${i}`);
        return { content: [{ type: "text", text: ctx.progress ? "reported" : "no token" }] };
      }
      if (params.name === "log") {
        await ctx.log("debug", "quiet");
        await ctx.log("error", { loud: true });
        return { content: [] };
      }
      if (params.name === "slow") {
        await new Promise<void>((resolve) =>
          ctx.signal.addEventListener("abort", () => resolve(), { once: true }),
        );
        return { content: [{ type: "text", text: "aborted" }] };
      }
      if (params.name === "sample") {
        const r = await ctx.request("sampling/createMessage", {
          messages: [{ role: "user", content: { type: "text", text: "hi" } }],
          maxTokens: 5,
        });
        return {
          content: [
            {
              type: "text",
              text: `model said ${r.content && "type" in r.content && r.content.type === "text" ? r.content.text : "?"}`,
            },
          ],
        };
      }
      if (params.name === "bad-result") return { content: "nope" } as unknown as V2025.CallToolResult;
      throw V2025.errors.unknownTool(params.name);
    },
    readResource: (params) => {
      throw V2025.errors.resourceNotFound(params.uri);
    },
  };
}

async function pair(handlers = serverHandlers(), clientHandlers: V2025.ClientHandlers = {}) {
  const [a, b] = createMemoryTransportPair();
  const server = V2025.createServer({ info, handlers, onError: () => {} });
  await server.connect(a);
  const client = V2025.createClient({ info, handlers: clientHandlers, onError: () => {} });
  await client.connect(b);
  return { server, client };
}

describe("generated 2025-11-25 server and client", () => {
  it("initializes with the generated version and derived capabilities", async () => {
    const { client } = await pair();
    expect(client.protocolVersion).toBe("2025-11-25");
    expect(client.serverDescription?.capabilities).toEqual({ tools: {}, resources: {}, logging: {} });
    expect(client.serverDescription?.serverInfo).toEqual(info);
  });

  it("dispatches typed calls and maps errors", async () => {
    const { client } = await pair();
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["echo"]);
    expect(await client.callTool({ name: "echo", arguments: { text: "hi" } })).toEqual({
      content: [{ type: "text", text: "hi" }],
    });
    expect(await client.callTool({ name: "boom" })).toEqual({
      content: [{ type: "text", text: "kaput" }],
      isError: true,
    });
    await expect(client.callTool({ name: "nope" })).rejects.toMatchObject({
      code: -32602,
      message: "Unknown tool: nope",
    });
    await expect(client.readResource({ uri: "x://y" })).rejects.toMatchObject({ code: -32002 });
    await expect(client.callTool({ name: "bad-result" })).rejects.toMatchObject({ code: -32603 });
    // not offered by this server: refused locally (strict) and remotely
    await expect(client.listPrompts()).rejects.toMatchObject({ code: -32601 });
    await expect(client.request("prompts/list", {}, {}).catch((e: McpError) => e.code)).resolves.toBe(-32601);
  });

  it("rejects params that fail the generated validator with the failing path", async () => {
    const { client } = await pair();
    const error = await client.request("tools/call", { name: 42 } as never).catch((e: McpError) => e);
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe(-32602);
    expect((error as McpError).data).toMatchObject({ issues: [{ path: "/name" }] });
  });

  it("reports progress only when asked, and honours logging/setLevel", async () => {
    const logs: unknown[] = [];
    const { client } = await pair(serverHandlers(), { onLoggingMessage: (p) => void logs.push(p) });
    const seen: number[] = [];
    const r = await client.callTool({ name: "progress" }, { onprogress: (p) => seen.push(p.progress) });
    expect(r.content).toEqual([{ type: "text", text: "reported" }]);
    expect(seen).toEqual([1, 2, 3]);
    expect((await client.callTool({ name: "progress" })).content).toEqual([
      { type: "text", text: "no token" },
    ]);
    await client.setLevel({ level: "warning" });
    await client.callTool({ name: "log" });
    // A round trip after the call: anything it logged, in order on the pair, has arrived by its answer.
    await client.ping();
    expect(logs).toEqual([{ level: "error", data: { loud: true } }]);
  });

  it("cancels a slow tool through the signal", async () => {
    const { client } = await pair();
    const controller = new AbortController();
    const call = client.callTool({ name: "slow" }, { signal: controller.signal });
    setTimeout(() => controller.abort("changed my mind"), 20);
    await expect(call).rejects.toBeInstanceOf(McpError);
  });

  it("sends server→client requests only for declared capabilities", async () => {
    const withSampling = await pair(serverHandlers(), {
      createMessage: () => ({ role: "assistant", content: { type: "text", text: "42" }, model: "m" }),
    });
    expect(withSampling.client.capabilities).toEqual({ sampling: {} });
    expect((await withSampling.client.callTool({ name: "sample" })).content).toEqual([
      { type: "text", text: "model said 42" },
    ]);
    const without = await pair();
    // Refused before anything is sent; an McpError escaping a tool stays a protocol error.
    await expect(without.client.callTool({ name: "sample" })).rejects.toMatchObject({
      code: -32601,
      message: expect.stringContaining("sampling"),
    });
  });
});

describe("notImplemented stubs and handler crashes", () => {
  it("a stub declares no capability and answers -32601; other handler throws are -32603 without a stack", async () => {
    const [a, b] = createMemoryTransportPair();
    const errors: unknown[] = [];
    const server = V2025.createServer({
      info,
      handlers: {
        listPrompts: V2025.notImplemented("prompts/list"),
        listTools: () => {
          throw new Error("secret detail");
        },
      },
      onError: (e) => errors.push(e),
    });
    expect(server.capabilities).toEqual({ tools: {}, logging: {} });
    await server.connect(a);
    const client = V2025.createClient({ info, strictCapabilities: false });
    await client.connect(b);
    await expect(client.listPrompts()).rejects.toMatchObject({ code: -32601 });
    const crash = (await client.listTools().catch((e) => e)) as McpError;
    expect(crash.code).toBe(-32603);
    expect(JSON.stringify(crash.data ?? null)).not.toMatch(/at .*\.ts:\d+/);
    expect(errors).toHaveLength(1);
  });
});

describe("generated 2024-11-05 server and client", () => {
  it("negotiate 2024-11-05 and call a tool", async () => {
    const [a, b] = createMemoryTransportPair();
    const server = V2024.createServer({
      info,
      handlers: { callTool: (p) => ({ content: [{ type: "text", text: p.name }] }) },
    });
    await server.connect(a);
    const client = V2024.createClient({ info });
    await client.connect(b);
    expect(client.protocolVersion).toBe("2024-11-05");
    expect((await client.callTool({ name: "x" })).content).toEqual([{ type: "text", text: "x" }]);
  });
});
