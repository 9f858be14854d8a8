/**
 * Everything the official conformance suite's server scenarios ask of a server
 * (`npx conformance list --server`: 2025-06-18, 2025-11-25 and 2026-07-28), written on a contract:
 * contract.yaml declares the tools, prompts, resources and the resource template with the names,
 * arguments and texts the scenarios' requirements name, and contract/ (compiled from it by generate.ts,
 * for protocol 2026-07-28, which serves both eras: handshake clients from 2024-11-05 to 2025-11-25 and
 * stateless 2026-07-28 clients) types one handler per item. The lists, argument checks, dispatch and
 * completion come from the contract; examples/README.md maps scenario → handler.
 */

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
import {
  type CallToolReturn,
  type Completer,
  type Contract,
  contractHandlers,
  type ToolRequest,
} from "./contract/server.js";

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

/**
 * Handshake era: a tool error the model can read when the client cannot answer. (In the stateless era
 * the runtime answers a missing capability with MissingRequiredClientCapability itself; served without
 * sessions, the client's capabilities are unknown and the runtime says why it cannot ask.)
 */
function requireClientCapability(ctx: ServerContext, capability: "sampling" | "elicitation"): void {
  if (ctx.session.era === "stateless" || ctx.session.sessionless) return;
  if (!ctx.session.clientCapabilities[capability])
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

/** What the client's LLM said, its blocks as text. */
const sampled = (result: Awaited<ReturnType<ServerContext["createMessage"]>>, separator: string) =>
  (Array.isArray(result.content) ? result.content : [result.content])
    .map((b) => (b.type === "text" ? b.text : `[${b.type}]`))
    .join(separator);

const NAME_SCHEMA = {
  type: "object" as const,
  properties: { name: { type: "string" as const } },
  required: ["name"],
};

const CONFIRM_SCHEMA = {
  type: "object" as const,
  properties: { ok: { type: "boolean" as const } },
  required: ["ok"],
};

const CONFIRM_DELETE_SCHEMA = {
  type: "object" as const,
  properties: { confirm: { type: "boolean" as const } },
  required: ["confirm"],
};

const NAME_AND_CONFIRM_SCHEMA = {
  type: "object" as const,
  properties: { name: { type: "string" as const }, confirm: { type: "boolean" as const } },
};

/** Asks the user's name (input key `user_name`) and greets them. */
async function greetByName(ctx: ServerContext): Promise<string> {
  const answer = await ctx.elicit(
    { message: "What is your name?", requestedSchema: NAME_SCHEMA },
    { key: "user_name" },
  );
  return `Hello, ${String(answer.content?.name ?? "stranger")}!`;
}

/** How the handlers reach the server for change notifications (set by main.ts once it made the server). */
export const changes: {
  notify?: (
    method: "notifications/tools/list_changed" | "notifications/prompts/list_changed",
  ) => Promise<void>;
} = {};

async function notifyChange(
  method: "notifications/tools/list_changed" | "notifications/prompts/list_changed",
): Promise<T.CallToolResult> {
  if (!changes.notify) throw new Error("no server to send change notifications through (set changes.notify)");
  await changes.notify(method);
  return { content: [{ type: "text", text: `${method.slice("notifications/".length)} sent` }] };
}

/**
 * The low-level MRTR form: the handler returns an InputRequiredResult with its own requestState, and
 * on the retry finds that state (verified and unsealed by the runtime) and the answer in its request.
 */
function requestStateTool(request: ToolRequest): CallToolReturn {
  // Only the stateless era's params carry requestState (a handshake-era client never retries).
  if ("requestState" in request && request.requestState !== undefined) {
    const confirm = (request.inputResponses as Record<string, T.ElicitResult> | undefined)?.confirm;
    if (request.requestState !== "awaiting-confirmation" || confirm?.action !== "accept")
      throw errors.invalidParams("expected the confirmation asked for");
    return "state-ok: requestState validated";
  }
  return inputRequired({
    inputRequests: {
      confirm: {
        method: "elicitation/create",
        params: { message: "Please confirm", requestedSchema: CONFIRM_SCHEMA },
      },
    },
    requestState: "awaiting-confirmation",
  });
}

/** Completion by prefix from a fixed list. */
const startingWith =
  (values: readonly string[]): Completer =>
  (typed) =>
    values.filter((v) => v.startsWith(typed));

/** Each item of contract.yaml, implemented: arguments arrive checked and typed. */
const contract: Contract = {
  tools: {
    test_simple_text: () => "This is a simple text response for testing.",
    test_image_content: () => ({ content: [{ type: "image", data: PNG_BASE64, mimeType: "image/png" }] }),
    test_audio_content: () => ({ content: [{ type: "audio", data: WAV_BASE64, mimeType: "audio/wav" }] }),
    test_embedded_resource: () => ({
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
    test_multiple_content_types: () => ({
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
    test_tool_with_logging: async (_args, ctx) => {
      await ctx.log("info", "Tool execution started");
      await sleep(50, ctx.signal);
      await ctx.log("info", "Tool processing data");
      await sleep(50, ctx.signal);
      await ctx.log("info", "Tool execution completed");
      return "Tool with logging executed successfully";
    },
    test_tool_with_progress: async (_args, ctx) => {
      for (const done of [0, 50, 100]) {
        if (done > 0) await sleep(50, ctx.signal);
        await ctx.progress?.(done, 100, `Completed step ${done} of 100`);
      }
      return "Tool with progress executed successfully";
    },
    // Thrown from a tool, an error becomes an `isError` result the model can read.
    test_error_handling: () => {
      throw new Error("This tool intentionally returns an error for testing");
    },
    test_reconnection: async (_args, ctx) => {
      // Over Streamable HTTP with a session: the POST's stream ends, the request goes on, and the answer
      // is replayed on the client's GET with Last-Event-ID. The stream can end only once its priming
      // event (the id to resume from) is out, so give it a moment. Elsewhere (stdio, stateless) a no-op.
      await sleep(20, ctx.signal);
      closeSseStream(ctx);
      await sleep(100, ctx.signal);
      return "Reconnection test completed successfully. If you received this, the client properly reconnected after stream closure.";
    },
    test_sampling: async ({ prompt }, ctx) => {
      requireClientCapability(ctx, "sampling");
      const result = await ctx.createMessage({
        messages: [{ role: "user", content: { type: "text", text: prompt } }],
        maxTokens: 100,
      });
      return `LLM response: ${sampled(result, "\n")}`;
    },
    test_elicitation: async ({ message }, ctx) => {
      const result = await elicit(
        ctx,
        message,
        {
          username: { type: "string", description: "User's response" },
          email: { type: "string", description: "User's email address" },
        },
        ["username", "email"],
      );
      return `User response: ${elicitationSummary(result)}`;
    },
    test_elicitation_sep1034_defaults: async (_args, ctx) => {
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
      return `Elicitation completed: ${elicitationSummary(result)}`;
    },
    test_elicitation_sep1330_enums: async (_args, ctx) => {
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
      return `Elicitation completed: ${elicitationSummary(result)}`;
    },
    // Its arguments passed the 2020-12 schema (anyOf of required, if/then/else, no other property).
    json_schema_2020_12_tool: (args) => `Received: ${JSON.stringify(args)}`,

    // The stateless era's scenarios (server-stateless, input-required-result-*, http-custom-header-*). The
    // input they ask for goes through ctx.elicit / ctx.createMessage / ctx.listRoots, which are requests to
    // a handshake-era client and input requests (InputRequiredResult, then a retry) to a stateless one.
    test_missing_capability: async (_args, ctx) => {
      await ctx.createMessage(
        { messages: [{ role: "user", content: { type: "text", text: "Say success" } }], maxTokens: 10 },
        { key: "sample" },
      );
      return "Success";
    },
    test_streaming_elicitation: (_args, ctx) => greetByName(ctx),
    test_logging_tool: async (_args, ctx) => {
      await ctx.log("info", "Tool execution started");
      await ctx.log("info", "Tool processing data");
      await ctx.log("info", "Tool execution completed");
      return "Tool with logging executed successfully";
    },
    test_custom_headers: ({ region }) => `region=${region}`,
    test_input_required_result_elicitation: (_args, ctx) => greetByName(ctx),

    // The tasks extension's scenarios. Whether a call runs as a task is the runtime's decision (the
    // contract's taskSupport and the client's request); the handlers are the same either way.
    greet: ({ name }) => `Hello, ${name ?? "World"}!`,
    slow_compute: async ({ seconds = 1, label = "compute" }, ctx) => {
      const steps = Math.ceil(seconds * 10);
      for (let step = 1; step <= steps; step++) {
        await sleep(100, ctx.signal);
        ctx.signal.throwIfAborted();
        await ctx.status(`step ${step} of ${steps}`);
      }
      return `${label}: computed for ${seconds} s`;
    },
    failing_job: async (_args, ctx) => {
      await sleep(1000, ctx.signal);
      throw new Error("failing_job failed, as it always does");
    },
    protocol_error_job: () => {
      throw errors.invalidParams("protocol_error_job: refused, as it always is", { reason: "fixture" });
    },
    confirm_delete: async ({ filename = "the file" }, ctx) => {
      const answer = await ctx.elicit(
        { message: `Delete ${filename}?`, requestedSchema: CONFIRM_DELETE_SCHEMA },
        { key: "confirm" },
      );
      const confirmed = answer.action === "accept" && answer.content?.confirm === true;
      return confirmed ? `Deleted ${filename}` : `Kept ${filename}`;
    },
    multi_input: async (_args, ctx) => {
      const ask = (key: string, message: string) =>
        ctx.elicit({ message, requestedSchema: NAME_AND_CONFIRM_SCHEMA }, { key });
      const [first, second] = await Promise.all([
        ask("first", "First question: your name?"),
        ask("second", "Second question: your name again?"),
      ]);
      return `first=${String(first.content?.name)}, second=${String(second.content?.name)}`;
    },
    test_tool_with_task: async (_args, ctx) => {
      const greeting = await greetByName(ctx);
      // Longer than its grace (main.ts): the call goes on as a task.
      await sleep(500, ctx.signal);
      return `${greeting} (from a task)`;
    },
    test_input_required_result_sampling: async (_args, ctx) => {
      const answer = await ctx.createMessage(
        {
          messages: [{ role: "user", content: { type: "text", text: "What is the capital of France?" } }],
          maxTokens: 100,
        },
        { key: "capital_question" },
      );
      return `LLM said: ${sampled(answer, " ")}`;
    },
    test_input_required_result_list_roots: async (_args, ctx) => {
      const { roots } = await ctx.listRoots(undefined, { key: "client_roots" });
      return `Roots: ${roots.map((r) => r.uri).join(", ")}`;
    },
    test_input_required_result_request_state: (_args, _ctx, request) => requestStateTool(request),
    test_input_required_result_multiple_inputs: async (_args, ctx) => {
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
      return `name=${String(user.content?.name)}, greeting from ${greeting.model}, ${roots.roots.length} root(s)`;
    },
    test_input_required_result_multi_round: async (_args, ctx) => {
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
      return `${String(name.content?.name)} likes ${String(color.content?.color)}`;
    },
    test_input_required_result_tampered_state: async (_args, ctx) => {
      const answer = await ctx.elicit(
        { message: "Please confirm", requestedSchema: CONFIRM_SCHEMA },
        { key: "confirm" },
      );
      return `confirmed=${String(answer.content?.ok)}`;
    },
    test_input_required_result_capabilities: async (_args, ctx) => {
      if (ctx.session.clientCapabilities.elicitation) {
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
      return "Got the input the client could give";
    },
  },

  prompts: {
    test_simple_prompt: () => "This is a simple prompt for testing.",
    test_prompt_with_arguments: ({ arg1, arg2 }) => `Prompt with arguments: arg1='${arg1}', arg2='${arg2}'`,
    test_prompt_with_embedded_resource: ({ resourceUri }) => ({
      messages: [
        {
          role: "user",
          content: {
            type: "resource",
            resource: {
              uri: resourceUri,
              mimeType: "text/plain",
              text: "Embedded resource content for testing.",
            },
          },
        },
        { role: "user", content: { type: "text", text: "Please process the embedded resource above." } },
      ],
    }),
    test_prompt_with_image: () => ({
      messages: [
        { role: "user", content: { type: "image", data: PNG_BASE64, mimeType: "image/png" } },
        { role: "user", content: { type: "text", text: "Please analyze the image above." } },
      ],
    }),
    test_input_required_result_prompt: async (_args, ctx) => {
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
      return `Context: ${String(answer.content?.context)}`;
    },
  },

  // A string is one content with the mimeType the contract declares.
  resources: {
    "static-text": () => "This is the content of the static text resource.",
    "static-binary": () => ({ blob: PNG_BASE64 }),
    "watched-resource": () => "Watched resource content",
  },
  resourceTemplates: {
    "template-data": ({ id }) =>
      JSON.stringify({ id, templateTest: true, data: `Data for ID: ${encodeURIComponent(id)}` }),
  },

  completions: {
    prompts: {
      test_prompt_with_arguments: {
        arg1: startingWith(["paris", "park", "party", "test", "testing"]),
        arg2: startingWith(["alpha", "beta", "gamma"]),
      },
      test_prompt_with_embedded_resource: {
        resourceUri: startingWith(["test://static-text", "test://static-binary", "test://watched-resource"]),
      },
    },
    resourceTemplates: { "template-data": { id: startingWith(["1", "2", "3", "123"]) } },
  },
};

const served = contractHandlers(contract);

/**
 * Tools callable but not listed (they make the server send list-changed notifications), so they sit
 * beside the contract rather than in it.
 */
const HIDDEN_TOOLS: Record<string, () => Promise<T.CallToolResult>> = {
  test_trigger_tool_change: () => notifyChange("notifications/tools/list_changed"),
  test_trigger_prompt_change: () => notifyChange("notifications/prompts/list_changed"),
};

/** Subscribed URIs per session; the session object lives as long as the session, so entries go with it. */
const subscriptions = new WeakMap<object, Set<string>>();

function subscribed(ctx: ServerContext): Set<string> {
  const uris = subscriptions.get(ctx.session) ?? new Set<string>();
  subscriptions.set(ctx.session, uris);
  return uris;
}

export const handlers: ServerHandlers = {
  ...served,
  callTool: (params, ctx) =>
    Object.hasOwn(HIDDEN_TOOLS, params.name) ? HIDDEN_TOOLS[params.name]!() : served.callTool(params, ctx),
  subscribe: ({ uri }, ctx) => {
    subscribed(ctx).add(uri);
    return {};
  },
  unsubscribe: ({ uri }, ctx) => {
    subscribed(ctx).delete(uri);
    return {};
  },
};
