/**
 * One client's session: the connection to it, the initialize handshake, and dispatch of its requests and
 * notifications to the server's handlers (stateless-era requests go to stateless.ts).
 */

import type { Check } from "../check/check.js";
import {
  Connection,
  type ConnectionOptions,
  type IncomingRequestContext,
  type RequestOptions,
} from "../jsonrpc/connection.js";
import {
  ErrorCode,
  isRequestId,
  type JsonRpcNotification,
  type JsonRpcRequest,
  McpError,
  type RequestId,
} from "../jsonrpc/messages.js";
import type { MessageExtra, Transport } from "../jsonrpc/transport.js";
import { type Capabilities, capabilityName, hasCapability } from "../mcp/capabilities.js";
import { checkedParams, checkPeerResult, invalid, invalidNotification } from "../mcp/check-errors.js";
import type {
  AnyHandler,
  ImplementationInfo,
  MethodTypes,
  NotificationContext,
  SessionInfo,
} from "../mcp/handler-context.js";
import { type InputRequest, isInputRequired } from "../mcp/input-rounds.js";
import { isLogLevel, type LogLevel, passes } from "../mcp/logging.js";
import { negotiateVersion } from "../mcp/negotiate.js";
import { hasRequestMeta, metaVersion, unsupportedVersion } from "../mcp/request-meta.js";
import { storeError } from "../mcp/store-unavailable.js";
import { entryOf, type RequestEntry, RUNTIME_METHODS, type SupportedVersion } from "../mcp/tables.js";
import { CORE_TASK_STATUS_NOTIFICATION } from "../mcp/tasks.js";
import {
  type OperationInfo,
  sendTraced,
  type Telemetry,
  type TelemetryOperation,
  traced,
} from "../mcp/telemetry.js";
import { messageOf } from "../util/errors.js";
import { ClientTaskWakeups } from "./client-task-wakeups.js";
import { RequestContext } from "./request-context.js";
import type { Server } from "./server.js";
import { serveStateless } from "./stateless.js";
import { serveCoreTasks } from "./tasks-core.js";

/**
 * Pause between a request's last progress notification and its response (see finish()). 5 ms lost the race
 * on a loaded 2-core CI machine (typescript-sdk#2580); only requests that reported progress pay it.
 */
const PROGRESS_SETTLE_MS = 25;
/** Rounds of input a handler may ask of a handshake-era client in one request (see runHandshake). */
const MAX_INPUT_ROUNDS = 16;

export interface ConnectOptions {
  sessionId?: string;
  stateless?: { protocolVersion: string };
  era?: Era;
}

/** Which lifecycle a session or request follows. */
export type Era = "handshake" | "stateless";

/**
 * What a session keeps of itself apart from its live objects: enough for another instance to go on
 * serving it (its record in a shared session store) without a new handshake.
 */
export interface SessionState {
  readonly protocolVersion?: string | undefined;
  readonly clientInfo?: unknown;
  readonly clientCapabilities?: unknown;
  readonly logLevel?: string | undefined;
}

/**
 * A transport that keeps its session's state somewhere (a shared session store): told when the state
 * changed (initialize, logging/setLevel). Initialize is answered only once the promise it returns settles,
 * so that no client holds a session another instance could not serve.
 */
interface StateKeeping {
  sessionChanged(): void | Promise<void>;
}

const keepsState = (transport: Transport): transport is Transport & StateKeeping =>
  typeof (transport as Partial<StateKeeping>).sessionChanged === "function";

/**
 * What a session's Connection calls back, as methods on a prototype rather than closures made per
 * session: an HTTP server may hold thousands of idle sessions.
 */
class SessionCallbacks implements ConnectionOptions {
  readonly defaultTimeoutMs: number | undefined;
  readonly drainTimeoutMs: number | undefined;
  readonly requestIdPrefix: string | undefined;

  constructor(
    private readonly session: ServerSession<MethodTypes, MethodTypes>,
    readonly transport: Transport,
  ) {
    this.defaultTimeoutMs = session.server.options.requestTimeoutMs || undefined;
    this.drainTimeoutMs = session.server.options.drainTimeoutMs;
    this.requestIdPrefix = transport.requestIdPrefix;
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
    this.session.server.reportAnswered(error);
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
    /** What the session is served over (an HTTP session, a stdio pipe). */
    readonly transport: Transport,
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
  #clientTasks: ClientTaskWakeups | undefined;
  #closed: Promise<void> | undefined;
  /** With telemetry: the operations of the requests being served, by id. */
  #ops: Map<RequestId, TelemetryOperation> | undefined;
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

  /** @internal The polls of tasks the client runs for this session, woken by its status notifications. */
  get clientTasks(): ClientTaskWakeups {
    this.#clientTasks ??= new ClientTaskWakeups();
    return this.#clientTasks;
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

  /** @internal The level below which this session's log messages are dropped (logging/setLevel). */
  get minimumLogLevel(): LogLevel {
    return this.logLevel;
  }

  /**
   * @internal Takes up a session that another instance initialized, from its stored state: initialized
   * at its version with its client's info and capabilities, no handshake. False when the state names
   * no version this server speaks (the session cannot be served here).
   */
  restore(state: SessionState): boolean {
    const supported = this.server.handshake?.supportedVersions.find(
      (v) => v.version === state.protocolVersion,
    );
    if (!supported || state.clientInfo === undefined) return false;
    this.version = supported;
    this.info = {
      protocolVersion: supported.version,
      clientInfo: state.clientInfo as ImplementationInfo,
      clientCapabilities: (state.clientCapabilities ?? {}) as Capabilities,
      ...(this.sessionId ? { sessionId: this.sessionId } : {}),
    };
    if (isLogLevel(state.logLevel)) this.logLevel = state.logLevel;
    return true;
  }

  /**
   * @internal Whether `message` (from the client) is for something in flight in this instance: a
   * response or progress for a request it sent, a cancellation of a request it serves. Anything else is
   * too (requests, other notifications): only those three may belong to another instance.
   */
  holds(message: unknown): boolean {
    const m = message as {
      id?: unknown;
      method?: unknown;
      params?: { requestId?: unknown; progressToken?: unknown };
    };
    const connection = this.connection;
    if (m.method === undefined) return !isRequestId(m.id) || connection.awaits(m.id);
    if (m.method === "notifications/cancelled") {
      const id = m.params?.requestId;
      return !isRequestId(id) || connection.serves(id);
    }
    if (m.method === "notifications/progress") {
      const token = m.params?.progressToken;
      return !isRequestId(token) || connection.awaits(token);
    }
    return true;
  }

  /** The negotiated version, client info and capabilities (after initialize). */
  get session(): SessionInfo | undefined {
    return this.info;
  }

  close(): Promise<void> {
    return this.connection.close();
  }

  /**
   * Closes without losing an answer: new requests are refused, those in flight finish and are answered,
   * up to `timeoutMs` (default: the server's `drainTimeoutMs`, else 5 s); past it they are aborted
   * through `ctx.signal` and answered with an error.
   */
  drain(timeoutMs?: number): Promise<void> {
    return this.connection.drain(timeoutMs);
  }

  /**
   * A server→client request, refused locally when the client did not declare the capability it needs.
   * Its answer must pass `check` (default: the method's result; a task-augmented request is answered
   * with a CreateTaskResult instead).
   */
  async request<M extends keyof Out & string>(
    method: M,
    params: Out[M]["params"],
    options?: RequestOptions,
    check?: Check,
  ): Promise<NonNullable<Out[M]["result"]>> {
    const entry = this.server.handshake && entryOf(this.server.handshake.serverRequests, method);
    if (this.stateless && entry?.delivery === "message") {
      // Whatever the client declared: its capabilities never reached this session, and its answer
      // would come in a POST of its own, served by another session.
      throw new McpError(
        ErrorCode.InternalError,
        `cannot send ${method} to the client: this request came without a session (Streamable HTTP served with stateless: true), so the server has no way to send it a request and get the answer, whatever capabilities the client declared; serve HTTP with sessions for ${method}`,
      );
    }
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
    const telemetry = this.server.telemetry;
    const sent = params as Record<string, unknown> | undefined;
    const result =
      telemetry === undefined
        ? await this.connection.request(method, sent, options)
        : await sendTraced(telemetry, this.#operation(method, sent, options?.relatedRequestId), (p) =>
            this.connection.request(method, p, options),
          );
    return checkPeerResult(check ?? entry.result, method, result, "client") as NonNullable<Out[M]["result"]>;
  }

  /** A server→client notification; refused when it needs a capability this server did not declare. */
  async notify<M extends keyof OutNotes & string>(
    method: M,
    params: OutNotes[M]["params"],
    relatedRequestId?: RequestId,
  ): Promise<void> {
    const entry = entryOf((this.server.handshake ?? this.server.protocol).serverNotifications, method);
    if (entry?.capability && !hasCapability(this.server.handshakeCapabilities, entry.capability)) {
      throw new McpError(
        ErrorCode.InvalidRequest,
        `${method} needs the ${capabilityName(entry.capability)} server capability, which this server does not declare`,
      );
    }
    const sent = params as Record<string, unknown> | undefined;
    const telemetry = this.server.telemetry;
    if (telemetry === undefined) await this.connection.notify(method, sent, relatedRequestId);
    else
      await sendTraced(telemetry, this.#operation(method, sent, relatedRequestId), (p) =>
        this.connection.notify(method, p, relatedRequestId),
      );
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
    const telemetry = this.server.telemetry;
    if (telemetry === undefined) return this.dispatch(request, rc);
    return this.serveTraced(telemetry, request, rc);
  }

  /** serve() inside a SERVER operation, its parent the trace context in the request's `_meta`. */
  private serveTraced(
    telemetry: Telemetry,
    request: JsonRpcRequest,
    rc: IncomingRequestContext,
  ): Record<string, unknown> | Promise<Record<string, unknown>> {
    const op = telemetry.incoming({
      ...this.#operation(request.method, request.params),
      requestId: rc.id,
      protocolVersion: metaVersion(request.params) ?? this.info?.protocolVersion,
    });
    if (op === undefined) return this.dispatch(request, rc);
    // Requests to the client made for this one (a tool's sampling) are its children.
    this.#ops ??= new Map();
    const ops = this.#ops;
    ops.set(rc.id, op);
    let out: Record<string, unknown> | Promise<Record<string, unknown>>;
    try {
      out = traced(op, () => this.dispatch(request, rc));
    } catch (error) {
      ops.delete(rc.id);
      throw error;
    }
    if (!(out instanceof Promise)) {
      ops.delete(rc.id);
      return out;
    }
    return out.finally(() => ops.delete(rc.id));
  }

  /** What telemetry records of a message of this session; `related`: the request it is made for. */
  #operation(method: string, params: unknown, related?: RequestId): OperationInfo {
    return {
      method,
      params: params as Record<string, unknown> | undefined,
      protocolVersion: this.info?.protocolVersion,
      sessionId: this.stateless ? undefined : this.sessionId,
      parent: related === undefined ? undefined : this.#ops?.get(related),
    };
  }

  private dispatch(
    request: JsonRpcRequest,
    rc: IncomingRequestContext,
  ): Record<string, unknown> | Promise<Record<string, unknown>> {
    const refused = this.server.refusal(request.method, request.params, rc.extra?.auth);
    if (refused) throw refused;
    if (this.isStateless(request)) return serveStateless(this, request, rc, this.server.statelessTables!);
    const { method } = request;
    const tables = this.server.handshake!;
    if (method === "ping") return {};
    if (method === "initialize") return this.initialize(request);
    if (!this.info) {
      // A client of the stateless era (its version in `_meta`) hears which versions to initialize with.
      const requested = metaVersion(request.params);
      if (requested !== undefined && !tables.supportedVersions.some((v) => v.version === requested))
        throw unsupportedVersion(
          requested,
          tables.supportedVersions.map((v) => v.version),
        );
      throw new McpError(
        ErrorCode.InvalidRequest,
        `${method} received before initialize: initialize the session first`,
      );
    }
    const entry = entryOf(tables.clientRequests, method);
    if (!entry || RUNTIME_METHODS.has(method))
      throw new McpError(ErrorCode.MethodNotFound, `Method not found: ${method}`);
    if (entry.capability && !hasCapability(this.server.handshakeCapabilities, entry.capability)) {
      throw new McpError(
        ErrorCode.MethodNotFound,
        `Method not found: ${method} (this server does not offer ${capabilityName(entry.capability)})`,
      );
    }
    const params = checkedParams(entry, request.params);
    const handler = this.server.handler(entry);
    const tasks = this.server.coreTasks ? this.server.tasks : undefined;
    const asTask =
      tasks && serveCoreTasks(tasks, this, entry, (params ?? {}) as Record<string, unknown>, handler, rc);
    if (asTask) return asTask;
    if (method === "logging/setLevel") {
      const level = (params as { level?: unknown } | undefined)?.level;
      const run = () =>
        handler ? this.runHandshake(entry, params as Record<string, unknown>, handler, rc, 0) : {};
      if (!isLogLevel(level)) return run();
      this.logLevel = level;
      // Answered once kept: the client's next request may reach another instance.
      const kept = this.#keep();
      return kept ? kept.then(run) : run();
    }
    if (!handler) throw new McpError(ErrorCode.MethodNotFound, `Method not found: ${method}`);
    return this.runHandshake(entry, params as Record<string, unknown>, handler, rc, 0);
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
      return this.handlerError(entry, error, rc);
    }
    if (result instanceof Promise) {
      return result.then(
        (value) => this.handshakeSettled(entry, params, handler, rc, round, ctx, value),
        (error) => this.handlerError(entry, error, rc),
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

  /** @internal */
  finish(
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

  /** @internal */
  handlerError(entry: RequestEntry, error: unknown, rc: IncomingRequestContext): Record<string, unknown> {
    // McpErrors (an InsufficientScope among them: a step-up is for the client to act on, not a tool
    // failure for the model to read) go to the client as they are.
    if (!entry.errorAsResult || error instanceof McpError) throw error;
    // Tool execution errors go back inside the result so the model can see and correct them. After a
    // cancellation (the client's, or its timeout) a throw is how the handler stops, not a fault.
    if (!rc.signal.aborted) this.server.reportError(error);
    const message = messageOf(error);
    return { content: [{ type: "text", text: message }], isError: true };
  }

  /**
   * Tells a state-keeping transport that the state changed; settles once kept (undefined: at once). Its
   * failure is reported, not thrown: the level holds here either way.
   */
  #keep(): Promise<void> | undefined {
    if (!keepsState(this.transport)) return undefined;
    try {
      const kept = this.transport.sessionChanged();
      return kept instanceof Promise
        ? kept.catch((error: unknown) => this.server.reportError(error))
        : undefined;
    } catch (error) {
      this.server.reportError(error);
      return undefined;
    }
  }

  private initialize(request: JsonRpcRequest): Record<string, unknown> | Promise<Record<string, unknown>> {
    // A stateless session was never handshaken, so a client's initialize is answered, not refused.
    if (this.info && !this.stateless)
      throw new McpError(ErrorCode.InvalidRequest, "the session is already initialized");
    const tables = this.server.handshake!;
    const entry = tables.clientRequests.initialize!;
    const params = checkedParams(entry, request.params) as {
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
    const result = {
      protocolVersion: this.version.version,
      capabilities: this.server.handshakeCapabilities,
      serverInfo: this.server.options.info,
      ...(instructions ? { instructions } : {}),
    };
    if (!keepsState(this.transport)) return result;
    // Answered once the state is kept: a client that holds the session id may go to any instance.
    const undo = (error: unknown): never => {
      this.info = undefined;
      this.version = undefined;
      throw storeError(error);
    };
    try {
      const kept = this.transport.sessionChanged();
      return kept instanceof Promise ? kept.then(() => result, undo) : result;
    } catch (error) {
      return undo(error);
    }
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
  receive(n: JsonRpcNotification, extra?: MessageExtra): Promise<void> {
    const op = this.server.telemetry?.incoming(this.#operation(n.method, n.params));
    if (op === undefined) return this.handleNotification(n, extra);
    return traced(op, () => this.handleNotification(n, extra)) as Promise<void>;
  }

  private async handleNotification(n: JsonRpcNotification, extra?: MessageExtra): Promise<void> {
    const tables = this.server.handshake ?? this.server.protocol;
    const entry = entryOf(tables.clientNotifications, n.method);
    if (!entry || !this.info) return;
    if (n.method === CORE_TASK_STATUS_NOTIFICATION) this.#clientTasks?.notified(n.params);
    const handler = this.server.handler(entry);
    if (!handler) return;
    // A notification has no answer to carry a refusal: one its caller may not send is dropped.
    if (this.server.refusal(n.method, n.params, extra?.auth)) return;
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
