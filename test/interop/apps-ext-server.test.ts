/**
 * The runtime client's MCP Apps host helpers against an Apps server we did not write: the SDK v2
 * `McpServer` with ext-apps' `registerAppTool`/`registerAppResource` (test/fixtures/apps/ext-apps-server.ts),
 * over stdio (a child process) and Streamable HTTP on 127.0.0.1, with our client in both eras. The UI
 * is found (`toolUi`, agreeing with ext-apps' `getToolUiResourceUri`), read and checked (`readUi`), its
 * policy and `allow` attribute built (the latter agreeing with ext-apps' `buildAllowAttribute`); the
 * app-only tool is called through `appToolCall`, the model-only one refused; a UI whose CSP smuggles a
 * directive is refused; the SDK sees the client's `apps` declaration (ext-apps' `getUiCapability`).
 */
import { fileURLToPath } from "node:url";
import {
  buildAllowAttribute,
  getToolUiResourceUri,
  isToolVisibilityAppOnly,
} from "@modelcontextprotocol/ext-apps/app-bridge";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient as createClient25 } from "../../generated/2025-11-25/index.js";
import { createClient } from "../../generated/2026-07-28/index.js";
import {
  allowAttribute,
  appToolCall,
  modelTools,
  readUi,
  toolUi,
  uiPolicy,
} from "../../runtime/client/index.js";
import { connectHttp } from "../../runtime/http-client/connect.js";
import { McpError } from "../../runtime/jsonrpc/messages.js";
import { StdioClientTransport } from "../../runtime/node/stdio-client.js";
import {
  EXT_BAD_URI,
  EXT_CSP,
  EXT_HTML,
  EXT_LISTED_URI,
  EXT_VIEW_URI,
  startExtAppsHttp,
} from "../fixtures/apps/ext-apps-server.js";

const TSX = fileURLToPath(new URL("../../node_modules/.bin/tsx", import.meta.url));
const FIXTURE = fileURLToPath(new URL("../fixtures/apps/ext-apps-server.ts", import.meta.url));
const info = { name: "apps-host-interop", version: "1.0.0" };
const DECLARED = JSON.stringify({ mimeTypes: ["text/html;profile=mcp-app"] });

let http: Awaited<ReturnType<typeof startExtAppsHttp>>;
beforeAll(async () => {
  http = await startExtAppsHttp();
});
afterAll(() => http?.close());

const transports = {
  stdio: () => new StdioClientTransport({ command: TSX, args: ["--conditions=mcp-codegen-source", FIXTURE] }),
  http: () => connectHttp(http.url),
};

describe.each([
  ["stdio", "2026"],
  ["stdio", "2025"],
  ["http", "2026"],
  ["http", "2025"],
] as const)("ext-apps' server over %s, our %s-era client", (transport, era) => {
  async function connected(apps: boolean) {
    const make = era === "2025" ? createClient25 : createClient;
    const client = make({ info, ...(apps ? { apps: true } : {}) }) as ReturnType<typeof createClient>;
    await client.connect(await transports[transport]());
    return client;
  }

  it("finds, reads and checks the UI; routes app calls; refuses the model-only tool and a smuggled CSP", async () => {
    const client = await connected(true);
    try {
      const tools = (await client.listTools({})).tools;
      const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
      // Our reading of each tool's link and visibility is ext-apps' own.
      for (const tool of tools) {
        expect(toolUi(tool), tool.name).toBe(getToolUiResourceUri(tool as never));
        expect(modelTools([tool]).length === 0, tool.name).toBe(isToolVisibilityAppOnly(tool as never));
      }
      expect(toolUi(byName.show_counter!)).toBe(EXT_VIEW_URI);
      expect(toolUi(byName.secret!)).toBeUndefined();
      expect(
        modelTools(tools)
          .map((t) => t.name)
          .sort(),
      ).toEqual(["apps_declared", "bad_csp", "secret", "show_counter"]);

      const ui = await readUi(client, toolUi(byName.show_counter!)!);
      expect(ui).toEqual({
        uri: EXT_VIEW_URI,
        html: EXT_HTML,
        csp: EXT_CSP,
        permissions: { clipboardWrite: {} },
        prefersBorder: true,
      });
      expect(uiPolicy(ui.csp)).toContain("; connect-src https://api.example.com; frame-src 'none';");
      expect(allowAttribute(ui.permissions)).toBe("clipboard-write");
      expect(allowAttribute(ui.permissions)).toBe(buildAllowAttribute(ui.permissions));

      const call = appToolCall(client, tools);
      const first = (await call({ name: "increment", arguments: { by: 2 } })) as {
        structuredContent: { value: number };
      };
      const second = (await call({ name: "increment", arguments: { by: 3 } })) as {
        structuredContent: { value: number };
      };
      expect(second.structuredContent.value - first.structuredContent.value).toBe(3);
      expect(await call({ name: "show_counter" })).toMatchObject({
        structuredContent: { value: second.structuredContent.value },
      });
      const refused = await call({ name: "secret" }).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(McpError);
      expect(refused).toMatchObject({
        code: -32602,
        message: 'tool "secret" is not available to apps (its visibility lacks app)',
      });

      // A view whose _meta.ui ext-apps put on the listing only: read with the listing as the fallback.
      const listed = (await client.listResources({})).resources.find((r) => r.uri === EXT_LISTED_URI);
      expect(await readUi(client, EXT_LISTED_URI, { listed: listed! })).toEqual({
        uri: EXT_LISTED_URI,
        html: EXT_HTML,
        csp: EXT_CSP,
        permissions: {},
        prefersBorder: false,
      });

      const bad = await readUi(client, toolUi(byName.bad_csp!)!).catch((error: unknown) => error);
      expect(bad).toBeInstanceOf(McpError);
      expect(bad).toMatchObject({
        code: -32602,
        message: `UI resource "${EXT_BAD_URI}": _meta.ui.csp.resourceDomains[0] is not an origin (scheme://host[:port]): "https://cdn.example.com; script-src *"`,
      });
    } finally {
      await client.close();
    }
  });

  it("the SDK server sees the apps declaration only from a client created with it (where it keeps one)", async () => {
    const declared = await connected(true);
    const silent = await connected(false);
    try {
      // The SDK's createMcpHandler serves 2025-era HTTP statelessly: each request gets a new server from
      // the factory, which never saw the initialize, so it cannot know the declaration (the SDK's doing;
      // over stdio, and per request in 2026-07-28, it does).
      const expected = transport === "http" && era === "2025" ? "null" : DECLARED;
      expect(await declared.callTool({ name: "apps_declared" })).toMatchObject({
        content: [{ type: "text", text: expected }],
      });
      expect(await silent.callTool({ name: "apps_declared" })).toMatchObject({
        content: [{ type: "text", text: "null" }],
      });
    } finally {
      await Promise.all([declared.close(), silent.close()]);
    }
  });
});
