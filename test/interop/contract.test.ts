/**
 * A contract served through contractHandlers, driven by the official SDK clients (v1 and v2) over real
 * pipes: lists come from the contract, arguments are checked before a handler runs (an isError result
 * naming the field from 2025-11-25, -32602 before), outputs are checked against the outputSchema before
 * they are sent, structured content travels with a JSON text block, prompts, resources and templates.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Client as ClientV2 } from "@modelcontextprotocol/client";
import { StdioClientTransport as StdioV2 } from "@modelcontextprotocol/client/stdio";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { emitContract } from "../../generator/contract/emit.js";
import { loadContract } from "../../generator/contract/load.js";

const REPO = fileURLToPath(new URL("../../", import.meta.url));
const FIXTURE = `${REPO}test/fixtures/contract/`;
const VERSIONS = ["2025-06-18", "2025-11-25", "2026-07-28"];

beforeAll(async () => {
  const contract = await loadContract(`${FIXTURE}contract.yaml`, "contract.yaml");
  for (const version of VERSIONS) {
    const out = `${REPO}test/.tmp/contract/${version}/`;
    mkdirSync(out, { recursive: true });
    const files = await emitContract(contract, {
      protocolVersion: version,
      protocolDir: `../../../../generated/${version}`,
    });
    for (const [name, text] of Object.entries(files)) writeFileSync(`${out}${name}`, text);
  }
});

const serverArgs = (version: string) => ["--conditions=mcp-codegen-source", `${FIXTURE}server.ts`, version];
const TSX = `${REPO}node_modules/.bin/tsx`;

async function v1(version: string): Promise<Client> {
  const client = new Client({ name: "contract-v1", version: "1.0.0" });
  await client.connect(new StdioClientTransport({ command: TSX, args: serverArgs(version), stderr: "pipe" }));
  return client;
}

const text = (result: unknown) => (result as { content: { text: string }[] }).content[0]!.text;

describe("a contract served to SDK v1 at 2025-11-25", () => {
  let client: Client;
  beforeAll(async () => {
    client = await v1("2025-11-25");
  });
  afterAll(() => client.close());

  it("lists the tools as declared, with $refs to another file carried inside the schema", async () => {
    const { tools } = await client.listTools();
    // In contract.yaml's order.
    expect(tools.map((t) => t.name)).toEqual(["add", "distance", "total", "echo"]);
    const distance = tools.find((t) => t.name === "distance")!;
    expect(distance.inputSchema).toMatchObject({
      properties: { from: { $ref: "#/$defs/Point" } },
      $defs: { Point: { required: ["x", "y"], additionalProperties: false } },
    });
    expect(tools.find((t) => t.name === "add")!.outputSchema).toEqual({
      type: "object",
      properties: { sum: { type: "number" } },
      required: ["sum"],
    });
  });

  it("answers a typed call with structuredContent and its JSON text", async () => {
    const result = await client.callTool({
      name: "distance",
      arguments: { from: { x: 0, y: 0 }, to: { x: 3, y: 4 } },
    });
    expect(result.structuredContent).toEqual({ distance: 5, unit: "m" });
    expect(JSON.parse(text(result))).toEqual({ distance: 5, unit: "m" });
    expect(result.isError).toBeUndefined();
  });

  it("refuses arguments that fail the inputSchema with an isError result naming the field and the rule", async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ a: 1 }, 'Invalid arguments for tool "add": b: Required'],
      [{ a: "1", b: 2 }, 'Invalid arguments for tool "add": a: Expected number'],
    ];
    for (const [args, message] of cases) {
      const result = await client.callTool({ name: "add", arguments: args });
      expect(result.isError).toBe(true);
      expect(text(result)).toBe(message);
    }
    const nested = await client.callTool({
      name: "distance",
      arguments: { from: { x: 0, y: 0, z: 1 }, to: { x: 1, y: "2" } },
    });
    expect(text(nested)).toBe(
      'Invalid arguments for tool "distance": from.z: Unexpected property; to.y: Expected number',
    );
    const enumFail = await client.callTool({
      name: "distance",
      arguments: { from: { x: 0, y: 0 }, to: { x: 0, y: 0 }, unit: "mi" },
    });
    expect(text(enumFail)).toBe('Invalid arguments for tool "distance": unit: Expected one of "m", "km"');
    const item = await client.callTool({ name: "total", arguments: { values: [1, 2.5] } });
    expect(text(item)).toBe('Invalid arguments for tool "total": values[1]: Expected integer');
  });

  it("never sends an output that fails the outputSchema: -32603 instead", async () => {
    await expect(
      client.callTool({ name: "total", arguments: { values: [1, 2], lie: true } }),
    ).rejects.toMatchObject({
      code: -32603,
      message: expect.stringContaining(
        'Tool "total" returned output that does not match its outputSchema: total: Expected integer',
      ),
    });
    const honest = await client.callTool({ name: "total", arguments: { values: [1, 2] } });
    expect(honest.structuredContent).toEqual({ total: 3 });
  });

  it("passes a tool's own isError result through, unchecked against the outputSchema", async () => {
    const result = await client.callTool({ name: "total", arguments: { values: [] } });
    expect(result).toMatchObject({ isError: true, content: [{ type: "text", text: "nothing to add up" }] });
    expect(result.structuredContent).toBeUndefined();
  });

  it("answers an unknown tool with -32602, and a text-returning tool with one text block", async () => {
    await expect(client.callTool({ name: "nope", arguments: {} })).rejects.toMatchObject({ code: -32602 });
    await expect(client.callTool({ name: "constructor", arguments: {} })).rejects.toMatchObject({
      code: -32602,
    });
    const echo = await client.callTool({ name: "echo", arguments: { text: "hi" } });
    expect(echo.content).toEqual([{ type: "text", text: "hi" }]);
  });

  it("serves prompts with checked arguments and completes enums", async () => {
    const { prompts } = await client.listPrompts();
    expect(prompts).toEqual([
      {
        name: "review",
        description: "Review some code",
        arguments: [{ name: "code", description: "The code to review", required: true }, { name: "depth" }],
      },
    ]);
    const got = await client.getPrompt({ name: "review", arguments: { code: "x = 1", depth: "thorough" } });
    expect(got.messages[0]!.content).toEqual({ type: "text", text: "Review this code (thorough):\nx = 1" });
    await expect(client.getPrompt({ name: "review", arguments: { depth: "quick" } })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining("code: Required"),
    });
    await expect(
      client.getPrompt({ name: "review", arguments: { code: "x", depth: "deep" } }),
    ).rejects.toMatchObject({
      code: -32602,
    });
    const completion = await client.complete({
      ref: { type: "ref/prompt", name: "review" },
      argument: { name: "depth", value: "t" },
    });
    expect(completion.completion).toEqual({ values: ["thorough"], total: 1, hasMore: false });
  });

  it("reads fixed resources and templates with typed variables", async () => {
    expect((await client.listResources()).resources).toEqual([
      { name: "about", uri: "info://about", mimeType: "text/plain" },
    ]);
    expect((await client.readResource({ uri: "info://about" })).contents).toEqual([
      { uri: "info://about", mimeType: "text/plain", text: "the contract fixture" },
    ]);
    const item = await client.readResource({ uri: "items://42?fields=summary" });
    expect(item.contents).toEqual([
      {
        uri: "items://42?fields=summary",
        mimeType: "application/json",
        text: '{"id":42,"fields":"summary"}',
      },
    ]);
    await expect(client.readResource({ uri: "items://0" })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining("id: "),
    });
    await expect(client.readResource({ uri: "items://abc" })).rejects.toMatchObject({ code: -32602 });
    await expect(client.readResource({ uri: "other://1" })).rejects.toMatchObject({ code: -32002 });
  });
});

describe("a contract served to SDK v1 at 2025-06-18", () => {
  it("answers invalid arguments with -32602 naming the field, as that version's tools page says", async () => {
    const client = await v1("2025-06-18");
    try {
      await expect(client.callTool({ name: "add", arguments: { a: 1, b: "x" } })).rejects.toMatchObject({
        code: -32602,
        message: expect.stringContaining('Invalid arguments for tool "add": b: Expected number'),
      });
      // Every wrong field at once, each named in data.issues.
      await expect(client.callTool({ name: "add", arguments: { a: "1" } })).rejects.toMatchObject({
        code: -32602,
        message: 'MCP error -32602: Invalid arguments for tool "add": a: Expected number; b: Required',
        data: {
          field: "a",
          reason: "Expected number",
          issues: [
            { path: "/arguments/a", message: "Expected number" },
            { path: "/arguments/b", message: "Required" },
          ],
        },
      });
      const ok = await client.callTool({ name: "add", arguments: { a: 1, b: 2 } });
      expect(ok.structuredContent).toEqual({ sum: 3 });
    } finally {
      await client.close();
    }
  });
});

describe("a contract served to SDK v2", () => {
  for (const version of ["2025-11-25", "2026-07-28"]) {
    it(`calls typed tools and sees argument errors on a ${version} server`, async () => {
      const client = new ClientV2({ name: "contract-v2", version: "1.0.0" });
      await client.connect(new StdioV2({ command: TSX, args: serverArgs(version), stderr: "pipe" }));
      try {
        expect((await client.listTools()).tools.map((t) => t.name)).toEqual([
          "add",
          "distance",
          "total",
          "echo",
        ]);
        const sum = await client.callTool({ name: "add", arguments: { a: 20, b: 22 } });
        expect(sum.structuredContent).toEqual({ sum: 42 });
        const wrong = await client.callTool({ name: "add", arguments: { a: 20 } });
        expect(wrong.isError).toBe(true);
        expect(text(wrong)).toBe('Invalid arguments for tool "add": b: Required');
        const both = await client.callTool({ name: "add", arguments: { a: "20" } });
        expect(both.isError).toBe(true);
        expect(text(both)).toBe('Invalid arguments for tool "add": a: Expected number; b: Required');
        const read = await client.readResource({ uri: "items://7" });
        expect(read.contents[0]).toMatchObject({ uri: "items://7", text: '{"id":7,"fields":"all"}' });
      } finally {
        await client.close();
      }
    });
  }
});
