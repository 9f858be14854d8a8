/**
 * MCP Apps on our server: test/fixtures/apps/contract.yaml (tools with `ui:`) generated and served over
 * real stdio and real HTTP on 127.0.0.1, in both eras (a 2025-11-25 server; a 2026-07-28 server reached
 * by the stateless era and by the handshake era), read by the official SDK v2 client. What it reads is
 * judged by ext-apps itself: its zod schemas (`McpUiToolMetaSchema`, `McpUiResourceMetaSchema`), its
 * `getToolUiResourceUri`, `RESOURCE_MIME_TYPE` and `isToolVisibilityAppOnly`.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import {
  McpUiResourceMetaSchema,
  McpUiToolMetaSchema,
  RESOURCE_MIME_TYPE,
  RESOURCE_URI_META_KEY,
} from "@modelcontextprotocol/ext-apps";
import {
  getToolUiResourceUri,
  isToolVisibilityAppOnly,
  isToolVisibilityModelOnly,
} from "@modelcontextprotocol/ext-apps/app-bridge";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { emitContract } from "../../generator/contract/emit.js";
import { loadContract } from "../../generator/contract/load.js";
import { serveHttp } from "../../runtime/node/http.js";

const REPO = fileURLToPath(new URL("../../", import.meta.url));
const FIXTURE = `${REPO}test/fixtures/apps/`;
const VERSIONS = ["2025-11-25", "2026-07-28"];
const TSX = `${REPO}node_modules/.bin/tsx`;
const html = (file: string) => readFileSync(`${FIXTURE}${file}`, "utf8");

const closing: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const close of closing.reverse()) await close();
});

beforeAll(async () => {
  const contract = await loadContract(`${FIXTURE}contract.yaml`, "contract.yaml");
  for (const version of VERSIONS) {
    const out = `${REPO}test/.tmp/apps/${version}/`;
    mkdirSync(out, { recursive: true });
    const files = await emitContract(contract, {
      protocolVersion: version,
      protocolDir: `../../../../generated/${version}`,
    });
    for (const [name, text] of Object.entries(files)) writeFileSync(`${out}${name}`, text);
  }
});

type Mode = "legacy" | { pin: string };
const RUNS: { server: string; mode: Mode; era: string }[] = [
  { server: "2025-11-25", mode: "legacy", era: "2025-11-25" },
  { server: "2026-07-28", mode: "legacy", era: "2025-11-25" },
  { server: "2026-07-28", mode: { pin: "2026-07-28" }, era: "2026-07-28" },
];

async function connect(
  transport: "stdio" | "http",
  server: string,
  mode: Mode,
  capabilities: Record<string, unknown> = {},
): Promise<Client> {
  const client = new Client(
    { name: "apps-v2", version: "1.0.0" },
    { versionNegotiation: { mode }, capabilities },
  );
  if (transport === "stdio") {
    await client.connect(
      new StdioClientTransport({
        command: TSX,
        args: ["--conditions=mcp-codegen-source", `${FIXTURE}server.ts`, server],
        stderr: "pipe",
      }),
    );
  } else {
    const { appsServer } = await import("../fixtures/apps/server.js");
    const http = await serveHttp(await appsServer(server), { port: 0 });
    closing.push(() => http.close());
    await client.connect(new StreamableHTTPClientTransport(new URL(http.url)));
  }
  closing.push(() => client.close());
  return client;
}

describe.each(["stdio", "http"] as const)(
  "an Apps contract over %s, read by the SDK v2 client",
  (transport) => {
    it.each(RUNS)("$server server, $era era: tools link their views as ext-apps reads them", async (run) => {
      const client = await connect(transport, run.server, run.mode);
      expect(client.getNegotiatedProtocolVersion()).toBe(run.era);
      const { tools } = await client.listTools();
      const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
      expect(Object.keys(byName)).toEqual(["show_counter", "increment", "report", "summary", "plain"]);
      for (const name of ["show_counter", "increment", "report", "summary"]) {
        const meta = byName[name]!._meta as Record<string, unknown>;
        // ext-apps' own schema of `_meta.ui` accepts it as is (parse, not a loose match: no key dropped).
        expect(McpUiToolMetaSchema.parse(meta.ui)).toEqual(meta.ui);
        expect(meta[RESOURCE_URI_META_KEY]).toBe((meta.ui as { resourceUri: string }).resourceUri);
      }
      expect(getToolUiResourceUri(byName.show_counter!)).toBe("ui://show_counter");
      expect(getToolUiResourceUri(byName.increment!)).toBe("ui://show_counter");
      expect(getToolUiResourceUri(byName.report!)).toBe("ui://acme/report");
      expect(getToolUiResourceUri(byName.plain!)).toBeUndefined();
      expect(isToolVisibilityAppOnly(byName.increment!)).toBe(true);
      expect(isToolVisibilityAppOnly(byName.show_counter!)).toBe(false);
      expect(isToolVisibilityModelOnly(byName.show_counter!)).toBe(false);
      expect(getToolUiResourceUri(byName.summary!)).toBe("ui://acme/report");
      expect(isToolVisibilityModelOnly(byName.summary!)).toBe(true);
      expect(byName.report!._meta).toMatchObject({ "acme/owner": "reports" });
    });

    it.each(RUNS)(
      "$server server, $era era: the views are listed and read with their mime type and _meta.ui",
      async (run) => {
        const client = await connect(transport, run.server, run.mode);
        const { resources } = await client.listResources();
        const views = resources.filter((r) => r.uri.startsWith("ui://"));
        expect(views.map((r) => [r.uri, r.mimeType])).toEqual([
          ["ui://show_counter", RESOURCE_MIME_TYPE],
          ["ui://acme/report", RESOURCE_MIME_TYPE],
        ]);
        const listed = views[1]!._meta as { ui: unknown };
        expect(McpUiResourceMetaSchema.parse(listed.ui)).toEqual(listed.ui);

        const counter = await client.readResource({ uri: "ui://show_counter" });
        expect(counter.contents).toEqual([
          { uri: "ui://show_counter", mimeType: "text/html;profile=mcp-app", text: html("ui/counter.html") },
        ]);
        const report = await client.readResource({ uri: "ui://acme/report" });
        const content = report.contents[0] as unknown as {
          text: string;
          mimeType: string;
          _meta: { ui: unknown };
        };
        expect(content.text).toBe(html("bundle/report.html"));
        expect(content.mimeType).toBe(RESOURCE_MIME_TYPE);
        expect(McpUiResourceMetaSchema.parse(content._meta.ui)).toEqual({
          csp: {
            connectDomains: ["https://api.example.com"],
            resourceDomains: ["https://*.example-cdn.com:8443"],
          },
          permissions: { clipboardWrite: {} },
          prefersBorder: true,
        });
        await expect(client.readResource({ uri: "ui://nothing" })).rejects.toThrow();

        const shown = await client.callTool({ name: "show_counter", arguments: { start: 40 } });
        expect(shown.structuredContent).toEqual({ value: 40 });
        const more = await client.callTool({ name: "increment", arguments: { by: 2 } });
        expect(more.structuredContent).toEqual({ value: 42 });
      },
    );

    it.each(RUNS)(
      "$server server, $era era: a tool reads whether the client declared the extension",
      async (run) => {
        const text = async (client: Client) =>
          ((await client.callTool({ name: "report", arguments: {} })).content as { text: string }[])[0]!.text;
        const plain = await connect(transport, run.server, run.mode);
        expect(await text(plain)).toBe("the report, as text");
        const host = await connect(transport, run.server, run.mode, {
          extensions: { "io.modelcontextprotocol/ui": { mimeTypes: [RESOURCE_MIME_TYPE] } },
        });
        expect(await text(host)).toBe("the report, for a host that renders views");
      },
    );
  },
);
