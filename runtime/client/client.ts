/**
 * The version-agnostic MCP client: the lifecycle its tables name (the initialize handshake, or the
 * stateless `server/discover` probe with a fallback to initialize for older servers), capability gating,
 * result validation, and dispatch of what the server sends to handlers by the generated tables.
 */

import {
  Connection,
  type IncomingRequestContext,
  REQUEST_CANCELLED,
  type RequestOptions,
} from "../jsonrpc/connection.js";
import {
  ErrorCode,
  isObject,
  type JsonRpcMessage,
  type JsonRpcNotification,
  type JsonRpcRequest,
  McpError,
  type RequestId,
} from "../jsonrpc/messages.js";
import type { Transport } from "../jsonrpc/transport.js";
import {
  type Capabilities,
  capabilityName,
  deriveCapabilities,
  hasCapability,
  mergeCapabilities,
} from "../mcp/capabilities.js";
import { assertValid, checkPeerResult, invalid, invalidNotification } from "../mcp/check-errors.js";
import type {
  HandlerContext,
  ImplementationInfo,
  MethodTypes,
  NotificationContext,
  SessionInfo,
} from "../mcp/handler-context.js";
import type { InputRequest } from "../mcp/input-rounds.js";
import type { LogLevel } from "../mcp/logging.js";
import { isStub } from "../mcp/not-implemented.js";
import { encodeHeaderValue, NAME_HEADER, standardHeaders, ToolHeaderParams } from "../mcp/param-headers.js";
import { META, metaVersion, RESULT_TYPE, StatelessErrorCode } from "../mcp/request-meta.js";
import { SKILLS_EXTENSION, type Skill } from "../mcp/skills.js";
import type { StatelessHttp } from "../mcp/stateless-http.js";
import { type SubscriptionFilter, subscriptionIdOf } from "../mcp/subscriptions.js";
import {
  entryOf,
  type ProtocolTables,
  type RequestEntry,
  RUNTIME_METHODS,
  type SupportedVersion,
} from "../mcp/tables.js";
import { isTerminal, newTaskId } from "../mcp/task-store.js";
import {
  CORE_TASK_METHODS,
  EXTENSION_TASK_METHODS,
  RESULT_TYPE_TASK,
  TASK_STATUS_NOTIFICATION,
  TASKS_EXTENSION,
} from "../mcp/tasks.js";
import { sendTraced, type Telemetry, traced } from "../mcp/telemetry.js";
import { detailOf } from "../util/errors.js";
import { type AppsOption, appsCapabilities } from "./apps.js";
import { type ClientTaskOptions, ClientTasks, taskCapabilities } from "./client-tasks.js";
import {
  type DetailedTask,
  offersTasksExtension,
  readDetailedTask,
  withTasksExtension,
} from "./extension-tasks.js";
import type { HeldSkill } from "./held-skill.js";
import { type DirectoryEntry, readSkillDirectory } from "./skill-directory.js";
import { getSkill, type LoadSkillOptions, listSkills, loadSkill, type SkillsPeer } from "./skills.js";
import {
  chooseVersion,
  judgeProbeError,
  noCommonVersion,
  normalizeComplete,
  readInputRequired,
  requestMeta,
  resultTypeOf,
  speaks,
  supportedVersionsIn,
  type VersionChoice,
} from "./stateless.js";
import { type LiveSubscription, type Subscription, Subscriptions } from "./subscriptions.js";
import {
  createdTask,
  PolledToolTask,
  readTask,
  type TaskPeer,
  type TaskRequest,
  type ToolTask,
} from "./tool-task.js";

// biome-ignore lint/suspicious/noExplicitAny: the generated ClientHandlers interface types every handler.
type AnyHandler = (params: any, ctx: any) => unknown;

export interface ClientOptions {
  info: ImplementationInfo;
  /** Handlers by name (`createMessage`, `onToolListChanged`); the generated ClientHandlers types them. */
  handlers?: object;
  /** Merged over the capabilities derived from the handlers (e.g. `{ roots: { listChanged: true } }`). */
  capabilities?: Capabilities;
  /** Refuse requests the server's capabilities do not offer, before sending (default true). */
  strictCapabilities?: boolean;
  /** Default timeout of requests (60 s). */
  requestTimeoutMs?: number;
  onError?: (error: unknown) => void;
  /**
   * Stateless versions: how long connect() waits for the answer to its `server/discover` probe before
   * taking the server for an older one and sending initialize instead (10 s).
   */
  discoverTimeoutMs?: number;
  /**
   * Stateless versions: the `_meta` log level of every request (a per-call `logLevel` wins). The server
   * sends log messages only for requests that carry one.
   */
  logLevel?: LogLevel;
  /** Stateless versions: name this client (`info`) in every request's `_meta` (default true). */
  sendClientInfo?: boolean;
  /** Stateless versions: rounds of input requests (elicitation, sampling, roots) one call may take (16). */
  maxInputRounds?: number;
  /**
   * Where the requests this client sends are reported (spans, durations), their trace context added to
   * each request's `_meta`: `openTelemetry()` from `@mcp-codegen/runtime/otel`, or your own. Default:
   * none, at no cost.
   */
  telemetry?: Telemetry;
  /**
   * 2025-11-25: answer a server's task-augmented `sampling/createMessage` and `elicitation/create` (the
   * handlers present) as tasks, kept in this client's own task store, and serve `tasks/get`,
   * `tasks/result`, `tasks/list` and `tasks/cancel` for them; declared as `capabilities.tasks`.
   */
  tasks?: boolean | ClientTaskOptions;
  /**
   * Declare the MCP Apps extension (`extensions["io.modelcontextprotocol/ui"]: { mimeTypes }`): `true` for
   * `text/html;profile=mcp-app`, the apps this runtime's helpers (`readUi`, `uiPolicy`, `appToolCall`)
   * handle. Sent in `initialize` in the handshake era, in every request's `_meta` in the stateless era.
   */
  apps?: AppsOption;
}

/** Options of one request: a stateless version's request also takes its own `_meta` log level. */
export interface ClientRequestOptions extends RequestOptions {
  logLevel?: LogLevel;
  /**
   * `tools/call` only: run the call as a task (`true`, or `{ ttl }` to ask it be kept that long) and
   * resolve with its result once the task ends, polling it at the server's interval; aborting `signal`
   * cancels the task. See `startToolTask` to hold the task instead.
   */
  task?: TaskRequest;
}

/** A tool call's params, as every protocol version has them. */
export interface ToolCallParams {
  name: string;
  arguments?: { [key: string]: unknown };
  _meta?: { [key: string]: unknown };
}

export interface ListenOptions {
  /** How long to wait for the server's acknowledgement (the client's request timeout). */
  timeoutMs?: number;
  /** Aborting before the acknowledgement cancels the listen request. */
  signal?: AbortSignal;
  logLevel?: LogLevel;
}

/** What handlers of notifications learn besides the params. */
export interface ClientNotificationContext extends NotificationContext {
  /** The subscription (its listen request's id) a notification came on, when it came on one. */
  subscriptionId?: RequestId;
}

/** What HTTP transports add to the Transport contract: the version header, sessions, stateless mode. */
interface HttpAwareTransport extends Transport {
  protocolVersion?: string | undefined;
  readonly sessionId?: string | undefined;
  onsessionexpired?: () => void;
  stateless?: StatelessHttp | undefined;
}

export interface ServerDescription {
  protocolVersion: string;
  serverInfo: ImplementationInfo;
  capabilities: Capabilities;
  instructions?: string;
  /** Stateless versions: every version the server's discover result listed. */
  supportedVersions?: string[];
}

const DEFAULT_DISCOVER_TIMEOUT_MS = 10_000;
const DEFAULT_MAX_INPUT_ROUNDS = 16;
/** Bounds the tools/list pages fetched again after a HeaderMismatch. */
const MAX_TOOL_PAGES = 100;
const DISCOVER = "server/discover";
const LISTEN = "subscriptions/listen";
const ACKNOWLEDGED = "notifications/subscriptions/acknowledged";
const UNKNOWN_PEER: ImplementationInfo = Object.freeze({ name: "", version: "" });
/** What a server declares to take `tools/call` as a task (2025-11-25). */
const TASK_TOOL_CALLS = {
  side: "server",
  path: ["tasks", "requests", "tools", "call"],
  leaf: "object",
} as const;

export class Client<Out extends MethodTypes = MethodTypes, OutNotes extends MethodTypes = MethodTypes> {
  #connection: Connection | undefined;
  #transport: HttpAwareTransport | undefined;
  #server: ServerDescription | undefined;
  readonly #handlers: Record<string, AnyHandler | undefined>;
  /** The tables of the era in use: `protocol`, or `protocol.legacy` after falling back to initialize. */
  #tables: ProtocolTables;
  #caps: Capabilities;
  /** Initialize era: the version the handshake agreed on. */
  #negotiated: SupportedVersion | undefined;
  /** Stateless era: the version every request names in `_meta`. */
  #version: string | undefined;
  #reinitializing: Promise<ServerDescription> | undefined;
  readonly #toolHeaders = new ToolHeaderParams();
  readonly #subscriptions = new Subscriptions();
  /** The tasks this client runs for the server, when `options.tasks` asks for them. */
  readonly #tasks: ClientTasks | undefined;

  constructor(
    readonly protocol: ProtocolTables,
    readonly options: ClientOptions,
  ) {
    const given = (options.handlers ?? {}) as Record<string, AnyHandler | undefined>;
    this.#handlers = Object.fromEntries(Object.entries(given).filter(([, h]) => !isStub(h)));
    const tasks = options.tasks;
    this.#tasks = tasks ? new ClientTasks(tasks === true ? {} : tasks) : undefined;
    this.#tables = protocol;
    this.#caps = this.#capabilitiesFor(protocol);
  }

  /** The capabilities this client declares in the era in use (derived from its handlers). */
  get capabilities(): Capabilities {
    return this.#caps;
  }

  /** `discover` (stateless, `_meta` on every request) or `initialize` (a session), once connected. */
  get lifecycle(): ProtocolTables["lifecycle"] | undefined {
    if (this.#version !== undefined) return "discover";
    return this.#negotiated ? "initialize" : undefined;
  }

  get serverDescription(): ServerDescription | undefined {
    return this.#server;
  }

  get protocolVersion(): string | undefined {
    return this.#version ?? this.#negotiated?.version;
  }

  /**
   * Connects. With initialize-lifecycle tables: the handshake. With discover-lifecycle tables: probes
   * `server/discover`; a server that does not answer it as a stateless-era server would (any other error, or
   * silence until `discoverTimeoutMs`) is an older one, and the handshake of `protocol.legacy` follows.
   */
  async connect(transport: Transport, options: RequestOptions = {}): Promise<ServerDescription> {
    if (this.#connection) throw new McpError(ErrorCode.InvalidRequest, "already connected");
    const connection = new Connection({
      transport,
      onRequest: (request, ctx) => this.#onRequest(request, ctx),
      onNotification: (n) => this.#onNotification(n),
      acceptBatches: () => this.#negotiated?.batches ?? false,
      ...(this.options.requestTimeoutMs ? { defaultTimeoutMs: this.options.requestTimeoutMs } : {}),
      onHandlerError: (error) => this.#reportError(error),
    });
    this.#connection = connection;
    this.#transport = transport as HttpAwareTransport;
    await connection.start();
    try {
      return this.protocol.lifecycle === "discover"
        ? await this.#discover(options)
        : await this.#initialize(options);
    } catch (error) {
      await connection.close();
      this.#connection = undefined;
      throw error;
    }
  }

  // The initialize era

  async #initialize(options: RequestOptions): Promise<ServerDescription> {
    const description = await this.#handshake(options);
    // A session the server forgot (HTTP 404) is started again, as the spec asks: a new initialize.
    this.#transport!.onsessionexpired = () => {
      this.#reinitializing ??= this.#handshake({}).finally(() => {
        this.#reinitializing = undefined;
      });
    };
    return description;
  }

  /** initialize → check the answer → tell the transport the version → notifications/initialized. */
  async #handshake(options: RequestOptions): Promise<ServerDescription> {
    const connection = this.#connection!;
    const tables = this.#tables;
    const params = {
      protocolVersion: tables.version,
      capabilities: this.#caps,
      clientInfo: this.options.info,
    };
    const result = await this.#traced("initialize", params, (sent) =>
      connection.request("initialize", sent, options),
    );
    const entry = tables.clientRequests.initialize;
    if (!entry)
      throw new McpError(ErrorCode.InternalError, `the ${tables.version} tables have no initialize`);
    assertValid(entry.result, result, ErrorCode.InvalidParams, "invalid initialize result");
    const description = result as unknown as ServerDescription;
    const negotiated = tables.supportedVersions.find((s) => s.version === description.protocolVersion);
    if (!negotiated) {
      throw new McpError(
        ErrorCode.InvalidRequest,
        `the server answered protocol version ${description.protocolVersion}; this client speaks ${speaks(this.protocol).join(", ")}`,
      );
    }
    this.#negotiated = negotiated;
    this.#server = description;
    if (this.#transport && "protocolVersion" in this.#transport)
      this.#transport.protocolVersion = negotiated.version;
    await this.#traced("notifications/initialized", undefined, (sent) =>
      connection.notify("notifications/initialized", sent),
    );
    return description;
  }

  /** From the stateless era to the initialize era of `protocol.legacy`. */
  async #fallBack(why: string, options: RequestOptions): Promise<ServerDescription> {
    const legacy = this.protocol.legacy;
    if (!legacy) {
      throw new McpError(
        ErrorCode.InvalidRequest,
        `the server does not speak protocol ${this.protocol.version} (${why}), and this client has no older version to fall back to`,
      );
    }
    this.#version = undefined;
    this.#tables = legacy;
    this.#caps = this.#capabilitiesFor(legacy);
    this.#setStateless(false);
    return this.#initialize(options);
  }

  // The stateless era

  /** The probe: DiscoverResult → stateless era; a version error → once more with a version it lists; else legacy. */
  async #discover(options: RequestOptions): Promise<ServerDescription> {
    const timeoutMs = options.timeoutMs ?? this.options.discoverTimeoutMs ?? DEFAULT_DISCOVER_TIMEOUT_MS;
    let version = this.protocol.version;
    for (let attempt = 0; ; attempt++) {
      this.#version = version;
      this.#setStateless(true);
      let result: Record<string, unknown>;
      try {
        const connection = this.#connection!;
        result = await this.#traced(DISCOVER, { _meta: this.#meta(undefined) }, (sent) =>
          connection.request(DISCOVER, sent, { ...options, timeoutMs }),
        );
      } catch (error) {
        const verdict = judgeProbeError(error, this.protocol, this.#connection!.closed);
        if (verdict.kind === "retry" && attempt === 0) {
          version = verdict.version;
          continue;
        }
        if (verdict.kind === "legacy") return this.#fallBack(verdict.why, options);
        throw verdict.kind === "fail" ? verdict.error : error;
      }
      const entry = this.protocol.clientRequests[DISCOVER]!;
      const checked = checkPeerResult(
        entry.result,
        DISCOVER,
        normalizeComplete(result, entry.cacheable ?? true),
        "server",
      ) as Record<string, unknown>;
      const supported = (checked.supportedVersions as string[]) ?? [];
      const choice: VersionChoice = supported.includes(version)
        ? { lifecycle: "discover", version }
        : chooseVersion(this.protocol, supported);
      if (!choice) throw noCommonVersion(this.protocol, supported);
      if (choice.lifecycle === "initialize")
        return this.#fallBack(`the server supports ${supported.join(", ")}`, options);
      this.#version = choice.version;
      this.#server = describe(choice.version, checked);
      return this.#server;
    }
  }

  /** Tells an HTTP transport to work statelessly, with this client's headers, or to stop. */
  #setStateless(on: boolean): void {
    const transport = this.#transport;
    if (!transport || !("stateless" in transport)) return;
    transport.stateless = on ? { headersFor: (message) => this.#headersFor(message) } : undefined;
  }

  /** MCP-Protocol-Version (the body's), Mcp-Method, Mcp-Name, and a tool call's Mcp-Param-* headers. */
  #headersFor(message: JsonRpcMessage): Record<string, string> {
    if (!("method" in message)) return {};
    const params = message.params;
    const headers = standardHeaders(message.method, params);
    headers["mcp-protocol-version"] = metaVersion(params) ?? this.#version ?? this.protocol.version;
    if (message.method === "tools/call" && params)
      Object.assign(headers, this.#toolHeaders.headers(params.name, params.arguments));
    // The tasks extension names the task a request is about, as tools/call names its tool.
    if (EXTENSION_TASK_METHODS.has(message.method) && typeof params?.taskId === "string")
      headers[NAME_HEADER] = encodeHeaderValue(params.taskId);
    return headers;
  }

  /**
   * The protocol fields of a stateless request's `_meta`, over what the caller put there; `tasks`: the
   * tasks extension declared in this request's capabilities (it is negotiated per request).
   */
  #meta(userMeta: unknown, logLevel?: LogLevel, tasks = false): Record<string, unknown> {
    const level = logLevel ?? this.options.logLevel;
    return requestMeta(userMeta, {
      version: this.#version ?? this.protocol.version,
      capabilities: tasks ? withTasksExtension(this.#caps) : this.#caps,
      ...(this.options.sendClientInfo === false ? {} : { info: this.options.info }),
      ...(level === undefined ? {} : { logLevel: level }),
    });
  }

  /**
   * One stateless request to completion: `_meta` on every send; an InputRequiredResult answered by the
   * handlers and the original params sent again (new id) with `inputResponses` and the `requestState`
   * echoed; an UnsupportedProtocolVersion error retried once with a version both sides speak.
   */
  async #requestStateless(
    entry: RequestEntry,
    params: Record<string, unknown> | undefined,
    options: ClientRequestOptions,
    tasks = false,
  ): Promise<Record<string, unknown>> {
    const method = entry.method;
    const rounds = this.options.maxInputRounds ?? DEFAULT_MAX_INPUT_ROUNDS;
    let input: Record<string, unknown> = {};
    for (let round = 0; round <= rounds; round++) {
      const result = await this.#sendStateless(method, { ...params, ...input }, options, tasks);
      const type = resultTypeOf(result);
      if (type === RESULT_TYPE.complete) return this.#complete(entry, result);
      // The tasks extension, declared on this request: the server made it a task (checked by the caller).
      if (type === RESULT_TYPE_TASK && tasks) return result;
      if (type !== RESULT_TYPE.inputRequired || !entry.inputRequired) {
        throw new McpError(
          ErrorCode.InvalidParams,
          type === RESULT_TYPE.inputRequired
            ? `the server answered ${method} with input_required, which only tools/call, prompts/get and resources/read may get`
            : `the server answered ${method} with resultType ${JSON.stringify(type)}, which this client does not know`,
        );
      }
      input = await this.#answerInput(method, result, options.signal);
    }
    throw new McpError(
      ErrorCode.InternalError,
      `${method}: the server still asked for input after ${rounds} rounds; giving up`,
    );
  }

  /**
   * One send, with the retries the spec asks for: once after UnsupportedProtocolVersion with a version
   * both sides speak, and once for a tools/call over HTTP after HeaderMismatch, with tools/list fetched
   * again first (the tool's x-mcp-header declarations, or the tool, may be new).
   */
  async #sendStateless(
    method: string,
    params: Record<string, unknown>,
    options: ClientRequestOptions,
    tasks = false,
  ): Promise<Record<string, unknown>> {
    const { logLevel, task: _, ...rest } = options;
    let versionRetried = false;
    let toolsRefetched = false;
    for (;;) {
      try {
        return await this.#ready().request(
          method,
          { ...params, _meta: this.#meta(params._meta, logLevel, tasks) },
          rest,
        );
      } catch (error) {
        const supported = versionRetried ? undefined : supportedVersionsIn(error);
        const choice = supported && chooseVersion({ ...this.protocol, legacy: undefined }, supported);
        if (choice) {
          versionRetried = true;
          this.#useVersion(choice.version);
          continue;
        }
        const mismatch = error instanceof McpError && error.code === StatelessErrorCode.HeaderMismatch;
        if (!mismatch || toolsRefetched || method !== "tools/call" || !this.#takesHeaders()) throw error;
        toolsRefetched = true;
        await this.#refetchTools(rest.signal).catch(() => {
          throw error;
        });
      }
    }
  }

  /** Switches the stateless version every later request names (after UnsupportedProtocolVersion). */
  #useVersion(version: string): void {
    this.#version = version;
    if (this.#server) this.#server = { ...this.#server, protocolVersion: version };
  }

  /** Whether the transport carries the Mcp-* headers (HTTP). */
  #takesHeaders(): boolean {
    return this.#transport !== undefined && "stateless" in this.#transport;
  }

  /** Every page of tools/list again, which renews the x-mcp-header parameters of each tool. */
  async #refetchTools(signal: AbortSignal | undefined): Promise<void> {
    let cursor: string | undefined;
    for (let page = 0; page < MAX_TOOL_PAGES; page++) {
      const result = (await this.request(
        "tools/list",
        (cursor === undefined ? undefined : { cursor }) as never,
        {
          ...(signal ? { signal } : {}),
        },
      )) as { nextCursor?: unknown };
      if (typeof result.nextCursor !== "string") return;
      cursor = result.nextCursor;
    }
  }

  /** A complete result, validated; tools/list keeps only tools whose `x-mcp-header`s are valid. */
  #complete(entry: RequestEntry, result: Record<string, unknown>): Record<string, unknown> {
    const normalized = normalizeComplete(result, entry.cacheable ?? false);
    const checked = checkPeerResult(entry.result, entry.method, normalized, "server") as Record<
      string,
      unknown
    >;
    if (entry.method !== "tools/list" || !Array.isArray(checked.tools)) return checked;
    const { kept, rejected } = this.#toolHeaders.admit(checked.tools);
    for (const { name, reason } of rejected)
      this.#reportError(new Error(`tools/list: left out tool "${name}": ${reason}`));
    return rejected.length === 0 ? checked : { ...checked, tools: kept };
  }

  /** Runs the handler of each input request, in order; the retry's `inputResponses` and `requestState`. */
  async #answerInput(
    method: string,
    result: Record<string, unknown>,
    signal: AbortSignal | undefined,
  ): Promise<Record<string, unknown>> {
    const { inputRequests, requestState } = readInputRequired(method, result);
    const retry: Record<string, unknown> = {};
    if (inputRequests) {
      const responses: Record<string, unknown> = {};
      for (const [key, request] of inputRequests) {
        if (signal?.aborted) throw new McpError(REQUEST_CANCELLED, `${method} cancelled`);
        responses[key] = await this.#answerOne(method, key, request, signal);
      }
      retry.inputResponses = responses;
    }
    if (requestState !== undefined) retry.requestState = requestState;
    if (signal?.aborted) throw new McpError(REQUEST_CANCELLED, `${method} cancelled`);
    return retry;
  }

  async #answerOne(
    method: string,
    key: string,
    request: InputRequest,
    signal: AbortSignal | undefined,
  ): Promise<unknown> {
    const what = `${method}: the server's input request "${key}" (${request.method})`;
    const entry = entryOf(this.#tables.serverRequests, request.method);
    if (entry?.delivery !== "input")
      throw new McpError(
        ErrorCode.InvalidParams,
        `${what} is not an input request of ${this.#tables.version}`,
      );
    if (entry.capability && !hasCapability(this.#caps, entry.capability)) {
      throw new McpError(
        ErrorCode.InvalidRequest,
        `${what} needs the ${capabilityName(entry.capability)} capability, which this client does not declare`,
      );
    }
    const handler = this.#handlers[entry.handler];
    if (!handler)
      throw new McpError(ErrorCode.InvalidRequest, `${what}: this client has no ${entry.handler} handler`);
    return this.#runHandler(entry, handler, request.params, `${what} is invalid`, () =>
      this.#handlerContext(key, signal ?? new AbortController().signal),
    );
  }

  /** Params checked (-32602), the handler run, its answer checked before it goes to the server (-32603). */
  async #runHandler(
    entry: RequestEntry,
    handler: AnyHandler,
    params: unknown,
    invalidParams: string,
    context: () => unknown,
  ): Promise<Record<string, unknown>> {
    assertValid(entry.params, params, ErrorCode.InvalidParams, invalidParams);
    const answer = await handler(params, context());
    const message = `the ${entry.handler} handler returned an invalid result`;
    const error = invalid(entry.result, answer, ErrorCode.InternalError, message);
    if (error) {
      this.#reportError(error);
      throw error;
    }
    return answer as Record<string, unknown>;
  }

  /**
   * Opens a subscription (`subscriptions/listen`, stateless versions): resolves once the server
   * acknowledged it, with what it agreed to send. Its notifications reach `handlers` (same names as the
   * client's, e.g. `onToolListChanged`) and the client's own handlers, with `ctx.subscriptionId`.
   * A filter naming `taskIds` declares the tasks extension on the request; each `notifications/tasks`
   * reaches `handlers.onTaskStatus(task, ctx)` as a checked `DetailedTask`.
   */
  async listen(
    filter: SubscriptionFilter,
    handlers: object = {},
    options: ListenOptions = {},
  ): Promise<Subscription> {
    if (this.#reinitializing) await this.#reinitializing;
    const connection = this.#ready();
    if (this.#version === undefined) {
      throw new McpError(
        ErrorCode.MethodNotFound,
        `subscriptions/listen needs a stateless protocol version; this connection speaks ${this.protocolVersion}`,
      );
    }
    const ackTimeoutMs = options.timeoutMs ?? this.options.requestTimeoutMs ?? 60_000;
    for (let attempt = 0; ; attempt++) {
      const tasks = Array.isArray(filter.taskIds) && filter.taskIds.length > 0;
      const params = { notifications: filter, _meta: this.#meta(undefined, options.logLevel, tasks) };
      const sub: LiveSubscription = this.#subscriptions.open(
        handlers as Record<string, AnyHandler | undefined>,
      );
      // No timeout: the request lasts as long as the subscription.
      sub.track(
        connection.request(LISTEN, params, {
          signal: sub.abort.signal,
          timeoutMs: Number.POSITIVE_INFINITY,
          onid: (id) => this.#subscriptions.named(sub, id),
          peerMayEnd: true,
        }),
      );
      try {
        await sub.acknowledged(ackTimeoutMs, options.signal);
        return sub;
      } catch (error) {
        const supported = attempt === 0 ? supportedVersionsIn(error) : undefined;
        const choice = supported && chooseVersion({ ...this.protocol, legacy: undefined }, supported);
        if (!choice) throw error;
        this.#useVersion(choice.version);
      }
    }
  }

  // Both eras

  /** A typed request; refused locally when the server's capabilities do not offer it (strict mode). */
  request<M extends keyof Out & string>(
    method: M,
    params?: Out[M]["params"],
    options: ClientRequestOptions = {},
  ): Promise<NonNullable<Out[M]["result"]>> {
    if (this.options.telemetry === undefined) return this.#request(method, params, options);
    return this.#traced(method, params as Record<string, unknown> | undefined, (sent) =>
      this.#request(method, sent as Out[M]["params"], options),
    );
  }

  /** `send` inside an outgoing operation (with every round and retry of a stateless request). */
  #traced<R>(
    method: string,
    params: Record<string, unknown> | undefined,
    send: (params: Record<string, unknown> | undefined) => Promise<R>,
  ): Promise<R> {
    const telemetry = this.options.telemetry;
    if (telemetry === undefined) return send(params);
    const version = this.protocolVersion ?? (method === "initialize" ? params?.protocolVersion : undefined);
    return sendTraced(
      telemetry,
      {
        method,
        params,
        protocolVersion: typeof version === "string" ? version : undefined,
        sessionId: this.#transport?.sessionId,
      },
      send,
    );
  }

  async #request<M extends keyof Out & string>(
    method: M,
    params: Out[M]["params"] | undefined,
    options: ClientRequestOptions,
  ): Promise<NonNullable<Out[M]["result"]>> {
    if (this.#reinitializing) await this.#reinitializing;
    const connection = this.#ready();
    const entry = entryOf(this.#tables.clientRequests, method);
    if (!entry)
      throw new McpError(
        ErrorCode.MethodNotFound,
        `${method} is not a client request in protocol ${this.protocolVersion}`,
      );
    if (method === LISTEN)
      throw new McpError(
        ErrorCode.InvalidRequest,
        "subscriptions/listen lasts as long as it is open: use listen()",
      );
    if (
      this.options.strictCapabilities !== false &&
      entry.capability &&
      !hasCapability(this.#server!.capabilities, entry.capability)
    ) {
      throw new McpError(
        ErrorCode.MethodNotFound,
        `the server does not offer ${capabilityName(entry.capability)} (needed by ${method})`,
      );
    }
    const sent = params as Record<string, unknown> | undefined;
    if (method === "tools/call" && options.task) {
      const { task: _, ...rest } = options;
      const outcome = await this.#startToolTask(entry, sent as unknown as ToolCallParams, options.task, rest);
      if (!(outcome instanceof PolledToolTask)) return outcome as NonNullable<Out[M]["result"]>;
      return (await outcome.result(rest.signal ? { signal: rest.signal } : {})) as NonNullable<
        Out[M]["result"]
      >;
    }
    if (this.#version !== undefined)
      return (await this.#requestStateless(entry, sent, options)) as NonNullable<Out[M]["result"]>;
    const { logLevel: _, task: __, ...rest } = options;
    const result = await connection.request(method, sent, rest);
    return checkPeerResult(entry.result, method, result, "server") as NonNullable<Out[M]["result"]>;
  }

  /**
   * Calls a tool as a task and hands back the task to hold: `status()`, `result()`, `cancel()`, and its
   * `taskId` to find it again with `toolTask(taskId)` from this client or another after a reconnect.
   */
  async startToolTask(
    params: ToolCallParams,
    options: ClientRequestOptions = {},
  ): Promise<ToolTask<NonNullable<Out["tools/call"]["result"]>>> {
    if (this.#reinitializing) await this.#reinitializing;
    this.#ready();
    const entry = entryOf(this.#tables.clientRequests, "tools/call");
    if (!entry)
      throw new McpError(
        ErrorCode.MethodNotFound,
        `tools/call is not a client request in protocol ${this.protocolVersion}`,
      );
    const { task = true, ...rest } = options;
    const outcome = await this.#traced("tools/call", params as never, (sent) =>
      this.#startToolTask(entry, sent as unknown as ToolCallParams, task, rest),
    );
    if (outcome instanceof PolledToolTask)
      return outcome as ToolTask<NonNullable<Out["tools/call"]["result"]>>;
    throw new McpError(
      ErrorCode.InvalidParams,
      `tools/call ${params.name}: the server answered with the tool's result, not a task (it does not run this tool as a task)`,
    );
  }

  /** A task this or another client started (`startToolTask`), found by its id: `tasks/get` first. */
  async toolTask(taskId: string, tool = ""): Promise<ToolTask<NonNullable<Out["tools/call"]["result"]>>> {
    if (this.#reinitializing) await this.#reinitializing;
    this.#ready();
    const entry = entryOf(this.#tables.clientRequests, "tools/call")!;
    const stateless = this.#version !== undefined;
    const peer = stateless ? this.#extensionTaskPeer(entry) : this.#taskPeer();
    const found = await peer.get(taskId, undefined);
    // 2026-07-28's peer checks the inlined result itself; 2025-11-25's tasks/result is checked here.
    const check = (payload: Record<string, unknown>) =>
      stateless ? payload : this.#toolResult(entry, payload);
    return new PolledToolTask(found, tool, peer, check) as ToolTask<NonNullable<Out["tools/call"]["result"]>>;
  }

  /** Sends a task-augmented tools/call: the task the server created, or the result it answered at once. */
  async #startToolTask(
    entry: RequestEntry,
    params: ToolCallParams,
    task: TaskRequest,
    options: ClientRequestOptions,
  ): Promise<PolledToolTask<unknown> | Record<string, unknown>> {
    if (this.#version !== undefined) return this.#startExtensionTask(entry, params, options);
    if (
      this.options.strictCapabilities !== false &&
      !hasCapability(this.#server!.capabilities, TASK_TOOL_CALLS)
    )
      throw new McpError(
        ErrorCode.MethodNotFound,
        `the server does not offer ${capabilityName(TASK_TOOL_CALLS)} (needed to call ${params.name} as a task)`,
      );
    const taskParams = task === true || task.ttl === undefined ? {} : { ttl: task.ttl };
    const { logLevel: _, task: __, onprogress, ...rest } = options;
    const connection = this.#ready();
    // The call's progress token outlives its answer: the task reports on it until it ends.
    const token = onprogress && `task-progress-${newTaskId()}`;
    const sent = {
      ...params,
      ...(token === undefined ? {} : { _meta: { ...params._meta, progressToken: token } }),
      task: taskParams,
    };
    const stop = token === undefined ? () => {} : connection.listenProgress(token, onprogress!);
    try {
      const result = await connection.request("tools/call", sent, rest);
      const created = createdTask(result, `tools/call ${params.name}`);
      // A server that does not run this tool as a task answers the call itself.
      if (!created) {
        stop();
        return this.#toolResult(entry, result);
      }
      return new PolledToolTask(
        created,
        params.name,
        this.#taskPeer(),
        (payload) => this.#toolResult(entry, payload),
        stop,
      );
    } catch (error) {
      stop();
      throw error;
    }
  }

  /**
   * 2026-07-28: the call with the tasks extension declared on it; the server decides. A flat
   * CreateTaskResult → the task, polled with `tasks/get`; a complete result → that result.
   */
  async #startExtensionTask(
    entry: RequestEntry,
    params: ToolCallParams,
    options: ClientRequestOptions,
  ): Promise<PolledToolTask<unknown> | Record<string, unknown>> {
    if (this.options.strictCapabilities !== false && !offersTasksExtension(this.#server!.capabilities))
      throw new McpError(
        ErrorCode.MethodNotFound,
        `the server does not offer the ${TASKS_EXTENSION} extension (needed to call ${params.name} as a task)`,
      );
    const { task: _, ...rest } = options;
    const result = await this.#requestStateless(
      entry,
      params as unknown as Record<string, unknown>,
      rest,
      true,
    );
    if (resultTypeOf(result) !== RESULT_TYPE_TASK) return result;
    const created = readDetailedTask(result, `tools/call ${params.name}`).info;
    return new PolledToolTask(created, params.name, this.#extensionTaskPeer(entry), (payload) => payload);
  }

  /** The 2026-07-28 task requests: tasks/get (the DetailedTask), tasks/update (input), tasks/cancel. */
  #extensionTaskPeer(entry: RequestEntry): TaskPeer {
    const send = (method: string, params: Record<string, unknown>, signal?: AbortSignal) =>
      this.#sendStateless(method, params, signal ? { signal } : {}, true);
    const detail = async (taskId: string, signal: AbortSignal | undefined) =>
      readDetailedTask(await send("tasks/get", { taskId }, signal), `tasks/get ${taskId}`);
    // Keys answered already: a poll may see them again before the server took the answer.
    const answered = new Set<string>();
    let last: ReturnType<typeof readDetailedTask> | undefined;
    const client = this;
    return {
      async get(taskId, signal) {
        last = await detail(taskId, signal);
        return last.info;
      },
      async payload(taskId, signal) {
        const known = last?.info.taskId === taskId && isTerminal(last.info.status);
        const task = known && last ? last : await detail(taskId, signal);
        if (task.info.status === "failed" && task.error)
          throw new McpError(task.error.code, task.error.message, task.error.data);
        if (task.info.status !== "completed" || !task.result)
          throw new McpError(
            ErrorCode.InvalidParams,
            `tasks/get ${taskId}: the server's ${task.info.status} task carries no ${task.info.status === "failed" ? "error" : "result"}`,
          );
        return client.#complete(entry, task.result);
      },
      async cancel(taskId) {
        await send("tasks/cancel", { taskId });
        last = await detail(taskId, undefined);
        return last.info;
      },
      async answer(taskId, signal) {
        const pending = (last?.inputRequests ?? []).filter(([key]) => !answered.has(key));
        if (pending.length === 0) return false;
        const inputResponses: Record<string, unknown> = {};
        for (const [key, request] of pending) {
          inputResponses[key] = await client.#answerOne("tools/call", key, request, signal);
          answered.add(key);
        }
        await send("tasks/update", { taskId, inputResponses }, signal);
        return true;
      },
      get closed() {
        return client.#connection?.closed ?? true;
      },
    };
  }

  #toolResult(entry: RequestEntry, result: Record<string, unknown>): Record<string, unknown> {
    return checkPeerResult(entry.result, "tools/call", result, "server") as Record<string, unknown>;
  }

  /** The task requests a polled task sends, through this client (checked, traced, after a re-handshake). */
  #taskPeer(): TaskPeer {
    const send = (method: string, taskId: string, options: ClientRequestOptions) =>
      this.request(method as never, { taskId } as never, options) as Promise<Record<string, unknown>>;
    const client = this;
    return {
      get: async (taskId, signal) =>
        readTask(await send("tasks/get", taskId, signal ? { signal } : {}), `tasks/get ${taskId}`),
      // It answers once the task ends (and carries the task's input requests meanwhile): no timeout.
      payload: (taskId, signal) =>
        send("tasks/result", taskId, { timeoutMs: Number.POSITIVE_INFINITY, ...(signal ? { signal } : {}) }),
      cancel: async (taskId) => readTask(await send("tasks/cancel", taskId, {}), `tasks/cancel ${taskId}`),
      get closed() {
        return client.#connection?.closed ?? true;
      },
    };
  }

  // Skills (the io.modelcontextprotocol/skills extension, stateless versions): skills.ts

  /** Every skill entry the server lists (every page); a malformed entry is left out and reported to `onError`. No file is read. */
  listSkills(options: ClientRequestOptions = {}): Promise<Skill[]> {
    return listSkills(this.#skillsPeer(), options);
  }

  /** The entry of the skill whose `SKILL.md` is `uri` (`skills/get`). No file is read. */
  getSkill(uri: string, options: ClientRequestOptions = {}): Promise<Skill> {
    return getSkill(this.#skillsPeer(), uri, options);
  }

  /**
   * Loads a skill: reads its `SKILL.md` now and verifies it against `entry` (size, digest, frontmatter
   * field by field); the HeldSkill reads the skill's other files, each verified. Every refusal is a
   * SkillVerificationError.
   */
  loadSkill(entry: Skill, options: LoadSkillOptions = {}): Promise<HeldSkill> {
    return loadSkill(this.#skillsPeer(), entry, options);
  }

  /**
   * The children of a skill folder (`resources/directory/read`, every page; the server must declare
   * `directoryRead`): files, and folders with `mimeType: "inode/directory"`. No file is read.
   */
  readSkillDirectory(uri: string, options: ClientRequestOptions = {}): Promise<DirectoryEntry[]> {
    return readSkillDirectory(this.#skillsPeer(), uri, options);
  }

  #skillsPeer(): SkillsPeer {
    return {
      request: (method, params, options) => this.#extensionRequest(SKILLS_EXTENSION, method, params, options),
      read: (uri, options) =>
        this.request("resources/read" as never, { uri } as never, options) as Promise<
          Record<string, unknown>
        >,
      report: (error) => this.#reportError(error),
    };
  }

  /**
   * A request of an extension the generated tables do not hold, sent when the server declares the
   * extension (`capabilities.extensions`, from server/discover or initialize; strict mode refuses it
   * locally otherwise); `_meta`, retries and telemetry as every request. A stateless result must be
   * complete; its own fields are the caller's to check.
   */
  async #extensionRequest(
    extension: string,
    method: string,
    params: Record<string, unknown>,
    options: ClientRequestOptions,
  ): Promise<Record<string, unknown>> {
    if (this.#reinitializing) await this.#reinitializing;
    const connection = this.#ready();
    const offered = this.#server!.capabilities.extensions;
    if (this.options.strictCapabilities !== false && !(isObject(offered) && isObject(offered[extension])))
      throw new McpError(
        ErrorCode.MethodNotFound,
        `the server does not offer the ${extension} extension (needed by ${method})`,
      );
    return this.#traced(method, params, async (sent) => {
      const { logLevel: _, task: __, ...rest } = options;
      // The connection takes only object results (classify): a JSON-RPC envelope check.
      const result =
        this.#version === undefined
          ? await connection.request(method, sent, rest)
          : await this.#sendStateless(method, sent ?? {}, options);
      if (this.#version !== undefined && resultTypeOf(result) !== RESULT_TYPE.complete)
        throw new McpError(
          ErrorCode.InvalidParams,
          `the server answered ${method} with resultType ${JSON.stringify(result.resultType)}, where only "complete" is expected`,
        );
      return result;
    });
  }

  async notify<M extends keyof OutNotes & string>(method: M, params?: OutNotes[M]["params"]): Promise<void> {
    const connection = this.#ready();
    await this.#traced(method, params as Record<string, unknown> | undefined, (sent) =>
      connection.notify(method, sent),
    );
  }

  async close(): Promise<void> {
    this.#tasks?.close();
    await this.#connection?.close();
  }

  #capabilitiesFor(tables: ProtocolTables): Capabilities {
    const derived = deriveCapabilities(
      Object.values(tables.serverRequests),
      (e) => !!this.#handlers[e.handler],
    );
    const tasks =
      this.#tasks && entryOf(tables.serverRequests, "tasks/get")
        ? taskCapabilities((handler) => !!this.#handlers[handler])
        : undefined;
    const declared = mergeCapabilities(
      mergeCapabilities(derived, tasks),
      appsCapabilities(this.options.apps),
    );
    return mergeCapabilities(declared, this.options.capabilities);
  }

  #ready(): Connection {
    if (!this.#connection || !this.#server)
      throw new McpError(ErrorCode.ConnectionClosed, "not connected: call connect() first");
    return this.#connection;
  }

  #session(): SessionInfo {
    return {
      protocolVersion: this.protocolVersion ?? this.protocol.version,
      clientInfo: this.#server?.serverInfo ?? UNKNOWN_PEER,
      clientCapabilities: this.#server?.capabilities ?? {},
    };
  }

  #handlerContext(requestId: RequestId, signal: AbortSignal, rc?: IncomingRequestContext) {
    const ctx: HandlerContext<Out, OutNotes> = {
      signal,
      requestId,
      session: this.#session(),
      ...(rc?.progressToken === undefined
        ? {}
        : {
            progress: (progress: number, total?: number, message?: string) =>
              this.#connection!.progress(rc.progressToken!, {
                progress,
                ...(total === undefined ? {} : { total }),
                ...(message === undefined ? {} : { message }),
              }),
          }),
      log: async () => {},
      request: (method, params, options) => this.request(method, params, options),
      notify: (method, params) => this.notify(method, params),
    };
    return ctx;
  }

  /** Server→client requests: the initialize era's; stateless versions have none (their input travels in results). */
  #onRequest(request: JsonRpcRequest, rc: IncomingRequestContext): Promise<Record<string, unknown>> {
    const telemetry = this.options.telemetry;
    // No telemetry: optional chaining skips the call and its argument.
    const op = telemetry?.incoming({
      method: request.method,
      params: request.params,
      requestId: rc.id,
      protocolVersion: this.protocolVersion,
      sessionId: this.#transport?.sessionId,
    });
    if (op === undefined) return this.#handleRequest(request, rc);
    return traced(op, () => this.#handleRequest(request, rc)) as Promise<Record<string, unknown>>;
  }

  async #handleRequest(
    request: JsonRpcRequest,
    rc: IncomingRequestContext,
  ): Promise<Record<string, unknown>> {
    if (request.method === "ping" && this.#version === undefined) return {};
    const entry = entryOf(this.#tables.serverRequests, request.method);
    if (!entry || entry.delivery === "input" || RUNTIME_METHODS.has(request.method))
      throw new McpError(ErrorCode.MethodNotFound, `Method not found: ${request.method}`);
    if (entry.capability && !hasCapability(this.#caps, entry.capability)) {
      throw new McpError(
        ErrorCode.MethodNotFound,
        `Method not found: ${request.method} (this client does not offer ${capabilityName(entry.capability)})`,
      );
    }
    const tasks = this.#tasks;
    if (tasks && CORE_TASK_METHODS.has(request.method))
      return tasks.serve(request.method, request.params, rc.signal);
    const handler = this.#handlers[entry.handler];
    if (!handler) throw new McpError(ErrorCode.MethodNotFound, `Method not found: ${request.method}`);
    const invalidParams = `Invalid params for ${request.method}`;
    const task = request.params?.task;
    if (tasks && isObject(task) && tasks.handlerOf(request.method) === entry.handler) {
      // Checked before the task exists: bad params are the request's error, not a failed task.
      assertValid(entry.params, request.params, ErrorCode.InvalidParams, invalidParams);
      return tasks.create(request.method, task, (signal) =>
        this.#runHandler(entry, handler, request.params, invalidParams, () =>
          this.#handlerContext(rc.id, signal),
        ),
      );
    }
    return this.#runHandler(entry, handler, request.params, invalidParams, () =>
      this.#handlerContext(rc.id, rc.signal, rc),
    );
  }

  /**
   * A notification reaches the client's handler for it; one tagged with a subscription id also that
   * subscription's handler, and none at all when that subscription is no longer open.
   */
  #onNotification(n: JsonRpcNotification): Promise<void> {
    const op = this.options.telemetry?.incoming({
      method: n.method,
      params: n.params,
      protocolVersion: this.protocolVersion,
      sessionId: this.#transport?.sessionId,
    });
    if (op === undefined) return this.#handleNotification(n);
    return traced(op, () => this.#handleNotification(n)) as Promise<void>;
  }

  async #handleNotification(n: JsonRpcNotification): Promise<void> {
    if (n.method === TASK_STATUS_NOTIFICATION && this.#version !== undefined) return this.#taskStatus(n);
    const entry = entryOf(this.#tables.serverNotifications, n.method);
    if (!entry) return;
    const subscriptionId = this.#version === undefined ? undefined : subscriptionIdOf(n.params);
    const sub = subscriptionId === undefined ? undefined : this.#subscriptions.get(subscriptionId);
    if (subscriptionId !== undefined && !sub) return;
    const own = sub?.handlers[entry.handler];
    const handler = this.#handlers[entry.handler];
    if (!own && !handler && n.method !== ACKNOWLEDGED) return;
    const error = invalidNotification(entry, n);
    if (error) {
      if (sub && n.method === ACKNOWLEDGED) sub.fail(error);
      this.#reportError(error);
      return;
    }
    const params = n.params as Record<string, unknown> | undefined;
    if (sub && n.method === ACKNOWLEDGED)
      sub.acknowledge(isObject(params?.notifications) ? params.notifications : {});
    const ctx: ClientNotificationContext = {
      session: this.#session(),
      ...(subscriptionId === undefined ? {} : { subscriptionId }),
    };
    if (own) await own(params, ctx);
    if (handler) await handler(params, ctx);
  }

  /** The tasks extension's `notifications/tasks` on a subscription that named `taskIds`. */
  async #taskStatus(n: JsonRpcNotification): Promise<void> {
    const subscriptionId = subscriptionIdOf(n.params);
    const sub = subscriptionId === undefined ? undefined : this.#subscriptions.get(subscriptionId);
    const handler = sub?.handlers.onTaskStatus;
    if (!handler) return;
    let task: DetailedTask;
    try {
      task = readDetailedTask(n.params, TASK_STATUS_NOTIFICATION);
    } catch (error) {
      this.#reportError(error);
      return;
    }
    await handler(task, { session: this.#session(), subscriptionId });
  }

  #reportError(error: unknown): void {
    if (this.options.onError) this.options.onError(error);
    else console.error(`mcp client: ${detailOf(error)}`);
  }
}

/** The server as a discover result describes it; it names itself in the result's `_meta`. */
function describe(version: string, result: Record<string, unknown>): ServerDescription {
  const meta = isObject(result._meta) ? result._meta : {};
  // Drafts before the spec moved it to `_meta` put serverInfo beside the capabilities; some servers still do.
  const info = [meta[META.serverInfo], result.serverInfo].find(
    (v): v is ImplementationInfo =>
      isObject(v) && typeof v.name === "string" && typeof v.version === "string",
  );
  return {
    protocolVersion: version,
    serverInfo: info ?? UNKNOWN_PEER,
    capabilities: (result.capabilities as Capabilities) ?? {},
    ...(typeof result.instructions === "string" ? { instructions: result.instructions } : {}),
    supportedVersions: result.supportedVersions as string[],
  };
}
