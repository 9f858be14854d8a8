/**
 * The version-agnostic MCP server: lifecycle, capability gating, params/result validation and dispatch to
 * handlers by the generated method tables. The generated `server.ts` of each version adds only types.
 */

import {
  Connection,
  type ConnectionOptions,
  type IncomingRequestContext,
  type RequestOptions,
} from "../jsonrpc/connection.js";
import {
  ErrorCode,
  type JsonRpcNotification,
  type JsonRpcRequest,
  McpError,
  type RequestId,
} from "../jsonrpc/messages.js";
import { DONE, type MessageExtra, type Transport } from "../jsonrpc/transport.js";
import {
  type Capabilities,
  capabilityName,
  deriveCapabilities,
  hasCapability,
  mergeCapabilities,
} from "../mcp/capabilities.js";
import { assertValid, checkPeerResult, invalid, invalidNotification } from "../mcp/check-errors.js";
import { INPUT_PENDING, type InputRequest, isInputRequired, Round } from "../mcp/input-rounds.js";
import { isLogLevel, type LogLevel, passes } from "../mcp/logging.js";
import { negotiateVersion } from "../mcp/negotiate.js";
import { ToolHeaderParams } from "../mcp/param-headers.js";
import {
  hasRequestMeta,
  META,
  missingCapability,
  RESULT_TYPE,
  type RequestMeta,
  readRequestMeta,
  unsupportedVersion,
} from "../mcp/request-meta.js";
import { type RoundState, StateSealer } from "../mcp/state-sealer.js";
import {
  type MethodEntry,
  type ProtocolTables,
  type RequestEntry,
  RUNTIME_METHODS,
  type SupportedVersion,
} from "../mcp/tables.js";
import { LinkedSet } from "../util/collections.js";
import { agreedFilter, type SubscriptionFilter, Subscriptions } from "./listen.js";

export { inputRequired } from "../mcp/input-rounds.js";

/**
 * Pause between a request's last progress notification and its response (see finish()). 5 ms lost the race
 * on a loaded 2-core CI machine (typescript-sdk#2580); only requests that reported progress pay it.
 */
const PROGRESS_SETTLE_MS = 25;
/** Rounds of input a handler may ask of a handshake-era client in one request (see runHandshake). */
const MAX_INPUT_ROUNDS = 16;

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
  /** The negotiated protocol version (stateless era: the one this request named). */
  protocolVersion: string;
  /**
   * `stateless` for a request carrying its own `_meta` (from protocol 2026-07-28: no session, client
   * info and capabilities per request); absent in a session opened with the initialize handshake.
   */
  era?: "stateless";
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

export interface InputOptions {
  /**
   * The input request's key in a stateless-era InputRequiredResult (default: the helper's name and a
   * count, `elicit-1`). Keys must be stable across rounds: the retry's answers are found by them.
   */
  key?: string;
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
  /**
   * Stateless era: caching hints added to list and read results that carry none (default `ttlMs: 0`,
   * `cacheScope: "private"`: immediately stale, never shared across users).
   */
  cache?: { ttlMs: number; cacheScope: "public" | "private" };
  /**
   * Stateless era: the HMAC key sealing `requestState` (default: random per process). Servers behind a
   * load balancer share one so a retry may reach another instance.
   */
  stateSecret?: string | Uint8Array;
  /** Stateless era: how long a sealed `requestState` stays valid (default 10 minutes). */
  stateTtlMs?: number;
}

export interface RuntimeServerOptions extends ServerOptions {
  protocol: ProtocolTables;
}

export class Server<Out extends MethodTypes = MethodTypes, OutNotes extends MethodTypes = MethodTypes> {
  /** What the server advertises: in `initialize` results (handshake era) and `server/discover` (stateless). */
  readonly capabilities: Capabilities;
  readonly protocol: ProtocolTables;
  /** Tables of the stateless era (`server/discover`, per-request `_meta`), when the code has one. */
  readonly statelessTables: ProtocolTables | undefined;
  /** Tables of the initialize-handshake era, when the code has one. */
  readonly handshake: ProtocolTables | undefined;
  /** Capabilities advertised to handshake-era clients (they differ: logging/setLevel, subscribe). */
  readonly handshakeCapabilities: Capabilities;
  readonly subscriptions = new Subscriptions();
  readonly sealer: StateSealer;
  /** Versions a stateless request may name (what discover lists and -32022 reports). */
  readonly statelessVersions: readonly string[];
  /** `_meta` of every stateless-era result: the server names itself. */
  readonly resultMeta: Readonly<Record<string, unknown>>;
  /** Caching hints for results that carry none. */
  readonly cacheHints: { readonly ttlMs: number; readonly cacheScope: "public" | "private" };
  /**
   * Tools' `x-mcp-header` parameters, learned from the tools/list results this server sent: the HTTP
   * transport checks a call's `Mcp-Param-*` headers against its arguments by them.
   */
  readonly toolHeaders = new ToolHeaderParams();
  private readonly live = new LinkedSet<ServerSession<Out, OutNotes>>();
  private readonly handlers: Record<string, AnyHandler | undefined>;

  constructor(readonly options: RuntimeServerOptions) {
    this.protocol = options.protocol;
    this.statelessTables = options.protocol.lifecycle === "discover" ? options.protocol : undefined;
    this.handshake = options.protocol.lifecycle === "initialize" ? options.protocol : options.protocol.legacy;
    this.handlers = options.handlers as Record<string, AnyHandler | undefined>;
    const capsOf = (tables: ProtocolTables) => {
      const derived = deriveCapabilities(Object.values(tables.clientRequests), (e) => this.handles(e));
      // The stateless era has no logging/setLevel to derive logging from: the option alone decides.
      if (
        tables.lifecycle === "discover" &&
        options.logging !== false &&
        "notifications/message" in tables.serverNotifications
      )
        derived.logging = {};
      return mergeCapabilities(derived, options.capabilities);
    };
    this.capabilities = capsOf(this.protocol);
    this.handshakeCapabilities = this.handshake ? capsOf(this.handshake) : this.capabilities;
    this.validateResults = options.validateResults ?? process.env.NODE_ENV !== "production";
    this.sealer = new StateSealer(options.stateSecret, options.stateTtlMs ?? 10 * 60_000);
    this.statelessVersions = this.statelessTables?.supportedVersions.map((v) => v.version) ?? [];
    this.resultMeta = { [META.serverInfo]: options.info };
    this.cacheHints = options.cache ?? { ttlMs: 0, cacheScope: "private" };
    addInputHelpers([this.protocol, ...(this.protocol.legacy ? [this.protocol.legacy] : [])]);
  }

  /**
   * Serves one client over `transport` (stdio: the only session; HTTP: one per connection). A `stateless`
   * session (stateless HTTP: one per POST) starts initialized at the given version, with unknown client.
   * `era` pins the session to one era (HTTP decides per request); otherwise a session is stateless-era
   * while its requests carry per-request `_meta` and handshake-era once it is initialized.
   */
  async connect(transport: Transport, opts: ConnectOptions = {}): Promise<ServerSession<Out, OutNotes>> {
    const session = this.session(transport, opts);
    await session.start();
    return session;
  }

  /**
   * @internal connect() for a transport whose start() has nothing to wait for (an HTTP session): the
   * session is served at once, no promise on the way.
   */
  open(transport: Transport, opts: ConnectOptions = {}): ServerSession<Out, OutNotes> {
    const session = this.session(transport, opts);
    const started = session.start();
    if (started !== DONE) started.catch((error: unknown) => this.reportError(error));
    return session;
  }

  private session(transport: Transport, opts: ConnectOptions): ServerSession<Out, OutNotes> {
    const session = new ServerSession<Out, OutNotes>(
      this,
      transport,
      opts.sessionId,
      opts.stateless,
      opts.era,
    );
    this.live.add(session);
    return session;
  }

  /**
   * @internal What a stateless session (one POST, no initialize) knows of its client: nothing but the
   * version. One frozen object per version, shared by all such sessions.
   */
  statelessInfo(protocolVersion: string): SessionInfo {
    let info = this.statelessInfos.get(protocolVersion);
    if (!info) {
      info = Object.freeze({
        protocolVersion,
        clientInfo: Object.freeze({ name: "unknown", version: "0" }),
        clientCapabilities: Object.freeze({}),
      });
      this.statelessInfos.set(protocolVersion, info);
    }
    return info;
  }
  private readonly statelessInfos = new Map<string, SessionInfo>();

  /** @internal A session's connection closed. */
  forget(session: ServerSession<Out, OutNotes>): void {
    this.live.delete(session);
  }

  /** The live sessions, as a snapshot. */
  get sessions(): ReadonlySet<ServerSession<Out, OutNotes>> {
    return new Set(this.live);
  }

  /**
   * Sends a notification to every initialized handshake-era session and to every stateless-era
   * `subscriptions/listen` stream that asked for it (e.g. `notifications/tools/list_changed`).
   */
  async notifyAll<M extends keyof OutNotes & string>(
    method: M,
    params: OutNotes[M]["params"],
  ): Promise<void> {
    await Promise.all([
      ...this.live
        .values()
        .filter((s) => s.initialized)
        .map((s) => s.notify(method, params)),
      this.subscriptions.deliver(method, params as Record<string, unknown> | undefined),
    ]);
  }

  async close(): Promise<void> {
    this.subscriptions.endAll();
    await Promise.all(this.live.values().map((s) => s.close()));
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

  /** An internal error of the server's own making (a handler breaking a rule): reported, then thrown. */
  fault(message: string): McpError {
    const error = new McpError(ErrorCode.InternalError, message);
    this.reportError(error);
    return error;
  }
}

export interface ConnectOptions {
  sessionId?: string;
  stateless?: { protocolVersion: string };
  era?: Era;
}

/** Which lifecycle a session or request follows. */
export type Era = "handshake" | "stateless";

/**
 * What a session's Connection calls back, as methods on a prototype rather than closures made per
 * session: an HTTP server may hold thousands of idle sessions.
 */
class SessionCallbacks implements ConnectionOptions {
  readonly defaultTimeoutMs: number | undefined;

  constructor(
    private readonly session: ServerSession<MethodTypes, MethodTypes>,
    readonly transport: Transport,
  ) {
    this.defaultTimeoutMs = session.server.options.requestTimeoutMs || undefined;
  }

  onRequest(
    request: JsonRpcRequest,
    ctx: IncomingRequestContext,
  ): Record<string, unknown> | Promise<Record<string, unknown>> {
    return this.session.serve(request, ctx);
  }

  onNotification(n: JsonRpcNotification, extra?: MessageExtra): Promise<void> {
    return this.session.receive(n, extra);
  }

  acceptBatches(): boolean {
    return this.session.batches;
  }

  onHandlerError(error: unknown): void {
    this.session.server.reportError(error);
  }

  onClose(): void {
    this.session.ended();
  }
}

export class ServerSession<
  Out extends MethodTypes = MethodTypes,
  OutNotes extends MethodTypes = MethodTypes,
> {
  readonly connection: Connection;
  /** @internal The server's list of live sessions runs through these. */
  linkPrev?: ServerSession<Out, OutNotes>;
  /** @internal */
  linkNext?: ServerSession<Out, OutNotes>;
  private info: SessionInfo | undefined;
  private version: SupportedVersion | undefined;
  private logLevel: LogLevel = "debug";
  onclose?: () => void;

  constructor(
    /** @internal */
    readonly server: Server<Out, OutNotes>,
    transport: Transport,
    readonly sessionId?: string,
    private readonly stateless?: { protocolVersion: string },
    private readonly era?: Era,
  ) {
    if (stateless && server.handshake) {
      this.version = negotiateVersion(stateless.protocolVersion, server.handshake.supportedVersions);
      this.info = server.statelessInfo(this.version.version);
    }
    this.connection = new Connection(new SessionCallbacks(this, transport));
  }

  #ended = false;
  #closed: Promise<void> | undefined;
  #settleClosed: (() => void) | undefined;

  /**
   * Settles when the session's connection has closed (stdin EOF, DELETE, close()). Made when first asked
   * for: most sessions of an HTTP server are never awaited.
   */
  get closed(): Promise<void> {
    this.#closed ??= this.#ended
      ? Promise.resolve()
      : new Promise((resolve) => {
          this.#settleClosed = resolve;
        });
    return this.#closed;
  }

  /** @internal The connection closed: the server forgets the session, then whoever waits hears of it. */
  ended(): void {
    this.#ended = true;
    this.server.forget(this);
    try {
      this.onclose?.();
    } finally {
      this.#settleClosed?.();
    }
  }

  start(): Promise<void> {
    return this.connection.start();
  }

  /** @internal Whether the negotiated version allows JSON-RPC batches. */
  get batches(): boolean {
    return this.version?.batches ?? false;
  }

  /** Whether the initialize handshake happened (handshake era). */
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
    const entry = this.server.handshake?.serverRequests[method];
    if (!this.initialized || entry?.delivery !== "message") {
      throw new McpError(
        ErrorCode.MethodNotFound,
        `${method} is not a request a server sends to this client (stateless-era clients are asked through input requests)`,
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
    const entry = (this.server.handshake ?? this.server.protocol).serverNotifications[method];
    if (entry?.capability && !hasCapability(this.server.handshakeCapabilities, entry.capability)) {
      throw new McpError(
        ErrorCode.InvalidRequest,
        `${method} needs the ${capabilityName(entry.capability)} server capability, which this server does not declare`,
      );
    }
    await this.connection.notify(method, params as Record<string, unknown> | undefined, relatedRequestId);
  }

  /** `notifications/message` at `level`, when `minimum` (the session's or the request's) lets it through. */
  async log(
    level: LogLevel,
    data: unknown,
    logger?: string,
    relatedRequestId?: RequestId,
    minimum: LogLevel | undefined = this.initialized ? this.logLevel : undefined,
  ): Promise<void> {
    if (!this.server.capabilities.logging || minimum === undefined || !passes(level, minimum)) return;
    await this.connection.notify(
      "notifications/message",
      { level, data, ...(logger ? { logger } : {}) },
      relatedRequestId,
    );
  }

  /** Whether `request` follows the stateless era: by the session's pin, its handshake, or the request's `_meta`. */
  private isStateless(request: JsonRpcRequest): boolean {
    if (!this.server.statelessTables) return false;
    if (!this.server.handshake || this.era === "stateless") return true;
    if (this.era === "handshake" || this.info) return false;
    return request.method !== "initialize" && hasRequestMeta(request.params);
  }

  /**
   * @internal The Connection's request callback (through SessionCallbacks). Synchronous where the
   * handler is: a handler that returns a plain value is answered without a promise in between (the
   * connection accepts both), which matters at tens of thousands of calls/s.
   */
  serve(
    request: JsonRpcRequest,
    rc: IncomingRequestContext,
  ): Record<string, unknown> | Promise<Record<string, unknown>> {
    if (this.isStateless(request)) return this.onStatelessRequest(request, rc, this.server.statelessTables!);
    const { method } = request;
    const tables = this.server.handshake!;
    if (method === "ping") return {};
    if (method === "initialize") return this.initialize(request);
    if (!this.info) {
      throw new McpError(
        ErrorCode.InvalidRequest,
        `${method} received before initialize: initialize the session first`,
      );
    }
    const entry = tables.clientRequests[method];
    if (!entry || RUNTIME_METHODS.has(method))
      throw new McpError(ErrorCode.MethodNotFound, `Method not found: ${method}`);
    if (entry.capability && !hasCapability(this.server.handshakeCapabilities, entry.capability)) {
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
    return this.runHandshake(entry, params as Record<string, unknown>, handler!, rc, 0);
  }

  /**
   * Runs a handshake-era handler. Synchronous where the handler is. A handler written for the stateless
   * era may return an InputRequiredResult: the server then asks the client itself (requests on this
   * session) and runs the handler again with the answers and its requestState, as a stateless client's
   * retry would; the state never leaves the server.
   */
  private runHandshake(
    entry: RequestEntry,
    params: Record<string, unknown>,
    handler: AnyHandler,
    rc: IncomingRequestContext,
    round: number,
  ): Record<string, unknown> | Promise<Record<string, unknown>> {
    const ctx = new RequestContext<Out, OutNotes>(this, rc, this.info!, undefined);
    let result: unknown;
    try {
      result = handler(params, ctx);
    } catch (error) {
      return this.handlerError(entry, error);
    }
    if (result instanceof Promise) {
      return result.then(
        (value) => this.handshakeSettled(entry, params, handler, rc, round, ctx, value),
        (error) => this.handlerError(entry, error),
      );
    }
    return this.handshakeSettled(entry, params, handler, rc, round, ctx, result);
  }

  private handshakeSettled(
    entry: RequestEntry,
    params: Record<string, unknown>,
    handler: AnyHandler,
    rc: IncomingRequestContext,
    round: number,
    ctx: RequestContext<Out, OutNotes>,
    value: unknown,
  ): Record<string, unknown> | Promise<Record<string, unknown>> {
    if (!isInputRequired(value)) return this.finish(entry, value, ctx);
    if (!this.server.statelessTables?.clientRequests[entry.method]?.inputRequired)
      throw this.server.fault(
        `the ${entry.method} handler returned an InputRequiredResult, which ${entry.method} may not`,
      );
    if (round >= MAX_INPUT_ROUNDS)
      throw this.server.fault(
        `the ${entry.method} handler asked for input more than ${MAX_INPUT_ROUNDS} times`,
      );
    return this.askHere(value, rc).then((inputResponses) => {
      const retry: Record<string, unknown> = { ...params, inputResponses };
      if (value.requestState === undefined) delete retry.requestState;
      else retry.requestState = value.requestState;
      return this.runHandshake(entry, retry, handler, rc, round + 1);
    });
  }

  /** The client's answers to a handler's input requests, asked as requests on this session. */
  private async askHere(
    returned: { inputRequests?: Record<string, InputRequest> },
    rc: IncomingRequestContext,
  ): Promise<Record<string, unknown>> {
    const answers: Record<string, unknown> = {};
    for (const [key, request] of Object.entries(returned.inputRequests ?? {})) {
      answers[key] = await this.requestInput(request.method, request.params, rc.id);
    }
    return answers;
  }

  /**
   * A stateless-era request: method first (removed and unknown methods are -32601 whatever their
   * params), then the per-request `_meta` (-32602), the version (-32022), capability gating, params, and
   * the handler; results gain `resultType`, caching hints and the server's identity.
   */
  private onStatelessRequest(
    request: JsonRpcRequest,
    rc: IncomingRequestContext,
    tables: ProtocolTables,
  ): Record<string, unknown> | Promise<Record<string, unknown>> {
    const { method } = request;
    const entry = tables.clientRequests[method];
    if (!entry) throw new McpError(ErrorCode.MethodNotFound, `Method not found: ${method}`);
    const meta = readRequestMeta(request.params);
    const supported = this.server.statelessVersions;
    if (!supported.includes(meta.protocolVersion)) throw unsupportedVersion(meta.protocolVersion, supported);
    if (meta.logLevel !== undefined && !isLogLevel(meta.logLevel))
      throw new McpError(ErrorCode.InvalidParams, `Invalid params: unknown log level "${meta.logLevel}"`);
    if (entry.capability && !hasCapability(this.server.capabilities, entry.capability)) {
      throw new McpError(
        ErrorCode.MethodNotFound,
        `Method not found: ${method} (this server does not offer ${capabilityName(entry.capability)})`,
      );
    }
    const params = parseParams(entry, request.params) as Record<string, unknown>;
    if (method === "server/discover") return this.discover(tables);
    if (method === "subscriptions/listen") return this.listen(params, rc);
    const handler = this.server.handler(entry);
    if (!handler || RUNTIME_METHODS.has(method))
      throw new McpError(ErrorCode.MethodNotFound, `Method not found: ${method}`);

    const info: SessionInfo = {
      protocolVersion: meta.protocolVersion,
      era: "stateless",
      clientInfo: meta.clientInfo ?? { name: "unknown", version: "0" },
      clientCapabilities: meta.clientCapabilities,
    };
    if (!entry.inputRequired)
      return this.runStateless(entry, params, handler, rc, info, meta, tables, undefined);
    if (params.requestState === undefined)
      return this.runStateless(entry, params, handler, rc, info, meta, tables, this.openRound(entry, params));
    return this.server.sealer
      .open(params.requestState, entry.method, targetOf(params))
      .then((state) =>
        this.runStateless(
          entry,
          params,
          handler,
          rc,
          info,
          meta,
          tables,
          this.openRound(entry, params, state),
        ),
      );
  }

  private runStateless(
    entry: RequestEntry,
    params: Record<string, unknown>,
    handler: AnyHandler,
    rc: IncomingRequestContext,
    info: SessionInfo,
    meta: RequestMeta,
    tables: ProtocolTables,
    round: Round | undefined,
  ): Record<string, unknown> | Promise<Record<string, unknown>> {
    const ctx = new RequestContext<Out, OutNotes>(this, rc, info, { meta, tables, round });
    let result: unknown;
    try {
      result = handler(params, ctx);
    } catch (error) {
      return this.statelessSettled(entry, params, ctx, { error });
    }
    if (result instanceof Promise) {
      return result.then(
        (value) => this.statelessSettled(entry, params, ctx, { value }),
        (error) => this.statelessSettled(entry, params, ctx, { error }),
      );
    }
    return this.statelessSettled(entry, params, ctx, { value: result });
  }

  /** The input state of a retried request: sealed earlier answers plus this retry's inputResponses. */
  private openRound(entry: RequestEntry, params: Record<string, unknown>, state?: RoundState): Round {
    if (state) {
      // The handler sees only its own state (or none), never the runtime's envelope.
      if (state.user === undefined) delete params.requestState;
      else params.requestState = state.user;
    }
    const responses = (params.inputResponses ?? {}) as Record<string, unknown>;
    const stateless = this.server.statelessTables!;
    // Answers to what the last round asked are checked now; others when a handler reads them.
    for (const [key, method] of Object.entries(state?.asked ?? {})) {
      if (key in responses) checkInputResponse(stateless, method, key, responses[key]);
    }
    return new Round({ ...state?.answers, ...responses });
  }

  private statelessSettled(
    entry: RequestEntry,
    params: Record<string, unknown>,
    ctx: RequestContext<Out, OutNotes>,
    outcome: { value: unknown } | { error: unknown },
  ): Record<string, unknown> | Promise<Record<string, unknown>> {
    const round = ctx.round;
    // A handler awaiting input it lacks ends in INPUT_PENDING (or in whatever it made of it): the
    // questions it asked are the answer, whatever it returned.
    if (round && round.pending.size > 0) return this.askForInput(entry, params, round, undefined);
    if ("error" in outcome) {
      if (outcome.error === INPUT_PENDING)
        throw this.server.fault(`${entry.method}: input requested outside a request that may ask for it`);
      return this.finish(entry, this.decorate(entry, this.handlerError(entry, outcome.error)), ctx);
    }
    const { value } = outcome;
    if (isInputRequired(value)) {
      if (!round)
        throw this.server.fault(
          `the ${entry.method} handler returned an InputRequiredResult, which ${entry.method} may not`,
        );
      return this.askForInput(entry, params, round, value);
    }
    return this.finish(entry, this.decorate(entry, value as Record<string, unknown>), ctx);
  }

  /** An InputRequiredResult from the handler's questions (and its own result, if it returned one). */
  private askForInput(
    entry: RequestEntry,
    params: Record<string, unknown>,
    round: Round,
    returned: { inputRequests?: Record<string, InputRequest>; requestState?: string } | undefined,
  ): Promise<Record<string, unknown>> {
    const requests: Record<string, InputRequest> = {
      ...returned?.inputRequests,
      ...Object.fromEntries(round.pending),
    };
    const stateless = this.server.statelessTables!;
    const caps = (params._meta as Record<string, unknown>)[META.clientCapabilities] as Capabilities;
    for (const request of Object.values(requests)) {
      const input = stateless.serverRequests[request.method];
      if (input?.delivery !== "input") {
        throw new McpError(
          ErrorCode.InternalError,
          `${request.method} is not an input request a server may send`,
        );
      }
      if (input.capability && !hasCapability(caps, input.capability)) {
        throw missingCapability({ [input.capability.path[0]!]: {} }, capabilityName(input.capability));
      }
    }
    const asked = Object.fromEntries(Object.entries(requests).map(([k, r]) => [k, r.method]));
    const state: RoundState = {
      method: entry.method,
      target: targetOf(params),
      answers: round.consumed,
      asked,
      ...(returned?.requestState === undefined ? {} : { user: returned.requestState }),
      expires: Date.now() + this.server.sealer.ttlMs,
    };
    return this.server.sealer.seal(state).then((requestState) => ({
      resultType: RESULT_TYPE.inputRequired,
      ...(Object.keys(requests).length > 0 ? { inputRequests: requests } : {}),
      requestState,
      _meta: this.server.resultMeta,
    }));
  }

  /** `resultType`, caching hints where the method's result carries them, and the server's identity. */
  private decorate(entry: RequestEntry, result: Record<string, unknown>): Record<string, unknown> {
    const out: Record<string, unknown> = { ...result };
    out.resultType ??= RESULT_TYPE.complete;
    if (entry.cacheable) {
      const cache = this.server.cacheHints;
      out.ttlMs ??= cache.ttlMs;
      out.cacheScope ??= cache.cacheScope;
    }
    out._meta = { ...this.server.resultMeta, ...(result._meta as Record<string, unknown> | undefined) };
    if (entry.method === "tools/list" && Array.isArray(out.tools)) this.server.toolHeaders.admit(out.tools);
    return out;
  }

  private discover(tables: ProtocolTables): Record<string, unknown> {
    const { instructions } = this.server.options;
    return this.decorate(tables.clientRequests["server/discover"]!, {
      supportedVersions: this.server.statelessVersions,
      capabilities: this.server.capabilities,
      ...(instructions ? { instructions } : {}),
    });
  }

  /**
   * `subscriptions/listen`: acknowledge the agreed filter first, then deliver matching notifications on
   * this request's stream until the client cancels it or the server closes (which answers it).
   */
  private async listen(
    params: Record<string, unknown>,
    rc: IncomingRequestContext,
  ): Promise<Record<string, unknown>> {
    const requested = (params.notifications ?? {}) as SubscriptionFilter;
    const filter = agreedFilter(requested, this.server.capabilities);
    const tag = { [META.subscriptionId]: rc.id };
    await this.connection.notify(
      "notifications/subscriptions/acknowledged",
      { _meta: tag, notifications: filter },
      rc.id,
    );
    return new Promise((resolve) => {
      const remove = this.server.subscriptions.add({
        id: rc.id,
        filter,
        send: (method, p) => this.connection.notify(method, p, rc.id),
        end: () => {
          remove();
          resolve({ resultType: RESULT_TYPE.complete, _meta: { ...this.server.resultMeta, ...tag } });
        },
      });
      rc.signal.addEventListener("abort", () => remove(), { once: true });
    });
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
    const tables = this.server.handshake!;
    const entry = tables.clientRequests.initialize!;
    const params = parseParams(entry, request.params) as {
      protocolVersion: string;
      capabilities: Capabilities;
      clientInfo: ImplementationInfo;
    };
    this.version = negotiateVersion(params.protocolVersion, tables.supportedVersions);
    this.info = {
      protocolVersion: this.version.version,
      clientInfo: params.clientInfo,
      clientCapabilities: params.capabilities,
      ...(this.sessionId ? { sessionId: this.sessionId } : {}),
    };
    const { instructions } = this.server.options;
    return {
      protocolVersion: this.version.version,
      capabilities: this.server.handshakeCapabilities,
      serverInfo: this.server.options.info,
      ...(instructions ? { instructions } : {}),
    };
  }

  private checkResult(entry: RequestEntry, result: unknown): Record<string, unknown> {
    if (this.server.validateResults) {
      const message = `the ${entry.method} handler returned an invalid result`;
      const error = invalid(entry.result, result, ErrorCode.InternalError, message);
      if (error) {
        this.server.reportError(error);
        throw error;
      }
    }
    return result as Record<string, unknown>;
  }

  /** @internal The Connection's notification callback (through SessionCallbacks). */
  async receive(n: JsonRpcNotification, extra?: MessageExtra): Promise<void> {
    const tables = this.server.handshake ?? this.server.protocol;
    const entry = tables.clientNotifications[n.method];
    if (!entry || !this.info) return;
    const handler = this.server.handler(entry);
    if (!handler) return;
    const error = invalidNotification(entry, n);
    if (error) {
      this.server.reportError(error);
      return;
    }
    const ctx: NotificationContext = {
      session: this.info,
      ...(extra?.auth === undefined ? {} : { auth: extra.auth }),
    };
    await handler(n.params, ctx);
  }

  /** Sends an input request (server→client request) for a handshake-era handler. */
  requestInput(method: string, params: unknown, relatedRequestId: RequestId): Promise<unknown> {
    return this.request(method as keyof Out & string, params as Out[keyof Out & string]["params"], {
      relatedRequestId,
    });
  }
}

/** What a stateless-era request brings to its handler's context. */
interface StatelessRequest {
  meta: RequestMeta;
  tables: ProtocolTables;
  round: Round | undefined;
}

/**
 * A handler's context. A class rather than an object literal of closures: one allocation per request,
 * methods shared on the prototype, the progress function made only when a handler asks for it. The
 * input helpers (`elicit`, `createMessage`, `listRoots`: one per server→client request in the tables)
 * are added to the prototype by name from the tables.
 */
class RequestContext<Out extends MethodTypes, OutNotes extends MethodTypes>
  implements HandlerContext<Out, OutNotes>
{
  progressSent = false;
  #progress: HandlerContext<Out, OutNotes>["progress"];

  constructor(
    private readonly owner: ServerSession<Out, OutNotes>,
    private readonly rc: IncomingRequestContext,
    readonly session: SessionInfo,
    private readonly stateless: StatelessRequest | undefined,
  ) {}

  get round(): Round | undefined {
    return this.stateless?.round;
  }

  get signal(): AbortSignal {
    return this.rc.signal;
  }

  get requestId(): RequestId {
    return this.rc.id;
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
    if (this.stateless) {
      // Stateless era: only when this request asked for logs, at its own level.
      const minimum = this.stateless.meta.logLevel as LogLevel | undefined;
      return this.owner.log(level, data, logger, this.rc.id, minimum);
    }
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

  /**
   * Input from the client, one API in both eras: a server→client request in the handshake era; in the
   * stateless era the answer replayed from an earlier round, or a question for this round's
   * InputRequiredResult (the handler then ends, and runs again when the client retries).
   */
  input(method: string, handlerName: string, params: unknown, options?: InputOptions): Promise<unknown> {
    if (!this.stateless) return this.owner.requestInput(method, params, this.rc.id);
    const round = this.stateless.round;
    if (!round) {
      return Promise.reject(
        new McpError(ErrorCode.InternalError, `${method}: this request cannot ask the client for input`),
      );
    }
    const key = round.keyFor(handlerName, options?.key);
    if (key in round.answers) {
      try {
        const answer = checkInputResponse(this.stateless.tables, method, key, round.answers[key]);
        round.consumed[key] = answer;
        return Promise.resolve(answer);
      } catch (error) {
        return Promise.reject(error);
      }
    }
    round.pending.set(key, { method, ...(params === undefined ? {} : { params }) });
    const pending = Promise.reject(INPUT_PENDING);
    pending.catch(() => {});
    return pending;
  }
}

/** The input helpers of a context, named after the handlers of the server→client requests. */
export function addInputHelpers(tables: readonly ProtocolTables[]): void {
  const proto = RequestContext.prototype as unknown as Record<string, unknown>;
  for (const t of tables) {
    for (const entry of Object.values(t.serverRequests)) {
      if (entry.handler in proto || RUNTIME_METHODS.has(entry.method)) continue;
      proto[entry.handler] = function (
        this: RequestContext<MethodTypes, MethodTypes>,
        params: unknown,
        options?: InputOptions,
      ) {
        return this.input(entry.method, entry.handler, params, options);
      };
    }
  }
}

/** A retry's answer to an input request, checked against the request's result schema (-32602). */
function checkInputResponse(tables: ProtocolTables, method: string, key: string, answer: unknown): unknown {
  const entry = tables.serverRequests[method];
  if (!entry) return answer;
  const message = `Invalid params: inputResponses.${key} is not a ${method} result`;
  assertValid(entry.result, answer, ErrorCode.InvalidParams, message);
  return answer;
}

/** The tool or prompt name, or resource uri, a request is about (what a sealed state is bound to). */
function targetOf(params: Record<string, unknown>): string | undefined {
  const target = params.name ?? params.uri;
  return typeof target === "string" ? target : undefined;
}

function parseParams(entry: MethodEntry, params: unknown): unknown {
  assertValid(entry.params, params, ErrorCode.InvalidParams, `Invalid params for ${entry.method}`);
  return params;
}
