/**
 * A transport moves JSON-RPC messages and nothing else: framing, size limits and backpressure live here,
 * protocol logic never does.
 */

import { toError } from "../util/errors.js";
import type { JsonRpcErrorObject, JsonRpcMessage, RequestId } from "./messages.js";

/**
 * A settled promise a transport returns from `start()` or `send()` when it is done at once: callers
 * that see this very promise know there is nothing to wait for or catch (no reaction is made per message).
 */
export const DONE: Promise<void> = Promise.resolve();

/** What came with a message: set by transports that know more than the bytes (HTTP auth, sessions). */
export interface MessageExtra {
  /** Result of the transport's authentication hook, handed to handlers as `ctx.auth`. */
  auth?: unknown;
  sessionId?: string;
}

/** How a message relates to the conversation, for transports that route by request (HTTP). */
export interface SendOptions {
  /**
   * The incoming request this message answers or was sent on behalf of (its response, progress, logs,
   * requests to the peer made by its handler). Streamable HTTP puts such messages on that request's
   * response stream; others go to the session's standalone stream.
   */
  relatedRequestId?: RequestId;
}

export interface Transport {
  /** Begins reading. Messages arrive through `onmessage` only after this. */
  start(): Promise<void>;
  /** Sends one message (or a JSON-RPC batch); resolves once the transport has accepted it (backpressure). */
  send(message: JsonRpcMessage | JsonRpcMessage[], options?: SendOptions): Promise<void>;
  /** Closes; `onclose` fires once, whichever side closed first. */
  close(): Promise<void>;
  /**
   * Request ids sent over this transport start with this (strings then): its peer also talks to other
   * instances of this side in the same session (Streamable HTTP behind a load balancer).
   */
  readonly requestIdPrefix?: string | undefined;

  /** One parsed JSON value per frame (object or batch array), not yet checked as JSON-RPC. */
  onmessage?: (message: unknown, extra?: MessageExtra) => void;
  /** A frame that could not be read: not JSON (-32700) or over the size limit (-32600). Answered with id null. */
  onframeerror?: (error: JsonRpcErrorObject) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;
  /**
   * The peer will send nothing more (stdin reached its end) but messages can still be sent: what is in
   * flight gets answered, then the user of the transport closes it. Transports that have no such state, or
   * whose user set no listener, close instead.
   */
  oninputend?: () => void;
}

/** Runs a user's handler; what it throws goes to `onerror`, never into the transport's own reading or closing. */
export function runHandler(transport: Pick<Transport, "onerror">, handler: () => void): void {
  try {
    handler();
  } catch (error) {
    transport.onerror?.(toError(error));
  }
}
