/**
 * The telemetry hook implemented with the OpenTelemetry API, following the semantic conventions for
 * MCP: one span per request named `{mcp.method.name} {target}` (SERVER on the server, CLIENT on the
 * client), the `mcp.server.operation.duration` and `mcp.client.operation.duration` histograms, and
 * the trace context carried in `params._meta`.
 */

import {
  type Attributes,
  type Context,
  context,
  createNoopMeter,
  type Histogram,
  type Link,
  type MeterProvider,
  metrics,
  ProxyTracerProvider,
  propagation,
  type Span,
  SpanKind,
  SpanStatusCode,
  type TextMapGetter,
  type TextMapPropagator,
  type TextMapSetter,
  type TracerProvider,
  trace,
} from "@opentelemetry/api";
import { isObject } from "../jsonrpc/messages.js";
import type { OperationInfo, Telemetry, TelemetryOperation } from "../mcp/telemetry.js";
import { messageOf } from "../util/errors.js";
import { MetaTraceContext } from "./trace-context.js";

export interface OpenTelemetryOptions {
  /** Default: the API's global tracer provider (`trace.setGlobalTracerProvider`). */
  tracerProvider?: TracerProvider;
  /** Default: the API's global meter provider (`metrics.setGlobalMeterProvider`), looked up as it changes. */
  meterProvider?: MeterProvider;
  /**
   * How trace context travels in `params._meta`. Default: the API's global propagator when one is
   * registered, else W3C Trace Context (`traceparent`, `tracestate`).
   */
  propagator?: TextMapPropagator;
  /**
   * Name resource requests' spans after the resource URI (`resources/read file:///a`). Off by default,
   * as the conventions advise: URIs make span names of high cardinality.
   */
  resourceUriInSpanName?: boolean;
}

const SCOPE = "@mcp-codegen/runtime";
/** The bucket boundaries the conventions give for both duration histograms (seconds). */
const BUCKETS: readonly number[] = Object.freeze([
  0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300,
]);
const RESOURCE_METHODS: ReadonlySet<string> = new Set([
  "resources/read",
  "resources/subscribe",
  "resources/unsubscribe",
]);

/** `_meta` as a carrier: only string values are trace context. */
const META_GETTER: TextMapGetter<Record<string, unknown>> = Object.freeze({
  keys: (carrier: Record<string, unknown>) => Object.keys(carrier),
  get: (carrier: Record<string, unknown>, key: string) => {
    const value = carrier[key];
    return typeof value === "string" ? value : undefined;
  },
});
const META_SETTER: TextMapSetter<Record<string, unknown>> = Object.freeze({
  set: (carrier: Record<string, unknown>, key: string, value: string) => {
    carrier[key] = value;
  },
});

interface Instruments {
  provider: MeterProvider;
  /** Whether the provider records (the API's no-op one does not). */
  live: boolean;
  server: Histogram;
  client: Histogram;
}

/** OpenTelemetry for a Server's or a Client's `telemetry` option. */
export function openTelemetry(options: OpenTelemetryOptions = {}): Telemetry {
  return new OpenTelemetry(options);
}

class OpenTelemetry implements Telemetry {
  readonly #tracer;
  readonly #options: OpenTelemetryOptions;
  readonly #fallback = new MetaTraceContext();
  #instruments: Instruments | undefined;
  /** Once a tracer provider is registered with the API, tracing stays on. */
  #tracing: boolean;

  constructor(options: OpenTelemetryOptions) {
    this.#options = options;
    // The global tracer is a proxy: a provider registered later is used from then on.
    this.#tracer = (options.tracerProvider ?? trace.getTracerProvider()).getTracer(SCOPE);
    this.#tracing = options.tracerProvider !== undefined;
  }

  /** Whether spans would be recorded: a provider was given, or one is registered with the API. */
  #tracingOn(): boolean {
    if (this.#tracing) return true;
    const provider = trace.getTracerProvider();
    this.#tracing =
      !(provider instanceof ProxyTracerProvider) || provider.getDelegateTracer(SCOPE) !== undefined;
    return this.#tracing;
  }

  /** The propagator: the option, the global one when the application registered one, else W3C. */
  propagator(): TextMapPropagator {
    if (this.#options.propagator) return this.#options.propagator;
    return propagation.fields().length > 0 ? propagation : this.#fallback;
  }

  /** The histograms of the meter provider in force (the global one may be registered after us). */
  histograms(): Instruments {
    const provider = this.#options.meterProvider ?? metrics.getMeterProvider();
    if (this.#instruments?.provider === provider) return this.#instruments;
    const meter = provider.getMeter(SCOPE);
    const histogram = (name: string, description: string) =>
      meter.createHistogram(name, {
        unit: "s",
        description,
        advice: { explicitBucketBoundaries: [...BUCKETS] },
      });
    this.#instruments = {
      provider,
      live: meter !== createNoopMeter(),
      server: histogram(
        "mcp.server.operation.duration",
        "MCP request duration as observed on the receiver, from the time it was received until the result is sent",
      ),
      client: histogram(
        "mcp.client.operation.duration",
        "MCP request duration as observed on the sender, from the time it was sent until the response is received",
      ),
    };
    return this.#instruments;
  }

  incoming(info: OperationInfo): TelemetryOperation | undefined {
    // Nothing registered: no span, no timer, no context to carry; the request is served untouched.
    if (!this.#tracingOn() && !this.histograms().live) return undefined;
    const ambient = context.active();
    const meta = metaOf(info.params);
    const parent = meta ? this.propagator().extract(ambient, meta, META_GETTER) : ambient;
    // The caller's context parents the span; the transport's (an HTTP server span), if any, is linked.
    const links: Link[] = [];
    const local = parent === ambient ? undefined : trace.getSpanContext(ambient);
    if (local) links.push({ context: local });
    return this.#start(info, SpanKind.SERVER, parent, links);
  }

  outgoing(info: OperationInfo): TelemetryOperation | undefined {
    if (!this.#tracingOn() && !this.histograms().live) return undefined;
    const parent = info.parent instanceof Operation ? info.parent.context : context.active();
    return this.#start(info, SpanKind.CLIENT, parent, []);
  }

  #start(info: OperationInfo, kind: SpanKind, parent: Context, links: Link[]): TelemetryOperation {
    const metric = metricAttributes(info);
    const target = targetOf(info, this.#options.resourceUriInSpanName === true);
    const attributes: Attributes = { ...metric };
    if (info.sessionId !== undefined) attributes["mcp.session.id"] = info.sessionId;
    if (info.requestId !== undefined) attributes["jsonrpc.request.id"] = String(info.requestId);
    const uri = RESOURCE_METHODS.has(info.method) ? info.params?.uri : undefined;
    if (typeof uri === "string") attributes["mcp.resource.uri"] = uri;
    const span = this.#tracer.startSpan(
      target === undefined ? info.method : `${info.method} ${target}`,
      { kind, attributes, links },
      parent,
    );
    return new Operation(this, kind, info.method, span, trace.setSpan(parent, span), metric);
  }
}

class Operation implements TelemetryOperation {
  readonly #started = performance.now();

  constructor(
    private readonly telemetry: OpenTelemetry,
    private readonly kind: SpanKind,
    private readonly method: string,
    private readonly span: Span,
    readonly context: Context,
    private readonly metric: Attributes,
  ) {}

  run<T>(fn: () => T): T {
    return context.with(this.context, fn);
  }

  inject(meta: Record<string, unknown>): void {
    this.telemetry.propagator().inject(this.context, meta, META_SETTER);
  }

  end(result: unknown, error?: unknown, failed = false): void {
    const seconds = (performance.now() - this.#started) / 1000;
    const { span, metric } = this;
    if (failed) {
      const code = codeOf(error);
      const type = code === undefined ? exceptionType(error) : String(code);
      metric["error.type"] = type;
      span.setAttribute("error.type", type);
      if (code !== undefined) {
        metric["rpc.response.status_code"] = String(code);
        span.setAttribute("rpc.response.status_code", String(code));
      } else if (error instanceof Error) {
        span.recordException(error);
      }
      span.setStatus({ code: SpanStatusCode.ERROR, message: messageOf(error) });
    } else if (this.method === "tools/call" && isObject(result) && result.isError === true) {
      // A tool's failure travels in a successful answer; the conventions name its class so.
      metric["error.type"] = "tool_error";
      span.setAttribute("error.type", "tool_error");
      span.setStatus({ code: SpanStatusCode.ERROR, message: toolErrorText(result) });
    } else if (
      this.method === "initialize" &&
      isObject(result) &&
      typeof result.protocolVersion === "string"
    ) {
      // What initialize agreed on, rather than what the client asked for.
      metric["mcp.protocol.version"] = result.protocolVersion;
      span.setAttribute("mcp.protocol.version", result.protocolVersion);
    }
    span.end();
    const { server, client } = this.telemetry.histograms();
    (this.kind === SpanKind.SERVER ? server : client).record(seconds, metric);
  }
}

/** The attributes the duration histograms take (low cardinality: no session, no request id, no URI). */
function metricAttributes(info: OperationInfo): Attributes {
  const attributes: Attributes = { "mcp.method.name": info.method };
  if (info.protocolVersion !== undefined) attributes["mcp.protocol.version"] = info.protocolVersion;
  const name = info.params?.name;
  if (typeof name === "string") {
    if (info.method === "tools/call") {
      attributes["gen_ai.tool.name"] = name;
      attributes["gen_ai.operation.name"] = "execute_tool";
    } else if (info.method === "prompts/get") {
      attributes["gen_ai.prompt.name"] = name;
    }
  }
  return attributes;
}

/** The span name's target: the tool or prompt name; the resource URI when asked for. */
function targetOf(info: OperationInfo, withUri: boolean): string | undefined {
  const params = info.params;
  if (info.method === "tools/call" || info.method === "prompts/get")
    return typeof params?.name === "string" ? params.name : undefined;
  if (withUri && RESOURCE_METHODS.has(info.method) && typeof params?.uri === "string") return params.uri;
  return undefined;
}

const metaOf = (params: Record<string, unknown> | undefined): Record<string, unknown> | undefined =>
  isObject(params?._meta) ? params._meta : undefined;

/** A JSON-RPC error's code (our McpError, or any error carrying a numeric `code` that came over the wire). */
function codeOf(error: unknown): number | undefined {
  const code = isObject(error) ? error.code : undefined;
  return typeof code === "number" && Number.isInteger(code) ? code : undefined;
}

function exceptionType(error: unknown): string {
  const name = error instanceof Error ? error.constructor.name || error.name : undefined;
  return name || "_OTHER";
}

function toolErrorText(result: Record<string, unknown>): string | undefined {
  const content = Array.isArray(result.content) ? result.content : [];
  const first = content.find((c) => isObject(c) && c.type === "text") as { text?: unknown } | undefined;
  return typeof first?.text === "string" ? first.text : undefined;
}
