/**
 * The version-agnostic MCP server: capabilities derived from the handlers present, sessions on any
 * transport, and what every session shares (tables, sealing, caching hints). The generated `server.ts` of
 * each version adds only types.
 */

import { DEFAULT_DRAIN_TIMEOUT_MS } from "../jsonrpc/connection.js";
import { ErrorCode, McpError } from "../jsonrpc/messages.js";
import { DONE, type Transport } from "../jsonrpc/transport.js";
import { type Capabilities, deriveCapabilities, mergeCapabilities } from "../mcp/capabilities.js";
import type { AnyHandler, ImplementationInfo, MethodTypes, SessionInfo } from "../mcp/handler-context.js";
import { InMemoryMessageBus, type MessageBus } from "../mcp/message-bus.js";
import { isStub } from "../mcp/not-implemented.js";
import { ToolHeaderParams } from "../mcp/param-headers.js";
import { META } from "../mcp/request-meta.js";
import {
  InMemoryResourceSubscriptions,
  type ResourceSubscriptionStore,
} from "../mcp/resource-subscriptions.js";
import { defaultStateCaller, type StateCaller } from "../mcp/round-binding.js";
import { SKILLS_EXTENSION } from "../mcp/skills.js";
import type { StateKeyring } from "../mcp/state-keyring.js";
import { type StateKey, StateSealer } from "../mcp/state-sealer.js";
import type { MethodEntry, ProtocolTables } from "../mcp/tables.js";
import { TASKS_EXTENSION } from "../mcp/tasks.js";
import type { Telemetry } from "../mcp/telemetry.js";
import { InMemoryUsedStateStore, type UsedStateStore } from "../mcp/used-states.js";
import { LinkedSet } from "../util/collections.js";
import { detailOf } from "../util/errors.js";
import { contractScopesOf, requiredBy, type ScopeTable, scopeRefusal } from "./contract-scopes.js";
import { FanOut, type FanOutTarget } from "./fan-out.js";
import { Listeners } from "./listen.js";
import { addInputHelpers } from "./request-context.js";
import { ServedSkills } from "./served-skills.js";
import { ServerTasks, type TaskOptions } from "./server-tasks.js";
import { type ConnectOptions, ServerSession } from "./session.js";
import { type SkillsTable, skillsTableOf } from "./skills-table.js";
import { SubscribedSessions } from "./subscribed-sessions.js";
import { taskToolsOf } from "./task-support.js";

/** The default error report (stderr) writes at most this many lines per window. */
const REPORTS_PER_WINDOW = 10;
const REPORT_WINDOW_MS = 10_000;
const RESOURCE_UPDATED = "notifications/resources/updated";

export interface ServerOptions extends TaskOptions {
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
  /**
   * How long closing (close(), SIGTERM through `serveHttp` or `shutdownOnSignals`, stdin EOF) waits for
   * handlers still running before aborting them; they are answered either way (default 5 s).
   */
  drainTimeoutMs?: number;
  /**
   * Every error: what a handler threw, and what could not be sent to a peer. Default: stderr (at most
   * 10 lines per 10 s) for the latter and for tools' throws; what a non-tool handler threw is not
   * printed, its client is answered -32603 with the message (pass `onError: console.error` for stacks).
   * A throw after the request was cancelled is neither printed nor passed here.
   */
  onError?: (error: unknown) => void;
  /**
   * Stateless era: caching hints added to list and read results that carry none (default `ttlMs: 0`,
   * `cacheScope: "private"`: immediately stale, never shared across users).
   */
  cache?: { ttlMs: number; cacheScope: "public" | "private" };
  /**
   * Stateless era: the secret sealing `requestState` (AES-256-GCM, key derived by HKDF; at least 32
   * random bytes), as the single key of `stateKeys` with id "default". Default: a random key per server.
   * Servers behind a load balancer share one so a retry may reach another instance.
   */
  stateSecret?: string | Uint8Array;
  /**
   * Stateless era: the keys sealing `requestState`, by id: the first seals, all open until their `expires`
   * (to rotate, put the new key first and drop the old one once `stateTtlMs` has passed). Or a
   * StateKeyring, asked on every seal and open: instances sharing one rotate together. Instead of `stateSecret`.
   */
  stateKeys?: readonly StateKey[] | StateKeyring;
  /**
   * Stateless era: how long a sealed `requestState` stays valid (default 5 minutes: an elicitation
   * waits on a person; the state is also single use and bound to the request and its caller).
   */
  stateTtlMs?: number;
  /**
   * Stateless era: who an authenticated caller is (`ctx.auth`, the transport's `authenticate` result) for
   * binding `requestState` to them: return the subject (user id). Default: an AuthInfo's `subject`, a string `ctx.auth` as it is,
   * anything else by its canonical JSON (all of it must then be the same on the retry).
   */
  stateCaller?: StateCaller;
  /**
   * Stateless era: where used `requestState`s are remembered, each being good for one retry (default: in
   * memory, this instance only). Servers behind a load balancer need a shared store to refuse a state
   * used at another instance.
   */
  usedStateStore?: UsedStateStore;
  /**
   * Where the requests this server serves are reported (spans, durations): `openTelemetry()` from
   * `@mcp-codegen/runtime/otel`, or your own. Default: none, at no cost.
   */
  telemetry?: Telemetry;
  /**
   * Where this server's instances meet: what `notifyAll` and `notifyResourceUpdated` send reaches the
   * sessions and `subscriptions/listen` streams of every instance sharing the bus (a RedisMessageBus of
   * `@mcp-codegen/redis`, or one InMemoryMessageBus for servers in one process). Default: a bus of this
   * server's own, over which nothing is published: notifications reach this instance only, as cheaply as
   * with no bus. With a shared `sessionStore` on the HTTP handler, the bus also routes a session's
   * messages to the instance holding what they are for (answers, cancellations, progress, resumed streams).
   */
  bus?: MessageBus;
  /**
   * Handshake era: which sessions subscribed to which resources (recorded once the `subscribe` handler
   * accepts, dropped on `unsubscribe` and when the session ends), for `notifyResourceUpdated`. Default: in
   * memory, this instance only; instances behind a load balancer share one (RedisResourceSubscriptions).
   */
  resourceSubscriptions?: ResourceSubscriptionStore;
  /**
   * Skills to serve (the Skills extension, SEP-2640): the table a contract's `skills:` compiles to (its
   * `contractHandlers` carry it, so generated servers need not pass it) or what `skillsTable(dir)` of
   * mcp-codegen builds for a handwritten server. Its files are resources in both eras; `skills/list`,
   * `skills/get` and (with `directoryRead`) `resources/directory/read` are served from 2026-07-28 on.
   */
  skills?: SkillsTable;
}

/** Default lifetime of a sealed `requestState`. */
const DEFAULT_STATE_TTL_MS = 5 * 60_000;

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
  readonly listeners = new Listeners();
  readonly sealer: StateSealer;
  /** Sealed states already used (each is good for one retry). */
  readonly usedStates: UsedStateStore;
  readonly stateCaller: StateCaller;
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
  /** The scopes of the contracts served (through `contractHandlers`): one table per contract, usually none or one. */
  readonly #scopes: readonly ScopeTable[];
  /**
   * Every scope the served contracts declare, sorted, without `offline_access`: the Protected Resource
   * Metadata's `scopes_supported` (the generated contract module exports the same list as `scopesSupported`).
   */
  readonly scopesSupported: readonly string[];
  /** Where served requests are reported (the `telemetry` option), if anywhere. */
  readonly telemetry: Telemetry | undefined;
  /**
   * The bus this server's instances share (the `bus` option), else one of its own. Channel names are in
   * `channels`: this server publishes and receives on its fan-out channel.
   */
  readonly bus: MessageBus;
  /** Which sessions subscribed to which resources (handshake era). */
  readonly resourceSubscriptions: ResourceSubscriptionStore;
  /** Fan-out over a bus the `bus` option gave; none over the server's own. */
  readonly #fanOut: FanOut | undefined;
  readonly #subscribed: SubscribedSessions;
  /** Tools run as tasks: present when some tool may run as one (`taskTools`, a contract's `taskSupport`). */
  readonly tasks: ServerTasks | undefined;
  /** Whether handshake-era sessions serve the 2025-11-25 core tasks (`tools/call` with `task`, `tasks/*`). */
  readonly coreTasks: boolean;
  /** The skills served (the `skills` option, or a contract's), if any. */
  readonly skills: ServedSkills | undefined;

  constructor(readonly options: RuntimeServerOptions) {
    this.telemetry = options.telemetry;
    this.protocol = options.protocol;
    this.statelessTables = options.protocol.lifecycle === "discover" ? options.protocol : undefined;
    this.handshake = options.protocol.lifecycle === "initialize" ? options.protocol : options.protocol.legacy;
    const given = options.handlers as Record<string, AnyHandler | undefined>;
    const skills = skillsTableOf(options.skills, given);
    this.skills = skills && new ServedSkills(skills);
    const handlers = this.skills ? this.skills.withResources(given, resourceNotFound) : given;
    this.#scopes = contractScopesOf(handlers);
    this.resourceSubscriptions = options.resourceSubscriptions ?? new InMemoryResourceSubscriptions();
    this.#subscribed = new SubscribedSessions(this.resourceSubscriptions, (error) => this.reportError(error));
    this.handlers = this.#subscribed.recording(handlers, this.handshake);
    this.scopesSupported = Object.freeze([...new Set(this.#scopes.flatMap((t) => t.supported))].sort());
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
    this.bus = options.bus ?? new InMemoryMessageBus((error) => this.reportError(error));
    this.stateCaller = options.stateCaller ?? defaultStateCaller;
    const taskTools = taskToolsOf(options.taskTools, handlers);
    this.tasks =
      taskTools.size > 0
        ? new ServerTasks(options, taskTools, this.bus, this.stateCaller, (error) => this.reportError(error))
        : undefined;
    this.capabilities = capsOf(this.protocol);
    this.handshakeCapabilities = this.handshake ? capsOf(this.handshake) : this.capabilities;
    // The core tasks where the handshake era's tables have them (2025-11-25 on).
    this.coreTasks =
      this.tasks !== undefined &&
      !!this.handshake &&
      Object.hasOwn(this.handshake.clientRequests, "tasks/get");
    if (this.coreTasks) {
      const core = { tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } };
      this.handshakeCapabilities = mergeCapabilities(this.handshakeCapabilities, core);
      if (this.protocol.lifecycle === "initialize") this.capabilities = this.handshakeCapabilities;
    }
    // The tasks extension (2026-07-28 on) in server/discover, and no capabilities.tasks there.
    if (this.tasks && this.protocol.lifecycle === "discover")
      this.capabilities = mergeCapabilities(this.capabilities, { extensions: { [TASKS_EXTENSION]: {} } });
    // The skills extension binds to the stateless era: declared in server/discover only.
    if (this.skills && this.protocol.lifecycle === "discover")
      this.capabilities = mergeCapabilities(this.capabilities, {
        extensions: { [SKILLS_EXTENSION]: this.skills.capability },
      });
    this.validateResults = options.validateResults ?? nodeEnv() !== "production";
    this.sealer = new StateSealer(stateKeysOf(options), options.stateTtlMs ?? DEFAULT_STATE_TTL_MS);
    this.usedStates = options.usedStateStore ?? new InMemoryUsedStateStore();
    this.statelessVersions = this.statelessTables?.supportedVersions.map((v) => v.version) ?? [];
    this.resultMeta = { [META.serverInfo]: options.info };
    this.cacheHints = options.cache ?? { ttlMs: 0, cacheScope: "private" };
    addInputHelpers([this.protocol, ...(this.protocol.legacy ? [this.protocol.legacy] : [])]);
    this.#fanOut =
      options.bus &&
      new FanOut(
        options.bus,
        options.info.name,
        (method, params, sessions) => this.#deliverHere(method, params, sessions),
        (error) => this.reportError(error),
      );
  }

  /**
   * Settles once what other instances publish on the bus reaches this one (subscribing may wait for a
   * shared bus to connect); at once without a `bus` option.
   */
  fanOutReady(): Promise<void> {
    return this.#fanOut?.subscribed ?? Promise.resolve();
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
        sessionless: true as const,
        clientInfo: Object.freeze({ name: "unknown", version: "0" }),
        clientCapabilities: Object.freeze({}),
      });
      this.statelessInfos.set(protocolVersion, info);
    }
    return info;
  }
  private readonly statelessInfos = new Map<string, SessionInfo>();

  /** @internal A session's connection closed: its resource subscriptions go with it. */
  forget(session: ServerSession<Out, OutNotes>): void {
    this.live.delete(session);
    if ((session.transport as FanOutTarget).sessionEnded !== false) this.#subscribed.ended(session);
  }

  /** The live sessions, as a snapshot. */
  get sessions(): ReadonlySet<ServerSession<Out, OutNotes>> {
    return new Set(this.live);
  }

  /**
   * Sends a notification to every initialized handshake-era session and to every stateless-era
   * `subscriptions/listen` stream that asked for it (e.g. `notifications/tools/list_changed`), on this
   * instance and, with a `bus`, on every instance sharing it. Resolves once this instance's are sent and
   * the bus has taken it. For `notifications/resources/updated` use notifyResourceUpdated: it reaches
   * only the sessions subscribed to the resource.
   */
  async notifyAll<M extends keyof OutNotes & string>(
    method: M,
    params: OutNotes[M]["params"],
  ): Promise<void> {
    const sent = params as Record<string, unknown> | undefined;
    const here = this.#deliverHere(method, sent, undefined);
    if (this.#fanOut === undefined) await here;
    else await Promise.all([here, this.#fanOut.publish(method, sent)]);
  }

  /**
   * Sends `notifications/resources/updated` for `uri` to every handshake-era session subscribed to it
   * (`resources/subscribe`, on any instance sharing the `bus` and `resourceSubscriptions`) and to every
   * `subscriptions/listen` stream that named it; `params` may add `_meta` or, for a later schema, more.
   */
  async notifyResourceUpdated(uri: string, params?: Record<string, unknown>): Promise<void> {
    const sent = { ...params, uri };
    const subscribers = new Set(await this.resourceSubscriptions.subscribers(uri));
    const here = this.#deliverHere(RESOURCE_UPDATED, sent, subscribers);
    if (this.#fanOut === undefined) await here;
    else await Promise.all([here, this.#fanOut.publish(RESOURCE_UPDATED, sent, subscribers)]);
  }

  /**
   * A notification to this instance's initialized sessions (those in `sessions` only, when given: the
   * subscribers of an updated resource) that take fan-out, and to its listen streams that asked for it.
   */
  #deliverHere(
    method: string,
    params: Record<string, unknown> | undefined,
    sessions: ReadonlySet<string> | undefined,
  ): Promise<unknown> {
    return Promise.all([
      ...this.live
        .values()
        .filter(
          (s) =>
            s.initialized &&
            (s.transport as FanOutTarget).receivesFanOut !== false &&
            (sessions === undefined || sessions.has(this.#subscribed.keyOf(s) ?? "")),
        )
        .map((s) =>
          s.notify(method as keyof OutNotes & string, params as OutNotes[keyof OutNotes]["params"]),
        ),
      this.listeners.deliver(method, params),
    ]);
  }

  /**
   * Drains every session (see `ServerSession.drain`): requests in flight are answered, up to `timeoutMs`
   * (default: the `drainTimeoutMs` option, else 5 s); `{ timeoutMs: 0 }` aborts them (answered with an error) at once.
   */
  async close(options: { timeoutMs?: number } = {}): Promise<void> {
    this.#fanOut?.close();
    this.listeners.endAll();
    await Promise.all([
      ...this.live.values().map((s) => s.drain(options.timeoutMs)),
      this.closeTasks(options),
    ]);
  }

  /**
   * Waits up to `timeoutMs` (as `close`) for the tools running here as tasks to end, then aborts the rest
   * and records them failed (SERVER_CLOSED), so that no task is left working when this instance goes.
   * `close` does it; so does closing an HTTP handler serving this server.
   */
  async closeTasks(options: { timeoutMs?: number } = {}): Promise<void> {
    await this.tasks?.runner.close(
      options.timeoutMs ?? this.options.drainTimeoutMs ?? DEFAULT_DRAIN_TIMEOUT_MS,
    );
  }

  /**
   * The OAuth scopes a request for `method` with `params` needs, by the served contracts: their
   * `auth.scopes`, plus for `tools/call`, `prompts/get` (by `params.name`), `resources/read`,
   * `resources/subscribe`, `resources/unsubscribe` (by `params.uri`: the resource and every template
   * matching it) and `completion/complete` (by `params.ref`) the item's own. [] when no contract declares
   * scopes. The HTTP transport asks before it serves a request, to answer 403 before any stream opens.
   */
  requiredScopes(method: string, params: unknown): readonly string[] {
    return requiredBy(this.#scopes, method, params);
  }

  /**
   * @internal Why a request's caller (`auth`: the transport's authentication result) may not make it, or
   * undefined: checked before the params and before any handler, in both eras.
   */
  refusal(method: string, params: unknown, auth: unknown): McpError | undefined {
    return this.#scopes.length === 0 ? undefined : scopeRefusal(this.#scopes, method, params, auth);
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
    else this.#defaultReport(error);
  }

  /**
   * What a handler threw that its peer was answered with (-32603 and the message): the peer has it, so
   * only `onError` is told.
   */
  reportAnswered(error: unknown): void {
    this.options.onError?.(error);
  }

  /**
   * Without `onError`, errors go to stderr, at most REPORTS_PER_WINDOW per REPORT_WINDOW_MS: a client
   * that makes a handler throw in a loop cannot flood the log. What was held back is counted in the next
   * line written.
   */
  #defaultReport(error: unknown): void {
    const now = Date.now();
    if (now - this.#reportWindow >= REPORT_WINDOW_MS) {
      if (this.#heldBack > 0)
        console.error(`mcp server: ${this.#heldBack} more errors in ${REPORT_WINDOW_MS / 1000} s not shown`);
      this.#reportWindow = now;
      this.#reported = 0;
      this.#heldBack = 0;
    }
    if (this.#reported++ < REPORTS_PER_WINDOW) console.error(`mcp server: ${detailOf(error)}`);
    else this.#heldBack++;
  }
  #reportWindow = 0;
  #reported = 0;
  #heldBack = 0;

  /** An internal error of the server's own making (a handler breaking a rule): reported, then thrown. */
  fault(message: string): McpError {
    const error = new McpError(ErrorCode.InternalError, message);
    this.reportError(error);
    return error;
  }
}

/** An unknown resource as each era answers it: -32602 with the URI in the stateless era, else -32002. */
function resourceNotFound(uri: string, ctx: unknown): Error {
  const era = (ctx as { session?: { era?: string } } | undefined)?.session?.era;
  return new McpError(era === "stateless" ? ErrorCode.InvalidParams : -32002, `Resource not found: ${uri}`, {
    uri,
  });
}

/** The sealing keys the options give: `stateKeys`, or `stateSecret` as the one key "default", or none (random). */
function stateKeysOf(options: ServerOptions): readonly StateKey[] | StateKeyring | undefined {
  if (options.stateKeys && options.stateSecret !== undefined)
    throw new TypeError("give stateKeys or stateSecret, not both");
  if (options.stateSecret !== undefined) return [{ id: "default", secret: options.stateSecret }];
  return options.stateKeys;
}

/** NODE_ENV where there is a `process` that may be read (Workers have none; Deno without --allow-env throws). */
function nodeEnv(): string | undefined {
  try {
    return (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env?.NODE_ENV;
  } catch {
    return undefined;
  }
}
