/**
 * Node's http module in front of the handlers, and `serveHttp` to run an MCP server on a port in one
 * call. The runtime's own handlers are served natively: their core reads the IncomingMessage (headers,
 * the body as one Buffer) and answers on the ServerResponse (one `end` with the whole body, or SSE events
 * written to the socket as they come), no Request or Response built. Any other fetch-style handler goes
 * through IncomingMessage → Request, Response → ServerResponse.
 */

import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import {
  type CoreHandler,
  type CoreRequest,
  coreHandlerOf,
  coreOf,
  type DrainOptions,
  type Reply,
} from "../http/core.js";
import { corsPolicy, withCors } from "../http/cors.js";
import { loopbackHosts } from "../http/guards.js";
import { HttpError, TRANSPORT_ERROR } from "../http/http-error.js";
import { createLegacySseHandler } from "../http/legacy-sse.js";
import { readinessReply } from "../http/readiness.js";
import { errorReply, toResponse } from "../http/replies.js";
import {
  createStreamableHttpHandler,
  type McpHttpHandler,
  type StreamableHttpOptions,
} from "../http/streamable-http.js";
import { ErrorCode } from "../jsonrpc/messages.js";
import type { Server } from "../server/server.js";
import { onceDrained } from "./drained.js";

export { type CorsOptions, INSPECTOR_ORIGINS, originList } from "../http/cors.js";
export { type ShutdownOptions, shutdownOnSignals } from "./signals.js";

/** How long connections may stay open once every answer is written, when closing. */
const CLOSE_GRACE_MS = 1000;

export interface ServeHttpOptions extends StreamableHttpOptions {
  /** Default 0: any free port. */
  port?: number;
  /** Default 127.0.0.1; on a loopback address only loopback Host headers are accepted. */
  host?: string;
  /** The Streamable HTTP endpoint (default "/mcp"). */
  path?: string;
  /**
   * Also serve the legacy HTTP+SSE transport (before Streamable HTTP): GET /sse, POST /messages (default
   * true; false with `auth`, which the legacy transport cannot apply).
   */
  legacySse?: boolean;
  /**
   * A connection that has not sent a request's complete headers this long after it started is closed
   * (default 10 s): slow-header (slowloris) connections go while other clients keep being served.
   */
  headersTimeoutMs?: number;
  /** Receiving one whole request (headers and body) may take this long (default 60 s); answers are not bounded. */
  requestTimeoutMs?: number;
  /** An idle keep-alive connection is closed after this long (default 5 s). */
  keepAliveTimeoutMs?: number;
  /** Connections held at once; beyond it new ones are closed at once (default 10,000). */
  maxConnections?: number;
  /**
   * Where GET (or HEAD) answers whether this instance should be sent traffic (default "/readyz"; false:
   * not served): 200 when ready, 503 with Retry-After once `close` has started or while a store reports
   * itself unhealthy (see `McpHttpHandler.ready`). Exempt from auth and the Host and Origin checks (it
   * tells nothing but ready or not: a load balancer probes with its own Host), no CORS headers.
   */
  readinessPath?: string | false;
}

export const DEFAULT_HEADERS_TIMEOUT_MS = 10_000;
export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;
export const DEFAULT_KEEP_ALIVE_TIMEOUT_MS = 5_000;
export const DEFAULT_MAX_CONNECTIONS = 10_000;

export interface HttpServerHandle {
  /** `http://<host>:<port><path>` */
  url: string;
  port: number;
  handler: McpHttpHandler;
  /** The legacy HTTP+SSE handler, when served. */
  legacy?: McpHttpHandler;
  /**
   * Closes without losing an answer (see `McpHttpHandler.close`): while requests in flight finish, new
   * ones get 503 with Retry-After; then the port stops listening and connections close, any still open
   * a second later are cut. Later calls return the same promise.
   */
  close(options?: DrainOptions): Promise<void>;
}

type Listener = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * Adapts a fetch-style handler to Node. The Request's signal aborts when the client goes away; an
 * upload beyond `maxBodyBytes` is cut off (413) without being held.
 */
export function toNodeListener(
  handler: (request: Request) => Promise<Response>,
  opts: { maxBodyBytes?: number } = {},
): Listener {
  const core = coreHandlerOf(handler);
  if (core) return nativeListener(core, opts.maxBodyBytes);
  return (req, res) => {
    serve(handler, req, res, opts.maxBodyBytes).catch((error: unknown) => {
      // Only a failure to write can get here: the socket is gone or broken.
      res.destroy(error instanceof Error ? error : undefined);
    });
  };
}

async function serve(
  handler: (request: Request) => Promise<Response>,
  req: IncomingMessage,
  res: ServerResponse,
  maxBodyBytes: number | undefined,
): Promise<void> {
  const aborter = new AbortController();
  // Only a client that went away mid-response aborts: every normal end also fires "close", and an abort
  // (an exception with a stack, plus the Request signal's own event) on each one cost a quarter of a call.
  res.on("close", () => {
    if (!res.writableFinished) aborter.abort();
  });
  const response = await answerOf(
    req,
    maxBodyBytes,
    () => handler(toRequest(req, aborter.signal, maxBodyBytes)),
    toResponse,
  );
  // A body not read to its end would otherwise keep the connection busy with bytes nobody wants.
  if (!req.complete) res.shouldKeepAlive = false;
  await writeResponse(response, res);
}

// The native path

function nativeListener(core: CoreHandler, maxBodyBytes: number | undefined): Listener {
  return (req, res) => {
    serveNative(core, req, res, maxBodyBytes).catch((error: unknown) => {
      res.destroy(error instanceof Error ? error : undefined);
    });
  };
}

async function serveNative(
  core: CoreHandler,
  req: IncomingMessage,
  res: ServerResponse,
  maxBodyBytes: number | undefined,
): Promise<void> {
  const reply = await answerOf(req, maxBodyBytes, () => core(new NodeRequest(req, maxBodyBytes)), asIs);
  // A body not read to its end would otherwise keep the connection busy with bytes nobody wants.
  if (!req.complete) res.shouldKeepAlive = false;
  writeReply(reply, res);
}

const asIs = (reply: Reply): Reply => reply;

/**
 * What `handle` answers, for either adapter: a 413 without calling it when the declared length is over
 * the limit, a bare 500 when it throws. `as` turns those two replies into the adapter's answer type.
 */
async function answerOf<T>(
  req: IncomingMessage,
  maxBodyBytes: number | undefined,
  handle: () => Promise<T>,
  as: (reply: Reply) => T,
): Promise<T> {
  const declared = Number(req.headers["content-length"] ?? Number.NaN);
  if (maxBodyBytes !== undefined && declared > maxBodyBytes) {
    return as(errorReply(413, TRANSPORT_ERROR, `Payload Too Large: the body exceeds ${maxBodyBytes} bytes`));
  }
  try {
    return await handle();
  } catch {
    return as(errorReply(500, ErrorCode.InternalError, "Internal error"));
  }
}

/** An IncomingMessage as a CoreRequest: a class, not closures made per request. */
class NodeRequest implements CoreRequest {
  readonly method: string;
  readonly url: string;

  constructor(
    private readonly req: IncomingMessage,
    private readonly maxBodyBytes: number | undefined,
  ) {
    this.method = req.method ?? "GET";
    this.url = req.url ?? "/";
  }

  get remoteAddress(): string | undefined {
    return this.req.socket.remoteAddress;
  }

  header(name: string): string | null {
    const value = this.req.headers[name];
    if (value === undefined) return null;
    return Array.isArray(value) ? value.join(", ") : value;
  }

  body(maxBytes: number): Promise<Uint8Array> {
    return readNodeBody(this.req, Math.min(maxBytes, this.maxBodyBytes ?? Number.POSITIVE_INFINITY));
  }
}

/**
 * The whole body, refused (413) as soon as it passes `maxBytes`; what came so far is dropped. The
 * listeners stay on the request after it settles (they ignore what follows): the request is done with.
 */
function readNodeBody(req: IncomingMessage, maxBytes: number): Promise<Uint8Array> {
  if (req.method === "GET" || req.method === "HEAD") return Promise.resolve(new Uint8Array(0));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const fail = (error: HttpError) => {
      if (settled) return;
      settled = true;
      reject(error);
    };
    req.on("data", (chunk: Buffer) => {
      if (settled) return;
      size += chunk.byteLength;
      if (size > maxBytes) {
        req.pause(); // nothing more is read; the connection closes after the 413
        fail(new HttpError(413, `Payload Too Large: the body exceeds ${maxBytes} bytes`));
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => {
      if (settled) return;
      settled = true;
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
    });
    const unreadable = () => fail(new HttpError(400, "Bad Request: the request body could not be read"));
    req.on("error", unreadable);
    req.on("close", () => {
      if (!req.complete) unreadable();
    });
  });
}

/**
 * Status and headers, then the whole body in one `end`, or each SSE event written as it comes. The
 * headers of an SSE answer go out at once (a client waits for them), together with the events already
 * written and, when the stream has ended meanwhile, its end: one write, not three.
 */
function writeReply(reply: Reply, res: ServerResponse): void {
  if (!reply.sse) {
    res.writeHead(reply.status, reply.headers);
    res.end(reply.body);
    return;
  }
  const writer = reply.sse;
  res.writeHead(reply.status, reply.headers);
  res.on("drain", () => writer.drained());
  res.on("close", () => writer.gone());
  let sent = false; // whether a write or the end has carried the headers
  res.cork();
  try {
    writer.attach({
      write: (text) => {
        sent = true;
        return res.write(text);
      },
      end: () => {
        sent = true;
        res.end();
      },
    });
    if (!sent) res.flushHeaders();
  } finally {
    res.uncork();
  }
}

function toRequest(req: IncomingMessage, signal: AbortSignal, maxBodyBytes: number | undefined): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  // The URL's authority is our own socket's, never the Host header's: a hostile Host stays a header.
  const local = req.socket.localAddress ?? "127.0.0.1";
  const authority = local.includes(":")
    ? `[${local}]:${req.socket.localPort}`
    : `${local}:${req.socket.localPort}`;
  const url = new URL(req.url ?? "/", `http://${authority}`);
  const hasBody = req.method !== "GET" && req.method !== "HEAD";
  return new Request(url, {
    method: req.method ?? "GET",
    headers,
    signal,
    ...(hasBody ? { body: bodyStream(req, maxBodyBytes), duplex: "half" } : {}),
  } as RequestInit);
}

/** The request body as a pull stream: bytes are read from the socket only as the handler asks. */
function bodyStream(req: IncomingMessage, maxBodyBytes: number | undefined): ReadableStream<Uint8Array> {
  const iterator = req[Symbol.asyncIterator]();
  let size = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await iterator.next();
      if (done) return controller.close();
      const chunk = value as Buffer;
      size += chunk.byteLength;
      if (maxBodyBytes !== undefined && size > maxBodyBytes) {
        controller.error(new HttpError(413, `Payload Too Large: the body exceeds ${maxBodyBytes} bytes`));
        await iterator.return?.();
        return;
      }
      controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
    },
    async cancel() {
      await iterator.return?.();
    },
  });
}

/** Writes status and headers at once (an SSE client waits for them), then each body chunk as it comes. */
async function writeResponse(response: Response, res: ServerResponse): Promise<void> {
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, name) => {
    if (name !== "set-cookie") headers[name] = value;
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) headers["set-cookie"] = cookies;
  res.writeHead(response.status, headers);
  if (!response.body) {
    res.end();
    return;
  }
  res.flushHeaders();
  const reader = response.body.getReader();
  const stop = () => void reader.cancel().catch(() => {});
  res.on("close", stop);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (!res.write(value)) await new Promise<void>((resolve) => onceDrained(res, resolve));
      if (res.destroyed) return;
    }
    res.end();
  } catch {
    res.destroy();
  } finally {
    res.off("close", stop);
  }
}

/**
 * Serves `server` over Streamable HTTP at `path` (and the legacy HTTP+SSE transport at /sse and
 * /messages unless `legacySse` is false) on `host:port`; resolves once listening.
 */
export async function serveHttp(server: Server, options: ServeHttpOptions = {}): Promise<HttpServerHandle> {
  if (options.auth && options.legacySse === true) {
    throw new TypeError("the legacy HTTP+SSE transport cannot be protected by auth: leave legacySse off");
  }
  const host = options.host ?? "127.0.0.1";
  const path = options.path ?? "/mcp";
  const readinessPath = options.readinessPath ?? "/readyz";
  if (readinessPath === path) throw new TypeError(`readinessPath and path are both ${path}: give them apart`);
  const headersTimeout = options.headersTimeoutMs ?? DEFAULT_HEADERS_TIMEOUT_MS;
  const requestTimeout = Math.max(options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS, headersTimeout);
  const http = createServer({
    noDelay: true,
    headersTimeout,
    requestTimeout,
    keepAliveTimeout: options.keepAliveTimeoutMs ?? DEFAULT_KEEP_ALIVE_TIMEOUT_MS,
    // Node checks the two timeouts above on this interval (30 s by default, which would let a slow
    // connection live three times the header timeout).
    connectionsCheckingInterval: Math.max(100, Math.min(1000, Math.floor(headersTimeout / 4))),
  });
  http.maxConnections = options.maxConnections ?? DEFAULT_MAX_CONNECTIONS;
  await new Promise<void>((resolve, reject) => {
    http.once("error", reject);
    http.listen(options.port ?? 0, host, () => {
      http.off("error", reject);
      resolve();
    });
  });
  const port = (http.address() as AddressInfo).port;
  const shared = { ...options, allowedHosts: options.allowedHosts ?? loopbackHosts(host, port) };
  const handler = createStreamableHttpHandler(server, shared);
  const legacy =
    options.legacySse === false || options.auth ? undefined : createLegacySseHandler(server, shared);
  const core = coreHandlerOf(handler);
  const legacyCore = legacy && coreHandlerOf(legacy);
  let closing: Promise<void> | undefined;
  const probe: Probe | undefined =
    readinessPath === false
      ? undefined
      : {
          path: readinessPath,
          answer: async (request) => {
            if (request.method !== "GET" && request.method !== "HEAD")
              return errorReply(405, TRANSPORT_ERROR, "Method Not Allowed", { allow: "GET, HEAD" });
            const ready =
              closing === undefined && (await handler.ready()) && (!legacy || (await legacy.ready()));
            return readinessReply(ready);
          },
        };
  // A protected endpoint's metadata is served by its handler, on this listener, at its well-known addresses.
  const paths = (pathname: string) => pathname === path || options.auth?.metadataAt(pathname) !== undefined;
  // A page on an allowed origin may read this 404 too (a client probing addresses needs its status).
  const notFound = withCors(corsPolicy(options.cors), async () =>
    errorReply(404, TRANSPORT_ERROR, "Not Found"),
  );
  const listener =
    core && (!legacy || legacyCore)
      ? nativeListener(nativeRoute(paths, core, legacyCore, notFound, probe), options.maxBodyBytes)
      : toNodeListener(route(paths, handler, legacy, notFound, probe), {
          maxBodyBytes: options.maxBodyBytes,
        });
  http.on("request", listener);
  const urlHost = host.includes(":") ? `[${host}]` : host;
  return {
    url: `http://${urlHost}:${port}${path}`,
    port,
    handler,
    ...(legacy ? { legacy } : {}),
    close: (closeOptions) => {
      closing ??= (async () => {
        await Promise.all([handler.close(closeOptions), legacy?.close(closeOptions)]);
        const stopped = new Promise<void>((resolve) => http.close(() => resolve()));
        http.closeIdleConnections();
        // Every answer has been handed to its socket: give the bytes a moment to leave, then cut the rest.
        const grace = setTimeout(() => http.closeAllConnections(), CLOSE_GRACE_MS);
        await stopped;
        clearTimeout(grace);
      })();
      return closing;
    },
  };
}

/** The readiness probe: where it is served and its answer. */
interface Probe {
  path: string;
  answer: CoreHandler;
}

function route(
  path: (pathname: string) => boolean,
  handler: McpHttpHandler,
  legacy: McpHttpHandler | undefined,
  notFound: CoreHandler,
  probe: Probe | undefined,
): (request: Request) => Promise<Response> {
  return async (request) => {
    const pathname = new URL(request.url).pathname;
    if (pathname === probe?.path) return toResponse(await probe.answer(coreOf(request)));
    const target = pick(path, pathname, handler, legacy);
    return target ? target(request) : toResponse(await notFound(coreOf(request)));
  };
}

function nativeRoute(
  path: (pathname: string) => boolean,
  core: CoreHandler,
  legacy: CoreHandler | undefined,
  notFound: CoreHandler,
  probe: Probe | undefined,
): CoreHandler {
  return (request) => {
    const pathname = pathOf(request.url);
    if (pathname === probe?.path) return probe.answer(request);
    const target = pick(path, pathname, core, legacy);
    return target ? target(request) : notFound(request);
  };
}

/** Which handler serves `pathname`: the Streamable HTTP one at `path`, the legacy one at /sse and /messages. */
function pick<H>(
  path: (pathname: string) => boolean,
  pathname: string,
  main: H,
  legacy: H | undefined,
): H | undefined {
  if (path(pathname)) return main;
  if (legacy && (pathname === "/sse" || pathname === "/messages")) return legacy;
  return undefined;
}

/** The path of a request target, normalized as the URL parser would when it could differ. */
function pathOf(target: string): string {
  const query = target.indexOf("?");
  const path = query < 0 ? target : target.slice(0, query);
  if (path.startsWith("/") && !/[.%\\#]/.test(path)) return path;
  try {
    return new URL(target, "http://localhost").pathname;
  } catch {
    return "";
  }
}
