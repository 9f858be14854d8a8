/**
 * The hook through which servers and clients report their operations to a tracing and metrics backend.
 * The runtime depends on no telemetry library: `@mcp-codegen/runtime/otel` implements this hook with
 * OpenTelemetry. Without one (the default) a request pays a single `undefined` check.
 */

import type { RequestId } from "../jsonrpc/messages.js";

/** One MCP request as telemetry sees it, when it starts. */
export interface OperationInfo {
  /** The JSON-RPC method (`tools/call`). */
  readonly method: string;
  /** The request's params as sent or received: the tool or prompt name, the resource URI, `_meta`. */
  readonly params: Record<string, unknown> | undefined;
  /** The JSON-RPC id, when known (a server knows it; a client's is chosen by its connection later). */
  readonly requestId?: RequestId | undefined;
  /** The protocol version in use, when known. */
  readonly protocolVersion?: string | undefined;
  /** The session the request belongs to (Streamable HTTP with sessions). */
  readonly sessionId?: string | undefined;
}

/** An operation in progress: a span, a timer. */
export interface TelemetryOperation {
  /** Runs `fn` with this operation as the current context, so what `fn` traces is its child. */
  run<T>(fn: () => T): T;
  /**
   * Client side: adds the operation's trace context to a request's `_meta` (`traceparent`,
   * `tracestate`; SEP-414). The object is the request's own copy.
   */
  inject(meta: Record<string, unknown>): void;
  /** The operation ended with `result`, or failed with `error` when `failed`. */
  end(result: unknown, error?: unknown, failed?: boolean): void;
}

/** Receives the operations of a Server (the requests it serves) or a Client (the requests it sends). */
export interface Telemetry {
  /**
   * A request received; its `params._meta` may carry the caller's trace context. `undefined` when
   * nothing would be recorded: the request is then served as without telemetry.
   */
  serverOperation(info: OperationInfo): TelemetryOperation | undefined;
  /** A request about to be sent; `undefined` when nothing would be recorded or propagated. */
  clientOperation(info: OperationInfo): TelemetryOperation | undefined;
}

/** Runs `fn` (synchronous or not) inside `op` and ends `op` with what it returns or throws. */
export function traced<T>(op: TelemetryOperation, fn: () => T | Promise<T>): T | Promise<T> {
  let out: T | Promise<T>;
  try {
    out = op.run(fn);
  } catch (error) {
    op.end(undefined, error, true);
    throw error;
  }
  if (out instanceof Promise) {
    return out.then(
      (value) => {
        op.end(value);
        return value;
      },
      (error: unknown) => {
        op.end(undefined, error, true);
        throw error;
      },
    );
  }
  op.end(out);
  return out;
}
