/**
 * A complete MCP server on a contract (contract.yaml, protocol 2025-11-25), served over stdio.
 * Run: npm start   (generates, then: npx tsx --conditions=mcp-codegen-source examples/quickstart/server.ts)
 * Try it: npx @modelcontextprotocol/inspector npx tsx --conditions=mcp-codegen-source examples/quickstart/server.ts
 */

import { paginate } from "@mcp-codegen/runtime";
import { StdioServerTransport, shutdownOnSignals } from "@mcp-codegen/runtime/node";
import { createServer, errors, type ServerHandlers } from "../../generated/2025-11-25/index.js";
import { type Contract, contractHandlers } from "./generated/contract/server.js";

const notes = new Map<string, string>([["welcome", "Hello from mcp-codegen."]]);

// Arguments arrive typed and checked against contract.yaml; add_note's output is checked too.
const contract: Contract = {
  tools: {
    add_note: async ({ name, text }, ctx) => {
      notes.set(name, text);
      await ctx.log("info", `stored note ${name}`);
      return { stored: name, notes: notes.size };
    },
  },
  prompts: {
    summarize: ({ style }) =>
      `Summarize these notes${style === "bullets" ? " as bullet points" : ""}:\n${[...notes].map(([k, v]) => `${k}: ${v}`).join("\n")}`,
  },
  resourceTemplates: {
    note: ({ name }, ctx, uri) => {
      const text = notes.get(name);
      if (text === undefined) throw errors.resourceNotFound(uri, ctx);
      return text;
    },
  },
};

// The notes themselves change at run time, so their list is a plain protocol handler.
const handlers: ServerHandlers = {
  listResources: (params) => {
    const all = [...notes.keys()].map((key) => ({ uri: `note://${key}`, name: key, mimeType: "text/plain" }));
    const { page, nextCursor } = paginate(all, params?.cursor, 50);
    return { resources: page, ...(nextCursor ? { nextCursor } : {}) };
  },
};

const server = createServer({
  info: { name: "mcp-codegen-quickstart", version: "1.0.0" },
  handlers: { ...contractHandlers(contract), ...handlers },
});
// SIGTERM or SIGINT: requests in flight are answered (up to 5 s), then exit 0; a second signal exits at once.
shutdownOnSignals(() => server.close());
const session = await server.connect(new StdioServerTransport());
process.stderr.write(
  `mcp-codegen quickstart server ready on stdio (protocol 2025-11-25; capabilities: ${Object.keys(server.capabilities).join(", ")})\n`,
);
await session.closed;
