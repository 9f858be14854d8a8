/**
 * The runtime Client with 2026-07-28 tables (discover lifecycle, dual-era with the 2025-11-25 tables as
 * `legacy`) against a scripted peer over the in-memory transport, which sees the exact wire messages:
 * the discover probe and its fallback decisions, `_meta` on every request, the MRTR loop, version
 * retries, tools/list filtering, subscriptions/listen and progress.
 */
import { afterEach, describe, expect, it } from "vitest";
import { protocol } from "../../../generated/2026-07-28/protocol.js";
import { Client, type ClientOptions } from "../../../runtime/client/client.js";
import { REQUEST_CANCELLED } from "../../../runtime/jsonrpc/connection.js";
import { createMemoryTransportPair } from "../../../runtime/jsonrpc/memory.js";
import { McpError } from "../../../runtime/jsonrpc/messages.js";
import type { Transport } from "../../../runtime/jsonrpc/transport.js";
import { Inbox } from "../helpers.js";

const V26 = "2026-07-28";
const V25 = "2025-11-25";
const PV = "io.modelcontextprotocol/protocolVersion";
const CAPS = "io.modelcontextprotocol/clientCapabilities";
const INFO = "io.modelcontextprotocol/clientInfo";
const LEVEL = "io.modelcontextprotocol/logLevel";
const SUB = "io.modelcontextprotocol/subscriptionId";
const CLIENT_INFO = { name: "client-2026-test", version: "1.0.0" };

// biome-ignore lint/suspicious/noExplicitAny: wire messages are checked field by field.
type Wire = any;
type Reply =
  | { result: Record<string, unknown> }
  | { error: { code: number; message: string; data?: unknown } };
/** How the peer answers a request: a reply, or undefined for none (silence). */
type Script = (request: Wire) => Reply | undefined | Promise<Reply | undefined>;

const discoverResult = (extra: Record<string, unknown> = {}) => ({
  resultType: "complete",
  supportedVersions: [V26],
  capabilities: { tools: { listChanged: true }, prompts: {}, resources: { subscribe: true } },
  ttlMs: 0,
  cacheScope: "public",
  instructions: "be nice",
  _meta: { "io.modelcontextprotocol/serverInfo": { name: "scripted", version: "9.9.9" } },
  ...extra,
});

const initializeResult = {
  protocolVersion: V25,
  capabilities: { tools: {}, logging: {} },
  serverInfo: { name: "legacy-scripted", version: "2.0.0" },
};

const text = (t: string) => ({ resultType: "complete", content: [{ type: "text", text: t }] });

/** Answers discover and initialize by default; `script` sees every request first. */
function standard(script: Script = () => undefined): Script {
  return async (request) => {
    const mine = await script(request);
    if (mine) return mine;
    if (request.method === "server/discover") return { result: discoverResult() };
    if (request.method === "initialize") return { result: initializeResult };
    if (request.method === "ping") return { result: {} };
    return undefined;
  };
}

const opened: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((c) => c.close()));
});

/** A client on one end of a memory pair; a scripted peer on the other that records every message. */
async function setup(script: Script, options: Partial<ClientOptions> = {}) {
  const [clientEnd, serverEnd] = createMemoryTransportPair();
  const seen = new Inbox<Wire>();
  const errors: unknown[] = [];
  serverEnd.onmessage = (message: Wire) => {
    seen.push(message);
    if (message.method === undefined || message.id === undefined) return;
    void Promise.resolve(script(message)).then((reply) => {
      if (reply) void serverEnd.send({ jsonrpc: "2.0", id: message.id, ...reply } as never);
    });
  };
  await serverEnd.start();
  const client = new Client(protocol, {
    info: CLIENT_INFO,
    onError: (e) => errors.push(e),
    ...options,
  });
  opened.push(client);
  const send = (message: unknown) => serverEnd.send(message as never);
  const requests = (method: string) => seen.items.filter((m) => m.method === method && m.id !== undefined);
  return { client, seen, send, errors, requests, clientEnd: clientEnd as Transport };
}

describe("connect: the server/discover probe", () => {
  it("speaks the stateless lifecycle when the server answers discover; no initialize", async () => {
    const { client, seen, clientEnd } = await setup(standard());
    const description = await client.connect(clientEnd);
    expect(description).toEqual({
      protocolVersion: V26,
      serverInfo: { name: "scripted", version: "9.9.9" },
      capabilities: { tools: { listChanged: true }, prompts: {}, resources: { subscribe: true } },
      instructions: "be nice",
      supportedVersions: [V26],
    });
    expect(client.lifecycle).toBe("discover");
    expect(client.protocolVersion).toBe(V26);
    const [probe, ...rest] = seen.items;
    expect(rest).toEqual([]);
    expect(probe).toEqual({
      jsonrpc: "2.0",
      id: probe.id,
      method: "server/discover",
      params: { _meta: { [PV]: V26, [CAPS]: {}, [INFO]: CLIENT_INFO } },
    });
  });

  it("declares the capabilities its handlers give (elicitation, sampling, roots) in _meta", async () => {
    const { client, seen, clientEnd } = await setup(standard(), {
      handlers: {
        elicit: () => ({ action: "decline" }),
        createMessage: () => ({ role: "assistant", content: { type: "text", text: "" }, model: "m" }),
        listRoots: () => ({ roots: [] }),
      },
    });
    await client.connect(clientEnd);
    expect(seen.items[0].params._meta[CAPS]).toEqual({ elicitation: {}, sampling: {}, roots: {} });
  });

  it("reads a serverInfo placed beside the capabilities (older drafts) when _meta has none", async () => {
    const { client, clientEnd } = await setup(
      standard((r) =>
        r.method === "server/discover"
          ? { result: { ...discoverResult({ _meta: undefined }), serverInfo: { name: "old", version: "1" } } }
          : undefined,
      ),
    );
    expect((await client.connect(clientEnd)).serverInfo).toEqual({ name: "old", version: "1" });
  });

  it("retries discover once, with a new id, after UnsupportedProtocolVersion naming a version it speaks", async () => {
    let refusals = 0;
    const { client, requests, clientEnd } = await setup(
      standard((r) => {
        if (r.method !== "server/discover" || refusals++ > 0) return undefined;
        return {
          error: {
            code: -32022,
            message: "Unsupported protocol version",
            data: { supported: ["1999-01-01", V26], requested: V26 },
          },
        };
      }),
    );
    await client.connect(clientEnd);
    const probes = requests("server/discover");
    expect(probes).toHaveLength(2);
    expect(probes[1].id).not.toBe(probes[0].id);
    expect(probes[1].params._meta[PV]).toBe(V26);
    expect(client.lifecycle).toBe("discover");
  });

  it("switches to another stateless version it speaks when the server names only that one", async () => {
    const OTHER = "2026-01-01";
    const tables = {
      ...protocol,
      supportedVersions: [...protocol.supportedVersions, { version: OTHER, batches: false }],
    };
    const [clientEnd, serverEnd] = createMemoryTransportPair();
    const seen: Wire[] = [];
    serverEnd.onmessage = (m: Wire) => {
      seen.push(m);
      const version = m.params._meta[PV];
      const reply =
        version !== OTHER
          ? { error: { code: -32022, message: "no", data: { supported: [OTHER], requested: version } } }
          : m.method === "server/discover"
            ? { result: discoverResult({ supportedVersions: [OTHER] }) }
            : { result: { resultType: "complete", tools: [], ttlMs: 0, cacheScope: "public" } };
      void serverEnd.send({ jsonrpc: "2.0", id: m.id, ...reply } as never);
    };
    await serverEnd.start();
    const client = new Client(tables, { info: CLIENT_INFO });
    opened.push(client);
    expect((await client.connect(clientEnd)).protocolVersion).toBe(OTHER);
    expect(client.protocolVersion).toBe(OTHER);
    await client.request("tools/list");
    expect(seen.map((m) => `${m.method} ${m.params._meta[PV]}`)).toEqual([
      `server/discover ${V26}`,
      `server/discover ${OTHER}`,
      `tools/list ${OTHER}`,
    ]);
  });

  it("gives up after a second UnsupportedProtocolVersion rather than looping", async () => {
    const { client, requests, clientEnd } = await setup(
      standard((r) =>
        r.method === "server/discover"
          ? { error: { code: -32022, message: "no", data: { supported: [V26], requested: V26 } } }
          : undefined,
      ),
    );
    await expect(client.connect(clientEnd)).rejects.toMatchObject({ code: -32022 });
    expect(requests("server/discover")).toHaveLength(2);
    expect(requests("initialize")).toHaveLength(0);
  });

  it("falls back to initialize when the versions in common are only legacy ones", async () => {
    const { client, requests, clientEnd } = await setup(
      standard((r) =>
        r.method === "server/discover"
          ? {
              error: {
                code: -32022,
                message: "no",
                data: { supported: [V25, "2025-06-18"], requested: V26 },
              },
            }
          : undefined,
      ),
    );
    const description = await client.connect(clientEnd);
    expect(description.protocolVersion).toBe(V25);
    expect(client.lifecycle).toBe("initialize");
    expect(requests("server/discover")).toHaveLength(1);
    expect(requests("initialize")[0].params).toEqual({
      protocolVersion: V25,
      capabilities: {},
      clientInfo: CLIENT_INFO,
    });
  });

  it("fails clearly when the server supports no version this client speaks", async () => {
    const { client, requests, clientEnd } = await setup(
      standard((r) =>
        r.method === "server/discover"
          ? { error: { code: -32022, message: "no", data: { supported: ["2024-01-01"], requested: V26 } } }
          : undefined,
      ),
    );
    await expect(client.connect(clientEnd)).rejects.toThrow(
      /supports protocol versions 2024-01-01; this client speaks 2026-07-28, 2025-11-25/,
    );
    expect(requests("initialize")).toHaveLength(0);
  });

  it("falls back to initialize on any other error (a legacy server's -32601), then works as a 2025-11-25 client", async () => {
    const { client, seen, requests, clientEnd } = await setup(
      standard((r) => {
        if (r.method === "server/discover") return { error: { code: -32601, message: "Method not found" } };
        if (r.method === "tools/list")
          return { result: { tools: [{ name: "t", inputSchema: { type: "object" } }] } };
        return undefined;
      }),
    );
    const description = await client.connect(clientEnd);
    expect(description.serverInfo.name).toBe("legacy-scripted");
    expect(client.protocolVersion).toBe(V25);
    await seen.waitFor((m) => m.method === "notifications/initialized", "notifications/initialized");
    const { tools } = (await client.request("tools/list")) as { tools: unknown[] };
    expect(tools).toHaveLength(1);
    // Legacy requests carry no stateless _meta.
    expect(requests("tools/list")[0].params).toBeUndefined();
  });

  it("falls back with a -32602 too: the fallback is not keyed to one code", async () => {
    const { client, clientEnd } = await setup(
      standard((r) =>
        r.method === "server/discover" ? { error: { code: -32602, message: "Invalid params" } } : undefined,
      ),
    );
    await client.connect(clientEnd);
    expect(client.lifecycle).toBe("initialize");
  });

  it("falls back when discover gets no answer within discoverTimeoutMs, cancelling the probe", async () => {
    const { client, seen, clientEnd } = await setup(
      standard((r) => (r.method === "server/discover" ? new Promise(() => {}) : undefined)),
      { discoverTimeoutMs: 150 },
    );
    const started = Date.now();
    await client.connect(clientEnd);
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    expect(client.lifecycle).toBe("initialize");
    const methods = seen.items.map((m) => m.method);
    expect(methods).toEqual([
      "server/discover",
      "notifications/cancelled",
      "initialize",
      "notifications/initialized",
    ]);
    expect(seen.items[1].params.requestId).toBe(seen.items[0].id);
  });

  it("does not fall back on a recognised stateless-era error (-32020): the server is of the stateless era", async () => {
    const { client, requests, clientEnd } = await setup(
      standard((r) =>
        r.method === "server/discover" ? { error: { code: -32020, message: "Header mismatch" } } : undefined,
      ),
    );
    await expect(client.connect(clientEnd)).rejects.toMatchObject({ code: -32020 });
    expect(requests("initialize")).toHaveLength(0);
  });

  it("rejects an invalid discover result, naming the field", async () => {
    const { client, clientEnd } = await setup(
      standard((r) =>
        r.method === "server/discover"
          ? { result: { resultType: "complete", supportedVersions: "2026-07-28", capabilities: {} } }
          : undefined,
      ),
    );
    await expect(client.connect(clientEnd)).rejects.toThrow(
      /invalid server\/discover result.*supportedVersions/,
    );
  });

  it("without legacy tables, a legacy server is a clear error", async () => {
    const { legacy: _, ...statelessOnly } = protocol;
    const [clientEnd, serverEnd] = createMemoryTransportPair();
    serverEnd.onmessage = (m: Wire) =>
      void serverEnd.send({ jsonrpc: "2.0", id: m.id, error: { code: -32601, message: "nope" } });
    await serverEnd.start();
    const client = new Client(statelessOnly, { info: CLIENT_INFO });
    opened.push(client);
    await expect(client.connect(clientEnd)).rejects.toThrow(/no older version to fall back to/);
  });
});

describe("stateless requests", () => {
  it("put protocol fields in every request's _meta, keeping the caller's own keys", async () => {
    const { client, requests, clientEnd } = await setup(
      standard((r) =>
        r.method === "tools/list"
          ? { result: { resultType: "complete", tools: [], ttlMs: 5, cacheScope: "private" } }
          : undefined,
      ),
      { logLevel: "warning" },
    );
    await client.connect(clientEnd);
    await client.request("tools/list", {
      cursor: "c1",
      _meta: { traceparent: "00-ab", [PV]: "1900-01-01" },
    } as never);
    await client.request("tools/list", undefined, { logLevel: "debug" });
    const [first, second] = requests("tools/list");
    expect(first.params).toEqual({
      cursor: "c1",
      _meta: { traceparent: "00-ab", [PV]: V26, [CAPS]: {}, [INFO]: CLIENT_INFO, [LEVEL]: "warning" },
    });
    expect(second.params._meta[LEVEL]).toBe("debug");
  });

  it("leave clientInfo out when told to", async () => {
    const { client, requests, clientEnd } = await setup(standard(), { sendClientInfo: false });
    await client.connect(clientEnd);
    expect(requests("server/discover")[0].params._meta).toEqual({ [PV]: V26, [CAPS]: {} });
  });

  it("take an absent resultType as complete, and fill caching hints an older server left out", async () => {
    const { client, clientEnd } = await setup(
      standard((r) => (r.method === "tools/list" ? { result: { tools: [] } } : undefined)),
    );
    await client.connect(clientEnd);
    expect(await client.request("tools/list")).toEqual({
      tools: [],
      resultType: "complete",
      ttlMs: 0,
      cacheScope: "private",
    });
  });

  it("reject an unknown resultType", async () => {
    const { client, clientEnd } = await setup(
      standard((r) => (r.method === "tools/call" ? { result: { resultType: "task", task: {} } } : undefined)),
    );
    await client.connect(clientEnd);
    await expect(client.request("tools/call", { name: "x" } as never)).rejects.toThrow(
      /resultType "task", which this client does not know/,
    );
  });

  it("reject input_required on a method that may not ask for input", async () => {
    const { client, requests, clientEnd } = await setup(
      standard((r) =>
        r.method === "tools/list"
          ? { result: { resultType: "input_required", requestState: "s" } }
          : undefined,
      ),
    );
    await client.connect(clientEnd);
    await expect(client.request("tools/list")).rejects.toThrow(/input_required, which only tools\/call/);
    expect(requests("tools/list")).toHaveLength(1);
  });

  it("reject a result that fails the result schema, naming the path", async () => {
    const { client, clientEnd } = await setup(
      standard((r) =>
        r.method === "tools/call" ? { result: { resultType: "complete", content: "x" } } : undefined,
      ),
    );
    await client.connect(clientEnd);
    await expect(client.request("tools/call", { name: "x" } as never)).rejects.toThrow(
      /invalid tools\/call result from the server: \/content/,
    );
  });

  it("retry once with a new id after UnsupportedProtocolVersion, then give up", async () => {
    let calls = 0;
    const { client, requests, clientEnd } = await setup(
      standard((r) => {
        if (r.method !== "tools/call") return undefined;
        calls++;
        if (r.params.arguments.n === 1 && calls === 1)
          return { error: { code: -32022, message: "again", data: { supported: [V26], requested: V26 } } };
        if (r.params.arguments.n === 2)
          return { error: { code: -32022, message: "never", data: { supported: [V26], requested: V26 } } };
        return { result: text("ok") };
      }),
    );
    await client.connect(clientEnd);
    expect(await client.request("tools/call", { name: "x", arguments: { n: 1 } } as never)).toMatchObject({
      content: [{ text: "ok" }],
    });
    const firstTwo = requests("tools/call");
    expect(firstTwo).toHaveLength(2);
    expect(firstTwo[1].id).not.toBe(firstTwo[0].id);
    await expect(
      client.request("tools/call", { name: "x", arguments: { n: 2 } } as never),
    ).rejects.toMatchObject({
      code: -32022,
    });
    expect(requests("tools/call")).toHaveLength(4);
  });

  it("refuse locally what the discovered capabilities do not offer", async () => {
    const { client, requests, clientEnd } = await setup(standard());
    await client.connect(clientEnd);
    await expect(client.request("completion/complete", { ref: {}, argument: {} } as never)).rejects.toThrow(
      /does not offer completions/,
    );
    expect(requests("completion/complete")).toHaveLength(0);
  });

  it("keep progress working: the token is in _meta and progress reaches onprogress", async () => {
    const { client, send, clientEnd } = await setup(
      standard(async (r) => {
        if (r.method !== "tools/call") return undefined;
        const token = r.params._meta.progressToken;
        for (const progress of [1, 2]) {
          await send({
            jsonrpc: "2.0",
            method: "notifications/progress",
            params: { progressToken: token, progress, total: 2 },
          });
        }
        return { result: text("done") };
      }),
    );
    await client.connect(clientEnd);
    const progress: number[] = [];
    await client.request("tools/call", { name: "slow" } as never, {
      onprogress: (p) => progress.push(p.progress),
    });
    expect(progress).toEqual([1, 2]);
  });
});

describe("multi round-trip requests (input_required)", () => {
  const elicitation = {
    method: "elicitation/create",
    params: {
      message: "Confirm?",
      requestedSchema: { type: "object", properties: { ok: { type: "boolean" } } },
    },
  };

  it("answers the input requests with the handlers and resends the original params with the answers and the state", async () => {
    const asked: unknown[] = [];
    let round = 0;
    const { client, requests, clientEnd } = await setup(
      standard((r) => {
        if (r.method !== "tools/call") return undefined;
        round++;
        if (round === 1)
          return {
            result: {
              resultType: "input_required",
              inputRequests: { confirm: elicitation, where: { method: "roots/list" } },
              requestState: '{"opaque": 1}',
            },
          };
        return { result: text("thanks") };
      }),
      {
        handlers: {
          elicit: (params: unknown) => {
            asked.push(params);
            return { action: "accept", content: { ok: true } };
          },
          listRoots: () => ({ roots: [{ uri: "file:///w" }] }),
        },
      },
    );
    await client.connect(clientEnd);
    const result = await client.request("tools/call", {
      name: "t",
      arguments: { a: 1 },
      _meta: { k: "v" },
    } as never);
    expect(result).toMatchObject({ content: [{ text: "thanks" }] });
    expect(asked).toEqual([elicitation.params]);
    const [first, retry] = requests("tools/call");
    expect(retry.id).not.toBe(first.id);
    expect(first.params).not.toHaveProperty("inputResponses");
    expect(retry.params).toEqual({
      name: "t",
      arguments: { a: 1 },
      inputResponses: {
        confirm: { action: "accept", content: { ok: true } },
        where: { roots: [{ uri: "file:///w" }] },
      },
      requestState: '{"opaque": 1}',
      _meta: { k: "v", [PV]: V26, [CAPS]: { elicitation: {}, roots: {} }, [INFO]: CLIENT_INFO },
    });
  });

  it("sends no requestState when the server sent none", async () => {
    let round = 0;
    const { client, requests, clientEnd } = await setup(
      standard((r) => {
        if (r.method !== "prompts/get") return undefined;
        if (++round === 1)
          return { result: { resultType: "input_required", inputRequests: { c: elicitation } } };
        return { result: { resultType: "complete", messages: [] } };
      }),
      { handlers: { elicit: () => ({ action: "decline" }) } },
    );
    await client.connect(clientEnd);
    await client.request("prompts/get", { name: "p" } as never);
    const retry = requests("prompts/get")[1];
    expect(retry.params.inputResponses).toEqual({ c: { action: "decline" } });
    expect(retry.params).not.toHaveProperty("requestState");
  });

  it("retries at once, with the state only, when the server sent only requestState", async () => {
    let round = 0;
    const { client, requests, clientEnd } = await setup(
      standard((r) => {
        if (r.method !== "resources/read") return undefined;
        if (++round === 1) return { result: { resultType: "input_required", requestState: "later" } };
        return { result: { resultType: "complete", contents: [], ttlMs: 0, cacheScope: "public" } };
      }),
    );
    await client.connect(clientEnd);
    await client.request("resources/read", { uri: "file:///x" } as never);
    const retry = requests("resources/read")[1];
    expect(retry.params.requestState).toBe("later");
    expect(retry.params).not.toHaveProperty("inputResponses");
  });

  it("fails the call, sending no retry, when the server asks for a capability the client did not declare", async () => {
    const { client, requests, clientEnd } = await setup(
      standard((r) =>
        r.method === "tools/call"
          ? { result: { resultType: "input_required", inputRequests: { c: elicitation } } }
          : undefined,
      ),
    );
    await client.connect(clientEnd);
    await expect(client.request("tools/call", { name: "t" } as never)).rejects.toThrow(
      /input request "c" \(elicitation\/create\) needs the elicitation capability, which this client does not declare/,
    );
    expect(requests("tools/call")).toHaveLength(1);
  });

  it("fails the call on an input request that is not one (a method the tables do not deliver as input)", async () => {
    const { client, clientEnd } = await setup(
      standard((r) =>
        r.method === "tools/call"
          ? { result: { resultType: "input_required", inputRequests: { c: { method: "tools/list" } } } }
          : undefined,
      ),
    );
    await client.connect(clientEnd);
    await expect(client.request("tools/call", { name: "t" } as never)).rejects.toThrow(
      /"c" \(tools\/list\) is not an input request of 2026-07-28/,
    );
  });

  it("fails the call on a malformed InputRequiredResult", async () => {
    const { client, clientEnd } = await setup(
      standard((r) =>
        r.method === "tools/call" ? { result: { resultType: "input_required", requestState: 7 } } : undefined,
      ),
    );
    await client.connect(clientEnd);
    await expect(client.request("tools/call", { name: "t" } as never)).rejects.toThrow(
      /requestState is not a string/,
    );
  });

  it("fails the call when a handler's answer is invalid, and reports it", async () => {
    const { client, errors, clientEnd } = await setup(
      standard((r) =>
        r.method === "tools/call"
          ? { result: { resultType: "input_required", inputRequests: { c: elicitation } } }
          : undefined,
      ),
      { handlers: { elicit: () => ({ action: "maybe" }) } },
    );
    await client.connect(clientEnd);
    await expect(client.request("tools/call", { name: "t" } as never)).rejects.toThrow(
      /the elicit handler returned an invalid result/,
    );
    expect(errors).toHaveLength(1);
  });

  it("gives up after maxInputRounds rounds", async () => {
    const { client, requests, clientEnd } = await setup(
      standard((r) =>
        r.method === "tools/call"
          ? { result: { resultType: "input_required", requestState: "again" } }
          : undefined,
      ),
      { maxInputRounds: 3 },
    );
    await client.connect(clientEnd);
    await expect(client.request("tools/call", { name: "t" } as never)).rejects.toThrow(/after 3 rounds/);
    expect(requests("tools/call")).toHaveLength(4);
  });

  it("stops when the caller aborts while a handler runs: no retry is sent", async () => {
    const abort = new AbortController();
    const { client, requests, clientEnd } = await setup(
      standard((r) =>
        r.method === "tools/call"
          ? { result: { resultType: "input_required", inputRequests: { c: elicitation } } }
          : undefined,
      ),
      {
        handlers: {
          elicit: (_params: unknown, ctx: { signal: AbortSignal }) => {
            expect(ctx.signal.aborted).toBe(false);
            abort.abort("user gave up");
            expect(ctx.signal.aborted).toBe(true);
            return { action: "cancel" };
          },
        },
      },
    );
    await client.connect(clientEnd);
    const error = await client
      .request("tools/call", { name: "t" } as never, { signal: abort.signal })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe(REQUEST_CANCELLED);
    expect(requests("tools/call")).toHaveLength(1);
  });
});

describe("tools/list and x-mcp-header", () => {
  it("leaves out tools with invalid x-mcp-header declarations, warning with name and reason, and keeps schemas as sent", async () => {
    const valid = {
      name: "ok",
      inputSchema: {
        $schema: "https://json-schema.org/draft/2020-12/schema",
        type: "object",
        $defs: { r: { $anchor: "r", type: "string" } },
        properties: { region: { type: "string", "x-mcp-header": "Region" }, ref: { $ref: "#/$defs/r" } },
        if: { required: ["region"] },
        // biome-ignore lint/suspicious/noThenProperty: the JSON Schema keyword, which must survive the listing.
        then: {},
        else: {},
        additionalProperties: false,
      },
    };
    const invalid = {
      name: "bad",
      inputSchema: { type: "object", properties: { score: { type: "number", "x-mcp-header": "Score" } } },
    };
    const { client, errors, clientEnd } = await setup(
      standard((r) =>
        r.method === "tools/list"
          ? { result: { resultType: "complete", tools: [invalid, valid], ttlMs: 0, cacheScope: "public" } }
          : undefined,
      ),
    );
    await client.connect(clientEnd);
    const { tools } = (await client.request("tools/list")) as { tools: unknown[] };
    expect(tools).toEqual([valid]);
    expect(errors.map(String)).toEqual([
      'Error: tools/list: left out tool "bad": x-mcp-header "Score" is on a property of type "number" (string, integer or boolean only)',
    ]);
  });
});

describe("subscriptions/listen", () => {
  /** A peer that acknowledges listen requests (the subset it supports: tool list changes only). */
  const acknowledging = (send: (m: unknown) => Promise<void>) =>
    standard(async (r) => {
      if (r.method !== "subscriptions/listen") return undefined;
      await send({
        jsonrpc: "2.0",
        method: "notifications/subscriptions/acknowledged",
        params: {
          _meta: { [SUB]: r.id },
          notifications: { toolsListChanged: r.params.notifications.toolsListChanged },
        },
      });
      return undefined;
    });

  async function listening(options: Partial<ClientOptions> = {}) {
    let sendRef: (m: unknown) => Promise<void> = async () => {};
    const t = await setup((r) => acknowledging((m) => sendRef(m))(r), options);
    sendRef = t.send;
    await t.client.connect(t.clientEnd);
    return t;
  }

  it("resolves once acknowledged, with what the server agreed to send", async () => {
    const { client, requests } = await listening();
    const sub = await client.listen({ toolsListChanged: true, promptsListChanged: true });
    const [listen] = requests("subscriptions/listen");
    expect(sub.id).toBe(listen.id);
    expect(sub.notifications).toEqual({ toolsListChanged: true });
    expect(listen.params).toEqual({
      notifications: { toolsListChanged: true, promptsListChanged: true },
      _meta: { [PV]: V26, [CAPS]: {}, [INFO]: CLIENT_INFO },
    });
    await sub.close();
  });

  it("routes its notifications to its handlers and the client's, with the subscription id; drops other subscriptions'", async () => {
    const global: unknown[] = [];
    const { client, send } = await listening({
      handlers: {
        onToolListChanged: (_p: unknown, ctx: { subscriptionId?: unknown }) =>
          global.push(ctx.subscriptionId),
      },
    });
    const own: unknown[] = [];
    const sub = await client.listen(
      { toolsListChanged: true },
      {
        onToolListChanged: (_p: unknown, ctx: { subscriptionId?: unknown }) => own.push(ctx.subscriptionId),
      },
    );
    await send({
      jsonrpc: "2.0",
      method: "notifications/tools/list_changed",
      params: { _meta: { [SUB]: "stale" } },
    });
    await send({
      jsonrpc: "2.0",
      method: "notifications/tools/list_changed",
      params: { _meta: { [SUB]: sub.id } },
    });
    await expect.poll(() => own).toEqual([sub.id]);
    expect(global).toEqual([sub.id]);
    await sub.close();
  });

  it("close() sends notifications/cancelled naming the listen request (the stdio way)", async () => {
    const { client, seen } = await listening();
    const sub = await client.listen({ toolsListChanged: true });
    await sub.close();
    expect(await sub.closed).toEqual({ by: "client" });
    const cancel = await seen.waitFor(
      (m) => m.method === "notifications/cancelled",
      "notifications/cancelled",
    );
    expect(cancel.params.requestId).toBe(sub.id);
  });

  it("ends when the server answers the listen request, or cancels it", async () => {
    const { client, send } = await listening();
    const byResult = await client.listen({ toolsListChanged: true });
    await send({
      jsonrpc: "2.0",
      id: byResult.id,
      result: { resultType: "complete", _meta: { [SUB]: byResult.id } },
    });
    expect(await byResult.closed).toEqual({ by: "server" });
    const byCancel = await client.listen({ toolsListChanged: true });
    await send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: byCancel.id } });
    expect(await byCancel.closed).toEqual({ by: "server" });
  });

  it("rejects when the server refuses, or does not acknowledge in time", async () => {
    const refused = await setup(
      standard((r) =>
        r.method === "subscriptions/listen" ? { error: { code: -32602, message: "bad filter" } } : undefined,
      ),
    );
    await refused.client.connect(refused.clientEnd);
    await expect(refused.client.listen({ toolsListChanged: true })).rejects.toThrow(/bad filter/);

    const silent = await setup(standard());
    await silent.client.connect(silent.clientEnd);
    await expect(silent.client.listen({ toolsListChanged: true }, {}, { timeoutMs: 100 })).rejects.toThrow(
      /did not acknowledge subscriptions\/listen within 100 ms/,
    );
    await silent.seen.waitFor((m) => m.method === "notifications/cancelled", "the listen cancelled");
  });

  it("fails, cancelling the listen request, on a malformed acknowledgement", async () => {
    let sendRef: (m: unknown) => Promise<void> = async () => {};
    const t = await setup(
      standard(async (r) => {
        if (r.method === "subscriptions/listen")
          await sendRef({
            jsonrpc: "2.0",
            method: "notifications/subscriptions/acknowledged",
            params: { _meta: { [SUB]: r.id }, notifications: "all" },
          });
        return undefined;
      }),
    );
    sendRef = t.send;
    await t.client.connect(t.clientEnd);
    await expect(t.client.listen({ toolsListChanged: true })).rejects.toThrow(
      /invalid notifications\/subscriptions\/acknowledged notification: \/notifications/,
    );
    const [listen] = t.requests("subscriptions/listen");
    const cancel = await t.seen.waitFor(
      (m) => m.method === "notifications/cancelled",
      "the listen cancelled",
    );
    expect(cancel.params.requestId).toBe(listen.id);
  });

  it("is refused through request(), and on a connection that fell back to initialize", async () => {
    const { client } = await listening();
    await expect(client.request("subscriptions/listen", { notifications: {} } as never)).rejects.toThrow(
      /use listen\(\)/,
    );
    const legacy = await setup(
      standard((r) =>
        r.method === "server/discover" ? { error: { code: -32601, message: "no" } } : undefined,
      ),
    );
    await legacy.client.connect(legacy.clientEnd);
    await expect(legacy.client.listen({ toolsListChanged: true })).rejects.toThrow(
      /needs a stateless protocol version; this connection speaks 2025-11-25/,
    );
  });
});
