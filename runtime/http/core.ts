/**
 * The transport-neutral core of the HTTP handlers: they read a CoreRequest and answer a Reply, which
 * the web adapter turns into a Response and the Node adapter writes straight to its ServerResponse.
 */

import { readBody } from "./body.js";
import { toResponse } from "./replies.js";
import type { SseWriter } from "./sse-writer.js";

/** How closing waits for requests in flight: `timeoutMs` bounds it (default: the server's `drainTimeoutMs`, else 5 s). */
export interface DrainOptions {
  timeoutMs?: number;
}

/** What the handlers need of a request, whatever carries it. */
export interface CoreRequest {
  readonly method: string;
  /** Path and query, as in the request line. */
  readonly url: string;
  /** A header by lower-case name; several values joined by ", ". */
  header(name: string): string | null;
  /** The whole body; 413 beyond `maxBytes` (never more is held), 400 when it cannot be read. */
  body(maxBytes: number): Promise<Uint8Array>;
  /** The peer's address, where the adapter knows it (Node: the socket's; a web Request has none). */
  readonly remoteAddress?: string | undefined;
}

/** An answer: status and headers, then a complete body or an SSE stream. */
export interface Reply {
  status: number;
  headers: Record<string, string>;
  body?: string;
  sse?: SseWriter;
}

/** A web Request as a CoreRequest. */
export function coreOf(request: Request): CoreRequest {
  const url = new URL(request.url);
  return {
    method: request.method,
    url: url.pathname + url.search,
    header: (name) => request.headers.get(name),
    body: (maxBytes) => readBody(request, maxBytes),
  };
}

/** Where a handler made by handlerObject keeps its core, for adapters that skip Request and Response. */
export const CORE = Symbol("mcp-codegen.httpCore");

/** `web` is the Request itself when there is one (for `authenticate`). */
export type CoreHandler = (request: CoreRequest, web?: Request) => Promise<Reply>;

/** The core of a handler made by handlerObject, when it can be served without a web Request. */
export function coreHandlerOf(handler: unknown): CoreHandler | undefined {
  return (handler as { [CORE]?: CoreHandler } | undefined)?.[CORE];
}

/**
 * The callable handler with its methods; `sessionCount` stays a live getter. `native` false: the core
 * needs the web Request itself (an `authenticate` callback receives it), so adapters must build one.
 */
export function handlerObject(
  handle: CoreHandler,
  methods: {
    close(options?: DrainOptions): Promise<void>;
    sweep(): void;
    sessionCount(): number;
    ready(): Promise<boolean>;
  },
  native = true,
): ((request: Request) => Promise<Response>) & {
  close(options?: DrainOptions): Promise<void>;
  sweep(): void;
  ready(): Promise<boolean>;
  readonly sessionCount: number;
} {
  const fn = async (request: Request) => toResponse(await handle(coreOf(request), request));
  Object.defineProperty(fn, "sessionCount", { get: methods.sessionCount, enumerable: true });
  if (native) Object.defineProperty(fn, CORE, { value: handle });
  return Object.assign(fn, {
    close: methods.close,
    sweep: methods.sweep,
    ready: methods.ready,
  }) as ReturnType<typeof handlerObject>;
}
