/**
 * Everything the official conformance suite's server scenarios ask of a server
 * (`npx conformance list --server`: 2025-06-18, 2025-11-25 and 2026-07-28), written only as generated
 * ServerHandlers for protocol 2026-07-28, which serve both eras: handshake clients (2024-11-05 to
 * 2025-11-25) and stateless clients (2026-07-28). Tool, resource and prompt names, arguments and texts
 * are the ones the scenarios' requirements name; examples/README.md maps scenario → handler.
 */

import { paginate } from "@mcp-codegen/runtime";
import { closeSseStream } from "@mcp-codegen/runtime/http";
import {
  errors,
  inputRequired,
  type ServerContext,
  type ServerHandlers,
} from "../../generated/2026-07-28/index.js";
// Results are built in the shape both eras accept (the runtime adds resultType and caching hints for
// stateless clients), so the handshake era's types describe them.
import type * as T from "../../generated/2026-07-28/legacy/types.js";

export const info = { name: "mcp-codegen-everything-server", version: "1.0.0" };
export const instructions =
  "The mcp-codegen everything-server: every tool, resource and prompt the MCP conformance suite exercises.";

/** A 1×1 red PNG. */
const PNG_BASE64 =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC";

/** A WAV file of `samples` silent 8 kHz mono 16-bit samples (RIFF header + PCM data). */
function silentWav(samples: number): string {
  const data = samples * 2;
  const wav = Buffer.alloc(44 + data);
  wav.write("RIFF", 0, "ascii");
  wav.writeUInt32LE(36 + data, 4);
  wav.write("WAVEfmt ", 8, "ascii");
  wav.writeUInt32LE(16, 16); // fmt chunk size
  wav.writeUInt16LE(1, 20); // PCM
  wav.writeUInt16LE(1, 22); // mono
  wav.writeUInt32LE(8000, 24); // sample rate
  wav.writeUInt32LE(16000, 28); // byte rate
  wav.writeUInt16LE(2, 32); // block align
  wav.writeUInt16LE(16, 34); // bits per sample
  wav.write("data", 36, "ascii");
  wav.writeUInt32LE(data, 40);
  return wav.toString("base64");
}
const WAV_BASE64 = silentWav(80);

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });

const text = (value: string): T.CallToolResult => ({ content: [{ type: "text", text: value }] });

/** A tool's listing (name aside) and what calling it does. */
interface ToolEntry {
  description: string;
  inputSchema?: T.Tool["inputSchema"];
  run(
    args: Record<string, unknown>,
    ctx: ServerContext,
    params: ToolParams,
  ): T.CallToolResult | InputRequired | Promise<T.CallToolResult | InputRequired>;
}

type ToolParams = Parameters<NonNullable<ServerHandlers["callTool"]>>[0];

type InputRequired = ReturnType<typeof inputRequired>;

const NO_ARGUMENTS: T.Tool["inputSchema"] = { type: "object", properties: {} };

/**
 * The keywords of JSON_SCHEMA_2020_12 beyond the four `Tool["inputSchema"]` names. The schema leaves
 * inputSchema open (no `additionalProperties`), so they are valid on the wire; the type, like the
 * specification's own, lists only the four, so they come in through a spread (not excess-checked).
 */
const KEYWORDS_2020_12 = {
  $defs: {
    address: {
      $anchor: "addressDef",
      type: "object",
      properties: { street: { type: "string" }, city: { type: "string" } },
    },
  },
  allOf: [{ anyOf: [{ required: ["phone"] }, { required: ["email"] }] }],
  if: { properties: { contactMethod: { const: "phone" } }, required: ["contactMethod"] },
  // biome-ignore lint/suspicious/noThenProperty: the JSON Schema keyword, not a thenable; the scenario checks it.
  then: { required: ["phone"] },
  else: { required: ["email"] },
  additionalProperties: false,
};

/** SEP-1613 / SEP-2106: a 2020-12 input schema that must reach the client keyword for keyword. */
const JSON_SCHEMA_2020_12: T.Tool["inputSchema"] = {
  ...KEYWORDS_2020_12,
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  properties: {
    name: { type: "string" },
    address: { $ref: "#/$defs/address" },
    contactMethod: { type: "string", enum: ["phone", "email"] },
    phone: { type: "string" },
    email: { type: "string" },
  },
};

function stringArgument(args: Record<string, unknown>, name: string): string {
  const value = args[name];
  // Thrown from a tool, this becomes an `isError` result the model can read and correct.
  if (typeof value !== "string") throw new Error(`argument "${name}" must be a string`);
  return value;
}

/**
 * Handshake era: a tool error the model can read when the client cannot answer. (In the stateless era
 * the runtime answers a missing capability with MissingRequiredClientCapability itself.)
 */
function requireClientCapability(ctx: ServerContext, capability: "sampling" | "elicitation"): void {
  if (ctx.session.era !== "stateless" && !ctx.session.clientCapabilities[capability])
    throw new Error(`the client did not declare the ${capability} capability`);
}

/** SEP-1034 defaults and SEP-1330 enum shapes are not valid elicitation schemas before 2025-11-25. */
function requireVersion(ctx: ServerContext, version: string): void {
  if (ctx.session.protocolVersion < version)
    throw new Error(`this tool needs protocol ${version}; the session speaks ${ctx.session.protocolVersion}`);
}

async function elicit(
  ctx: ServerContext,
  message: string,
  properties: Record<string, T.PrimitiveSchemaDefinition>,
  required: string[] = [],
): Promise<T.ElicitResult> {
  requireClientCapability(ctx, "elicitation");
  return ctx.elicit({ message, requestedSchema: { type: "object", properties, required } });
}

const elicitationSummary = (result: T.ElicitResult) =>
  `action=${result.action}, content=${JSON.stringify(result.content ?? {})}`;

/** Tools callable but not listed: they make the server send list-changed notifications. */
const HIDDEN_TOOLS: Record<string, ToolEntry> = {
  test_trigger_tool_change: {
    description: "Sends notifications/tools/list_changed to subscribers",
    run: async () => {
      await notifyChange("notifications/tools/list_changed");
      return text("tools/list_changed sent");
    },
  },
  test_trigger_prompt_change: {
    description: "Sends notifications/prompts/list_changed to subscribers",
    run: async () => {
      await notifyChange("notifications/prompts/list_changed");
      return text("prompts/list_changed sent");
    },
  },
};

/** How the handlers reach the server for change notifications (set by main.ts once it made the server). */
export const changes: {
  notify?: (
    method: "notifications/tools/list_changed" | "notifications/prompts/list_changed",
  ) => Promise<void>;
} = {};

function notifyChange(method: "notifications/tools/list_changed" | "notifications/prompts/list_changed") {
  if (!changes.notify) throw new Error("no server to send change notifications through (set changes.notify)");
  return changes.notify(method);
}

const NAME_SCHEMA = {
  type: "object" as const,
  properties: { name: { type: "string" as const } },
  required: ["name"],
};

/**
 * The stateless era's scenarios (server-stateless, input-required-result-*, http-custom-header-*). The
 * input they ask for goes through ctx.elicit / ctx.createMessage / ctx.listRoots, which are requests to
 * a handshake-era client and input requests (InputRequiredResult, then a retry) to a stateless one.
 */
const STATELESS_TOOLS: Record<string, ToolEntry> = {
  test_missing_capability: {
    description: "Needs the client's sampling capability (MissingRequiredClientCapability without it)",
    run: async (_args, ctx) => {
      await ctx.createMessage(
        { messages: [{ role: "user", content: { type: "text", text: "Say success" } }], maxTokens: 10 },
        { key: "sample" },
      );
      return text("Success");
    },
  },
  test_streaming_elicitation: {
    description: "Asks the user for a name; never a server-to-client request in the stateless era",
    run: async (_args, ctx) => {
      const answer = await ctx.elicit(
        { message: "What is your name?", requestedSchema: NAME_SCHEMA },
        { key: "user_name" },
      );
      return text(`Hello, ${String(answer.content?.name ?? "stranger")}!`);
    },
  },
  test_logging_tool: {
    description: "Logs three messages, which a stateless client receives only when it asked for a log level",
    run: async (_args, ctx) => {
      await ctx.log("info", "Tool execution started");
      await ctx.log("info", "Tool processing data");
      await ctx.log("info", "Tool execution completed");
      return text("Tool with logging executed successfully");
    },
  },
  test_custom_headers: {
    description: "Mirrors its region argument into the Mcp-Param-Region header (x-mcp-header)",
    inputSchema: {
      type: "object",
      properties: { region: { type: "string", description: "A region", "x-mcp-header": "Region" } },
      required: ["region"],
    },
    run: (args) => text(`region=${stringArgument(args, "region")}`),
  },
  test_input_required_result_elicitation: {
    description: "MRTR: asks the user's name (elicitation, key user_name), then greets them",
    run: async (_args, ctx) => {
      const answer = await ctx.elicit(
        { message: "What is your name?", requestedSchema: NAME_SCHEMA },
        { key: "user_name" },
      );
      return text(`Hello, ${String(answer.content?.name ?? "stranger")}!`);
    },
  },
  test_input_required_result_sampling: {
    description: "MRTR: asks the client's LLM a question (sampling)",
    run: async (_args, ctx) => {
      const answer = await ctx.createMessage(
        {
          messages: [{ role: "user", content: { type: "text", text: "What is the capital of France?" } }],
          maxTokens: 100,
        },
        { key: "capital_question" },
      );
      const blocks = Array.isArray(answer.content) ? answer.content : [answer.content];
      return text(`LLM said: ${blocks.map((b) => (b.type === "text" ? b.text : `[${b.type}]`)).join(" ")}`);
    },
  },
  test_input_required_result_list_roots: {
    description: "MRTR: asks for the client's roots",
    run: async (_args, ctx) => {
      const { roots } = await ctx.listRoots(undefined, { key: "client_roots" });
      return text(`Roots: ${roots.map((r) => r.uri).join(", ")}`);
    },
  },
  test_input_required_result_request_state: {
    description:
      "MRTR with the handler's own requestState: asks for a confirmation, checks its state on the retry",
    run: (_args, _ctx, params) => requestStateTool(params),
  },
  test_input_required_result_multiple_inputs: {
    description: "MRTR: elicitation, sampling and roots in one round",
    run: async (_args, ctx) => {
      const [user, greeting, roots] = await Promise.all([
        ctx.elicit({ message: "What is your name?", requestedSchema: NAME_SCHEMA }, { key: "user_name" }),
        ctx.createMessage(
          {
            messages: [{ role: "user", content: { type: "text", text: "Generate a greeting" } }],
            maxTokens: 50,
          },
          { key: "greeting" },
        ),
        ctx.listRoots(undefined, { key: "client_roots" }),
      ]);
      return text(
        `name=${String(user.content?.name)}, greeting from ${greeting.model}, ${roots.roots.length} root(s)`,
      );
    },
  },
  test_input_required_result_multi_round: {
    description: "MRTR over two rounds: a name, then a favourite colour",
    run: async (_args, ctx) => {
      const name = await ctx.elicit(
        { message: "Step 1: What is your name?", requestedSchema: NAME_SCHEMA },
        { key: "step1" },
      );
      const color = await ctx.elicit(
        {
          message: "Step 2: What is your favorite color?",
          requestedSchema: {
            type: "object",
            properties: { color: { type: "string" } },
            required: ["color"],
          },
        },
        { key: "step2" },
      );
      return text(`${String(name.content?.name)} likes ${String(color.content?.color)}`);
    },
  },
  test_input_required_result_tampered_state: {
    description: "MRTR whose requestState is sealed: a tampered state is rejected",
    run: async (_args, ctx) => {
      const answer = await ctx.elicit(
        {
          message: "Please confirm",
          requestedSchema: { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] },
        },
        { key: "confirm" },
      );
      return text(`confirmed=${String(answer.content?.ok)}`);
    },
  },
  test_input_required_result_capabilities: {
    description: "MRTR asking only for what the client declared: elicitation if it can, else sampling",
    run: async (_args, ctx) => {
      const caps = ctx.session.clientCapabilities;
      if (caps.elicitation) {
        await ctx.elicit(
          { message: "Anything to add?", requestedSchema: NAME_SCHEMA },
          { key: "elicit_input" },
        );
      } else {
        await ctx.createMessage(
          {
            messages: [{ role: "user", content: { type: "text", text: "Anything to add?" } }],
            maxTokens: 20,
          },
          { key: "sample_input" },
        );
      }
      return text("Got the input the client could give");
    },
  },
};

/**
 * The low-level MRTR form: the handler returns an InputRequiredResult with its own requestState, and
 * on the retry finds that state (verified and unsealed by the runtime) and the answer in its params.
 */
function requestStateTool(params: ToolParams): T.CallToolResult | InputRequired {
  // Only the stateless era's params carry requestState (a handshake-era client never retries).
  if ("requestState" in params && params.requestState !== undefined) {
    const confirm = (params.inputResponses as Record<string, T.ElicitResult> | undefined)?.confirm;
    if (params.requestState !== "awaiting-confirmation" || confirm?.action !== "accept")
      throw errors.invalidParams("expected the confirmation asked for");
    return text("state-ok: requestState validated");
  }
  return inputRequired({
    inputRequests: {
      confirm: {
        method: "elicitation/create",
        params: {
          message: "Please confirm",
          requestedSchema: { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] },
        },
      },
    },
    requestState: "awaiting-confirmation",
  });
}

const TOOLS: Record<string, ToolEntry> = {
  test_simple_text: {
    description: "Returns a simple text response",
    run: () => text("This is a simple text response for testing."),
  },
  test_image_content: {
    description: "Returns a 1x1 PNG image",
    run: () => ({ content: [{ type: "image", data: PNG_BASE64, mimeType: "image/png" }] }),
  },
  test_audio_content: {
    description: "Returns a short silent WAV clip",
    run: () => ({ content: [{ type: "audio", data: WAV_BASE64, mimeType: "audio/wav" }] }),
  },
  test_embedded_resource: {
    description: "Returns an embedded text resource",
    run: () => ({
      content: [
        {
          type: "resource",
          resource: {
            uri: "test://embedded-resource",
            mimeType: "text/plain",
            text: "This is an embedded resource content.",
          },
        },
      ],
    }),
  },
  test_multiple_content_types: {
    description: "Returns text, an image and an embedded resource",
    run: () => ({
      content: [
        { type: "text", text: "Multiple content types test:" },
        { type: "image", data: PNG_BASE64, mimeType: "image/png" },
        {
          type: "resource",
          resource: {
            uri: "test://mixed-content-resource",
            mimeType: "application/json",
            text: JSON.stringify({ test: "data", value: 123 }),
          },
        },
      ],
    }),
  },
  test_tool_with_logging: {
    description: "Sends three info log messages while it runs",
    run: async (_args, ctx) => {
      await ctx.log("info", "Tool execution started");
      await sleep(50, ctx.signal);
      await ctx.log("info", "Tool processing data");
      await sleep(50, ctx.signal);
      await ctx.log("info", "Tool execution completed");
      return text("Tool with logging executed successfully");
    },
  },
  test_tool_with_progress: {
    description: "Reports progress 0, 50 and 100 of 100 when the request carries a progress token",
    run: async (_args, ctx) => {
      for (const done of [0, 50, 100]) {
        if (done > 0) await sleep(50, ctx.signal);
        await ctx.progress?.(done, 100, `Completed step ${done} of 100`);
      }
      return text("Tool with progress executed successfully");
    },
  },
  test_error_handling: {
    description: "Always fails, to test tool error reporting",
    run: () => {
      throw new Error("This tool intentionally returns an error for testing");
    },
  },
  test_reconnection: {
    description:
      "SEP-1699: ends its SSE stream before answering; the answer waits for the client to reconnect with Last-Event-ID",
    run: async (_args, ctx) => {
      // Over Streamable HTTP with a session: the POST's stream ends, the request goes on, and the answer
      // is replayed on the client's GET with Last-Event-ID. The stream can end only once its priming
      // event (the id to resume from) is out, so give it a moment. Elsewhere (stdio, stateless) a no-op.
      await sleep(20, ctx.signal);
      closeSseStream(ctx);
      await sleep(100, ctx.signal);
      return text(
        "Reconnection test completed successfully. If you received this, the client properly reconnected after stream closure.",
      );
    },
  },
  test_sampling: {
    description: "Asks the client's LLM (sampling/createMessage) to answer a prompt",
    inputSchema: {
      type: "object",
      properties: { prompt: { type: "string", description: "The prompt to send to the LLM" } },
      required: ["prompt"],
    },
    run: async (args, ctx) => {
      const prompt = stringArgument(args, "prompt");
      requireClientCapability(ctx, "sampling");
      const result = await ctx.createMessage({
        messages: [{ role: "user", content: { type: "text", text: prompt } }],
        maxTokens: 100,
      });
      const blocks = Array.isArray(result.content) ? result.content : [result.content];
      const answer = blocks.map((b) => (b.type === "text" ? b.text : `[${b.type}]`)).join("\n");
      return text(`LLM response: ${answer}`);
    },
  },
  test_elicitation: {
    description: "Asks the user (elicitation/create) for a username and an email address",
    inputSchema: {
      type: "object",
      properties: { message: { type: "string", description: "The message to show the user" } },
      required: ["message"],
    },
    run: async (args, ctx) => {
      const result = await elicit(
        ctx,
        stringArgument(args, "message"),
        {
          username: { type: "string", description: "User's response" },
          email: { type: "string", description: "User's email address" },
        },
        ["username", "email"],
      );
      return text(`User response: ${elicitationSummary(result)}`);
    },
  },
  test_elicitation_sep1034_defaults: {
    description: "SEP-1034: elicits a form whose fields all carry default values",
    run: async (_args, ctx) => {
      requireVersion(ctx, "2025-11-25");
      const result = await elicit(ctx, "Please review and update the form fields with defaults", {
        name: { type: "string", description: "User name", default: "John Doe" },
        age: { type: "integer", description: "User age", default: 30 },
        score: { type: "number", description: "User score", default: 95.5 },
        status: {
          type: "string",
          description: "User status",
          enum: ["active", "inactive", "pending"],
          default: "active",
        },
        verified: { type: "boolean", description: "Verification status", default: true },
      });
      return text(`Elicitation completed: ${elicitationSummary(result)}`);
    },
  },
  test_elicitation_sep1330_enums: {
    description: "SEP-1330: elicits a form with each of the five enum field variants",
    run: async (_args, ctx) => {
      requireVersion(ctx, "2025-11-25");
      const result = await elicit(ctx, "Please select options from the enum fields", {
        untitledSingle: {
          type: "string",
          description: "Untitled single-select",
          enum: ["option1", "option2", "option3"],
        },
        titledSingle: {
          type: "string",
          description: "Titled single-select",
          oneOf: [
            { const: "value1", title: "First Option" },
            { const: "value2", title: "Second Option" },
            { const: "value3", title: "Third Option" },
          ],
        },
        legacyEnum: {
          type: "string",
          description: "Legacy titled enum (enumNames, deprecated)",
          enum: ["opt1", "opt2", "opt3"],
          enumNames: ["Option One", "Option Two", "Option Three"],
        },
        untitledMulti: {
          type: "array",
          description: "Untitled multi-select",
          items: { type: "string", enum: ["option1", "option2", "option3"] },
        },
        titledMulti: {
          type: "array",
          description: "Titled multi-select",
          items: {
            anyOf: [
              { const: "value1", title: "First Choice" },
              { const: "value2", title: "Second Choice" },
              { const: "value3", title: "Third Choice" },
            ],
          },
        },
      });
      return text(`Elicitation completed: ${elicitationSummary(result)}`);
    },
  },
  json_schema_2020_12_tool: {
    description: "Tool with JSON Schema 2020-12 features",
    inputSchema: JSON_SCHEMA_2020_12,
    run: (args) => text(`Received: ${JSON.stringify(args)}`),
  },
  ...STATELESS_TOOLS,
};

const TOOL_LIST: T.Tool[] = Object.entries(TOOLS).map(([name, { description, inputSchema }]) => ({
  name,
  description,
  inputSchema: inputSchema ?? NO_ARGUMENTS,
}));

const RESOURCES: Array<T.Resource & { contents: T.ReadResourceResult["contents"][number] }> = [
  {
    uri: "test://static-text",
    name: "static-text",
    description: "A static text resource",
    mimeType: "text/plain",
    contents: {
      uri: "test://static-text",
      mimeType: "text/plain",
      text: "This is the content of the static text resource.",
    },
  },
  {
    uri: "test://static-binary",
    name: "static-binary",
    description: "A static binary resource (a 1x1 PNG)",
    mimeType: "image/png",
    contents: { uri: "test://static-binary", mimeType: "image/png", blob: PNG_BASE64 },
  },
  {
    uri: "test://watched-resource",
    name: "watched-resource",
    description: "A resource clients can subscribe to",
    mimeType: "text/plain",
    contents: { uri: "test://watched-resource", mimeType: "text/plain", text: "Watched resource content" },
  },
];
const RESOURCE_LIST: T.Resource[] = RESOURCES.map(({ contents: _, ...resource }) => resource);

const TEMPLATE = /^test:\/\/template\/([^/]+)\/data$/;

/** Subscribed URIs per session; the session object lives as long as the session, so entries go with it. */
const subscriptions = new WeakMap<object, Set<string>>();

function subscribed(ctx: ServerContext): Set<string> {
  const uris = subscriptions.get(ctx.session) ?? new Set<string>();
  subscriptions.set(ctx.session, uris);
  return uris;
}

const PROMPTS: T.Prompt[] = [
  { name: "test_simple_prompt", description: "A simple prompt without arguments" },
  {
    name: "test_prompt_with_arguments",
    description: "A prompt with two required arguments",
    arguments: [
      { name: "arg1", description: "First test argument", required: true },
      { name: "arg2", description: "Second test argument", required: true },
    ],
  },
  {
    name: "test_prompt_with_embedded_resource",
    description: "A prompt embedding a resource",
    arguments: [{ name: "resourceUri", description: "URI of the resource to embed", required: true }],
  },
  { name: "test_prompt_with_image", description: "A prompt containing an image" },
  {
    name: "test_input_required_result_prompt",
    description: "MRTR on prompts/get: asks what context the prompt should use",
  },
];

function promptArgument(args: Record<string, string> | undefined, name: string): string {
  const value = args?.[name];
  if (value === undefined) throw errors.invalidParams(`Missing required argument: ${name}`);
  return value;
}

/** Completion values offered per argument: `ref/prompt` arguments by name, the template's `{id}`. */
const COMPLETIONS: Record<string, string[]> = {
  arg1: ["paris", "park", "party", "test", "testing"],
  arg2: ["alpha", "beta", "gamma"],
  resourceUri: ["test://static-text", "test://static-binary", "test://watched-resource"],
  id: ["1", "2", "3", "123"],
};

export const handlers: ServerHandlers = {
  listTools: (params) => {
    const { page, nextCursor } = paginate(TOOL_LIST, params?.cursor, 100);
    return { tools: page, ...(nextCursor ? { nextCursor } : {}) };
  },
  callTool: (params, ctx) => {
    const tool = Object.hasOwn(TOOLS, params.name)
      ? TOOLS[params.name]
      : Object.hasOwn(HIDDEN_TOOLS, params.name)
        ? HIDDEN_TOOLS[params.name]
        : undefined;
    if (!tool) throw errors.unknownTool(params.name);
    return tool.run(params.arguments ?? {}, ctx, params);
  },

  listResources: (params) => {
    const { page, nextCursor } = paginate(RESOURCE_LIST, params?.cursor, 100);
    return { resources: page, ...(nextCursor ? { nextCursor } : {}) };
  },
  listResourceTemplates: () => ({
    resourceTemplates: [
      {
        uriTemplate: "test://template/{id}/data",
        name: "template-data",
        description: "JSON data for any id",
        mimeType: "application/json",
      },
    ],
  }),
  readResource: ({ uri }, ctx) => {
    const resource = RESOURCES.find((r) => r.uri === uri);
    if (resource) return { contents: [resource.contents] };
    const id = TEMPLATE.exec(uri)?.[1];
    if (id !== undefined) {
      const data = { id: decodeURIComponent(id), templateTest: true, data: `Data for ID: ${id}` };
      return { contents: [{ uri, mimeType: "application/json", text: JSON.stringify(data) }] };
    }
    throw errors.resourceNotFound(uri, ctx);
  },
  subscribe: ({ uri }, ctx) => {
    subscribed(ctx).add(uri);
    return {};
  },
  unsubscribe: ({ uri }, ctx) => {
    subscribed(ctx).delete(uri);
    return {};
  },

  listPrompts: (params) => {
    const { page, nextCursor } = paginate(PROMPTS, params?.cursor, 100);
    return { prompts: page, ...(nextCursor ? { nextCursor } : {}) };
  },
  getPrompt: async ({ name, arguments: args }, ctx) => {
    switch (name) {
      case "test_input_required_result_prompt": {
        const answer = await ctx.elicit(
          {
            message: "What context should the prompt use?",
            requestedSchema: {
              type: "object",
              properties: { context: { type: "string" } },
              required: ["context"],
            },
          },
          { key: "user_context" },
        );
        return {
          messages: [
            { role: "user", content: { type: "text", text: `Context: ${String(answer.content?.context)}` } },
          ],
        };
      }
      case "test_simple_prompt":
        return {
          messages: [
            { role: "user", content: { type: "text", text: "This is a simple prompt for testing." } },
          ],
        };
      case "test_prompt_with_arguments": {
        const arg1 = promptArgument(args, "arg1");
        const arg2 = promptArgument(args, "arg2");
        return {
          messages: [
            {
              role: "user",
              content: { type: "text", text: `Prompt with arguments: arg1='${arg1}', arg2='${arg2}'` },
            },
          ],
        };
      }
      case "test_prompt_with_embedded_resource":
        return {
          messages: [
            {
              role: "user",
              content: {
                type: "resource",
                resource: {
                  uri: promptArgument(args, "resourceUri"),
                  mimeType: "text/plain",
                  text: "Embedded resource content for testing.",
                },
              },
            },
            { role: "user", content: { type: "text", text: "Please process the embedded resource above." } },
          ],
        };
      case "test_prompt_with_image":
        return {
          messages: [
            { role: "user", content: { type: "image", data: PNG_BASE64, mimeType: "image/png" } },
            { role: "user", content: { type: "text", text: "Please analyze the image above." } },
          ],
        };
      default:
        throw errors.unknownPrompt(name);
    }
  },

  complete: ({ ref, argument }) => {
    const known =
      ref.type === "ref/prompt"
        ? PROMPTS.some((p) => p.name === ref.name && p.arguments?.some((a) => a.name === argument.name))
        : ref.uri === "test://template/{id}/data" && argument.name === "id";
    const candidates = known ? (COMPLETIONS[argument.name] ?? []) : [];
    const values = candidates.filter((v) => v.startsWith(argument.value));
    return { completion: { values, total: values.length, hasMore: false } };
  },
};
