/** What a handler is given, on either side: the session it serves and the context of one message. */

import type { RequestOptions } from "../jsonrpc/connection.js";
import type { RequestId } from "../jsonrpc/messages.js";
import type { Capabilities } from "./capabilities.js";
import type { LogLevel } from "./logging.js";

export interface ImplementationInfo {
  name: string;
  version: string;
  [key: string]: unknown;
}

/** A map of method → { params, result } as the generated protocol.ts declares them. */
export type MethodTypes = Record<string, { params: unknown; result?: unknown }>;

export interface SessionInfo {
  /** The negotiated protocol version (stateless era: the one this request named). */
  protocolVersion: string;
  /**
   * `stateless` for a request carrying its own `_meta` (from protocol 2026-07-28: no session, client
   * info and capabilities per request); absent in a session opened with the initialize handshake.
   */
  era?: "stateless";
  /**
   * Present on a handshake-era request served without a session (Streamable HTTP with `stateless:
   * true`): no initialize reached this server, so the client's info and capabilities are unknown (not
   * none), and the server cannot send it requests (no stream to send them on, no way to get the answer).
   */
  sessionless?: true;
  clientInfo: ImplementationInfo;
  clientCapabilities: Capabilities;
  sessionId?: string;
}

export interface HandlerContext<Out extends MethodTypes, OutNotes extends MethodTypes> {
  /** Aborted when the client cancels the request or the connection closes. */
  signal: AbortSignal;
  requestId: RequestId;
  session: SessionInfo;
  /** What the transport's authentication hook returned, if any. */
  auth?: unknown;
  /** Present only when the request carried `_meta.progressToken`. */
  progress?: (progress: number, total?: number, message?: string) => Promise<void>;
  /**
   * Server side: the status message of the task this request runs as (`tasks/get` shows it; status
   * notifications carry it); outside a task it goes nowhere.
   */
  status?(message: string): Promise<void>;
  /** Sends `notifications/message` when the session's log level lets `level` through. */
  log(level: LogLevel, data: unknown, logger?: string): Promise<void>;
  /** A request to the peer, for the methods its capabilities allow. */
  request<M extends keyof Out & string>(
    method: M,
    params: Out[M]["params"],
    options?: RequestOptions,
  ): Promise<NonNullable<Out[M]["result"]>>;
  notify<M extends keyof OutNotes & string>(method: M, params: OutNotes[M]["params"]): Promise<void>;
}

export interface InputOptions {
  /**
   * The input request's key in a stateless-era InputRequiredResult (default: the helper's name and a
   * count, `elicit-1`). Keys must be stable across rounds: the retry's answers are found by them.
   */
  key?: string;
  /**
   * `createMessage` and `elicit` (2025-11-25): ask the client to run the request as a task of its own,
   * kept `ttl` ms (default: the client's). The await gives the same result as a plain request: the
   * server polls the task at the client's `pollInterval` and fetches its outcome; aborting the
   * handler's `signal` cancels it (`tasks/cancel`); a failed or cancelled task rejects. A client that
   * does not declare `capabilities.tasks.requests` for the method is sent a plain request (the result
   * is the same, and refusing would fail a call the client can answer); in the stateless era, where
   * input goes in input rounds, the option has no effect.
   */
  task?: { ttl?: number };
}

export interface NotificationContext {
  session: SessionInfo;
  auth?: unknown;
}

// Handlers are looked up by name from the tables; their precise types live in the generated interfaces.
// biome-ignore lint/suspicious/noExplicitAny: the generated interface types every handler.
export type AnyHandler = (params: any, ctx: any) => unknown;
