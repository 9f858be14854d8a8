/**
 * The hook through which servers and clients report their operations to a tracing and metrics backend.
 * The runtime depends on no telemetry library: `@mcp-codegen/runtime/otel` implements this hook with
 * OpenTelemetry. Without one (the default) a request pays a single `undefined` check.
 */

import { isObject, type RequestId } from "../jsonrpc/messages.js";

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
  /**
   * Outgoing: the incoming request it is sent for (a tool's sampling request), which parents it even
   * where the runtime has no context manager to say so.
   */
  readonly parent?: TelemetryOperation | undefined;
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

/**
 * Receives the requests a peer handles (`incoming`: a SERVER span in the conventions' terms, whichever
 * side receives) and sends (`outgoing`: a CLIENT span): a server's are the client's requests it serves
 * and its own requests to the client (sampling, elicitation, roots); a client's, the reverse.
 */
export interface Telemetry {
  /**
   * A request received; its `params._meta` may carry the sender's trace context. `undefined` when
   * nothing would be recorded: the request is then handled as without telemetry.
   */
  incoming(info: OperationInfo): TelemetryOperation | undefined;
  /** A request about to be sent; `undefined` when nothing would be recorded or propagated. */
  outgoing(info: OperationInfo): TelemetryOperation | undefined;
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

/**
 * Sends a request inside an outgoing operation: `params` get a copy of their `_meta` with the
 * operation's trace context, and the operation ends with the answer. Without an operation, `send` alone.
 */
export function sendTraced<R>(
  telemetry: Telemetry,
  info: OperationInfo,
  send: (params: Record<string, unknown> | undefined) => Promise<R>,
): Promise<R> {
  const op = telemetry.outgoing(info);
  const { params } = info;
  if (op === undefined) return send(params);
  return traced(op, (): Promise<R> => {
    const given = params?._meta;
    const meta: Record<string, unknown> = isObject(given) ? { ...given } : {};
    op.inject(meta);
    // Nothing to carry (a span that is not sampled): the params go as they came.
    if (given === undefined && Object.keys(meta).length === 0) return send(params);
    return send({ ...params, _meta: meta });
  }) as Promise<R>;
}
