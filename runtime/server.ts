/**
 * The version-agnostic MCP server: lifecycle, capability gating, params/result validation and dispatch to
 * handlers by the generated method tables. The generated `server.ts` of each version adds only types.
 */

import type * as z from "zod";
import { Connection, type IncomingRequestContext, type RequestOptions } from "./jsonrpc/connection.js";
import {
  ErrorCode,
  type JsonRpcNotification,
  type JsonRpcRequest,
  McpError,
  type RequestId,
} from "./jsonrpc/messages.js";
import {
  type Capabilities,
  capabilityName,
  deriveCapabilities,
  hasCapability,
  mergeCapabilities,
} from "./lifecycle/capabilities.js";
import { negotiateVersion } from "./lifecycle/negotiate.js";
import { isLogLevel, type LogLevel, passes } from "./logging.js";
import {
  type MethodEntry,
  type ProtocolTables,
  type RequestEntry,
  RUNTIME_METHODS,
  type SupportedVersion,
} from "./protocol.js";
import type { MessageExtra, Transport } from "./transports/transport.js";
import { checkPeerResult, validationError } from "./validate.js";

const PROGRESS_SETTLE_MS = 5;

const NOT_IMPLEMENTED = Symbol.for("mcp-codegen.notImplemented");

/**
 * A placeholder handler (what `mcp-codegen init` and `generate` write for methods not yet written): it
 * type-checks as any handler, declares no capability, and answers -32601 as if absent.
 */
// biome-ignore lint/suspicious/noExplicitAny: a stub must fit every handler signature.
export function notImplemented(method: string): (...args: any[]) => never {
  const stub = () => {
    throw new McpError(ErrorCode.MethodNotFound, `Method not found: ${method} is not implemented yet`);
  };
  return Object.assign(stub, { [NOT_IMPLEMENTED]: true });
}

export const isStub = (handler: unknown): boolean =>
  typeof handler === "function" && (handler as unknown as Record<symbol, unknown>)[NOT_IMPLEMENTED] === true;

export interface ImplementationInfo {
  name: string;
  version: string;
  [key: string]: unknown;
}

/** A map of method → { params, result } as the generated protocol.ts declares them. */
export type MethodTypes = Record<string, { params: unknown; result?: unknown }>;

export interface SessionInfo {
  /** The negotiated protocol version. */
  protocolVersion: string;
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

export interface NotificationContext {
  session: SessionInfo;
  auth?: unknown;
}

// Handlers are looked up by name from the tables; their precise types live in the generated interfaces.
// biome-ignore lint/suspicious/noExplicitAny: the generated interface types every handler.
type AnyHandler = (params: any, ctx: any) => unknown;

export interface ServerOptions {
  info: ImplementationInfo;
  /** Handlers by name (`callTool`, `onRootsListChanged`); the generated ServerHandlers types them. */
  handlers: object;
  instructions?: string;
  /** Merged over the capabilities derived from the handlers (e.g. `{ tools: { listChanged: true } }`). */
  capabilities?: Capabilities;
  /** Advertise `logging` and answer `logging/setLevel` (default true). */
  logging?: boolean;
  /** Check every result against the schema before sending (default: on unless NODE_ENV is production). */
  validateResults?: boolean;
  /** Timeout of server→client requests (default 60 s). */
  requestTimeoutMs?: number;
  /** Handler crashes and other errors that are not sent to the peer (default: stderr). */
  onError?: (error: unknown) => void;
}

export interface RuntimeServerOptions extends ServerOptions {
  protocol: ProtocolTables;
}

export class Server<Out extends MethodTypes = MethodTypes, OutNotes extends MethodTypes = MethodTypes> {
  readonly capabilities: Capabilities;
  readonly protocol: ProtocolTables;
  private readonly sessionsSet = new Set<ServerSession<Out, OutNotes>>();
  private readonly handlers: Record<string, AnyHandler | undefined>;

  constructor(readonly options: RuntimeServerOptions) {
    this.protocol = options.protocol;
    this.handlers = options.handlers as Record<string, AnyHandler | undefined>;
    const derived = deriveCapabilities(Object.values(this.protocol.clientRequests), (e) => this.handles(e));
    this.capabilities = mergeCapabilities(derived, options.capabilities);
    this.validateResults = options.validateResults ?? process.env.NODE_ENV !== "production";
  }

  /**
   * Serves one client over `transport` (stdio: the only session; HTTP: one per connection). A `stateless`
   * session (stateless HTTP: one per POST) starts initialized at the given version, with unknown client.
   */
  async connect(
    transport: Transport,
    opts: { sessionId?: string; stateless?: { protocolVersion: string } } = {},
  ): Promise<ServerSession<Out, OutNotes>> {
    const session = new ServerSession<Out, OutNotes>(this, transport, opts.sessionId, opts.stateless);
    this.sessionsSet.add(session);
    session.onclose = () => this.sessionsSet.delete(session);
    await session.start();
    return session;
  }

  get sessions(): ReadonlySet<ServerSession<Out, OutNotes>> {
    return this.sessionsSet;
  }

  /** Sends a notification to every initialized session (e.g. `notifications/tools/list_changed`). */
  async notifyAll<M extends keyof OutNotes & string>(
    method: M,
    params: OutNotes[M]["params"],
  ): Promise<void> {
    await Promise.all(
      [...this.sessionsSet].filter((s) => s.initialized).map((s) => s.notify(method, params)),
    );
  }

  async close(): Promise<void> {
    await Promise.all([...this.sessionsSet].map((s) => s.close()));
  }

  /** The handler for `entry`, or undefined when absent or a `notImplemented` stub. */
  handler(entry: MethodEntry): AnyHandler | undefined {
    const handler = this.handlers[entry.handler];
    return isStub(handler) ? undefined : handler;
  }

  private handles(entry: MethodEntry): boolean {
    if (entry.method === "logging/setLevel") return this.options.logging !== false || !!this.handler(entry);
    return !!this.handler(entry);
  }

  /** Read once: `process.env` lookups are not free on a per-call path. */
  readonly validateResults: boolean;

  reportError(error: unknown): void {
    if (this.options.onError) this.options.onError(error);
    else
      process.stderr.write(
        `mcp server: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
      );
  }
}

export class ServerSession<
  Out extends MethodTypes = MethodTypes,
  OutNotes extends MethodTypes = MethodTypes,
> {
  readonly connection: Connection;
  private info: SessionInfo | undefined;
  private version: SupportedVersion | undefined;
  private logLevel: LogLevel = "debug";
  onclose?: () => void;

  constructor(
    private readonly server: Server<Out, OutNotes>,
    transport: Transport,
    readonly sessionId?: string,
    private readonly stateless?: { protocolVersion: string },
  ) {
    if (stateless) {
      this.version = negotiateVersion(stateless.protocolVersion, server.protocol.supportedVersions);
      this.info = {
        protocolVersion: this.version.version,
        clientInfo: { name: "unknown", version: "0" },
        clientCapabilities: {},
      };
    }
    this.connection = new Connection({
      transport,
      onRequest: (request, ctx) => this.onRequest(request, ctx),
      onNotification: (n, extra) => this.onNotification(n, extra),
      acceptBatches: () => this.version?.batches ?? false,
      ...(server.options.requestTimeoutMs ? { defaultTimeoutMs: server.options.requestTimeoutMs } : {}),
      onHandlerError: (error) => server.reportError(error),
    });
    this.closed = new Promise((resolve) => {
      this.connection.onclose = () => {
        this.onclose?.();
        resolve();
      };
    });
  }

  /** Settles when the session's connection has closed (stdin EOF, DELETE, close()). */
  readonly closed: Promise<void>;

  start(): Promise<void> {
    return this.connection.start();
  }

  get initialized(): boolean {
    return this.info !== undefined;
  }

  /** The negotiated version, client info and capabilities (after initialize). */
  get session(): SessionInfo | undefined {
    return this.info;
  }

  close(): Promise<void> {
    return this.connection.close();
  }

  /** A server→client request, refused locally when the client did not declare the capability it needs. */
  async request<M extends keyof Out & string>(
    method: M,
    params: Out[M]["params"],
    options?: RequestOptions,
  ): Promise<NonNullable<Out[M]["result"]>> {
    const entry = this.server.protocol.serverRequests[method];
    if (entry?.delivery !== "message") {
      throw new McpError(
        ErrorCode.MethodNotFound,
        `${method} is not a request a server sends in this protocol version`,
      );
    }
    if (entry.capability && !hasCapability(this.info?.clientCapabilities, entry.capability)) {
      throw new McpError(
        ErrorCode.MethodNotFound,
        `the client did not declare the ${capabilityName(entry.capability)} capability that ${method} needs`,
      );
    }
    const result = await this.connection.request(
      method,
      params as Record<string, unknown> | undefined,
      options,
    );
    return checkPeerResult(entry.result, method, result, "client") as NonNullable<Out[M]["result"]>;
  }

  /** A server→client notification; refused when it needs a capability this server did not declare. */
  async notify<M extends keyof OutNotes & string>(
    method: M,
    params: OutNotes[M]["params"],
    relatedRequestId?: RequestId,
  ): Promise<void> {
    const entry = this.server.protocol.serverNotifications[method];
    if (entry?.capability && !hasCapability(this.server.capabilities, entry.capability)) {
      throw new McpError(
        ErrorCode.InvalidRequest,
        `${method} needs the ${capabilityName(entry.capability)} server capability, which this server does not declare`,
      );
    }
    await this.connection.notify(method, params as Record<string, unknown> | undefined, relatedRequestId);
  }

  /** `notifications/message` at `level`, when the session's level lets it through. */
  async log(level: LogLevel, data: unknown, logger?: string, relatedRequestId?: RequestId): Promise<void> {
    if (!this.server.capabilities.logging || !this.initialized || !passes(level, this.logLevel)) return;
    await this.connection.notify(
      "notifications/message",
      { level, data, ...(logger ? { logger } : {}) },
      relatedRequestId,
    );
  }

  /**
   * Dispatch. Synchronous where the handler is: a handler that returns a plain value is answered without
   * a promise in between (the connection accepts both), which matters at tens of thousands of calls/s.
   */
  private onRequest(
    request: JsonRpcRequest,
    rc: IncomingRequestContext,
  ): Record<string, unknown> | Promise<Record<string, unknown>> {
    const { method } = request;
    const tables = this.server.protocol;
    if (method === "ping") return {};
    if (method === "initialize" && tables.lifecycle === "initialize") return this.initialize(request);
    if (!this.info) {
      throw new McpError(
        ErrorCode.InvalidRequest,
        `${method} received before initialize: initialize the session first`,
      );
    }
    const entry = tables.clientRequests[method];
    if (!entry || RUNTIME_METHODS.has(method))
      throw new McpError(ErrorCode.MethodNotFound, `Method not found: ${method}`);
    if (entry.capability && !hasCapability(this.server.capabilities, entry.capability)) {
      throw new McpError(
        ErrorCode.MethodNotFound,
        `Method not found: ${method} (this server does not offer ${capabilityName(entry.capability)})`,
      );
    }
    const params = parseParams(entry, request.params);
    const handler = this.server.handler(entry);
    if (method === "logging/setLevel") {
      const level = (params as { level?: unknown } | undefined)?.level;
      if (isLogLevel(level)) this.logLevel = level;
      if (!handler) return {};
    } else if (!handler) {
      throw new McpError(ErrorCode.MethodNotFound, `Method not found: ${method}`);
    }
    const ctx = new RequestContext<Out, OutNotes>(this, rc);
    let result: unknown;
    try {
      result = handler!(params, ctx);
    } catch (error) {
      return this.handlerError(entry, error);
    }
    if (result instanceof Promise) {
      return result.then(
        (value) => this.finish(entry, value, ctx),
        (error) => this.handlerError(entry, error),
      );
    }
    return this.finish(entry, result, ctx);
  }

  private finish(
    entry: RequestEntry,
    result: unknown,
    ctx: RequestContext<Out, OutNotes>,
  ): Record<string, unknown> | Promise<Record<string, unknown>> {
    // Clients built on the official SDK run notification handlers a microtask after reading them but
    // settle responses at once, so progress read in the same chunk as the response is dropped. A short
    // pause after the last progress (longer than a peer's wake-up) keeps them in separate reads; only
    // requests that reported progress, long-running by nature, pay it.
    if (ctx.progressSent) {
      return new Promise((resolve) => setTimeout(resolve, PROGRESS_SETTLE_MS)).then(() =>
        this.checkResult(entry, result),
      );
    }
    return this.checkResult(entry, result);
  }

  private handlerError(entry: RequestEntry, error: unknown): Record<string, unknown> {
    if (!entry.errorAsResult || error instanceof McpError) throw error;
    // Tool execution errors go back inside the result so the model can see and correct them.
    this.server.reportError(error);
    const message = error instanceof Error ? error.message : String(error);
    return { content: [{ type: "text", text: message }], isError: true };
  }

  private initialize(request: JsonRpcRequest): Record<string, unknown> {
    // A stateless session was never handshaken, so a client's initialize is answered, not refused.
    if (this.info && !this.stateless)
      throw new McpError(ErrorCode.InvalidRequest, "the session is already initialized");
    const entry = this.server.protocol.clientRequests.initialize!;
    const params = parseParams(entry, request.params) as {
      protocolVersion: string;
      capabilities: Capabilities;
      clientInfo: ImplementationInfo;
    };
    this.version = negotiateVersion(params.protocolVersion, this.server.protocol.supportedVersions);
    this.info = {
      protocolVersion: this.version.version,
      clientInfo: params.clientInfo,
      clientCapabilities: params.capabilities,
      ...(this.sessionId ? { sessionId: this.sessionId } : {}),
    };
    const { instructions } = this.server.options;
    return {
      protocolVersion: this.version.version,
      capabilities: this.server.capabilities,
      serverInfo: this.server.options.info,
      ...(instructions ? { instructions } : {}),
    };
  }

  private checkResult(entry: RequestEntry, result: unknown): Record<string, unknown> {
    if (this.server.validateResults) {
      const checked = entry.result.safeParse(result);
      if (!checked.success) {
        const error = validationError(
          ErrorCode.InternalError,
          `the ${entry.method} handler returned an invalid result`,
          checked.error,
        );
        this.server.reportError(error);
        throw error;
      }
    }
    return result as Record<string, unknown>;
  }

  private async onNotification(n: JsonRpcNotification, extra?: MessageExtra): Promise<void> {
    const entry = this.server.protocol.clientNotifications[n.method];
    if (!entry || !this.info) return;
    const handler = this.server.handler(entry);
    if (!handler) return;
    const checked = entry.params.safeParse(n.params);
    if (!checked.success) {
      this.server.reportError(
        validationError(ErrorCode.InvalidParams, `invalid ${n.method} notification`, checked.error),
      );
      return;
    }
    const ctx: NotificationContext = {
      session: this.info,
      ...(extra?.auth === undefined ? {} : { auth: extra.auth }),
    };
    await handler(checked.data, ctx);
  }
}

/**
 * A handler's context. A class rather than an object literal of closures: one allocation per request,
 * methods shared on the prototype, the progress function made only when a handler asks for it.
 */
class RequestContext<Out extends MethodTypes, OutNotes extends MethodTypes>
  implements HandlerContext<Out, OutNotes>
{
  progressSent = false;
  #progress: HandlerContext<Out, OutNotes>["progress"];

  constructor(
    private readonly owner: ServerSession<Out, OutNotes>,
    private readonly rc: IncomingRequestContext,
  ) {}

  get signal(): AbortSignal {
    return this.rc.signal;
  }

  get requestId(): RequestId {
    return this.rc.id;
  }

  get session(): SessionInfo {
    return this.owner.session!;
  }

  get auth(): unknown {
    return this.rc.extra?.auth;
  }

  get progress(): HandlerContext<Out, OutNotes>["progress"] {
    const token = this.rc.progressToken;
    if (token === undefined) return undefined;
    this.#progress ??= (progress: number, total?: number, message?: string) => {
      this.progressSent = true;
      return this.owner.connection.progress(
        token,
        {
          progress,
          ...(total === undefined ? {} : { total }),
          ...(message === undefined ? {} : { message }),
        },
        this.rc.id,
      );
    };
    return this.#progress;
  }

  log(level: LogLevel, data: unknown, logger?: string): Promise<void> {
    return this.owner.log(level, data, logger, this.rc.id);
  }

  request<M extends keyof Out & string>(
    method: M,
    params: Out[M]["params"],
    options?: RequestOptions,
  ): Promise<NonNullable<Out[M]["result"]>> {
    return this.owner.request(method, params, { relatedRequestId: this.rc.id, ...options });
  }

  notify<M extends keyof OutNotes & string>(method: M, params: OutNotes[M]["params"]): Promise<void> {
    return this.owner.notify(method, params, this.rc.id);
  }
}

function parseParams(entry: MethodEntry, params: unknown): unknown {
  const checked = (entry.params as z.ZodType).safeParse(params);
  if (!checked.success)
    throw validationError(ErrorCode.InvalidParams, `Invalid params for ${entry.method}`, checked.error);
  return checked.data;
}
