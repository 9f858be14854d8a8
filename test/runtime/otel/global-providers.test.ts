/**
 * `openTelemetry()` without providers uses the API's global ones, even when the application registers
 * them after creating the server and client (as it does when telemetry is set up after imports): calls
 * before registration record nothing and carry no `_meta`; calls after are traced end to end.
 */

import { metrics, SpanKind, trace } from "@opentelemetry/api";
import { MeterProvider, MetricReader } from "@opentelemetry/sdk-metrics";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { afterAll, expect, it } from "vitest";
import { createClient } from "../../../generated/2025-11-25/index.js";
import { createServer } from "../../../generated/2026-07-28/index.js";
import { StreamableHttpClientTransport } from "../../../runtime/http-client/streamable-http.js";
import { serveHttp } from "../../../runtime/node/http.js";
import { openTelemetry } from "../../../runtime/otel/index.js";

class CollectingReader extends MetricReader {
  protected override onForceFlush(): Promise<void> {
    return Promise.resolve();
  }
  protected override onShutdown(): Promise<void> {
    return Promise.resolve();
  }
}

afterAll(() => {
  trace.disable();
  metrics.disable();
});

it("picks up global tracer and meter providers registered after it was made", async () => {
  const telemetry = openTelemetry();
  const seenMeta: unknown[] = [];
  const http = await serveHttp(
    createServer({
      info: { name: "globals", version: "1.0.0" },
      telemetry,
      handlers: {
        callTool: (params) => {
          seenMeta.push(params._meta);
          return { content: [] };
        },
      },
    }),
    { port: 0 },
  );
  const client = createClient({ info: { name: "globals-client", version: "1.0.0" }, telemetry });
  try {
    await client.connect(new StreamableHttpClientTransport(http.url));
    await client.callTool({ name: "before" });

    const spans = new InMemorySpanExporter();
    trace.setGlobalTracerProvider(
      new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] }),
    );
    const reader = new CollectingReader();
    metrics.setGlobalMeterProvider(new MeterProvider({ readers: [reader] }));
    await client.callTool({ name: "after" });

    expect(seenMeta[0]).toBeUndefined();
    expect(seenMeta[1]).toMatchObject({
      traceparent: expect.stringMatching(/^00-[\da-f]{32}-[\da-f]{16}-01$/),
    });
    const names = spans.getFinishedSpans().map((s) => `${SpanKind[s.kind]} ${s.name}`);
    expect(names.sort()).toEqual(["CLIENT tools/call after", "SERVER tools/call after"]);
    const { resourceMetrics } = await reader.collect();
    const recorded = resourceMetrics.scopeMetrics
      .flatMap((s) => s.metrics)
      .map((m) => m.descriptor.name)
      .sort();
    expect(recorded).toEqual(["mcp.client.operation.duration", "mcp.server.operation.duration"]);
  } finally {
    await client.close();
    await http.close();
  }
});
