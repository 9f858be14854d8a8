/**
 * Contract scopes enforced before params and handlers: what `Server.requiredScopes` answers per request,
 * then a caller's AuthInfo against it over the in-memory transport (a handshake-era session, and
 * stateless-era requests each with its own token), and over real HTTP with an `authenticate` hook and
 * the official SDK v2 client in both eras. Served twice: test/fixtures/scoped-contract/contract.yaml
 * (which declares `auth`: only verified callers) and the same without `auth` (item scopes only, and
 * nothing enforced on a caller with no AuthInfo).
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Client as ClientV2, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServer as create20251125 } from "../../../generated/2025-11-25/server.js";
import { createServer as create20260728 } from "../../../generated/2026-07-28/server.js";
import { emitContract } from "../../../generator/contract/emit.js";
import { loadContractText } from "../../../generator/contract/load.js";
import { HttpError } from "../../../runtime/http/http-error.js";
import { Connection } from "../../../runtime/jsonrpc/connection.js";
import { createMemoryTransportPair } from "../../../runtime/jsonrpc/memory.js";
import type { JsonRpcMessage } from "../../../runtime/jsonrpc/messages.js";
import type { MessageExtra, SendOptions, Transport } from "../../../runtime/jsonrpc/transport.js";
import type { AuthInfo } from "../../../runtime/mcp/auth-info.js";
import { META } from "../../../runtime/mcp/request-meta.js";
import { type HttpServerHandle, serveHttp } from "../../../runtime/node/http.js";

const REPO = fileURLToPath(new URL("../../../", import.meta.url));
const TMP = `${REPO}test/.tmp/contract-scopes/`;
const CREATE = { "2025-11-25": create20251125, "2026-07-28": create20260728 };
type Version = keyof typeof CREATE;
type Variant = "declared" | "undeclared";
const info = { name: "scopes-test", version: "1.0.0" };

beforeAll(async () => {
  const text = readFileSync(`${REPO}test/fixtures/scoped-contract/contract.yaml`, "utf8");
  const variants: Record<Variant, string> = {
    declared: text,
    undeclared: text.replace(/^auth:\n {2}scopes: \[mcp\]\n/m, ""),
  };
  expect(variants.undeclared).not.toContain("auth:");
  for (const [variant, yaml] of Object.entries(variants)) {
    const contract = await loadContractText(yaml, "contract.yaml");
    for (const version of Object.keys(CREATE)) {
      const out = `${TMP}${variant}/${version}/`;
      mkdirSync(out, { recursive: true });
      const files = await emitContract(contract, {
        protocolVersion: version,
        protocolDir: `../../../../../generated/${version}`,
      });
      for (const [name, body] of Object.entries(files)) writeFileSync(`${out}${name}`, body);
    }
  }
});

const token = (subject: string, scopes: string[]): AuthInfo => ({
  subject,
  scopes,
  claims: { sub: subject },
});

/** The contract's handlers; each call is recorded in `calls`, so a refused request is seen not to reach one. */
function implementation(calls: string[]) {
  return {
    tools: {
      whoami: (_args: unknown, ctx: { auth?: AuthInfo; session: { era?: string } }) => {
        calls.push("whoami");
        return `${ctx.auth?.subject ?? "nobody"} (${ctx.session.era ?? "handshake"})`;
      },
      write_note: ({ text }: { text: string }) => {
        calls.push("write_note");
        return `stored ${text}`;
      },
    },
    prompts: {
      summarize: () => {
        calls.push("summarize");
        return "summary";
      },
    },
    resources: {
      all: () => {
        calls.push("all");
        return "every note";
      },
    },
    resourceTemplates: {
      note: ({ name }: { name: string }) => {
        calls.push("note");
        return `note ${name}`;
      },
    },
  };
}

interface Built {
  server: ReturnType<typeof create20251125>;
  calls: string[];
  scopesSupported: readonly string[];
}

async function build(variant: Variant, version: Version): Promise<Built> {
  const mod = await import(/* @vite-ignore */ `${TMP}${variant}/${version}/server.js`);
  const calls: string[] = [];
  const server = CREATE[version]({
    info,
    handlers: { ...mod.contractHandlers(implementation(calls)) },
  }) as ReturnType<typeof create20251125>;
  return { server, calls, scopesSupported: mod.scopesSupported };
}

describe("Server.requiredScopes", () => {
  it("is auth.scopes for any request, plus the item's own for calling, getting, reading or completing it", async () => {
    const { server } = await build("declared", "2025-11-25");
    const cases: [string, unknown, string[]][] = [
      ["initialize", { protocolVersion: "2025-11-25" }, ["mcp"]],
      ["ping", undefined, ["mcp"]],
      ["tools/list", {}, ["mcp"]],
      ["tools/call", { name: "whoami" }, ["mcp"]],
      ["tools/call", { name: "write_note", arguments: { text: "x" } }, ["mcp", "notes:write"]],
      ["tools/call", { name: "no_such_tool" }, ["mcp"]],
      ["tools/call", { name: "constructor" }, ["mcp"]],
      ["tools/call", { name: 5 }, ["mcp"]],
      ["tools/call", null, ["mcp"]],
      ["prompts/get", { name: "summarize" }, ["mcp", "notes:read"]],
      ["resources/read", { uri: "notes://all" }, ["mcp", "notes:admin"]],
      ["resources/read", { uri: "notes://item/x" }, ["mcp", "notes:read"]],
      ["resources/read", { uri: "other://x" }, ["mcp"]],
      ["resources/subscribe", { uri: "notes://item/x" }, ["mcp", "notes:read"]],
      ["resources/unsubscribe", { uri: "notes://all" }, ["mcp", "notes:admin"]],
      [
        "completion/complete",
        { ref: { type: "ref/prompt", name: "summarize" }, argument: { name: "style", value: "" } },
        ["mcp", "notes:read"],
      ],
      [
        "completion/complete",
        { ref: { type: "ref/resource", uri: "notes://item/{name}" }, argument: { name: "name", value: "" } },
        ["mcp", "notes:read"],
      ],
    ];
    for (const [method, params, scopes] of cases)
      expect([method, params, server.requiredScopes(method, params)]).toEqual([method, params, scopes]);
  });

  it("is [] for a server with no contract scopes, and item scopes alone without auth", async () => {
    const plain = create20251125({ info, handlers: { listTools: () => ({ tools: [] }) } });
    expect(plain.requiredScopes("tools/call", { name: "write_note" })).toEqual([]);
    expect(plain.scopesSupported).toEqual([]);
    const { server } = await build("undeclared", "2025-11-25");
    expect(server.requiredScopes("initialize", {})).toEqual([]);
    expect(server.requiredScopes("tools/call", { name: "write_note" })).toEqual(["notes:write"]);
  });

  it("finds the contract however its handlers were combined, and lists scopes_supported sorted", async () => {
    const { server, scopesSupported } = await build("declared", "2026-07-28");
    expect(scopesSupported).toEqual(["mcp", "notes:admin", "notes:read", "notes:write"]);
    expect(server.scopesSupported).toEqual(scopesSupported);
    const mod = await import(/* @vite-ignore */ `${TMP}declared/2026-07-28/server.js`);
    const { callTool } = mod.contractHandlers(implementation([]));
    const picked = create20260728({ info, handlers: { callTool } });
    expect(picked.requiredScopes("tools/call", { name: "write_note" })).toEqual(["mcp", "notes:write"]);
  });
});

/** `inner` with every message it delivers carrying `who()` as its authentication result. */
class Authenticated implements Transport {
  constructor(
    private readonly inner: Transport,
    private readonly who: () => unknown,
  ) {}
  start(): Promise<void> {
    return this.inner.start();
  }
  send(message: JsonRpcMessage | JsonRpcMessage[], options?: SendOptions): Promise<void> {
    return this.inner.send(message, options);
  }
  close(): Promise<void> {
    return this.inner.close();
  }
  set onmessage(handler: Transport["onmessage"]) {
    this.inner.onmessage =
      handler &&
      ((message: unknown, extra?: MessageExtra) => handler(message, { ...extra, auth: this.who() }));
  }
  get onmessage(): Transport["onmessage"] {
    return this.inner.onmessage;
  }
  set onclose(handler: Transport["onclose"]) {
    this.inner.onclose = handler;
  }
  get onclose(): Transport["onclose"] {
    return this.inner.onclose;
  }
  set onerror(handler: Transport["onerror"]) {
    this.inner.onerror = handler;
  }
  get onerror(): Transport["onerror"] {
    return this.inner.onerror;
  }
  set onframeerror(handler: Transport["onframeerror"]) {
    this.inner.onframeerror = handler;
  }
  get onframeerror(): Transport["onframeerror"] {
    return this.inner.onframeerror;
  }
}

/** The result, or the JSON-RPC error (code, message, data) a request was answered with. */
const answer = (p: Promise<unknown>): Promise<unknown> =>
  p.then(
    (result) => ({ result }),
    (e: { code: number; message: string; data?: unknown }) => ({
      error: { code: e.code, message: e.message, ...(e.data === undefined ? {} : { data: e.data }) },
    }),
  );

/** A client connected in memory to a server whose every message carries `who()`'s auth. */
async function inMemory(server: Built["server"], who: () => unknown): Promise<Connection> {
  const [a, b] = createMemoryTransportPair();
  await server.connect(new Authenticated(a, who));
  const client = new Connection({ transport: b, onRequest: () => ({}), onNotification: async () => {} });
  await client.start();
  return client;
}

const refused = (required: string[], missing: string[]) => ({
  error: {
    code: -32003,
    message: `insufficient scope: needs ${missing.join(" ")}`,
    data: { requiredScopes: required, missingScopes: missing },
  },
});

describe("over the in-memory transport, handshake era (2025-11-25)", () => {
  const initialize = (client: Connection) =>
    client.request("initialize", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: info });

  it("refuses a call whose token lacks the tool's scope before its arguments are checked or its handler runs", async () => {
    const { server, calls } = await build("declared", "2025-11-25");
    const client = await inMemory(server, () => token("alice", ["mcp"]));
    await initialize(client);
    expect(await answer(client.request("tools/list", {}))).toMatchObject({ result: { tools: [{}, {}] } });
    // Arguments that fail the inputSchema too: the scope is checked first.
    expect(await answer(client.request("tools/call", { name: "write_note", arguments: {} }))).toEqual(
      refused(["mcp", "notes:write"], ["notes:write"]),
    );
    expect(await answer(client.request("prompts/get", { name: "summarize" }))).toEqual(
      refused(["mcp", "notes:read"], ["notes:read"]),
    );
    expect(await answer(client.request("resources/read", { uri: "notes://item/a" }))).toEqual(
      refused(["mcp", "notes:read"], ["notes:read"]),
    );
    expect(calls).toEqual([]);
    expect(await answer(client.request("tools/call", { name: "whoami", arguments: {} }))).toEqual({
      result: { content: [{ type: "text", text: "alice (handshake)" }] },
    });
    expect(calls).toEqual(["whoami"]);
    await client.close();
  });

  it("serves a token with the scope, and refuses one without the default scope from initialize on", async () => {
    const { server, calls } = await build("declared", "2025-11-25");
    const writer = await inMemory(server, () => token("bob", ["notes:write", "mcp", "notes:read"]));
    await initialize(writer);
    expect(
      await answer(writer.request("tools/call", { name: "write_note", arguments: { text: "hi" } })),
    ).toEqual({
      result: { content: [{ type: "text", text: "stored hi" }] },
    });
    expect(await answer(writer.request("resources/read", { uri: "notes://item/a" }))).toMatchObject({
      result: { contents: [{ text: "note a" }] },
    });
    const outsider = await inMemory(server, () => token("eve", ["notes:write"]));
    expect(await answer(initialize(outsider))).toEqual(refused(["mcp"], ["mcp"]));
    expect(calls).toEqual(["write_note", "note"]);
    await writer.close();
    await outsider.close();
  });

  it("declared auth: a caller without a verified token is refused; undeclared: nothing is enforced on it", async () => {
    const declared = await build("declared", "2025-11-25");
    const anonymous = await inMemory(declared.server, () => undefined);
    expect(await answer(initialize(anonymous))).toEqual({
      error: {
        code: -32003,
        message:
          "authentication required: this server's contract declares auth, and the request carries no verified token",
        data: { requiredScopes: ["mcp"] },
      },
    });
    // A custom authenticate hook's own value is no AuthInfo either.
    const custom = await inMemory(declared.server, () => "alice");
    expect(await answer(initialize(custom))).toMatchObject({ error: { code: -32003 } });

    const open = await build("undeclared", "2025-11-25");
    const stdioLike = await inMemory(open.server, () => undefined);
    await initialize(stdioLike);
    expect(
      await answer(stdioLike.request("tools/call", { name: "write_note", arguments: { text: "x" } })),
    ).toEqual({ result: { content: [{ type: "text", text: "stored x" }] } });
    const reader = await inMemory(open.server, () => token("carol", ["notes:read"]));
    await initialize(reader);
    expect(
      await answer(reader.request("tools/call", { name: "write_note", arguments: { text: "y" } })),
    ).toEqual(refused(["notes:write"], ["notes:write"]));
    expect(await answer(reader.request("prompts/get", { name: "summarize" }))).toMatchObject({ result: {} });
    expect(open.calls).toEqual(["write_note", "summarize"]);
    expect(declared.calls).toEqual([]);
    for (const c of [anonymous, custom, stdioLike, reader]) await c.close();
  });
});

describe("over the in-memory transport, stateless era (2026-07-28)", () => {
  const meta = {
    [META.protocolVersion]: "2026-07-28",
    [META.clientInfo]: info,
    [META.clientCapabilities]: {},
  };

  it("checks each request against its own token", async () => {
    const { server, calls } = await build("declared", "2026-07-28");
    let current: AuthInfo = token("alice", ["mcp"]);
    const client = await inMemory(server, () => current);
    const write = () =>
      answer(client.request("tools/call", { name: "write_note", arguments: { text: "hi" }, _meta: meta }));
    expect(await write()).toEqual(refused(["mcp", "notes:write"], ["notes:write"]));
    expect(calls).toEqual([]);
    current = token("alice", ["mcp", "notes:write"]);
    expect(await write()).toMatchObject({ result: { content: [{ type: "text", text: "stored hi" }] } });
    current = token("alice", ["notes:write"]);
    expect(await answer(client.request("server/discover", { _meta: meta }))).toEqual(
      refused(["mcp"], ["mcp"]),
    );
    expect(await write()).toEqual(refused(["mcp", "notes:write"], ["mcp"]));
    current = token("alice", ["mcp"]);
    expect(
      await answer(client.request("tools/call", { name: "whoami", arguments: {}, _meta: meta })),
    ).toMatchObject({ result: { content: [{ type: "text", text: "alice (stateless)" }] } });
    expect(calls).toEqual(["write_note", "whoami"]);
    await client.close();
  });
});

describe("over HTTP with an authenticate hook, driven by the SDK v2 client", () => {
  /** Bearer tokens this test's hook accepts, by the scopes they carry. */
  const TOKENS: Record<string, AuthInfo> = {
    reader: token("reader", ["mcp", "notes:read"]),
    writer: token("writer", ["mcp", "notes:write"]),
  };
  const authenticate = (request: Request): AuthInfo => {
    const bearer = /^Bearer (\S+)$/.exec(request.headers.get("authorization") ?? "")?.[1];
    const found = bearer === undefined ? undefined : TOKENS[bearer];
    if (!found) throw new HttpError(401, "unauthorized", { "www-authenticate": "Bearer" });
    return found;
  };
  const opened: (HttpServerHandle | ClientV2)[] = [];
  afterAll(async () => {
    for (const o of opened.reverse()) await o.close();
  });

  for (const [version, era, negotiation] of [
    ["2025-11-25", "handshake", undefined],
    ["2026-07-28", "stateless", { mode: { pin: "2026-07-28" } }],
  ] as const) {
    it(`${era} era: a call needing a scope the token lacks is an error and never reaches the handler; with it, it runs`, async () => {
      const { server, calls } = await build("declared", version);
      const http = await serveHttp(server, { port: 0, authenticate, legacySse: false });
      opened.push(http);
      const connect = async (bearer: string) => {
        const client = new ClientV2(info, negotiation ? { versionNegotiation: negotiation } : {});
        await client.connect(
          new StreamableHTTPClientTransport(new URL(http.url), {
            requestInit: { headers: { authorization: `Bearer ${bearer}` } },
          }),
        );
        opened.push(client);
        return client;
      };
      const reader = await connect("reader");
      expect((await reader.listTools()).tools.map((t) => t.name)).toEqual(["whoami", "write_note"]);
      await expect(reader.callTool({ name: "write_note", arguments: { text: "hi" } })).rejects.toMatchObject({
        code: -32003,
        data: { requiredScopes: ["mcp", "notes:write"], missingScopes: ["notes:write"] },
      });
      expect(calls).toEqual([]);
      const who = await reader.callTool({ name: "whoami", arguments: {} });
      expect(who.content).toEqual([{ type: "text", text: `reader (${era})` }]);

      const writer = await connect("writer");
      const stored = await writer.callTool({ name: "write_note", arguments: { text: "hi" } });
      expect(stored.content).toEqual([{ type: "text", text: "stored hi" }]);
      expect(calls).toEqual(["whoami", "write_note"]);
    });
  }
});
