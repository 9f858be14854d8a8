/**
 * A store the server needs cannot answer just now (a shared store whose backend is down or slow). A
 * store says so by throwing an error whose `status` is 503, as the runtime's `HttpError(503, …,
 * { "retry-after": … })` (which `RedisUnavailable` of @mcp-codegen/redis is): the request is not
 * served, nothing is consumed, and the client is told to retry. Inside the protocol layer it travels as
 * the JSON-RPC error below, which the HTTP transport answers as 503 with Retry-After when nothing of the
 * answer has gone out yet; other transports pass it on as it is.
 */

import { McpError } from "../jsonrpc/messages.js";

/** JSON-RPC code of a store that could not answer (the implementation-defined server-error range). */
export const STORE_UNAVAILABLE = -32050;

/** Seconds a client is told to wait when the store's error names none. */
export const STORE_RETRY_AFTER = "5";

interface Unavailable extends Error {
  status: 503;
  headers?: Record<string, string>;
}

/** Whether `error` is a store's "unavailable, retry later" (an error with status 503). */
export const isUnavailable = (error: unknown): error is Unavailable =>
  error instanceof Error && (error as { status?: unknown }).status === 503;

/**
 * The protocol error for a store's failure: STORE_UNAVAILABLE with the store's message (an HTTP error's
 * message is written for clients: RedisUnavailable's names no host) and the seconds to wait; any other
 * error as it is.
 */
export function storeError(error: unknown): unknown {
  if (!isUnavailable(error)) return error;
  const retryAfter = error.headers?.["retry-after"] ?? STORE_RETRY_AFTER;
  return new McpError(STORE_UNAVAILABLE, error.message, { retryAfter });
}

/** storeError(error), reporting the store's own error when it becomes STORE_UNAVAILABLE. */
export function reportedStoreError(error: unknown, report: (error: unknown) => void): unknown {
  const failure = storeError(error);
  if (failure !== error) report(error);
  return failure;
}

/** The seconds to wait that a JSON-RPC error names, when it is STORE_UNAVAILABLE. */
export function retryAfterOf(error: { code: number; data?: unknown }): string | undefined {
  if (error.code !== STORE_UNAVAILABLE) return undefined;
  const retryAfter = (error.data as { retryAfter?: unknown } | undefined)?.retryAfter;
  return typeof retryAfter === "string" ? retryAfter : STORE_RETRY_AFTER;
}
