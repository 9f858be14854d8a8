/**
 * OpenTelemetry through the real SDK (trace: BasicTracerProvider + InMemorySpanExporter; metrics:
 * MeterProvider + a reader collected on demand): this project's client calling its server over real
 * HTTP on 127.0.0.1 in both eras yields a CLIENT and a SERVER span in one trace, named and attributed
 * per the MCP semantic conventions, with both duration histograms; the official v2 SDK client's
 * `traceparent` in `_meta` parents our server span; without a provider nothing is recorded.
 */

import { Client as ClientV2, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { type Attributes, metrics, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import { type DataPoint, type Histogram, MeterProvider, MetricReader } from "@opentelemetry/sdk-metrics";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createClient as createClient2025 } from "../../../generated/2025-11-25/index.js";
import {
  createClient as createClient2026,
  createServer,
  type McpServer,
} from "../../../generated/2026-07-28/index.js";
import { connectHttp } from "../../../runtime/http-client/connect.js";
import { StreamableHttpClientTransport } from "../../../runtime/http-client/streamable-http.js";
import { ErrorCode, McpError } from "../../../runtime/jsonrpc/messages.js";
import type { Telemetry } from "../../../runtime/mcp/telemetry.js";
import { type HttpServerHandle, serveHttp } from "../../../runtime/node/http.js";
import { openTelemetry } from "../../../runtime/otel/index.js";

/** A reader the test collects from when it wants (no export interval). */
class CollectingReader extends MetricReader {
  protected override onForceFlush(): Promise<void> {
    return Promise.resolve();
  }
  protected override onShutdown(): Promise<void> {
    return Promise.resolve();
  }
}

const spans = new InMemorySpanExporter();
const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] });
const reader = new CollectingReader();
const meterProvider = new MeterProvider({ readers: [reader] });
const telemetry = openTelemetry({ tracerProvider, meterProvider });

const info = { name: "otel-test", version: "1.0.0" };
const handlers = {
  createMessage: () => ({
    role: "assistant" as const,
    content: { type: "text" as const, text: "Paris" },
    model: "test-model",
  }),
};
const text = (s: string) => ({ content: [{ type: "text" as const, text: s }] });

function tracedServer(t: Telemetry | undefined): McpServer {
  return createServer({
    info: { name: "otel-server", version: "1.0.0" },
    ...(t ? { telemetry: t } : {}),
    onError: () => {},
    handlers: {
      listTools: () => ({ tools: [{ name: "echo", inputSchema: { type: "object" } }] }),
      listPrompts: () => {
        throw new TypeError("the prompt list broke");
      },
      getPrompt: (params) => ({
        messages: [{ role: "user", content: { type: "text", text: `hello ${params.name}` } }],
      }),
      callTool: async (params, ctx) => {
        if (params.name === "ask") {
          const answer = await ctx.createMessage({
            messages: [{ role: "user", content: { type: "text", text: "capital of France?" } }],
            maxTokens: 10,
          });
          const [first] = [answer.content].flat();
          return text(first?.type === "text" ? first.text : "?");
        }
        if (params.name === "fails") throw new Error("the tool broke");
        if (params.name === "refuses") throw new McpError(ErrorCode.InvalidParams, "no such thing");
        return text(String(params.arguments?.text ?? ""));
      },
    },
  });
}

/** The histogram data points named `name`, by their attributes. */
async function points(name: string): Promise<DataPoint<Histogram>[]> {
  const { resourceMetrics } = await reader.collect();
  return resourceMetrics.scopeMetrics
    .flatMap((s) => s.metrics)
    .filter((m) => m.descriptor.name === name)
    .flatMap((m) => m.dataPoints as DataPoint<Histogram>[]);
}

const pointFor = (all: DataPoint<Histogram>[], attributes: Attributes) =>
  all.find((p) => Object.entries(attributes).every(([k, v]) => p.attributes[k] === v));

const byKind = (kind: SpanKind, name: string): ReadableSpan[] =>
  spans.getFinishedSpans().filter((s) => s.kind === kind && s.name === name);

let http: HttpServerHandle;
beforeAll(async () => {
  http = await serveHttp(tracedServer(telemetry), { port: 0 });
});
afterAll(async () => {
  await http.close();
  await tracerProvider.shutdown();
  await meterProvider.shutdown();
});
afterEach(() => spans.reset());

describe.each([
  {
    era: "2025-11-25 (initialize, a session)",
    version: "2025-11-25",
    rounds: 1,
    connect: async () => {
      const client = createClient2025({ info, telemetry, handlers });
      const transport = new StreamableHttpClientTransport(http.url);
      await client.connect(transport);
      return { client, sessionId: transport.sessionId };
    },
  },
  {
    era: "2026-07-28 (stateless)",
    version: "2026-07-28",
    rounds: 2,
    connect: async () => {
      const client = createClient2026({ info, telemetry, handlers });
      await client.connect(await connectHttp(http.url));
      return { client, sessionId: undefined };
    },
  },
])("our client → our server over HTTP, $era", ({ version, rounds, connect }) => {
  it("one tools/call: a CLIENT span and a SERVER span in one trace, the server's parent the client's", async () => {
    const { client, sessionId } = await connect();
    try {
      const result = await client.callTool({ name: "echo", arguments: { text: "hi" } });
      expect(result.content).toEqual([{ type: "text", text: "hi" }]);
    } finally {
      await client.close();
    }
    const [clientSpan] = byKind(SpanKind.CLIENT, "tools/call echo");
    const [serverSpan] = byKind(SpanKind.SERVER, "tools/call echo");
    expect(clientSpan, "client span").toBeDefined();
    expect(serverSpan, "server span").toBeDefined();
    expect(serverSpan!.spanContext().traceId).toBe(clientSpan!.spanContext().traceId);
    expect(serverSpan!.parentSpanContext?.spanId).toBe(clientSpan!.spanContext().spanId);
    expect(serverSpan!.parentSpanContext?.isRemote).toBe(true);
    for (const span of [clientSpan!, serverSpan!]) {
      expect(span.attributes).toMatchObject({
        "mcp.method.name": "tools/call",
        "mcp.protocol.version": version,
        "gen_ai.tool.name": "echo",
        "gen_ai.operation.name": "execute_tool",
      });
      expect(span.attributes["error.type"]).toBeUndefined();
      expect(span.status.code).toBe(SpanStatusCode.UNSET);
      if (sessionId) expect(span.attributes["mcp.session.id"]).toBe(sessionId);
      else expect(span.attributes["mcp.session.id"]).toBeUndefined();
    }
    expect(serverSpan!.attributes["jsonrpc.request.id"]).toMatch(/^\d+$/);
    if (version === "2025-11-25") {
      // Notifications are operations too: the client's initialized, in the client's trace.
      const [sent] = byKind(SpanKind.CLIENT, "notifications/initialized");
      const [received] = byKind(SpanKind.SERVER, "notifications/initialized");
      expect(received?.parentSpanContext?.spanId).toBe(sent?.spanContext().spanId);
      expect(received?.attributes["mcp.session.id"]).toBe(sessionId);
    }
    // The lifecycle's first request is traced too, its version what the answer agreed on.
    const first = version === "2026-07-28" ? "server/discover" : "initialize";
    for (const kind of [SpanKind.CLIENT, SpanKind.SERVER]) {
      const [span] = byKind(kind, first);
      expect(span?.attributes["mcp.protocol.version"], `${SpanKind[kind]} ${first}`).toBe(version);
    }

    const attributes = { "mcp.method.name": "tools/call", "gen_ai.tool.name": "echo" };
    const server = pointFor(await points("mcp.server.operation.duration"), {
      ...attributes,
      "mcp.protocol.version": version,
    });
    const clientPoint = pointFor(await points("mcp.client.operation.duration"), {
      ...attributes,
      "mcp.protocol.version": version,
    });
    for (const p of [server, clientPoint]) {
      expect(p, "a data point").toBeDefined();
      expect(p!.value.count).toBeGreaterThanOrEqual(1);
      expect(p!.value.sum).toBeGreaterThan(0);
      expect(p!.value.sum).toBeLessThan(30);
      expect(p!.attributes["mcp.session.id"]).toBeUndefined();
    }
  });

  it("a tool asking the client for sampling stays in the call's trace", async () => {
    const { client } = await connect();
    try {
      const result = await client.callTool({ name: "ask", arguments: {} });
      expect(result.content).toEqual([{ type: "text", text: "Paris" }]);
    } finally {
      await client.close();
    }
    const [call] = byKind(SpanKind.CLIENT, "tools/call ask");
    const traceId = call!.spanContext().traceId;
    const served = byKind(SpanKind.SERVER, "tools/call ask");
    // A handshake-era client is asked by a request on its session; a stateless one is answered
    // input_required and retries: each round a server span under the one client span.
    expect(served).toHaveLength(rounds);
    for (const s of served) expect(s.parentSpanContext?.spanId).toBe(call!.spanContext().spanId);
    const asked = byKind(SpanKind.CLIENT, "sampling/createMessage");
    const answered = byKind(SpanKind.SERVER, "sampling/createMessage");
    if (rounds === 1) {
      expect(asked).toHaveLength(1);
      expect(answered).toHaveLength(1);
      expect(asked[0]!.spanContext().traceId).toBe(traceId);
      expect(asked[0]!.parentSpanContext?.spanId).toBe(served[0]!.spanContext().spanId);
      expect(answered[0]!.parentSpanContext?.spanId).toBe(asked[0]!.spanContext().spanId);
      expect(answered[0]!.attributes["mcp.method.name"]).toBe("sampling/createMessage");
    } else {
      expect(asked).toEqual([]);
      expect(answered).toEqual([]);
    }
  });

  it("a JSON-RPC error sets error.type to its code; a tool's isError result to tool_error", async () => {
    const { client } = await connect();
    try {
      await expect(client.callTool({ name: "refuses", arguments: {} })).rejects.toMatchObject({
        code: ErrorCode.InvalidParams,
      });
      const failed = await client.callTool({ name: "fails", arguments: {} });
      expect(failed.isError).toBe(true);
    } finally {
      await client.close();
    }
    for (const kind of [SpanKind.CLIENT, SpanKind.SERVER]) {
      const [refused] = byKind(kind, "tools/call refuses");
      expect(refused?.attributes["error.type"]).toBe("-32602");
      expect(refused?.attributes["rpc.response.status_code"]).toBe("-32602");
      expect(refused?.status).toEqual({ code: SpanStatusCode.ERROR, message: "no such thing" });
      const [failedSpan] = byKind(kind, "tools/call fails");
      expect(failedSpan?.attributes["error.type"]).toBe("tool_error");
      expect(failedSpan?.status).toEqual({ code: SpanStatusCode.ERROR, message: "the tool broke" });
    }
    const server = await points("mcp.server.operation.duration");
    const clientPoints = await points("mcp.client.operation.duration");
    for (const all of [server, clientPoints]) {
      expect(pointFor(all, { "gen_ai.tool.name": "refuses", "error.type": "-32602" })).toBeDefined();
      expect(pointFor(all, { "gen_ai.tool.name": "fails", "error.type": "tool_error" })).toBeDefined();
    }
  });
});

describe("other peers and no provider", () => {
  it("the official v2 SDK client's traceparent in _meta parents our server span", async () => {
    const client = new ClientV2(info);
    await client.connect(new StreamableHTTPClientTransport(new URL(http.url)));
    const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
    const spanId = "00f067aa0ba902b7";
    try {
      await client.callTool({
        name: "echo",
        arguments: { text: "x" },
        _meta: { traceparent: `00-${traceId}-${spanId}-01`, tracestate: "congo=t61rcWkgMzE" },
      });
    } finally {
      await client.close();
    }
    const [server] = byKind(SpanKind.SERVER, "tools/call echo");
    expect(server?.spanContext().traceId).toBe(traceId);
    expect(server?.parentSpanContext?.spanId).toBe(spanId);
    expect(server?.parentSpanContext?.traceState?.get("congo")).toBe("t61rcWkgMzE");
  });

  it("prompts/get is named after the prompt; a handler's exception is error.type its class, -32603 to the client", async () => {
    const client = createClient2025({ info, telemetry });
    await client.connect(new StreamableHttpClientTransport(http.url));
    try {
      await client.getPrompt({ name: "greet" });
      await expect(client.listPrompts({})).rejects.toMatchObject({ code: ErrorCode.InternalError });
    } finally {
      await client.close();
    }
    for (const kind of [SpanKind.CLIENT, SpanKind.SERVER]) {
      const [span] = byKind(kind, "prompts/get greet");
      expect(span?.attributes).toMatchObject({
        "mcp.method.name": "prompts/get",
        "gen_ai.prompt.name": "greet",
      });
      expect(span?.attributes["gen_ai.tool.name"]).toBeUndefined();
    }
    const [served] = byKind(SpanKind.SERVER, "prompts/list");
    expect(served?.attributes["error.type"]).toBe("TypeError");
    expect(served?.status).toEqual({ code: SpanStatusCode.ERROR, message: "the prompt list broke" });
    expect(served?.events.map((e) => e.name)).toEqual(["exception"]);
    const [sent] = byKind(SpanKind.CLIENT, "prompts/list");
    expect(sent?.attributes["error.type"]).toBe("-32603");
  });

  it("a malformed traceparent is ignored: the server span starts a trace of its own", async () => {
    const client = new ClientV2(info);
    await client.connect(new StreamableHTTPClientTransport(new URL(http.url)));
    try {
      await client.callTool({
        name: "echo",
        arguments: {},
        _meta: { traceparent: `00-${"0".repeat(32)}-00f067aa0ba902b7-01` },
      });
    } finally {
      await client.close();
    }
    const [server] = byKind(SpanKind.SERVER, "tools/call echo");
    expect(server).toBeDefined();
    expect(server!.parentSpanContext).toBeUndefined();
  });

  it("with the global API and no provider registered: calls work, nothing is recorded, no trace context sent", async () => {
    expect(trace.getTracerProvider().getTracer("x").startSpan("x").isRecording()).toBe(false);
    const unregistered = openTelemetry();
    const local = await serveHttp(tracedServer(unregistered), { port: 0 });
    const seenMeta: unknown[] = [];
    const probe = await serveHttp(
      createServer({
        info: { name: "probe", version: "1.0.0" },
        handlers: {
          callTool: (params) => {
            seenMeta.push(params._meta);
            return text("ok");
          },
        },
      }),
      { port: 0 },
    );
    try {
      for (const url of [local.url, probe.url]) {
        const client = createClient2025({ info, telemetry: unregistered });
        await client.connect(new StreamableHttpClientTransport(url));
        await client.callTool({ name: "echo", arguments: { text: "quiet" } });
        await client.close();
      }
    } finally {
      await local.close();
      await probe.close();
    }
    expect(spans.getFinishedSpans()).toEqual([]);
    expect(metrics.getMeterProvider().getMeter("x").createHistogram("x")).toBeDefined();
    // A non-recording span has an invalid context: nothing to propagate.
    expect(seenMeta).toEqual([undefined]);
  });
});
