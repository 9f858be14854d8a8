/**
 * What a fetch gave back, read the same way by every HTTP client transport: a body nobody wants, an
 * error status (with the JSON-RPC error its body carried), or no answer at all (with the reason why).
 */

import type { JsonRpcErrorObject } from "../jsonrpc/messages.js";
import { messageOf } from "../util/errors.js";

/** An HTTP answer that is not a success; `error` is the JSON-RPC error its body carried, if any. */
export class HttpStatusError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly error?: JsonRpcErrorObject,
  ) {
    super(message);
    this.name = "HttpStatusError";
  }
}

/** The server answered 404 to a request carrying our session id: the session is gone. */
export class SessionExpiredError extends HttpStatusError {
  constructor(
    readonly sessionId: string,
    error?: JsonRpcErrorObject,
  ) {
    super(
      404,
      `MCP session ${sessionId} expired: the server answered 404 Not Found; initialize again to start a new session`,
      error,
    );
    this.name = "SessionExpiredError";
  }
}

/** Frees the connection of a response whose body is not wanted. */
export async function discard(response: Response): Promise<void> {
  await response.body?.cancel().catch(() => {});
}

/** `404 Not Found`, or `404` when the server sent no reason phrase (HTTP/2 never does). */
export function statusText(response: Response): string {
  return response.statusText ? `${response.status} ${response.statusText}` : String(response.status);
}

/** The JSON-RPC error object in an HTTP error body, when the body is one. */
export function rpcErrorIn(text: string): JsonRpcErrorObject | undefined {
  try {
    const value = JSON.parse(text) as { error?: { code?: unknown; message?: unknown; data?: unknown } };
    const error = value?.error;
    if (error && typeof error.code === "number" && typeof error.message === "string") {
      return error.data === undefined
        ? { code: error.code, message: error.message }
        : { code: error.code, message: error.message, data: error.data };
    }
  } catch {
    // Not JSON: the caller shows the text.
  }
  return undefined;
}

/**
 * Reads the body of an answer that is not a success into an error saying what `request` (e.g.
 * `POST <url>`) got: the JSON-RPC error the body carried, or the start of its text.
 */
export async function statusError(response: Response, request: string): Promise<HttpStatusError> {
  const text = await response.text().catch(() => "");
  const rpc = rpcErrorIn(text);
  const detail = rpc ? `: ${rpc.message} (${rpc.code})` : text ? `: ${text.slice(0, 200)}` : "";
  return new HttpStatusError(response.status, `${request} answered ${statusText(response)}${detail}`, rpc);
}

/**
 * A thrown value's message followed by its cause's: a failed fetch says only "fetch failed", and the
 * reason (ECONNREFUSED, a reset, …) is its cause.
 */
export function messageWithCause(error: unknown): string {
  const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : "";
  return `${messageOf(error)}${cause}`;
}

/** The error for a `request` (e.g. `POST <url>`) whose fetch threw: no answer came. */
export const fetchFailed = (request: string, error: unknown): Error =>
  new Error(`${request} failed: ${messageWithCause(error)}`, { cause: error });
