/**
 * The results handlers return, as users write them: handlers for two tools, with and without a
 * `ListToolsResult` / `CallToolResult` annotation (the types server.ts exports for handlers), in a
 * handshake-era version and in a stateless-era one, whose runtime fills in `resultType` and the caching
 * hints. tsc must accept all of them, and still refuse a wrong result.
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { typeErrors } from "../support/typecheck.js";
import { REPO } from "./paths.js";

const TMP = `${REPO}test/.tmp/handler-results`;
const VERSIONS = ["2025-11-25", "2026-07-28"];

/** Two tools whose input schemas name different properties, and a callTool answering for both. */
function handlers(version: string): string {
  return `import type { CallToolResult, ListToolsResult, ServerHandlers } from "../../../generated/${version}/server.js";
import type * as T from "../../../generated/${version}/types.js";

const greet = { name: "greet", description: "Greets someone", inputSchema: { type: "object" as const, properties: { name: { type: "string" } }, required: ["name"] } };

export const plain: ServerHandlers = {
  listTools: () => ({
    tools: [
      { name: "greet", description: "Greets someone", inputSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] } },
      { name: "add", description: "Adds two numbers", inputSchema: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] } },
    ],
  }),
  callTool: async ({ name, arguments: args }) => {
    if (name === "add") {
      const sum = Number(args?.a) + Number(args?.b);
      return { content: [{ type: "text", text: String(sum) }], structuredContent: { sum } };
    }
    return { content: [{ type: "text", text: \`Hello, \${String(args?.name)}!\` }], structuredContent: { greeting: "hello" } };
  },
  listResources: async () => ({ resources: [{ uri: "info://a", name: "a" }, { uri: "info://b", name: "b", mimeType: "text/plain" }] }),
  readResource: ({ uri }) => ({ contents: [{ uri, text: "hi" }] }),
};

export const annotated: ServerHandlers = {
  listTools: (): ListToolsResult => ({
    tools: [
      greet,
      { name: "add", inputSchema: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] } },
    ],
  }),
  callTool: async ({ name }): Promise<CallToolResult> => {
    if (name === "add") return { content: [{ type: "text", text: "3" }], structuredContent: { sum: 3 } };
    return { content: [{ type: "text", text: "hello" }], isError: false };
  },
};

// A result typed exactly as the protocol states it is a valid handler result too.
declare const exact: { tools: T.ListToolsResult; call: T.CallToolResult };
export const protocolTyped: ServerHandlers = { listTools: () => exact.tools, callTool: () => exact.call };
`;
}

/** Each line a wrong result; every one must be an error on its own line. */
function wrong(version: string): string[] {
  const head = [
    `import type { CallToolResult, ListToolsResult, ServerHandlers } from "../../../generated/${version}/server.js";`,
  ];
  const cases = [
    `export const w1: ServerHandlers = { callTool: () => ({ content: "x" }) };`,
    `export const w2: ServerHandlers = { callTool: async (): Promise<CallToolResult> => ({ content: "x" }) };`,
    `export const w3: ServerHandlers = { listTools: (): ListToolsResult => ({ tools: [{ inputSchema: { type: "object" } }] }) };`,
    `export const w4: ServerHandlers = { listTools: () => ({ tools: [{ name: "a", inputSchema: { type: "array" } }] }) };`,
    `export const w5: ServerHandlers = { listTools: () => ({ tools: [{ name: "a", inputSchema: { type: "object", $schema: 1 } }] }) };`,
  ];
  return [...head, ...cases];
}

describe("handler results", () => {
  it("accept what users write for two tools, annotated or not, and refuse a wrong result", () => {
    rmSync(TMP, { recursive: true, force: true });
    mkdirSync(TMP, { recursive: true });
    const wrongLines = new Map<string, number>();
    for (const v of VERSIONS) {
      writeFileSync(`${TMP}/${v}.ts`, handlers(v));
      const lines = wrong(v);
      writeFileSync(`${TMP}/${v}.wrong.ts`, `${lines.join("\n")}\n`);
      wrongLines.set(`${v}.wrong.ts`, lines.length - 1);
    }
    const errors = typeErrors(TMP, ["./*.ts"]);
    const inFile = (name: string) => errors.filter((l) => l.startsWith(`test/.tmp/handler-results/${name}(`));
    for (const v of VERSIONS) {
      expect(inFile(`${v}.ts`), v).toEqual([]);
      // Each wrong case (lines 2…) is refused on its own line.
      const lines = new Set(inFile(`${v}.wrong.ts`).map((l) => Number(/\((\d+),/.exec(l)![1])));
      const cases = wrongLines.get(`${v}.wrong.ts`)!;
      expect(
        [...lines].sort((a, b) => a - b),
        v,
      ).toEqual(Array.from({ length: cases }, (_, i) => i + 2));
    }
    expect(errors.filter((l) => !l.startsWith("test/.tmp/handler-results/"))).toEqual([]);
  });
});
