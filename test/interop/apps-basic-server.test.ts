/**
 * The runtime client's MCP Apps host helpers against ext-apps' own example server from npm,
 * `@modelcontextprotocol/server-basic-vanillajs` (its bin, a real process on its own pinned SDK v2), over
 * stdio (`--stdio`) and over Streamable HTTP (`PORT`, reached on 127.0.0.1), with our 2025-11-25 client
 * and our 2026-07-28 one (the server speaks only 2025 versions: the probe falls back to the handshake).
 *
 * What the package serves (its dist/server.js): one tool, `get-time`, linked by ext-apps'
 * `registerAppTool` to `ui://get-time/mcp-app.html` (both `_meta.ui.resourceUri` and the flat key), no
 * visibility (so model and app), answering `{ time }` with the same ISO string as text; that resource,
 * registered by `registerAppResource`, read as dist/mcp-app.html with the app mime type and no `_meta`
 * (so no CSP, no permissions: the extension's default policy applies).
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import {
  getToolUiResourceUri,
  isToolVisibilityAppOnly,
  isToolVisibilityModelOnly,
} from "@modelcontextprotocol/ext-apps/app-bridge";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient as createClient25 } from "../../generated/2025-11-25/index.js";
import { createClient } from "../../generated/2026-07-28/index.js";
import { freePort, type ServerProcess, startServer } from "../../generator/dev/server-process.js";
import {
  APP_MIME_TYPE,
  allowAttribute,
  appToolCall,
  modelTools,
  readUi,
  toolUi,
  toolVisibility,
  uiPolicy,
} from "../../runtime/client/index.js";
import { connectHttp } from "../../runtime/http-client/connect.js";
import { McpError } from "../../runtime/jsonrpc/messages.js";
import { StdioClientTransport } from "../../runtime/node/stdio-client.js";

const PACKAGE = new URL("../../node_modules/@modelcontextprotocol/server-basic-vanillajs/", import.meta.url);
const BIN = fileURLToPath(new URL("dist/index.js", PACKAGE));
/** The file the server reads for every `resources/read` of its view. */
const SERVED_HTML = readFileSync(new URL("dist/mcp-app.html", PACKAGE), "utf-8");
const TOOL = "get-time";
const VIEW_URI = "ui://get-time/mcp-app.html";
/** The extension's policy for a view that declares no domains. */
const DEFAULT_POLICY =
  "default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; media-src 'self' data:; connect-src 'none'; frame-src 'none'; base-uri 'self'; object-src 'none'";
const info = { name: "apps-basic-host", version: "1.0.0" };

let http: ServerProcess;
beforeAll(async () => {
  // The package listens on every interface (no host option); the test reaches it on loopback only.
  http = await startServer({
    main: BIN,
    args: [],
    nodeFlags: [],
    cwd: fileURLToPath(PACKAGE),
    port: await freePort(),
    readyTimeoutMs: 20_000,
    onStderr: () => {},
  });
}, 30_000);
afterAll(() => http?.stop(5_000));

const transports = {
  stdio: () => new StdioClientTransport({ command: process.execPath, args: [BIN, "--stdio"] }),
  http: () => connectHttp(`http://127.0.0.1:${http.port}/mcp`),
};

describe.each([
  ["stdio", "2025"],
  ["stdio", "2026"],
  ["http", "2025"],
  ["http", "2026"],
] as const)("server-basic-vanillajs over %s, our %s-era client", (transport, era) => {
  let client: ReturnType<typeof createClient>;
  beforeAll(async () => {
    const make = era === "2025" ? createClient25 : createClient;
    client = make({ info, apps: true }) as ReturnType<typeof createClient>;
    await client.connect(await transports[transport]());
  }, 30_000);
  afterAll(() => client?.close());

  it("speaks 2025-11-25 in a session (the 2026 client after its probe)", () => {
    expect(client.lifecycle).toBe("initialize");
    expect(client.protocolVersion).toBe("2025-11-25");
    expect(client.serverDescription?.serverInfo.name).toBe("Basic MCP App Server (Vanilla JS)");
  });

  it("finds the tool's UI as ext-apps does, in both of registerAppTool's keys", async () => {
    const { tools } = await client.listTools({});
    expect(tools.map((t) => t.name)).toEqual([TOOL]);
    const tool = tools[0]!;
    expect(tool._meta).toEqual({ ui: { resourceUri: VIEW_URI }, "ui/resourceUri": VIEW_URI });
    expect(toolUi(tool)).toBe(VIEW_URI);
    expect(toolUi(tool)).toBe(getToolUiResourceUri(tool as never));
    // No visibility: both callers, as ext-apps reads it; the server has no tool hidden from apps.
    expect([...toolVisibility(tool)].sort()).toEqual(["app", "model"]);
    expect(isToolVisibilityAppOnly(tool as never)).toBe(false);
    expect(isToolVisibilityModelOnly(tool as never)).toBe(false);
    expect(modelTools(tools)).toEqual(tools);
  });

  it("reads and checks the UI: the served HTML, the exact mime type, no CSP or permissions declared", async () => {
    const { resources } = await client.listResources({});
    const listed = resources.find((r) => r.uri === VIEW_URI);
    expect(listed).toMatchObject({ uri: VIEW_URI, name: VIEW_URI, mimeType: APP_MIME_TYPE });
    expect(listed?._meta).toBeUndefined();
    const raw = await client.readResource({ uri: VIEW_URI });
    expect(raw.contents).toEqual([{ uri: VIEW_URI, mimeType: APP_MIME_TYPE, text: SERVED_HTML }]);

    const ui = await readUi(client, VIEW_URI, { listed: listed! });
    expect(SERVED_HTML.length).toBeGreaterThan(0);
    expect(SERVED_HTML).toMatch(/^<!DOCTYPE html>/);
    expect(ui).toEqual({ uri: VIEW_URI, html: SERVED_HTML, csp: {}, permissions: {} });
    // The view is one file with inline module scripts and styles: the default policy lets them run.
    expect(SERVED_HTML).toContain('<script type="module" crossorigin>');
    expect(uiPolicy(ui.csp)).toBe(DEFAULT_POLICY);
    expect(allowAttribute(ui.permissions)).toBe("");
  });

  it("routes the view's call of get-time through the client; refuses a tool the server does not list", async () => {
    const { tools } = await client.listTools({});
    const call = appToolCall(client, tools);
    const before = Date.now();
    const result = (await call({ name: TOOL, arguments: {} })) as {
      content: { type: string; text: string }[];
      structuredContent: { time: string };
      isError?: boolean;
    };
    const time = result.structuredContent.time;
    expect(result).toEqual({ content: [{ type: "text", text: time }], structuredContent: { time } });
    expect(new Date(time).toISOString()).toBe(time);
    expect(Date.parse(time)).toBeGreaterThanOrEqual(before - 1_000);
    expect(Date.parse(time)).toBeLessThanOrEqual(Date.now() + 1_000);

    const refused = await call({ name: "get-date" }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(McpError);
    expect(refused).toMatchObject({
      code: -32602,
      message: 'tool "get-date" is not available to apps (this server lists no such tool)',
    });
  });
});
