/**
 * The everything-client's answers to what a server asks: elicitation forms accepted with their schema
 * defaults (SEP-1034), server log messages shown on stderr.
 */
import type * as T from "../../generated/2025-11-25/index.js";
import type { ClientHandlers } from "../../generated/2025-11-25/index.js";

export const log = (message: string) => void process.stderr.write(`[everything-client] ${message}\n`);

/**
 * SEP-1034: what the user did not fill in takes the schema's `default`. This client runs headless, so
 * its user accepts every form as offered: the answer is exactly the defaults.
 */
export function applySchemaDefaults(
  schema: T.ElicitRequestFormParams["requestedSchema"],
  answers: NonNullable<T.ElicitResult["content"]> = {},
): NonNullable<T.ElicitResult["content"]> {
  const content: NonNullable<T.ElicitResult["content"]> = {};
  for (const [name, property] of Object.entries(schema.properties)) {
    const fallback = "default" in property ? property.default : undefined;
    if (fallback !== undefined) content[name] = fallback;
  }
  return { ...content, ...answers };
}

export const handlers: ClientHandlers = {
  elicit: (params) => {
    // URL mode sends the user to a page out of band; a headless client cannot, so it declines.
    if (params.mode === "url") return { action: "decline" };
    const form = params as T.ElicitRequestFormParams;
    return { action: "accept", content: applySchemaDefaults(form.requestedSchema) };
  },
  onLoggingMessage: (params) => log(`server log (${params.level}): ${JSON.stringify(params.data)}`),
};

/** Arguments for a tool from its input schema: numbers 2, 3, 4… for numeric properties, "test" for strings, true for booleans. */
export function argumentsFor(tool: { inputSchema: object }): Record<string, unknown> {
  const args: Record<string, unknown> = {};
  let next = 2;
  const properties = ((tool.inputSchema as { properties?: unknown }).properties ?? {}) as Record<
    string,
    { type?: unknown }
  >;
  for (const [name, property] of Object.entries(properties)) {
    switch (property.type) {
      case "number":
      case "integer":
        args[name] = next++;
        break;
      case "string":
        args[name] = "test";
        break;
      case "boolean":
        args[name] = true;
        break;
    }
  }
  return args;
}

/** The first text block of a tool result, or the whole content as JSON. */
export function firstText(result: { content: Array<{ type: string; text?: string }> }): string {
  const block = result.content.find((c) => c.type === "text");
  return block?.type === "text" && block.text !== undefined ? block.text : JSON.stringify(result.content);
}

/** What the tool helpers need of a client of either era. */
interface ToolClient<Tool> {
  readonly serverDescription?: { capabilities: Record<string, unknown> } | undefined;
  callTool(params: { name: string; arguments?: Record<string, unknown> }): Promise<{
    content: Array<{ type: string; text?: string }>;
    isError?: boolean;
  }>;
  listTools(): Promise<{ tools: Tool[] }>;
}

/** Calls a tool, logs the outcome; a tool error fails the scenario. */
export async function callTool<Tool>(
  client: ToolClient<Tool>,
  name: string,
  args: Record<string, unknown> = {},
) {
  const result = await client.callTool({ name, arguments: args });
  log(`${name} → ${result.isError ? "error: " : ""}${firstText(result)}`);
  if (result.isError) throw new Error(`tool ${name} failed: ${firstText(result)}`);
  return result;
}

/** Tools are listed only when the server offers them: a client does not ask for what was not offered. */
export async function listTools<Tool extends { name: string }>(client: ToolClient<Tool>): Promise<Tool[]> {
  if (client.serverDescription?.capabilities.tools === undefined) {
    log("the server offers no tools");
    return [];
  }
  const { tools } = await client.listTools();
  log(`tools: ${tools.map((t) => t.name).join(", ") || "(none)"}`);
  return tools;
}

/** json-schema-2020-12-preservation: the focal tool's input schema goes back to the server exactly as listed. */
export async function echoFocalSchema<Tool extends { name: string; inputSchema: unknown }>(
  client: ToolClient<Tool>,
) {
  const focal = (await listTools(client)).find((t) => t.name === "json_schema_2020_12_tool");
  if (!focal) throw new Error("the server lists no json_schema_2020_12_tool");
  await callTool(client, "json_schema_echo", { schema: focal.inputSchema as Record<string, unknown> });
}
