/**
 * The everything-server over real stdio, driven by the official SDK client the way the conformance
 * suite's server scenarios drive it over HTTP: every tool, resource and prompt they call, with the
 * results they check. Every message the server sends is also validated, as the suite does, against the
 * generated schemas of both 2025-06-18 and 2025-11-25 (`--spec-version` of either run).
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import {
  type CallToolResult,
  CreateMessageRequestSchema,
  type ElicitRequest,
  ElicitRequestSchema,
  LoggingMessageNotificationSchema,
  ResultSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CONTRACT_DIR, contractFiles } from "../../examples/everything-server/generate.js";
import * as v0618 from "../../generated/2025-06-18/protocol.js";
import * as v1125 from "../../generated/2025-11-25/protocol.js";
import type { Check, Fail } from "../../runtime/check/check.js";

const REPO = fileURLToPath(new URL("../../", import.meta.url));
const TOOL_NAME = /^[A-Za-z0-9_./-]{1,64}$/;

interface Wire {
  /** Request id → method of the client's requests, to know which result schema a response needs. */
  clientRequests: Map<string | number, string>;
  problems: string[];
  /** Set while a scenario of 2025-11-25 only runs: its messages need not be valid 2025-06-18. */
  newerOnly: boolean;
}

/** The part of a generated protocol.ts the wire checks read. */
interface Tables {
  clientRequests: Record<string, { result: Check }>;
  serverRequests: Record<string, { params: Check }>;
  serverNotifications: Record<string, { params: Check }>;
}
const VERSIONS = [
  ["2025-11-25", v1125 satisfies Tables],
  ["2025-06-18", v0618 satisfies Tables],
] as const;

/** Validates one server→client message against one version's generated tables. */
function check(wire: Wire, version: string, tables: Tables, message: Record<string, unknown>): void {
  const method = message.method as string | undefined;
  let what: string;
  let failure: Fail | undefined;
  let check: Check | undefined;
  if (method !== undefined) {
    const isRequest = message.id !== undefined;
    what = `${isRequest ? "request" : "notification"} ${method}`;
    const entry = (isRequest ? tables.serverRequests : tables.serverNotifications)[method];
    check = entry?.params;
    failure = check?.(message.params);
  } else if ("result" in message) {
    const requested = wire.clientRequests.get(message.id as string | number);
    what = `result of ${requested}`;
    check = requested ? tables.clientRequests[requested]?.result : undefined;
    failure = check?.(message.result);
  } else {
    return;
  }
  if (check === undefined || failure !== undefined)
    wire.problems.push(`${version} ${what}: ${JSON.stringify(failure ?? "unknown")}`.slice(0, 2000));
}

/** An SDK stdio transport whose every message in both directions passes the wire checks first. */
function tappedTransport(wire: Wire): StdioClientTransport {
  const transport = new StdioClientTransport({
    command: `${REPO}node_modules/.bin/tsx`,
    args: ["--conditions=mcp-codegen-source", `${REPO}examples/everything-server/main.ts`, "--stdio"],
    stderr: "pipe",
  });
  const send = transport.send.bind(transport);
  transport.send = (message) => {
    const m = message as Record<string, unknown>;
    if (typeof m.method === "string" && m.id !== undefined) wire.clientRequests.set(m.id as string, m.method);
    return send(message);
  };
  let inner: StdioClientTransport["onmessage"];
  Object.defineProperty(transport, "onmessage", {
    configurable: true,
    get: () =>
      inner &&
      ((message: Parameters<NonNullable<StdioClientTransport["onmessage"]>>[0]) => {
        for (const [version, tables] of VERSIONS) {
          if (version !== "2025-11-25" && wire.newerOnly) continue;
          check(wire, version, tables, message as Record<string, unknown>);
        }
        inner?.(message);
      }),
    set: (handler: StdioClientTransport["onmessage"]) => {
      inner = handler;
    },
  });
  return transport;
}

const wire: Wire = { clientRequests: new Map(), problems: [], newerOnly: false };
const client = new Client(
  { name: "everything-server-test", version: "1.0.0" },
  { capabilities: { sampling: {}, elicitation: {} } },
);
const logs: { level: string; data: unknown }[] = [];
const sampled: unknown[] = [];
const elicited: ElicitRequest["params"][] = [];
let transport: StdioClientTransport;

beforeAll(async () => {
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params));
  client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
    sampled.push(request.params);
    return {
      role: "assistant",
      content: { type: "text", text: "This is a test response from the client" },
      model: "test-model",
      stopReason: "endTurn",
    };
  });
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    elicited.push(request.params);
    return { action: "accept", content: { username: "testuser", email: "test@example.com" } };
  });
  transport = tappedTransport(wire);
  await client.connect(transport);
  transport.stderr?.on("data", () => {}); // the tool that fails on purpose reports to stderr; keep it drained
});
afterAll(async () => {
  await client.close();
});

/** The fields of an enum property the SEP-1330 checks look at. */
interface EnumField {
  type: string;
  enum?: string[];
  enumNames?: string[];
  oneOf?: unknown[];
  items?: { type?: string; enum?: string[]; anyOf?: unknown[] };
}

const call = (name: string, args: Record<string, unknown> = {}) =>
  client.callTool({ name, arguments: args }) as Promise<CallToolResult>;

/** A call from a scenario that runs only with --spec-version 2025-11-25. */
async function callNewerOnly(name: string): Promise<CallToolResult> {
  wire.newerOnly = true;
  try {
    return await call(name);
  } finally {
    wire.newerOnly = false;
  }
}
const firstText = (result: CallToolResult) => (result.content[0] as { text?: string }).text;

describe("everything-server over stdio (conformance server scenarios)", () => {
  it("server-initialize, ping: declares what its handlers serve", async () => {
    expect(client.getServerVersion()).toEqual({ name: "mcp-codegen-everything-server", version: "1.0.0" });
    // list_changed is declared for both eras (a 2026 client hears it through subscriptions/listen).
    expect(client.getServerCapabilities()).toEqual({
      tools: { listChanged: true },
      resources: { subscribe: true },
      prompts: { listChanged: true },
      completions: {},
      logging: {},
      // Its task-capable tools (the tasks extension's fixtures) run as 2025-11-25 core tasks too.
      tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
    });
    expect(client.getInstructions()).toContain("everything-server");
    await expect(client.ping()).resolves.toEqual({});
  });

  it("tools-list: every tool named by the scenarios, described, with an input schema", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(
      [
        "json_schema_2020_12_tool",
        "test_audio_content",
        "test_elicitation",
        "test_elicitation_sep1034_defaults",
        "test_elicitation_sep1330_enums",
        "test_embedded_resource",
        "test_error_handling",
        "test_image_content",
        "test_multiple_content_types",
        "test_reconnection",
        "test_sampling",
        "test_simple_text",
        "test_tool_with_logging",
        "test_tool_with_progress",
        // The stateless era's scenarios (they ask for input through ctx.elicit and its siblings, which a
        // 2025 client receives as requests).
        "test_custom_headers",
        "test_input_required_result_capabilities",
        "test_input_required_result_elicitation",
        "test_input_required_result_list_roots",
        "test_input_required_result_multi_round",
        "test_input_required_result_multiple_inputs",
        "test_input_required_result_request_state",
        "test_input_required_result_sampling",
        "test_input_required_result_tampered_state",
        "test_logging_tool",
        "test_missing_capability",
        "test_streaming_elicitation",
        // The tasks extension's scenarios.
        "greet",
        "slow_compute",
        "failing_job",
        "protocol_error_job",
        "confirm_delete",
        "multi_input",
        "test_tool_with_task",
      ].sort(),
    );
    const support = Object.fromEntries(tools.map((t) => [t.name, t.execution?.taskSupport]));
    expect(support).toMatchObject({
      greet: undefined,
      slow_compute: "optional",
      failing_job: "required",
      protocol_error_job: "optional",
      confirm_delete: "optional",
      multi_input: "optional",
      test_tool_with_task: "required",
    });
    for (const tool of tools) {
      expect(tool.name).toMatch(TOOL_NAME);
      expect(tool.description).toBeTruthy();
      expect(tool.inputSchema.type).toBe("object");
    }
  });

  it("json-schema-2020-12: the 2020-12 keywords reach the client unchanged", async () => {
    const { tools } = await client.listTools();
    const schema = tools.find((t) => t.name === "json_schema_2020_12_tool")?.inputSchema as Record<
      string,
      unknown
    >;
    expect(schema.$schema).toBe("https://json-schema.org/draft/2020-12/schema");
    expect(schema.$defs).toMatchObject({ address: { $anchor: "addressDef", type: "object" } });
    expect(schema.additionalProperties).toBe(false);
    expect(schema.allOf).toEqual([{ anyOf: [{ required: ["phone"] }, { required: ["email"] }] }]);
    expect(Object.keys(schema)).toEqual(expect.arrayContaining(["if", "then", "else"]));
  });

  it("arguments are checked against contract.yaml before a handler runs, naming the field", async () => {
    const ok = await call("json_schema_2020_12_tool", { contactMethod: "phone", phone: "555" });
    expect(ok.isError).toBeFalsy();
    expect(ok.content).toEqual([{ type: "text", text: 'Received: {"contactMethod":"phone","phone":"555"}' }]);
    // The `then` branch: a phone contact needs a phone. From 2025-11-25 on, a result the model can read.
    const noPhone = await call("json_schema_2020_12_tool", { contactMethod: "phone", email: "a@b.c" });
    expect(noPhone.isError).toBe(true);
    expect(noPhone.content).toEqual([
      { type: "text", text: 'Invalid arguments for tool "json_schema_2020_12_tool": phone: Required' },
    ]);
    const extra = await call("json_schema_2020_12_tool", { email: "a@b.c", fax: "1" });
    expect(extra.content).toEqual([
      {
        type: "text",
        text: 'Invalid arguments for tool "json_schema_2020_12_tool": fax: Unexpected property',
      },
    ]);
    const wrongType = await call("test_sampling", { prompt: 5 });
    expect(wrongType).toMatchObject({
      isError: true,
      content: [
        { type: "text", text: 'Invalid arguments for tool "test_sampling": prompt: Expected string' },
      ],
    });
    expect(sampled).toHaveLength(0);
    await expect(
      client.getPrompt({ name: "test_prompt_with_arguments", arguments: { arg1: "x" } }),
    ).rejects.toThrow(/-32602.*arg2: Required/);
    await expect(call("no_such_tool")).rejects.toThrow(/-32602.*Unknown tool: no_such_tool/);
  });

  it("contract/ holds what generate.ts makes of contract.yaml", async () => {
    for (const [name, text] of Object.entries(await contractFiles()))
      expect(readFileSync(`${CONTRACT_DIR}${name}`, "utf8"), name).toBe(text);
  });

  it("tools-call-simple-text, -image, -audio, -embedded-resource, -mixed-content", async () => {
    expect((await call("test_simple_text")).content).toEqual([
      { type: "text", text: "This is a simple text response for testing." },
    ]);
    const image = (await call("test_image_content")).content[0];
    expect(image).toMatchObject({ type: "image", mimeType: "image/png" });
    expect(
      Buffer.from((image as { data: string }).data, "base64")
        .subarray(1, 4)
        .toString(),
    ).toBe("PNG");
    const audio = (await call("test_audio_content")).content[0];
    expect(audio).toMatchObject({ type: "audio", mimeType: "audio/wav" });
    expect(
      Buffer.from((audio as { data: string }).data, "base64")
        .subarray(0, 4)
        .toString(),
    ).toBe("RIFF");
    expect((await call("test_embedded_resource")).content).toEqual([
      {
        type: "resource",
        resource: {
          uri: "test://embedded-resource",
          mimeType: "text/plain",
          text: "This is an embedded resource content.",
        },
      },
    ]);
    const mixed = (await call("test_multiple_content_types")).content;
    expect(mixed.map((c) => c.type)).toEqual(["text", "image", "resource"]);
    expect(mixed[2]).toMatchObject({
      resource: {
        uri: "test://mixed-content-resource",
        mimeType: "application/json",
        text: '{"test":"data","value":123}',
      },
    });
  });

  it("tools-call-with-logging, logging-set-level: three info messages, filtered by level", async () => {
    await expect(client.setLoggingLevel("debug")).resolves.toEqual({});
    logs.length = 0;
    expect(firstText(await call("test_tool_with_logging"))).toBe("Tool with logging executed successfully");
    await expect.poll(() => logs.length).toBe(3);
    expect(logs).toEqual([
      { level: "info", data: "Tool execution started" },
      { level: "info", data: "Tool processing data" },
      { level: "info", data: "Tool execution completed" },
    ]);
    await client.setLoggingLevel("warning");
    logs.length = 0;
    await call("test_tool_with_logging");
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(logs).toEqual([]);
    await client.setLoggingLevel("debug");
  });

  it("tools-call-with-progress: 0, 50, 100 of 100 under the request's token", async () => {
    const progress: { progress: number; total?: number }[] = [];
    const result = await client.callTool({ name: "test_tool_with_progress", arguments: {} }, undefined, {
      onprogress: ({ progress: p, total }) => void progress.push({ progress: p, total }),
    });
    expect(result.isError).toBeFalsy();
    expect(progress).toEqual([
      { progress: 0, total: 100 },
      { progress: 50, total: 100 },
      { progress: 100, total: 100 },
    ]);
    // Without a progress token the tool still runs, silently.
    expect((await call("test_tool_with_progress")).isError).toBeFalsy();
  });

  it("tools-call-error: a failing tool answers isError with its message", async () => {
    const result = await call("test_error_handling");
    expect(result.isError).toBe(true);
    expect(firstText(result)).toBe("This tool intentionally returns an error for testing");
    await expect(call("no_such_tool")).rejects.toMatchObject({ code: -32602 });
  });

  it("tools-call-sampling: asks the client's LLM and reports its answer", async () => {
    const result = await call("test_sampling", { prompt: "Test prompt for sampling" });
    expect(firstText(result)).toBe("LLM response: This is a test response from the client");
    expect(sampled.at(-1)).toEqual({
      messages: [{ role: "user", content: { type: "text", text: "Test prompt for sampling" } }],
      maxTokens: 100,
    });
    const bad = await call("test_sampling", {});
    expect(bad.isError).toBe(true);
  });

  it("a tool written for the stateless era works for this 2025 client: input asked by request", async () => {
    // The low-level form (an InputRequiredResult with the handler's own requestState): the server asks
    // the client itself and runs the handler again with the answer.
    const before = elicited.length;
    const state = await call("test_input_required_result_request_state", {});
    expect(firstText(state)).toBe("state-ok: requestState validated");
    expect(elicited.slice(before)).toMatchObject([{ message: "Please confirm" }]);
    // ctx.elicit: two questions, two requests, one result.
    const rounds = await call("test_input_required_result_multi_round", {});
    expect(firstText(rounds)).toBe("undefined likes undefined");
    expect(elicited.slice(before + 1).map((p) => p.message)).toEqual([
      "Step 1: What is your name?",
      "Step 2: What is your favorite color?",
    ]);
  });

  it("tools-call-elicitation: asks the user for username and email", async () => {
    const result = await call("test_elicitation", { message: "Please provide your information" });
    expect(firstText(result)).toBe(
      'User response: action=accept, content={"username":"testuser","email":"test@example.com"}',
    );
    expect(elicited.at(-1)).toMatchObject({
      message: "Please provide your information",
      requestedSchema: {
        type: "object",
        properties: { username: { type: "string" }, email: { type: "string" } },
        required: ["username", "email"],
      },
    });
  });

  it("elicitation-sep1034-defaults: every primitive field carries its default", async () => {
    await callNewerOnly("test_elicitation_sep1034_defaults");
    const { properties } = (elicited.at(-1) as { requestedSchema: { properties: Record<string, unknown> } })
      .requestedSchema;
    expect(properties).toMatchObject({
      name: { type: "string", default: "John Doe" },
      age: { type: "integer", default: 30 },
      score: { type: "number", default: 95.5 },
      status: { type: "string", enum: ["active", "inactive", "pending"], default: "active" },
      verified: { type: "boolean", default: true },
    });
  });

  it("elicitation-sep1330-enums: the five enum variants", async () => {
    await callNewerOnly("test_elicitation_sep1330_enums");
    const { properties } = (elicited.at(-1) as { requestedSchema: { properties: Record<string, EnumField> } })
      .requestedSchema;
    expect(properties.untitledSingle).toMatchObject({
      type: "string",
      enum: ["option1", "option2", "option3"],
    });
    expect(properties.untitledSingle?.oneOf).toBeUndefined();
    expect(properties.titledSingle?.type).toBe("string");
    expect(properties.titledSingle?.oneOf).toHaveLength(3);
    expect(properties.titledSingle?.enum).toBeUndefined();
    for (const o of properties.titledSingle?.oneOf ?? [])
      expect(o).toEqual({ const: expect.any(String), title: expect.any(String) });
    expect(properties.legacyEnum?.enumNames).toEqual(["Option One", "Option Two", "Option Three"]);
    expect(properties.legacyEnum?.enum).toEqual(["opt1", "opt2", "opt3"]);
    expect(properties.untitledMulti).toMatchObject({
      type: "array",
      items: { type: "string", enum: expect.any(Array) },
    });
    expect(properties.titledMulti?.type).toBe("array");
    expect(properties.titledMulti?.items?.anyOf).toHaveLength(3);
    expect(properties.titledMulti?.items?.enum).toBeUndefined();
    for (const o of properties.titledMulti?.items?.anyOf ?? [])
      expect(o).toEqual({ const: expect.any(String), title: expect.any(String) });
  });

  it("server-sse-polling: test_reconnection answers (over stdio there is no stream to close)", async () => {
    expect(firstText(await call("test_reconnection"))).toMatch(/^Reconnection test completed successfully/);
  });

  it("resources-list, -read-text, -read-binary, -templates-read, not found", async () => {
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri)).toEqual([
      "skill://everything-demo/SKILL.md",
      "test://static-text",
      "test://static-binary",
      "test://watched-resource",
    ]);
    for (const r of resources) expect(r.name && r.description).toBeTruthy();
    expect((await client.readResource({ uri: "test://static-text" })).contents).toEqual([
      {
        uri: "test://static-text",
        mimeType: "text/plain",
        text: "This is the content of the static text resource.",
      },
    ]);
    const [binary] = (await client.readResource({ uri: "test://static-binary" })).contents;
    expect(binary).toMatchObject({
      uri: "test://static-binary",
      mimeType: "image/png",
      blob: expect.any(String),
    });
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates).toMatchObject([{ uriTemplate: "test://template/{id}/data" }]);
    expect((await client.readResource({ uri: "test://template/123/data" })).contents).toEqual([
      {
        uri: "test://template/123/data",
        mimeType: "application/json",
        text: '{"id":"123","templateTest":true,"data":"Data for ID: 123"}',
      },
    ]);
    await expect(client.readResource({ uri: "test://nope" })).rejects.toMatchObject({
      code: -32002,
      data: { uri: "test://nope" },
    });
  });

  it("skills in a 2025 session: skill files are ordinary resources, skills/* is -32601", async () => {
    const { resources } = await client.listResources();
    expect(resources[0]).toEqual({
      uri: "skill://everything-demo/SKILL.md",
      name: "everything-demo",
      description: expect.stringMatching(/^Shows how the mcp-codegen everything-server serves a skill/),
      mimeType: "text/markdown",
      size: readFileSync(`${REPO}examples/everything-server/skills/everything-demo/SKILL.md`).length,
    });
    const [guide] = (await client.readResource({ uri: "skill://everything-demo/references/GUIDE.md" }))
      .contents;
    expect(guide).toEqual({
      uri: "skill://everything-demo/references/GUIDE.md",
      mimeType: "text/markdown",
      text: readFileSync(
        `${REPO}examples/everything-server/skills/everything-demo/references/GUIDE.md`,
        "utf8",
      ),
    });
    for (const method of ["skills/list", "skills/get", "resources/directory/read"])
      await expect(
        client.request({ method, params: { uri: "skill://everything-demo/SKILL.md" } }, ResultSchema),
      ).rejects.toMatchObject({ code: -32601 });
  });

  it("resources-subscribe, -unsubscribe: both answer {}", async () => {
    await expect(client.subscribeResource({ uri: "test://watched-resource" })).resolves.toEqual({});
    await expect(client.unsubscribeResource({ uri: "test://watched-resource" })).resolves.toEqual({});
  });

  it("prompts-list, -get-simple, -get-with-args, -get-embedded-resource, -get-with-image", async () => {
    const { prompts } = await client.listPrompts();
    expect(prompts.map((p) => p.name)).toEqual([
      "test_simple_prompt",
      "test_prompt_with_arguments",
      "test_prompt_with_embedded_resource",
      "test_prompt_with_image",
      "test_input_required_result_prompt",
    ]);
    for (const p of prompts) expect(p.description).toBeTruthy();
    expect((await client.getPrompt({ name: "test_simple_prompt" })).messages).toEqual([
      { role: "user", content: { type: "text", text: "This is a simple prompt for testing." } },
    ]);
    const withArgs = await client.getPrompt({
      name: "test_prompt_with_arguments",
      arguments: { arg1: "testValue1", arg2: "testValue2" },
    });
    expect(withArgs.messages[0]?.content).toEqual({
      type: "text",
      text: "Prompt with arguments: arg1='testValue1', arg2='testValue2'",
    });
    const embedded = await client.getPrompt({
      name: "test_prompt_with_embedded_resource",
      arguments: { resourceUri: "test://example-resource" },
    });
    expect(embedded.messages.map((m) => m.content.type)).toEqual(["resource", "text"]);
    expect(embedded.messages[0]?.content).toMatchObject({ resource: { uri: "test://example-resource" } });
    const image = await client.getPrompt({ name: "test_prompt_with_image" });
    expect(image.messages.map((m) => m.content.type)).toEqual(["image", "text"]);
    await expect(
      client.getPrompt({ name: "test_prompt_with_arguments", arguments: { arg1: "x" } }),
    ).rejects.toMatchObject({
      code: -32602,
    });
    await expect(client.getPrompt({ name: "nope" })).rejects.toMatchObject({ code: -32602 });
  });

  it("completion-complete: prompt arguments and the template's id", async () => {
    const prompt = await client.complete({
      ref: { type: "ref/prompt", name: "test_prompt_with_arguments" },
      argument: { name: "arg1", value: "par" },
    });
    expect(prompt.completion).toEqual({ values: ["paris", "park", "party"], total: 3, hasMore: false });
    const empty = await client.complete({
      ref: { type: "ref/prompt", name: "test_prompt_with_arguments" },
      argument: { name: "arg1", value: "zzz" },
    });
    expect(empty.completion.values).toEqual([]);
    const template = await client.complete({
      ref: { type: "ref/resource", uri: "test://template/{id}/data" },
      argument: { name: "id", value: "12" },
    });
    expect(template.completion.values).toEqual(["123"]);
  });

  it("every message the server sent is valid under 2025-06-18 and 2025-11-25", () => {
    expect(wire.problems).toEqual([]);
  });
});
