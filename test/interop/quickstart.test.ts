/** The README's quickstart server (a contract), driven by the official SDK client over stdio. */
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { expect, it } from "vitest";

const REPO = fileURLToPath(new URL("../../", import.meta.url));

it("stores a note through the tool and reads it back as a resource", async () => {
  const client = new Client({ name: "quickstart-test", version: "1.0.0" });
  await client.connect(
    new StdioClientTransport({
      command: `${REPO}node_modules/.bin/tsx`,
      args: ["--conditions=mcp-codegen-source", `${REPO}examples/quickstart/server.ts`],
      stderr: "pipe",
    }),
  );
  try {
    const stored = await client.callTool({ name: "add_note", arguments: { name: "todo", text: "ship it" } });
    expect(stored.structuredContent).toEqual({ stored: "todo", notes: 2 });
    expect(stored.content).toEqual([{ type: "text", text: '{"stored":"todo","notes":2}' }]);
    const refused = await client.callTool({ name: "add_note", arguments: { name: "To Do", text: "x" } });
    expect(refused.isError).toBe(true);
    expect(refused.content).toEqual([
      { type: "text", text: 'Invalid arguments for tool "add_note": name: Expected to match ^[a-z0-9-]+$' },
    ]);
    const listed = await client.listResources();
    expect(listed.resources.map((r) => r.uri)).toEqual(["note://welcome", "note://todo"]);
    const read = await client.readResource({ uri: "note://todo" });
    expect(read.contents).toEqual([{ uri: "note://todo", mimeType: "text/plain", text: "ship it" }]);
    await expect(client.readResource({ uri: "note://missing" })).rejects.toMatchObject({ code: -32002 });
    const prompt = await client.getPrompt({ name: "summarize", arguments: { style: "bullets" } });
    expect(JSON.stringify(prompt.messages)).toContain("as bullet points");
    expect(JSON.stringify(prompt.messages)).toContain("todo: ship it");
  } finally {
    await client.close();
  }
});
