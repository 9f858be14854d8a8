/**
 * The everything-client's scenarios at protocol 2026-07-28, on the generated 2026-07-28 client: no
 * initialize (connect() probes server/discover, and falls back to initialize for an older server), `_meta`
 * on every request, input requests (MRTR) answered by the handlers, the Mcp-* HTTP headers.
 */
import { SkillVerificationError } from "@mcp-codegen/runtime/client";
import type * as T from "../../generated/2026-07-28/index.js";
import { createClient, type McpClient } from "../../generated/2026-07-28/index.js";
import { applySchemaDefaults, argumentsFor, callTool, echoFocalSchema, listTools, log } from "./handlers.js";

const offers = (client: McpClient, capability: "tools" | "resources" | "prompts") =>
  client.serverDescription?.capabilities[capability] !== undefined;

/** What the suite's http-custom-headers scenario asks the client to call (MCP_CONFORMANCE_CONTEXT). */
function contextToolCalls(): Array<{ name: string; arguments: Record<string, unknown> }> {
  const raw = process.env.MCP_CONFORMANCE_CONTEXT;
  const context = raw ? (JSON.parse(raw) as { toolCalls?: unknown }) : {};
  if (!Array.isArray(context.toolCalls)) throw new Error("MCP_CONFORMANCE_CONTEXT has no toolCalls");
  return context.toolCalls as Array<{ name: string; arguments: Record<string, unknown> }>;
}

/**
 * What a host does with skills: list them (no file read), then, as each is used, load it (its SKILL.md
 * read and verified against the entry) and read its files, each verified. A skill that fails
 * verification is refused and left alone: none of its files is read.
 */
async function useSkills(client: McpClient): Promise<void> {
  for (const entry of await client.listSkills()) {
    try {
      const skill = await client.loadSkill(entry);
      for (const path of skill.files) await skill.readFile(path);
      log(`skill ${skill.uri}: loaded, ${skill.files.length} files verified`);
    } catch (error) {
      if (!(error instanceof SkillVerificationError)) throw error;
      log(`refused ${error.message}`);
    }
  }
}

export type StatelessScenario = (client: McpClient) => Promise<void>;

export const STATELESS_SCENARIOS: Record<string, StatelessScenario> = {
  tools_call: async (client) => {
    const [tool] = await listTools(client);
    if (!tool) throw new Error("the server lists no tool to call");
    await callTool(client, tool.name, argumentsFor(tool));
  },
  // connect() is the test: its server/discover is refused with UnsupportedProtocolVersion and retried with
  // a version from the error's list; every request carries version, capabilities and clientInfo.
  "request-metadata": async (client) => {
    await listTools(client);
  },
  // Each tool answers input_required (an elicitation, with or without requestState) or completes at once.
  "sep-2322-client-request-state": async (client) => {
    for (const tool of await listTools(client)) await callTool(client, tool.name);
  },
  "http-standard-headers": async (client) => {
    for (const tool of await listTools(client)) await callTool(client, tool.name);
    if (offers(client, "resources")) {
      const { resources } = await client.listResources();
      for (const resource of resources) await client.readResource({ uri: resource.uri });
    }
    if (offers(client, "prompts")) {
      const { prompts } = await client.listPrompts();
      for (const prompt of prompts) await client.getPrompt({ name: prompt.name });
    }
  },
  "http-custom-headers": async (client) => {
    await listTools(client);
    for (const call of contextToolCalls()) await callTool(client, call.name, call.arguments);
  },
  // The listing leaves out every tool whose x-mcp-header declarations are invalid; the rest are called.
  "http-invalid-tool-headers": async (client) => {
    for (const tool of await listTools(client)) await callTool(client, tool.name, argumentsFor(tool));
  },
  // The tool's input schema has a network $ref: listing it must not fetch it.
  "json-schema-ref-no-deref": async (client) => {
    await listTools(client);
  },
  "json-schema-2020-12-preservation": echoFocalSchema,
  // Listing skills reads none of their files: nothing is loaded yet.
  "sep-2640-client-no-prefetch": async (client) => {
    const skills = await client.listSkills();
    log(`listed ${skills.length} skills: ${skills.map((s) => s.uri).join(", ")}`);
  },
  // The mock's SKILL.md is tampered (body, size, frontmatter): loading refuses it, FORMS.md is never read.
  "sep-2640-client-verify-digest": useSkills,
  "sep-2640-client-verify-size": useSkills,
  "sep-2640-client-verify-frontmatter": useSkills,
};

export function createStatelessClient(timeoutMs: number): McpClient {
  return createClient({
    info: { name: "mcp-codegen-everything-client", version: "1.0.0" },
    handlers: {
      elicit: (params) => {
        // URL mode sends the user to a page out of band; a headless client cannot, so it declines.
        if (params.mode === "url") return { action: "decline" };
        const form = params as T.ElicitRequestFormParams;
        return { action: "accept", content: applySchemaDefaults(form.requestedSchema) };
      },
      // No roots to offer; declaring the capability shows it travels in every request's _meta.
      listRoots: () => ({ roots: [] }),
      onLoggingMessage: (params) => log(`server log (${params.level}): ${JSON.stringify(params.data)}`),
    },
    requestTimeoutMs: timeoutMs,
    onError: (error) => log(`warning: ${error instanceof Error ? error.message : String(error)}`),
  });
}
