/**
 * W3C Trace Context (`traceparent`, `tracestate`) in a request's `params._meta`, as SEP-414 puts it:
 * the propagator used when the application registered none with the OpenTelemetry API, so that our
 * client and server join one trace without further setup.
 */

import {
  type Context,
  createTraceState,
  isSpanContextValid,
  type TextMapGetter,
  type TextMapPropagator,
  type TextMapSetter,
  TraceFlags,
  trace,
} from "@opentelemetry/api";

const TRACEPARENT = "traceparent";
const TRACESTATE = "tracestate";
/** version-traceid-parentid-flags; a later version may append fields after a dash. */
const TRACEPARENT_FORMAT = /^([\da-f]{2})-([\da-f]{32})-([\da-f]{16})-([\da-f]{2})(-.*)?$/;

export class MetaTraceContext implements TextMapPropagator {
  inject(context: Context, carrier: unknown, setter: TextMapSetter): void {
    const span = trace.getSpanContext(context);
    if (!span || !isSpanContextValid(span)) return;
    const flags = (span.traceFlags & TraceFlags.SAMPLED).toString(16).padStart(2, "0");
    setter.set(carrier, TRACEPARENT, `00-${span.traceId}-${span.spanId}-${flags}`);
    const state = span.traceState?.serialize();
    if (state) setter.set(carrier, TRACESTATE, state);
  }

  extract(context: Context, carrier: unknown, getter: TextMapGetter): Context {
    const parent = single(getter.get(carrier, TRACEPARENT));
    const match = parent === undefined ? null : TRACEPARENT_FORMAT.exec(parent);
    if (!match) return context;
    const [, version, traceId, spanId, flags, rest] = match;
    // Version ff is invalid; version 00 has exactly four fields.
    if (version === "ff" || (version === "00" && rest !== undefined)) return context;
    const state = single(getter.get(carrier, TRACESTATE));
    const span = {
      traceId: traceId!,
      spanId: spanId!,
      traceFlags: Number.parseInt(flags!, 16) & TraceFlags.SAMPLED,
      isRemote: true,
      ...(state ? { traceState: createTraceState(state) } : {}),
    };
    return isSpanContextValid(span) ? trace.setSpanContext(context, span) : context;
  }

  fields(): string[] {
    return [TRACEPARENT, TRACESTATE];
  }
}

const single = (value: string | string[] | undefined): string | undefined =>
  Array.isArray(value) ? value[0] : value;
