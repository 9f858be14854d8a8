/** JSON-RPC 2.0 as MCP uses it: message shapes, standard error codes, and the error type handlers throw. */

export type RequestId = string | number;

export interface JsonRpcRequest {
  jsonrpc: "2.0";
  id: RequestId;
  method: string;
  params?: Record<string, unknown>;
}

export interface JsonRpcNotification {
  jsonrpc: "2.0";
  method: string;
  params?: Record<string, unknown>;
}

export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

export interface JsonRpcSuccess {
  jsonrpc: "2.0";
  id: RequestId;
  result: Record<string, unknown>;
}

export interface JsonRpcFailure {
  jsonrpc: "2.0";
  /** `null` only when the request's id could not be read (parse error, invalid request). */
  id: RequestId | null;
  error: JsonRpcErrorObject;
}

export type JsonRpcResponse = JsonRpcSuccess | JsonRpcFailure;
export type JsonRpcMessage = JsonRpcRequest | JsonRpcNotification | JsonRpcResponse;

/** Error codes of JSON-RPC 2.0; MCP adds its own per version (the generated code knows those). */
export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  /** Not JSON-RPC: used locally when a request is abandoned (timeout, connection closed). */
  RequestTimeout: -32001,
  ConnectionClosed: -32000,
} as const;

/**
 * An error that crosses the wire as a JSON-RPC error object. Handlers throw it for protocol errors
 * (unknown tool → InvalidParams); any other exception becomes InternalError without its stack.
 */
export class McpError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = "McpError";
  }

  toJSON(): JsonRpcErrorObject {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }

  static from(error: JsonRpcErrorObject): McpError {
    return new McpError(error.code, error.message, error.data);
  }
}

export type Classified =
  | { kind: "request"; message: JsonRpcRequest }
  | { kind: "notification"; message: JsonRpcNotification }
  | { kind: "response"; message: JsonRpcResponse }
  /** `code`: -32600 (the default) for a malformed message, -32602 for a well-formed request with bad params. */
  | { kind: "invalid"; id: RequestId | null; reason: string; code?: number };

/** A JSON object: not null, not an array. */
export const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);
/** What MCP allows as a request id: a string or an integer (never null). */
export const isRequestId = (v: unknown): v is RequestId =>
  typeof v === "string" || (typeof v === "number" && Number.isInteger(v));

/**
 * Sorts one parsed JSON value into a JSON-RPC message kind, checking the envelope only (params are the
 * generated validators' business). MCP forbids `null` ids and requires params, when present, to be an object.
 */
export function classify(value: unknown): Classified {
  if (!isObject(value)) return { kind: "invalid", id: null, reason: "a JSON-RPC message must be an object" };
  const id = isRequestId(value.id) ? value.id : null;
  if (value.jsonrpc !== "2.0") return { kind: "invalid", id, reason: 'jsonrpc must be "2.0"' };
  if ("method" in value) {
    if (typeof value.method !== "string") return { kind: "invalid", id, reason: "method must be a string" };
    if ("params" in value && !isObject(value.params)) {
      // With a usable id the request itself is well formed and only its params are at fault: -32602, on
      // every transport (an array, a string, null, a number: MCP params are always an object).
      const code = "id" in value && id !== null ? ErrorCode.InvalidParams : ErrorCode.InvalidRequest;
      return { kind: "invalid", id, code, reason: "params must be an object" };
    }
    if (!("id" in value)) return { kind: "notification", message: value as unknown as JsonRpcNotification };
    if (id === null) return { kind: "invalid", id: null, reason: "id must be a string or an integer" };
    return { kind: "request", message: value as unknown as JsonRpcRequest };
  }
  if ("result" in value || "error" in value) {
    if ("result" in value === "error" in value) {
      return { kind: "invalid", id, reason: "a response has exactly one of result and error" };
    }
    if ("error" in value) {
      const e = value.error;
      if (!isObject(e) || !Number.isInteger(e.code) || typeof e.message !== "string") {
        return { kind: "invalid", id, reason: "error must have an integer code and a string message" };
      }
      if (value.id !== null && id === null)
        return { kind: "invalid", id: null, reason: "invalid response id" };
    } else if (id === null || !isObject(value.result)) {
      return { kind: "invalid", id, reason: "a result response needs an id and an object result" };
    }
    return { kind: "response", message: value as unknown as JsonRpcResponse };
  }
  return { kind: "invalid", id, reason: "neither a request, a notification nor a response" };
}

/** Ids of the requests among `messages` (responses and notifications have none). */
export function requestIds(messages: readonly unknown[]): RequestId[] {
  const ids: RequestId[] = [];
  for (const m of messages) {
    if (isObject(m) && typeof m.method === "string" && isRequestId(m.id)) ids.push(m.id);
  }
  return ids;
}

/** The request a `notifications/cancelled` names, when `m` is one. */
export function cancelledId(m: unknown): RequestId | undefined {
  if (!isObject(m) || m.method !== "notifications/cancelled" || !isObject(m.params)) return undefined;
  return isRequestId(m.params.requestId) ? m.params.requestId : undefined;
}
