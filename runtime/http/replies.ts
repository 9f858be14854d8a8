/** Replies the handlers answer with: JSON bodies, JSON-RPC errors with their HTTP status, Responses. */

import { ErrorCode } from "../jsonrpc/messages.js";
import { STORE_RETRY_AFTER } from "../mcp/store-unavailable.js";
import type { Reply } from "./core.js";
import { HttpError, TRANSPORT_ERROR } from "./http-error.js";

export function toResponse(reply: Reply): Response {
  if (reply.sse) return new Response(reply.sse.stream, { status: reply.status, headers: reply.headers });
  return new Response(reply.body ?? null, { status: reply.status, headers: reply.headers });
}

/** Headers of a reply that adds none of its own; shared, so frozen. */
export const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({});
const JSON_ONLY: Readonly<Record<string, string>> = Object.freeze({ "content-type": "application/json" });

export function jsonReply(body: unknown, headers: Record<string, string> = NO_HEADERS, status = 200): Reply {
  const all = headers === NO_HEADERS ? JSON_ONLY : { ...headers, "content-type": "application/json" };
  return { status, headers: all, body: JSON.stringify(body) };
}

/** A JSON-RPC error object with id null: what the spec allows as the body of an HTTP error. */
export function errorReply(
  status: number,
  code: number,
  message: string,
  headers?: Record<string, string>,
): Reply {
  return jsonReply({ jsonrpc: "2.0", id: null, error: { code, message } }, headers, status);
}

export function errorResponse(
  status: number,
  code: number,
  message: string,
  headers?: Record<string, string>,
): Response {
  return toResponse(errorReply(status, code, message, headers));
}

/** An HttpError as a reply; anything else as a 500 without details (never a stack). */
export function replyForError(error: unknown, report: (error: unknown) => void): Reply {
  if (error instanceof HttpError) {
    const code = error.status === 400 ? ErrorCode.InvalidRequest : TRANSPORT_ERROR;
    return errorReply(error.status, code, error.message, error.headers);
  }
  report(error);
  return errorReply(500, ErrorCode.InternalError, "Internal error");
}

/**
 * A store the request needs could not answer: 503 with Retry-After (the client retries, here or
 * elsewhere), or the store's own HttpError (its status and headers, as a Redis store's 503 gives them).
 * The store's other errors are not shown: they may name a host; the caller reports them.
 */
export function unavailableReply(error: unknown, store = "a store the server needs"): Reply {
  if (error instanceof HttpError) return replyForError(error, () => {});
  return errorReply(503, TRANSPORT_ERROR, `Service Unavailable: ${store} did not answer`, {
    "retry-after": STORE_RETRY_AFTER,
  });
}

/** 503 with Retry-After: a handler that is closing takes nothing new (the client may retry elsewhere). */
export const shuttingDown = (): Reply =>
  errorReply(503, TRANSPORT_ERROR, "Service Unavailable: shutting down", {
    "retry-after": STORE_RETRY_AFTER,
  });
