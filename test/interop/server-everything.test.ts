/**
 * The generated 2025-11-25 client drives the official @modelcontextprotocol/server-everything over real
 * stdio through every request it serves, and answers the sampling, elicitation and roots requests the
 * server sends back through ClientHandlers. Every result is checked by the generated validators.
 */
import { createRequire } from "node:module";
import { StdioClientTransport } from "@mcp-codegen/runtime/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as V from "../../generated/2025-11-25/index.js";

const require = createRequire(import.meta.url);
const EVERYTHING = require.resolve("@modelcontextprotocol/server-everything/dist/index.js");

const seen = { sampling: 0, elicitation: 0, roots: 0, logs: [] as V.LoggingMessageNotificationParams[] };

/** Answers an elicitation form with a value of each requested property's type. */
function fill(
  schema: V.ElicitRequestFormParams["requestedSchema"],
): Record<string, string | number | boolean | string[]> {
  const out: Record<string, string | number | boolean | string[]> = {};
  for (const [key, prop] of Object.entries(schema.properties)) {
    const p = prop as {
      type?: string;
      enum?: string[];
      oneOf?: { const: string }[];
      items?: { enum?: string[]; anyOf?: { const: string }[] };
      format?: string;
    };
    if (p.type === "boolean") out[key] = true;
    else if (p.type === "number" || p.type === "integer") out[key] = 1;
    else if (p.type === "array") out[key] = [p.items?.enum?.[0] ?? p.items?.anyOf?.[0]?.const ?? "a"];
    else if (p.enum) out[key] = p.enum[0]!;
    else if (p.oneOf) out[key] = p.oneOf[0]!.const;
    else if (p.format === "email") out[key] = "ada@example.com";
    else if (p.format === "uri") out[key] = "https://example.com";
    else if (p.format === "date") out[key] = "2026-01-01";
    else if (p.format === "date-time") out[key] = "2026-01-01T00:00:00Z";
    else out[key] = "Ada";
  }
  return out;
}

const client = V.createClient({
  info: { name: "generated-client", version: "1.0.0" },
  capabilities: { roots: { listChanged: true } },
  handlers: {
    createMessage: (params) => {
      seen.sampling++;
      const first = params.messages[0]?.content as { type: string; text?: string };
      return {
        role: "assistant",
        content: { type: "text", text: `you said: ${first.text}` },
        model: "generated-client-model",
      };
    },
    elicit: (params) => {
      seen.elicitation++;
      if (!("requestedSchema" in params)) return { action: "decline" };
      return {
        action: "accept",
        content: fill(params.requestedSchema as V.ElicitRequestFormParams["requestedSchema"]),
      };
    },
    listRoots: () => {
      seen.roots++;
      return { roots: [{ uri: "file:///tmp/project", name: "project" }] };
    },
    onLoggingMessage: (params) => void seen.logs.push(params),
  },
});

beforeAll(async () => {
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args: [EVERYTHING, "stdio"], stderr: "ignore" }),
  );
});
afterAll(() => client.close());

const text = (r: V.CallToolResult) =>
  r.content
    .filter((c) => c.type === "text")
    .map((c) => (c as V.TextContent).text)
    .join("\n");

describe("generated client → official server-everything over stdio", () => {
  it("initializes with 2025-11-25 and reads the server's capabilities", () => {
    expect(client.protocolVersion).toBe("2025-11-25");
    expect(client.serverDescription?.serverInfo.name).toMatch(/everything/);
    expect(client.serverDescription?.capabilities).toMatchObject({
      tools: {},
      resources: {},
      prompts: {},
      logging: {},
    });
    expect(client.capabilities).toEqual({ sampling: {}, elicitation: {}, roots: { listChanged: true } });
  });

  it("pings", async () => {
    expect(await client.ping()).toEqual({});
  });

  let tools: V.Tool[] = [];
  it("lists every tool across pages", async () => {
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor ? { cursor } : undefined);
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor);
    tools = [...new Map(tools.map((t) => [t.name, t])).values()];
    expect(tools.map((t) => t.name)).toEqual(
      expect.arrayContaining([
        "echo",
        "get-sum",
        "trigger-sampling-request",
        "trigger-elicitation-request",
        "get-roots-list",
      ]),
    );
  });

  it("calls plain tools and validates their results", async () => {
    expect(text(await client.callTool({ name: "echo", arguments: { message: "hello" } }))).toContain("hello");
    expect(text(await client.callTool({ name: "get-sum", arguments: { a: 2, b: 40 } }))).toContain("42");
    const image = await client.callTool({ name: "get-tiny-image" });
    expect(image.content.some((c) => c.type === "image")).toBe(true);
    const annotated = await client.callTool({
      name: "get-annotated-message",
      arguments: { messageType: "success", includeImage: true },
    });
    expect(annotated.content[0]?.annotations).toBeDefined();
    const links = await client.callTool({ name: "get-resource-links", arguments: { count: 3 } });
    expect(links.content.filter((c) => c.type === "resource_link")).toHaveLength(3);
    const ref = await client.callTool({
      name: "get-resource-reference",
      arguments: { resourceType: "Text", resourceId: 1 },
    });
    expect(ref.content.some((c) => c.type === "resource")).toBe(true);
    const structured = await client.callTool({
      name: "get-structured-content",
      arguments: { location: "New York" },
    });
    expect(structured.structuredContent).toBeDefined();
  });

  it("reports progress of a long-running operation", async () => {
    const progress: number[] = [];
    const result = await client.callTool(
      { name: "trigger-long-running-operation", arguments: { duration: 0.3, steps: 3 } },
      { onprogress: (p) => progress.push(p.progress) },
    );
    expect(text(result)).toMatch(/complete/i);
    expect(progress).toEqual([1, 2, 3]);
  });

  it("answers a sampling request through ClientHandlers.createMessage", async () => {
    const result = await client.callTool({
      name: "trigger-sampling-request",
      arguments: { prompt: "what is MCP?", maxTokens: 50 },
    });
    expect(seen.sampling).toBe(1);
    // The server wraps our answer in its own text; our model name and the prompt come back inside it.
    expect(text(result)).toContain("generated-client-model");
    expect(text(result)).toMatch(/you said: .*what is MCP\?/);
  });

  it("answers an elicitation request through ClientHandlers.elicit", async () => {
    const result = await client.callTool({ name: "trigger-elicitation-request" });
    expect(seen.elicitation).toBe(1);
    expect(text(result)).toMatch(/accept/i);
  });

  it("answers roots/list through ClientHandlers.listRoots", async () => {
    const result = await client.callTool({ name: "get-roots-list" });
    expect(seen.roots).toBeGreaterThanOrEqual(1);
    expect(text(result)).toContain("file:///tmp/project");
  });

  it("lists and reads resources and templates, subscribes and unsubscribes", async () => {
    const first = await client.listResources();
    expect(first.resources.length).toBeGreaterThan(0);
    const uri = first.resources[0]!.uri;
    const read = await client.readResource({ uri });
    expect(read.contents[0]?.uri).toBe(uri);
    const templates = await client.listResourceTemplates();
    expect(templates.resourceTemplates.length).toBeGreaterThan(0);
    expect(await client.subscribe({ uri })).toEqual({});
    expect(await client.unsubscribe({ uri })).toEqual({});
  });

  it("lists and gets prompts and completes a prompt argument", async () => {
    const prompts = await client.listPrompts();
    const names = prompts.prompts.map((p) => p.name);
    expect(names).toEqual(expect.arrayContaining(["simple-prompt", "args-prompt", "completable-prompt"]));
    const simple = await client.getPrompt({ name: "simple-prompt" });
    expect(simple.messages.length).toBeGreaterThan(0);
    const args = await client.getPrompt({ name: "args-prompt", arguments: { city: "Paris" } });
    expect(JSON.stringify(args.messages)).toContain("Paris");
    const completion = await client.complete({
      ref: { type: "ref/prompt", name: "completable-prompt" },
      argument: { name: "department", value: "E" },
    });
    expect(completion.completion.values.length).toBeGreaterThan(0);
  });

  it("sets the log level and receives log notifications", async () => {
    await client.setLevel({ level: "debug" });
    await client.callTool({ name: "toggle-simulated-logging" });
    await expect.poll(() => seen.logs.length, { timeout: 15_000 }).toBeGreaterThan(0);
    await client.callTool({ name: "toggle-simulated-logging" });
    expect(seen.logs[0]?.level).toBeDefined();
  });
});
