/**
 * A complete MCP server written only as generated handlers (protocol 2025-11-25), served over stdio.
 * Run: npm start   (or: npx tsx --conditions=mcp-codegen-source examples/quickstart/server.ts)
 * Try it: npx @modelcontextprotocol/inspector npx tsx --conditions=mcp-codegen-source examples/quickstart/server.ts
 */

import { paginate } from "@mcp-codegen/runtime";
import { StdioServerTransport, shutdownOnSignals } from "@mcp-codegen/runtime/node";
import { createServer, errors, type ServerHandlers } from "../../generated/2025-11-25/index.js";

const notes = new Map<string, string>([["welcome", "Hello from mcp-codegen."]]);

const handlers: ServerHandlers = {
  listTools: () => ({
    tools: [
      {
        name: "add_note",
        description: "Store a note under a name",
        inputSchema: {
          type: "object",
          properties: { name: { type: "string" }, text: { type: "string" } },
          required: ["name", "text"],
        },
      },
    ],
  }),
  callTool: async ({ name, arguments: args }, ctx) => {
    if (name !== "add_note") throw errors.unknownTool(name);
    const { name: key, text } = args as { name?: unknown; text?: unknown };
    if (typeof key !== "string" || typeof text !== "string")
      throw errors.invalidParams("name and text must be strings");
    notes.set(key, text);
    await ctx.log("info", `stored note ${key}`);
    return { content: [{ type: "text", text: `Stored ${key} (${notes.size} notes)` }] };
  },
  listResources: (params) => {
    const all = [...notes.keys()].map((key) => ({ uri: `note://${key}`, name: key, mimeType: "text/plain" }));
    const { page, nextCursor } = paginate(all, params?.cursor, 50);
    return { resources: page, ...(nextCursor ? { nextCursor } : {}) };
  },
  readResource: ({ uri }) => {
    const text = notes.get(uri.replace(/^note:\/\//, ""));
    if (text === undefined) throw errors.resourceNotFound(uri);
    return { contents: [{ uri, mimeType: "text/plain", text }] };
  },
  listPrompts: () => ({ prompts: [{ name: "summarize", description: "Summarize all notes" }] }),
  getPrompt: ({ name }) => {
    if (name !== "summarize") throw errors.unknownPrompt(name);
    const all = [...notes].map(([k, v]) => `${k}: ${v}`).join("\n");
    return {
      messages: [{ role: "user", content: { type: "text", text: `Summarize these notes:\n${all}` } }],
    };
  },
};

const server = createServer({ info: { name: "mcp-codegen-quickstart", version: "1.0.0" }, handlers });
// SIGTERM or SIGINT: requests in flight are answered (up to 5 s), then exit 0; a second signal exits at once.
shutdownOnSignals(() => server.close());
const session = await server.connect(new StdioServerTransport());
process.stderr.write(
  `mcp-codegen quickstart server ready on stdio (protocol 2025-11-25; capabilities: ${Object.keys(server.capabilities).join(", ")})\n`,
);
await session.closed;
