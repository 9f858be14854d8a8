/**
 * The host helpers of the runtime client for MCP Apps (runtime/client/apps*.ts): a tool's UI link and
 * visibility, the model's list, reading and checking a UI resource, the sandbox's CSP and `allow`
 * attribute, routing a view's tool calls, and the client's `apps` declaration, against our own server
 * (the counter fixture, written without a contract) in both eras over the in-memory transport.
 */
import { describe, expect, it } from "vitest";
import {
  createClient as createClient25,
  createServer as createServer25,
} from "../../../generated/2025-11-25/index.js";
import { createClient } from "../../../generated/2026-07-28/index.js";
import {
  allowAttribute,
  appToolCall,
  isCspOrigin,
  modelTools,
  readUi,
  toolUi,
  toolVisibility,
  uiPolicy,
} from "../../../runtime/client/index.js";
import { connectHttp } from "../../../runtime/http-client/connect.js";
import { createMemoryTransportPair } from "../../../runtime/jsonrpc/memory.js";
import { McpError } from "../../../runtime/jsonrpc/messages.js";
import { serveHttp } from "../../../runtime/node/http.js";
import {
  APP_MIME,
  counterHandlers,
  counterInfo,
  counterServer,
  counterTools,
  VIEW_URI,
} from "../../fixtures/apps/counter-server.js";

const HTML = "<!doctype html><html><body><p id=v>…</p></body></html>";
const DEFAULT_POLICY =
  "default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; media-src 'self' data:; connect-src 'none'; frame-src 'none'; base-uri 'self'; object-src 'none'";
const info = { name: "apps-host-test", version: "1.0.0" };

/** The error `run` rejects or throws with, as a -32602 McpError. */
async function refusal(run: () => unknown): Promise<McpError> {
  try {
    await run();
  } catch (error) {
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe(-32602);
    return error as McpError;
  }
  throw new Error("expected a refusal");
}

async function connected(
  options: { apps?: boolean; era?: "2026" | "2025"; server25?: boolean; csp?: Record<string, string[]> } = {},
) {
  const [a, b] = createMemoryTransportPair();
  const handlers = counterHandlers({ html: HTML, ...(options.csp ? { csp: options.csp } : {}) });
  const server = options.server25
    ? createServer25({ info: counterInfo, handlers: handlers as never, onError: () => {} })
    : counterServer({ html: HTML, ...(options.csp ? { csp: options.csp } : {}) });
  await server.connect(a);
  const make = options.era === "2025" ? createClient25 : createClient;
  const client = make({ info, ...(options.apps ? { apps: true } : {}) });
  await client.connect(b);
  return client as ReturnType<typeof createClient>;
}

describe("a tool's UI and visibility", () => {
  it("toolUi reads _meta.ui.resourceUri, else the deprecated flat key; none is undefined", () => {
    expect(toolUi({ name: "a", _meta: { ui: { resourceUri: "ui://x/a" } } })).toBe("ui://x/a");
    expect(toolUi({ name: "b", _meta: { "ui/resourceUri": "ui://x/b" } })).toBe("ui://x/b");
    expect(
      toolUi({ name: "c", _meta: { ui: { resourceUri: "ui://x/new" }, "ui/resourceUri": "ui://x/old" } }),
    ).toBe("ui://x/new");
    expect(toolUi({ name: "d" })).toBeUndefined();
    expect(toolUi({ name: "e", _meta: { ui: { visibility: ["app"] } } })).toBeUndefined();
  });

  it("toolUi refuses a link that is not a ui:// string, naming the tool and the field", async () => {
    const bad = await refusal(() => toolUi({ name: "t", _meta: { ui: { resourceUri: "https://x/y" } } }));
    expect(bad.message).toBe('tool "t": _meta.ui.resourceUri must be a ui:// URI, not "https://x/y"');
    const flat = await refusal(() => toolUi({ name: "t", _meta: { "ui/resourceUri": 7 } }));
    expect(flat.message).toContain('_meta["ui/resourceUri"]');
  });

  it("visibility defaults to both; app-only tools leave the model's list; a malformed one grants nothing", () => {
    expect([...toolVisibility({ name: "a" })].sort()).toEqual(["app", "model"]);
    expect([...toolVisibility({ name: "b", _meta: { ui: { visibility: ["app", "user"] } } })]).toEqual([
      "app",
    ]);
    expect([...toolVisibility({ name: "c", _meta: { ui: { visibility: "app" } } })]).toEqual([]);
    expect(modelTools(counterTools).map((t) => t.name)).toEqual(["show_counter", "secret", "apps_declared"]);
    expect(modelTools([{ name: "odd", _meta: { ui: { visibility: "model" } } }])).toEqual([]);
  });
});

describe("the sandbox's policy", () => {
  it("without declarations: the extension's restrictive default, frame-src, base-uri and object-src", () => {
    expect(uiPolicy()).toBe(DEFAULT_POLICY);
    expect(uiPolicy({})).toBe(DEFAULT_POLICY);
  });

  it("declared origins go where the extension maps them", () => {
    expect(
      uiPolicy({
        connectDomains: ["https://api.example.com", "wss://rt.example.com"],
        resourceDomains: ["https://*.cdn.example.com", "http://127.0.0.1:8080"],
        frameDomains: ["https://www.youtube.com"],
        baseUriDomains: ["https://[::1]:8443"],
      }),
    ).toBe(
      "default-src 'none'; " +
        "script-src 'self' 'unsafe-inline' https://*.cdn.example.com http://127.0.0.1:8080; " +
        "style-src 'self' 'unsafe-inline' https://*.cdn.example.com http://127.0.0.1:8080; " +
        "img-src 'self' data: https://*.cdn.example.com http://127.0.0.1:8080; " +
        "font-src https://*.cdn.example.com http://127.0.0.1:8080; " +
        "media-src 'self' data: https://*.cdn.example.com http://127.0.0.1:8080; " +
        "connect-src https://api.example.com wss://rt.example.com; " +
        "frame-src https://www.youtube.com; base-uri https://[::1]:8443; object-src 'none'",
    );
  });

  it.each([
    "https://a.example.com; script-src *",
    "https://a.example.com https://b.example.com",
    "https://a.example.com,https://b.example.com",
    "'unsafe-eval'",
    "'self'",
    '"https://a.example.com"',
    "*",
    "https://*",
    "https://*.com",
    "https://a.example.com/path",
    "https://user@a.example.com",
    "a.example.com",
    "data:",
    "javascript:alert(1)",
    "https://a.example.com\n",
    "",
  ])("refuses %j: not an origin, so never pasted", async (entry) => {
    expect(isCspOrigin(entry)).toBe(false);
    const error = await refusal(() => uiPolicy({ connectDomains: ["https://ok.example.com", entry] }));
    expect(error.message).toBe(
      `csp.connectDomains[1] is not an origin (scheme://host[:port]): ${JSON.stringify(entry)}`,
    );
    expect(error.data).toEqual({ field: "csp.connectDomains[1]" });
  });

  it("refuses a field that is not an array", async () => {
    const error = await refusal(() => uiPolicy({ frameDomains: "https://a.example.com" as never }));
    expect(error.message).toBe("csp.frameDomains must be an array of origins");
  });

  it("allowAttribute maps the permissions asked to Permissions Policy features", () => {
    expect(allowAttribute()).toBe("");
    expect(allowAttribute({})).toBe("");
    expect(allowAttribute({ clipboardWrite: {}, camera: {} })).toBe("camera; clipboard-write");
    expect(allowAttribute({ camera: {}, microphone: {}, geolocation: {}, clipboardWrite: {} })).toBe(
      "camera; microphone; geolocation; clipboard-write",
    );
  });
});

describe("readUi", () => {
  /** A client whose readResource answers `result`, counting the reads. */
  const answering = (result: unknown) => {
    const reads: string[] = [];
    return {
      reads,
      client: {
        readResource: async (params: { uri: string }) => {
          reads.push(params.uri);
          return result;
        },
      },
    };
  };
  const content = (extra: Record<string, unknown>) => ({
    contents: [{ uri: VIEW_URI, mimeType: APP_MIME, text: HTML, ...extra }],
  });

  it.each(["2026", "2025"] as const)(
    "reads our server's UI (%s era): html, csp, prefersBorder",
    async (era) => {
      const csp = { connectDomains: ["https://api.example.com"] };
      const client = await connected({ era, csp });
      const tools = (await client.listTools({})).tools;
      const uri = toolUi(tools.find((t) => t.name === "show_counter")!);
      expect(uri).toBe(VIEW_URI);
      expect(await readUi(client, uri!)).toEqual({
        uri: VIEW_URI,
        html: HTML,
        csp,
        permissions: {},
        prefersBorder: true,
      });
      await client.close();
    },
  );

  it("a base64 blob is decoded as UTF-8; _meta.ui's four fields read, unknown keys left out", async () => {
    const html = "<!doctype html><p>café ☕</p>";
    const { client } = answering({
      contents: [
        {
          uri: VIEW_URI,
          mimeType: APP_MIME,
          blob: Buffer.from(html).toString("base64"),
          _meta: {
            ui: {
              csp: { resourceDomains: ["https://cdn.example.com"], redirectDomains: ["x y"] },
              permissions: { camera: {}, usb: {} },
              domain: "abc.example-content.com",
              prefersBorder: false,
            },
          },
        },
      ],
    });
    expect(await readUi(client, VIEW_URI)).toEqual({
      uri: VIEW_URI,
      html,
      csp: { resourceDomains: ["https://cdn.example.com"] },
      permissions: { camera: {} },
      domain: "abc.example-content.com",
      prefersBorder: false,
    });
  });

  it("without _meta.ui on the content, the listing's is read (checked the same way); with it, the listing is ignored", async () => {
    const listed = {
      uri: VIEW_URI,
      _meta: { ui: { csp: { connectDomains: ["https://api.example.com"] }, prefersBorder: true } },
    };
    expect(await readUi(answering(content({})).client, VIEW_URI)).toEqual({
      uri: VIEW_URI,
      html: HTML,
      csp: {},
      permissions: {},
    });
    expect(await readUi(answering(content({})).client, VIEW_URI, { listed })).toEqual({
      uri: VIEW_URI,
      html: HTML,
      csp: { connectDomains: ["https://api.example.com"] },
      permissions: {},
      prefersBorder: true,
    });
    const own = content({ _meta: { ui: { permissions: { camera: {} } } } });
    expect(await readUi(answering(own).client, VIEW_URI, { listed })).toEqual({
      uri: VIEW_URI,
      html: HTML,
      csp: {},
      permissions: { camera: {} },
    });
    const smuggled = {
      uri: VIEW_URI,
      _meta: { ui: { csp: { connectDomains: ["https://a.example.com;"] } } },
    };
    const bad = await refusal(() => readUi(answering(content({})).client, VIEW_URI, { listed: smuggled }));
    expect(bad.message).toContain("listed._meta.ui.csp.connectDomains[0] is not an origin");
    const other = await refusal(() =>
      readUi(answering(content({})).client, VIEW_URI, { listed: { ...listed, uri: "ui://other" } }),
    );
    expect(other.message).toBe(`UI resource "${VIEW_URI}": listed.uri names another resource ("ui://other")`);
  });

  it("refuses a URI that is not ui:// before reading anything", async () => {
    const { client, reads } = answering(content({}));
    const error = await refusal(() => readUi(client, "https://example.com/view.html"));
    expect(error.message).toBe('UI resource "https://example.com/view.html": uri must start with ui://');
    expect(reads).toEqual([]);
  });

  it.each([
    [
      "another mime type",
      content({ mimeType: "text/html" }),
      'mimeType must be text/html;profile=mcp-app, not "text/html"',
    ],
    [
      "no content for the URI",
      { contents: [{ uri: "ui://other", mimeType: APP_MIME, text: HTML }] },
      "contents must hold exactly one item for this URI (it holds 0)",
    ],
    [
      "two contents for the URI",
      { contents: [content({}).contents[0], content({}).contents[0]] },
      "(it holds 2)",
    ],
    ["no contents array", {}, "contents must be an array"],
    ["text and blob", content({ blob: "AAAA" }), "text or blob (one of them) must be given"],
    ["neither", content({ text: undefined }), "text or blob (one of them) must be given"],
    ["a blob that is not base64", content({ text: undefined, blob: "not base64!" }), "blob must be base64"],
    ["a blob that is not UTF-8", content({ text: undefined, blob: "/w==" }), "blob must be UTF-8 HTML"],
    ["text not a string", content({ text: 42 }), "text must be a string"],
    ["_meta.ui not an object", content({ _meta: { ui: [] } }), "_meta.ui must be an object"],
    [
      "a CSP entry that is not an origin",
      content({ _meta: { ui: { csp: { resourceDomains: ["https://a.example.com 'unsafe-eval'"] } } } }),
      `_meta.ui.csp.resourceDomains[0] is not an origin (scheme://host[:port]): "https://a.example.com 'unsafe-eval'"`,
    ],
    [
      "a permission not an object",
      content({ _meta: { ui: { permissions: { camera: true } } } }),
      "_meta.ui.permissions.camera must be an object ({})",
    ],
    ["domain not a string", content({ _meta: { ui: { domain: 1 } } }), "_meta.ui.domain must be a string"],
    [
      "prefersBorder not a boolean",
      content({ _meta: { ui: { prefersBorder: "yes" } } }),
      "_meta.ui.prefersBorder must be a boolean",
    ],
  ])("refuses %s, naming the URI and the field", async (_, result, why) => {
    const error = await refusal(() => readUi(answering(result).client, VIEW_URI));
    expect(error.message).toContain(`UI resource "${VIEW_URI}": `);
    expect(error.message).toContain(why);
    expect((error.data as { uri: string }).uri).toBe(VIEW_URI);
  });
});

describe("appToolCall", () => {
  it("routes an app-visible tool through the client; refuses a model-only, an unknown or a malformed call", async () => {
    const client = await connected();
    const tools = (await client.listTools({})).tools;
    const call = appToolCall(client, tools);
    expect(await call({ name: "increment", arguments: { by: 2 } })).toMatchObject({
      structuredContent: { value: 2 },
    });
    expect(await call({ name: "show_counter" })).toMatchObject({ structuredContent: { value: 2 } });
    const secret = await refusal(() => call({ name: "secret" }));
    expect(secret.message).toBe('tool "secret" is not available to apps (its visibility lacks app)');
    const unknown = await refusal(() => call({ name: "nope" }));
    expect(unknown.message).toBe('tool "nope" is not available to apps (this server lists no such tool)');
    await refusal(() => call({ name: 3 } as never));
    await refusal(() => call({ name: "increment", arguments: [1] } as never));
    // The refused calls reached nothing: the counter moved only by the allowed calls.
    expect(await call({ name: "increment", arguments: { by: 1 } })).toMatchObject({
      structuredContent: { value: 3 },
    });
    await client.close();
  });
});

describe("the client's apps declaration", () => {
  it.each([
    ["2026-07-28 (per request, in _meta)", "2026", false],
    ["2025-11-25 initialize, to a dual-era server", "2025", false],
    ["2025-11-25 initialize, to a 2025-11-25 server", "2025", true],
  ] as const)("reaches the server's handlers: %s", async (_, era, server25) => {
    const declared = await connected({ era, server25, apps: true });
    expect(await declared.callTool({ name: "apps_declared" })).toMatchObject({
      content: [{ type: "text", text: JSON.stringify({ mimeTypes: ["text/html;profile=mcp-app"] }) }],
    });
    const silent = await connected({ era, server25 });
    expect(await silent.callTool({ name: "apps_declared" })).toMatchObject({
      content: [{ type: "text", text: "null" }],
    });
    await Promise.all([declared.close(), silent.close()]);
  });

  it.each(["2026", "2025"] as const)(
    "reaches our server's handlers over Streamable HTTP on 127.0.0.1 (%s era)",
    async (era) => {
      const http = await serveHttp(counterServer({ html: HTML }), { port: 0 });
      const make = era === "2025" ? createClient25 : createClient;
      const client = make({ info, apps: true }) as ReturnType<typeof createClient>;
      try {
        await client.connect(await connectHttp(http.url));
        expect(await client.callTool({ name: "apps_declared" })).toMatchObject({
          content: [{ type: "text", text: JSON.stringify({ mimeTypes: ["text/html;profile=mcp-app"] }) }],
        });
      } finally {
        await client.close();
        await http.close();
      }
    },
  );

  it("declares it in the capabilities with other options merged, user capabilities last", () => {
    const client = createClient({ info, apps: { mimeTypes: ["text/html;profile=mcp-app", "x/y"] } });
    expect(client.capabilities.extensions).toEqual({
      "io.modelcontextprotocol/ui": { mimeTypes: ["text/html;profile=mcp-app", "x/y"] },
    });
    expect(createClient({ info }).capabilities.extensions).toBeUndefined();
    const overridden = createClient({
      info,
      apps: true,
      capabilities: { extensions: { "io.modelcontextprotocol/ui": { mimeTypes: ["a/b"] }, "x.y/z": {} } },
    });
    expect(overridden.capabilities.extensions).toEqual({
      "io.modelcontextprotocol/ui": { mimeTypes: ["a/b"] },
      "x.y/z": {},
    });
  });
});
