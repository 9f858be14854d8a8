/**
 * Protocol 2026-07-28 on the server side, over real HTTP on 127.0.0.1: one server written as generated
 * 2026-07-28 handlers serves the official SDK client (2025-11-25, sessions) and stateless 2026 requests at
 * the same endpoint; the stateless lifecycle's errors and HTTP statuses; multi round-trip requests with a
 * sealed requestState; subscriptions/listen.
 */
import { afterAll, describe, expect, it } from "vitest";
import { changes, handlers, info } from "../../../examples/everything-server/handlers.js";
import { createClient, createServer } from "../../../generated/2026-07-28/index.js";
import { connectHttp } from "../../../runtime/http-client/connect.js";
import { serveHttp } from "../../../runtime/node/http.js";
import { featureServer } from "../../fixtures/http/feature-server.js";
import { messagesOf, POST_HEADERS, readSse, runSdkClient } from "../../fixtures/http/helpers.js";

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

const V = "2026-07-28";
const META = (caps: Record<string, unknown> = { elicitation: {}, sampling: {}, roots: {} }) => ({
  "io.modelcontextprotocol/protocolVersion": V,
  "io.modelcontextprotocol/clientCapabilities": caps,
  "io.modelcontextprotocol/clientInfo": { name: "raw-2026", version: "1" },
});
const NAMED = new Set(["tools/call", "prompts/get"]);

let nextId = 1;
/** One stateless-era POST with the headers a 2026 client sends (overridable), and its parsed answer. */
async function call(
  url: string,
  method: string,
  params: Record<string, unknown> = {},
  headers: Record<string, string | undefined> = {},
) {
  const id = nextId++;
  const body = { jsonrpc: "2.0", id, method, params: { _meta: META(), ...params } };
  const all: Record<string, string | undefined> = {
    ...POST_HEADERS,
    "mcp-protocol-version": V,
    "mcp-method": method,
    ...(NAMED.has(method) ? { "mcp-name": String(params.name) } : {}),
    ...(method === "resources/read" ? { "mcp-name": String(params.uri) } : {}),
    ...headers,
  };
  const sent = Object.fromEntries(Object.entries(all).filter(([, v]) => v !== undefined)) as Record<
    string,
    string
  >;
  const response = await fetch(url, { method: "POST", headers: sent, body: JSON.stringify(body) });
  const type = response.headers.get("content-type") ?? "";
  const messages = type.includes("text/event-stream")
    ? messagesOf((await readSse(response.body!)).events)
    : [JSON.parse(await response.text()) as Record<string, unknown>];
  const answer = messages.find((m) => m.id === id) as
    | { result?: Record<string, unknown>; error?: { code: number; message: string; data?: unknown } }
    | undefined;
  return { status: response.status, headers: response.headers, messages, answer, id };
}

async function everything(
  options: Parameters<typeof createServer>[0] extends infer O ? Partial<O> : never = {},
) {
  const server = createServer({
    info,
    handlers,
    capabilities: { tools: { listChanged: true }, prompts: { listChanged: true } },
    onError: () => {},
    ...options,
  });
  changes.notify = (method) => server.notifyAll(method, {});
  const http = await serveHttp(server, { port: 0 });
  cleanups.push(() => http.close());
  return { server, http };
}

describe("one server, both eras, one endpoint", () => {
  it("the official SDK client (2025-11-25, a session) and our 2026-07-28 client, side by side", async () => {
    const server = await featureServer(V);
    const http = await serveHttp(server, { port: 0 });
    cleanups.push(() => http.close());

    const sdk = runSdkClient("streamable", http.url, [
      "connect",
      "tools",
      "echo",
      "progress",
      "sample",
      "terminate",
    ]);
    const ours = createClient({
      info: { name: "ours-2026", version: "1" },
      handlers: {
        createMessage: (params) => ({
          role: "assistant",
          model: "ours-model",
          content: { type: "text", text: `sampled: ${JSON.stringify(params.messages[0]?.content)}` },
        }),
      },
    });
    const description = await ours.connect(await connectHttp(http.url));
    const echo = await ours.callTool({ name: "echo", arguments: { text: "stateless" } });
    // A server→client request of the handshake era reaches our client as an input request and a retry.
    const sample = await ours.callTool({ name: "sample", arguments: { text: "ping" } });
    const report = await sdk;
    await ours.close();

    expect(report.error).toBeUndefined();
    expect(report.connect).toMatchObject({ server: "http-feature-server", protocolVersion: "2025-11-25" });
    expect(report.echo).toBe("héllo");
    expect(report.progress).toEqual({ result: "done in 4 steps", progress: [1, 2, 3, 4] });
    expect(report.sample).toBe("sampled: echo ping (sdk-model)");

    expect(description).toMatchObject({ protocolVersion: V, serverInfo: { name: "http-feature-server" } });
    expect(echo).toMatchObject({ content: [{ type: "text", text: "stateless" }], resultType: "complete" });
    expect(sample.content).toEqual([{ type: "text", text: expect.stringContaining("ours-model") }]);

    const raw = await call(http.url, "tools/call", { name: "echo", arguments: { text: "x" } });
    expect(raw.headers.get("mcp-session-id")).toBeNull();
    expect(raw.answer?.result?._meta).toEqual({
      "io.modelcontextprotocol/serverInfo": { name: "http-feature-server", version: expect.any(String) },
    });
  });

  it("a 2025 initialize is the handshake era even with a 2026 server; a stateless request never is", async () => {
    const { http } = await everything();
    const init = await fetch(http.url, {
      method: "POST",
      headers: POST_HEADERS,
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: {
          protocolVersion: "2025-11-25",
          capabilities: {},
          clientInfo: { name: "old", version: "1" },
        },
      }),
    });
    expect(init.status).toBe(200);
    expect(init.headers.get("mcp-session-id")).toMatch(/^[0-9a-f]{32}$/);
    // initialize with per-request _meta is a stateless request for a method the era removed.
    const removed = await call(http.url, "initialize", {});
    expect(removed.status).toBe(404);
    expect(removed.answer?.error?.code).toBe(-32601);
  });
});

describe("stateless lifecycle errors and HTTP statuses", () => {
  it("missing _meta fields → 400 -32602; header/meta disagreement → 400 -32020; unknown version → 400 -32022", async () => {
    const { http } = await everything();
    const noMeta = await fetch(http.url, {
      method: "POST",
      headers: { ...POST_HEADERS, "mcp-protocol-version": V, "mcp-method": "server/discover" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "server/discover", params: {} }),
    });
    expect(noMeta.status).toBe(400);
    expect(await noMeta.json()).toMatchObject({ id: 7, error: { code: -32602 } });

    const noHeader = await call(http.url, "tools/list", {}, { "mcp-protocol-version": undefined });
    expect([noHeader.status, noHeader.answer?.error?.code]).toEqual([400, -32020]);

    const v999 = await call(
      http.url,
      "server/discover",
      { _meta: { ...META(), "io.modelcontextprotocol/protocolVersion": "v999" } },
      { "mcp-protocol-version": "v999" },
    );
    expect(v999.status).toBe(400);
    expect(v999.answer?.error).toMatchObject({ code: -32022, data: { supported: [V], requested: "v999" } });

    const mismatch = await call(http.url, "server/discover", {
      _meta: { ...META(), "io.modelcontextprotocol/protocolVersion": "v999" },
    });
    expect([mismatch.status, mismatch.answer?.error?.code]).toEqual([400, -32020]);
  });

  it("Mcp-Method / Mcp-Name / Mcp-Param-* must agree with the body (values case-sensitive, base64 decoded)", async () => {
    const { http } = await everything();
    const wrongMethod = await call(http.url, "tools/list", {}, { "mcp-method": "TOOLS/LIST" });
    expect([wrongMethod.status, wrongMethod.answer?.error?.code]).toEqual([400, -32020]);
    const wrongName = await call(
      http.url,
      "tools/call",
      { name: "test_simple_text" },
      { "mcp-name": "other" },
    );
    expect([wrongName.status, wrongName.answer?.error?.code]).toEqual([400, -32020]);
    const base64Name = await call(
      http.url,
      "tools/call",
      { name: "test_simple_text" },
      { "mcp-name": `=?base64?${Buffer.from("test_simple_text").toString("base64")}?=` },
    );
    expect(base64Name.answer?.result?.resultType).toBe("complete");

    await call(http.url, "tools/list"); // the server learns the tools' x-mcp-header declarations
    const args = { name: "test_custom_headers", arguments: { region: "us west 1" } };
    const missing = await call(http.url, "tools/call", args);
    expect([missing.status, missing.answer?.error?.code]).toEqual([400, -32020]);
    const plain = await call(http.url, "tools/call", args, { "mcp-param-region": "us west 1" });
    expect(plain.answer?.result?.content).toEqual([{ type: "text", text: "region=us west 1" }]);
    const badBase64 = await call(http.url, "tools/call", args, { "mcp-param-region": "=?base64?dXMg!!?=" });
    expect([badBase64.status, badBase64.answer?.error?.code]).toEqual([400, -32020]);
  });

  it("unknown and removed methods → 404 -32601; an undeclared client capability → 400 -32021", async () => {
    const { http } = await everything();
    for (const method of ["ping", "logging/setLevel", "resources/subscribe", "nope/nothing"]) {
      const r = await call(http.url, method);
      expect([method, r.status, r.answer?.error?.code]).toEqual([method, 404, -32601]);
    }
    const r = await call(http.url, "tools/call", {
      name: "test_missing_capability",
      _meta: META({}),
    });
    expect(r.status).toBe(400);
    expect(r.answer?.error).toMatchObject({ code: -32021, data: { requiredCapabilities: { sampling: {} } } });
  });

  it("a resource that does not exist: -32602 with the uri (SEP-2164); results carry caching hints", async () => {
    const { http } = await everything({ cache: { ttlMs: 60_000, cacheScope: "public" } });
    const missing = await call(http.url, "resources/read", { uri: "test://nope" });
    expect(missing.answer?.error).toMatchObject({ code: -32602, data: { uri: "test://nope" } });
    const read = await call(http.url, "resources/read", { uri: "test://static-text" });
    expect(read.answer?.result).toMatchObject({
      ttlMs: 60_000,
      cacheScope: "public",
      resultType: "complete",
    });
    // Progress comes on the request's own SSE stream, before its response.
    const progress = await call(http.url, "tools/call", {
      name: "test_tool_with_progress",
      _meta: { ...META(), progressToken: "p1" },
    });
    expect(progress.headers.get("content-type")).toContain("text/event-stream");
    expect(progress.messages.filter((m) => m.method === "notifications/progress")).toHaveLength(3);
    expect(progress.messages.at(-1)).toMatchObject({ id: progress.id, result: { resultType: "complete" } });
  });
});

describe("multi round-trip requests", () => {
  it("two rounds of elicitation complete; each round's state differs; answers are replayed, not re-asked", async () => {
    const { http } = await everything();
    const args = { name: "test_input_required_result_multi_round", arguments: {} };
    const r1 = await call(http.url, "tools/call", args);
    const first = r1.answer!.result as {
      resultType: string;
      inputRequests: Record<string, unknown>;
      requestState: string;
    };
    expect(first.resultType).toBe("input_required");
    expect(Object.keys(first.inputRequests)).toEqual(["step1"]);

    const r2 = await call(http.url, "tools/call", {
      ...args,
      inputResponses: { step1: { action: "accept", content: { name: "Alice" } } },
      requestState: first.requestState,
    });
    const second = r2.answer!.result as typeof first;
    expect(second.resultType).toBe("input_required");
    expect(Object.keys(second.inputRequests)).toEqual(["step2"]);
    expect(second.requestState).not.toBe(first.requestState);

    const r3 = await call(http.url, "tools/call", {
      ...args,
      inputResponses: { step2: { action: "accept", content: { color: "blue" } } },
      requestState: second.requestState,
    });
    expect(r3.answer?.result).toMatchObject({
      resultType: "complete",
      content: [{ type: "text", text: "Alice likes blue" }],
    });
  });

  it("a tampered, foreign or expired requestState is rejected with -32602", async () => {
    const { http } = await everything({ stateTtlMs: 300 });
    const args = { name: "test_input_required_result_tampered_state", arguments: {} };
    const r1 = await call(http.url, "tools/call", args);
    const state = (r1.answer!.result as { requestState: string }).requestState;
    const answer = { confirm: { action: "accept", content: { ok: true } } };

    const tampered = await call(http.url, "tools/call", {
      ...args,
      inputResponses: answer,
      requestState: `${state}-TAMPERED`,
    });
    expect(tampered.answer?.error?.code).toBe(-32602);
    expect(tampered.answer?.error?.message).toMatch(/requestState integrity check failed/);
    // One bit of the ciphertext flipped: the authentication tag no longer matches.
    const [keyId, sealed] = state.split(".");
    const bytes = Buffer.from(sealed!, "base64url");
    bytes[20] = bytes[20]! ^ 1;
    const forgedCall = await call(http.url, "tools/call", {
      ...args,
      inputResponses: answer,
      requestState: `${keyId}.${bytes.toString("base64url")}`,
    });
    expect(forgedCall.answer?.error?.code).toBe(-32602);
    expect(forgedCall.answer?.error?.message).toMatch(/requestState integrity check failed/);
    // The state of one tool is not accepted by another.
    const foreign = await call(http.url, "tools/call", {
      name: "test_input_required_result_elicitation",
      inputResponses: answer,
      requestState: state,
    });
    expect(foreign.answer?.error?.message).toMatch(/issued for another request/);

    const ok = await call(http.url, "tools/call", { ...args, inputResponses: answer, requestState: state });
    expect(ok.answer?.result).toMatchObject({ content: [{ type: "text", text: "confirmed=true" }] });
    await new Promise((resolve) => setTimeout(resolve, 350));
    const expired = await call(http.url, "tools/call", {
      ...args,
      inputResponses: answer,
      requestState: state,
    });
    expect(expired.answer?.error?.message).toMatch(/expired/);
  });

  it("a requestState serves only the request that received it, once: other arguments, another caller or a second use → -32602", async () => {
    const server = createServer({ info, handlers, onError: () => {} });
    // The bearer token is the caller's identity (ctx.auth).
    const http = await serveHttp(server, {
      port: 0,
      authenticate: (request) => request.headers.get("authorization")?.slice("Bearer ".length),
    });
    cleanups.push(() => http.close());
    const as = (user: string) => ({ authorization: `Bearer ${user}` });
    const ask = { name: "test_elicitation", arguments: { message: "Pay 1 EUR to Bob?" } };
    const first = await call(http.url, "tools/call", ask, as("alice"));
    const asked = first.answer!.result as {
      resultType: string;
      inputRequests: Record<string, unknown>;
      requestState: string;
    };
    expect(asked.resultType).toBe("input_required");
    const [key] = Object.keys(asked.inputRequests);
    const retry = (params: Record<string, unknown>, user: string) =>
      call(
        http.url,
        "tools/call",
        {
          ...params,
          inputResponses: { [key!]: { action: "accept", content: { username: "alice", email: "a@x.org" } } },
          requestState: asked.requestState,
        },
        as(user),
      );

    const inflated = await retry({ ...ask, arguments: { message: "Pay 1000000 EUR to Bob?" } }, "alice");
    expect(inflated.status).toBe(200);
    expect(inflated.answer?.error?.code).toBe(-32602);
    expect(inflated.answer?.error?.message).toMatch(/requestState was issued for other arguments/);
    const stolen = await retry(ask, "mallory");
    expect(stolen.answer?.error?.code).toBe(-32602);
    expect(stolen.answer?.error?.message).toMatch(/requestState was issued to another caller/);

    // Refused attempts did not use it up: its holder finishes, once.
    const done = await retry(ask, "alice");
    expect(done.answer?.result).toMatchObject({
      resultType: "complete",
      content: [{ type: "text", text: expect.stringContaining("action=accept") }],
    });
    const again = await retry(ask, "alice");
    expect(again.answer?.error?.code).toBe(-32602);
    expect(again.answer?.error?.message).toMatch(/requestState was already used/);
  });

  it("the binding is of the params as the client sent them, whatever the handler does to its own", async () => {
    const server = createServer({
      info,
      onError: () => {},
      handlers: {
        callTool: async (params, ctx) => {
          // A handler normalizing its arguments in place, then asking.
          const args = params.arguments as { amount: number };
          args.amount = Math.round(args.amount);
          const answer = await ctx.elicit(
            { message: `Pay ${args.amount}?`, requestedSchema: { type: "object", properties: {} } },
            { key: "confirm" },
          );
          return { content: [{ type: "text", text: `${answer.action} ${args.amount}` }] };
        },
      },
    });
    const http = await serveHttp(server, { port: 0 });
    cleanups.push(() => http.close());
    const ask = { name: "pay", arguments: { amount: 1.4 } };
    const first = await call(http.url, "tools/call", ask);
    const { requestState } = first.answer!.result as { requestState: string };
    const inputResponses = { confirm: { action: "accept", content: {} } };
    const done = await call(http.url, "tools/call", { ...ask, inputResponses, requestState });
    expect(done.answer?.result).toMatchObject({ content: [{ type: "text", text: "accept 1" }] });
  });

  it("without a stateSecret each server draws a random key: a second instance rejects the first one's state; with one secret both accept it", async () => {
    const args = { name: "test_input_required_result_tampered_state", arguments: {} };
    const answer = { confirm: { action: "accept", content: { ok: true } } };
    const stateFrom = async (url: string) => {
      const r = await call(url, "tools/call", args);
      return (r.answer!.result as { requestState: string }).requestState;
    };
    const finish = (url: string, requestState: string) =>
      call(url, "tools/call", { ...args, inputResponses: answer, requestState });
    const a = await everything();
    const b = await everything();
    const fromA = await stateFrom(a.http.url);
    const atB = await finish(b.http.url, fromA);
    expect(atB.answer?.error?.code).toBe(-32602);
    expect(atB.answer?.error?.message).toMatch(/requestState integrity check failed/);
    expect((await finish(a.http.url, fromA)).answer?.result).toMatchObject({
      content: [{ type: "text", text: "confirmed=true" }],
    });
    // Behind a load balancer, one configured secret: either instance finishes what the other began.
    const c = await everything({ stateSecret: "shared secret" });
    const d = await everything({ stateSecret: "shared secret" });
    expect((await finish(d.http.url, await stateFrom(c.http.url))).answer?.result).toMatchObject({
      content: [{ type: "text", text: "confirmed=true" }],
    });
  });

  it("an answer of the wrong shape is invalid params; input is asked only of capabilities the client declared", async () => {
    const { http } = await everything();
    const wrong = await call(http.url, "tools/call", {
      name: "test_input_required_result_elicitation",
      inputResponses: { user_name: 12345 },
    });
    expect(wrong.answer?.error?.code).toBe(-32602);
    const samplingOnly = await call(http.url, "tools/call", {
      name: "test_input_required_result_capabilities",
      _meta: META({ sampling: {} }),
    });
    const requests = (samplingOnly.answer!.result as { inputRequests: Record<string, { method: string }> })
      .inputRequests;
    expect(Object.values(requests).map((r) => r.method)).toEqual(["sampling/createMessage"]);
  });
});

describe("subscriptions/listen", () => {
  it("acknowledges the agreed filter, delivers only what was asked, tagged; closing the stream ends it", async () => {
    const { server, http } = await everything();
    const controller = new AbortController();
    const id = 9001;
    const response = await fetch(http.url, {
      method: "POST",
      signal: controller.signal,
      headers: { ...POST_HEADERS, "mcp-protocol-version": V, "mcp-method": "subscriptions/listen" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id,
        method: "subscriptions/listen",
        params: { _meta: META(), notifications: { toolsListChanged: true, resourcesListChanged: true } },
      }),
    });
    expect(response.headers.get("content-type")).toContain("text/event-stream");
    const reading = readSse(response.body!, (_e, all) => all.length >= 2, 5000);
    await expect.poll(() => server.listeners.size).toBe(1);
    await call(http.url, "tools/call", { name: "test_trigger_prompt_change" }); // not asked for
    await call(http.url, "tools/call", { name: "test_trigger_tool_change" });
    const frames = messagesOf((await reading).events);
    expect(frames[0]).toEqual({
      jsonrpc: "2.0",
      method: "notifications/subscriptions/acknowledged",
      // resources.listChanged is not declared by this server: left out of the agreed filter.
      params: {
        _meta: { "io.modelcontextprotocol/subscriptionId": id },
        notifications: { toolsListChanged: true },
      },
    });
    expect(frames[1]).toMatchObject({
      method: "notifications/tools/list_changed",
      params: { _meta: { "io.modelcontextprotocol/subscriptionId": id } },
    });
    controller.abort();
    await expect.poll(() => server.listeners.size).toBe(0);
  });
});
