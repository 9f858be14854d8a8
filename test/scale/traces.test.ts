/**
 * Traces through the balancer, with the real OpenTelemetry SDK in every process: the client's
 * (BasicTracerProvider + InMemorySpanExporter, here) and each instance's (the same SDK, its finished
 * spans written as JSON lines to a file per instance). One tool call through haproxy yields a CLIENT
 * span here and a SERVER span on the instance that answered, in one trace, the server span a child of
 * the client's (W3C trace context in `params._meta`), named and attributed per the MCP semantic
 * conventions; a call whose input rounds land on three instances stays one trace. In a 2025-era
 * session shared by the instances, a call carries `mcp.session.id`, and a sampling request raised by
 * the tool, whose answer the client sends through another instance (routed back over Redis), is one
 * trace from the client's call to its own sampling handler and back.
 */
import { SpanKind, SpanStatusCode } from "@opentelemetry/api";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createClient as createClient2025 } from "../../generated/2025-11-25/index.js";
import { createClient } from "../../generated/2026-07-28/index.js";
import { connectHttp } from "../../runtime/http-client/connect.js";
import { StreamableHttpClientTransport } from "../../runtime/http-client/streamable-http.js";
import { openTelemetry } from "../../runtime/otel/index.js";
import { withoutRedis } from "../fixtures/redis/redis-server.js";
import { type ScaleBed, startScaleBed } from "../fixtures/scale/bed.js";
import { withoutHaproxy } from "../fixtures/scale/haproxy.js";
import type { SpanLine } from "../fixtures/scale/span-file.js";
import { textOf } from "../fixtures/scale/text-of.js";

const V = "2026-07-28";
const spans = new InMemorySpanExporter();
const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] });

describe.skipIf(withoutRedis || withoutHaproxy)(
  "traces through haproxy, client and instances in one trace",
  () => {
    let bed: ScaleBed;
    beforeAll(async () => {
      bed = await startScaleBed({ instances: 3, tracing: true });
    });
    afterAll(async () => {
      await bed?.close();
      await tracerProvider.shutdown();
    });
    afterEach(() => spans.reset());

    /** Our client, traced, connected through the balancer; remembers who served each request. */
    async function tracedClient() {
      const servedBy: string[] = [];
      const client = createClient({
        info: { name: "scale-traces", version: "1.0.0" },
        telemetry: openTelemetry({ tracerProvider }),
        handlers: { elicit: () => ({ action: "accept", content: { name: "Ada", color: "green" } }) },
      });
      const fetchAndNote: typeof fetch = async (input, init) => {
        const response = await fetch(input, init);
        servedBy.push(response.headers.get("x-served-by") ?? "?");
        return response;
      };
      await client.connect(await connectHttp(bed.url, { fetch: fetchAndNote }));
      return { client, servedBy };
    }

    /** The instances' spans of one trace, once they are all on disk (SimpleSpanProcessor writes at end). */
    const serverSpans = async (traceId: string, name: string, count: number): Promise<SpanLine[]> => {
      let found: SpanLine[] = [];
      await expect
        .poll(
          () => {
            found = bed.spans().filter((s) => s.traceId === traceId && s.name === name);
            return found.length;
          },
          { timeout: 5_000 },
        )
        .toBe(count);
      return found;
    };

    it("one tools/call: a CLIENT span here, a SERVER span on the instance that answered, one trace", async () => {
      const { client, servedBy } = await tracedClient();
      let answeredBy: string;
      try {
        answeredBy = textOf(await client.callTool({ name: "whoami", arguments: {} }));
      } finally {
        await client.close();
      }
      expect(servedBy.at(-1)).toBe(answeredBy);
      const [call, ...more] = spans
        .getFinishedSpans()
        .filter((s) => s.kind === SpanKind.CLIENT && s.name === "tools/call whoami");
      expect(more).toEqual([]);
      const traceId = call!.spanContext().traceId;
      const [served] = await serverSpans(traceId, "tools/call whoami", 1);
      expect(served!.instance).toBe(answeredBy);
      expect(served!.kind).toBe(SpanKind.SERVER);
      expect(served!.parentSpanId).toBe(call!.spanContext().spanId);
      const expected = {
        "mcp.method.name": "tools/call",
        "mcp.protocol.version": V,
        "gen_ai.tool.name": "whoami",
        "gen_ai.operation.name": "execute_tool",
      };
      expect(call!.attributes).toMatchObject(expected);
      expect(served!.attributes).toMatchObject(expected);
      expect(served!.attributes["jsonrpc.request.id"]).toMatch(/^\d+$/);
      // Stateless: no session to name. A success: no error.type.
      for (const attributes of [call!.attributes, served!.attributes]) {
        expect(attributes["mcp.session.id"]).toBeUndefined();
        expect(attributes["error.type"]).toBeUndefined();
      }
      // No other instance recorded anything of this trace.
      expect(
        new Set(
          bed
            .spans()
            .filter((s) => s.traceId === traceId)
            .map((s) => s.instance),
        ),
      ).toEqual(new Set([answeredBy]));
    });

    it("a failing call: error.type on the client's span and on the answering instance's", async () => {
      const { client } = await tracedClient();
      try {
        const result = await client.callTool({ name: "nope", arguments: {} });
        expect(result.isError).toBe(true);
      } finally {
        await client.close();
      }
      const [call] = spans.getFinishedSpans().filter((s) => s.name === "tools/call nope");
      const [served] = await serverSpans(call!.spanContext().traceId, "tools/call nope", 1);
      expect(served!.parentSpanId).toBe(call!.spanContext().spanId);
      for (const span of [call!, served!]) {
        expect(span.attributes["error.type"]).toBe("tool_error");
        expect(span.status.code).toBe(SpanStatusCode.ERROR);
      }
    });

    it("2025-11-25, a session: the call's spans name it; a sampling answer routed through another instance keeps the trace", async () => {
      const servedBy: { kind: string; by: string }[] = [];
      const client = createClient2025({
        info: { name: "scale-traces", version: "1.0.0" },
        telemetry: openTelemetry({ tracerProvider }),
        handlers: {
          createMessage: () => ({
            role: "assistant",
            content: { type: "text", text: "sampled" },
            model: "m",
          }),
        },
      });
      const fetchAndNote: typeof fetch = async (input, init) => {
        const response = await fetch(input, init);
        const body = typeof init?.body === "string" ? (JSON.parse(init.body) as { method?: string }) : {};
        servedBy.push({ kind: body.method ?? "response", by: response.headers.get("x-served-by") ?? "?" });
        return response;
      };
      const transport = new StreamableHttpClientTransport(bed.url, { fetch: fetchAndNote });
      let answer: string;
      let sessionId: string;
      try {
        await client.connect(transport);
        answer = textOf(await client.callTool({ name: "sample", arguments: {} }));
        sessionId = transport.sessionId!;
      } finally {
        await client.close();
      }
      const askedOn = /asked on (\w)/.exec(answer)![1]!;
      expect(answer).toBe(`sampled (asked on ${askedOn})`);
      // The client's answer to the sampling request went to another instance than the one waiting.
      const routedThrough = servedBy.filter((s) => s.kind === "response").at(-1)!.by;
      expect(routedThrough).not.toBe(askedOn);

      const [call] = spans
        .getFinishedSpans()
        .filter((s) => s.kind === SpanKind.CLIENT && s.name === "tools/call sample");
      const traceId = call!.spanContext().traceId;
      const [served] = await serverSpans(traceId, "tools/call sample", 1);
      expect(served!.instance).toBe(askedOn);
      expect(served!.parentSpanId).toBe(call!.spanContext().spanId);
      expect(call!.attributes["mcp.session.id"]).toBe(sessionId);
      expect(served!.attributes["mcp.session.id"]).toBe(sessionId);
      expect(served!.attributes["mcp.protocol.version"]).toBe("2025-11-25");
      // The instance's request to the client, a child of its call, ended once the routed answer came.
      const [asked] = await serverSpans(traceId, "sampling/createMessage", 1);
      expect(asked!.instance).toBe(askedOn);
      expect(asked!.kind).toBe(SpanKind.CLIENT);
      expect(asked!.parentSpanId).toBe(served!.spanId);
      expect(asked!.status.code).not.toBe(SpanStatusCode.ERROR);
      // The client's own handling of it: a SERVER span here, in the same trace, under the instance's.
      const [handled] = spans
        .getFinishedSpans()
        .filter((s) => s.kind === SpanKind.SERVER && s.name === "sampling/createMessage");
      expect(handled!.spanContext().traceId).toBe(traceId);
      expect(handled!.parentSpanContext?.spanId).toBe(asked!.spanId);
    });

    it("a call whose three input rounds land on three instances is one trace under the client's span", async () => {
      const { client, servedBy } = await tracedClient();
      try {
        expect(textOf(await client.callTool({ name: "ask", arguments: {} }))).toMatch(/^Ada likes green/);
      } finally {
        await client.close();
      }
      const [call] = spans.getFinishedSpans().filter((s) => s.name === "tools/call ask");
      const rounds = await serverSpans(call!.spanContext().traceId, "tools/call ask", 3);
      for (const round of rounds) expect(round.parentSpanId).toBe(call!.spanContext().spanId);
      // Round robin: the rounds' spans are on three instances, the ones the balancer named.
      expect(new Set(rounds.map((r) => r.instance))).toEqual(new Set(["a", "b", "c"]));
      expect(new Set(rounds.map((r) => r.instance))).toEqual(new Set(servedBy.slice(-3)));
    });
  },
);
