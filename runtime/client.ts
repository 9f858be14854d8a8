/**
 * The version-agnostic MCP client: initialize handshake, capability gating, result validation, and
 * dispatch of server→client requests and notifications to handlers by the generated tables.
 */

import { Connection, type IncomingRequestContext, type RequestOptions } from "./jsonrpc/connection.js";
import { ErrorCode, type JsonRpcNotification, type JsonRpcRequest, McpError } from "./jsonrpc/messages.js";
import {
  type Capabilities,
  capabilityName,
  deriveCapabilities,
  hasCapability,
  mergeCapabilities,
} from "./lifecycle/capabilities.js";
import { type ProtocolTables, RUNTIME_METHODS, type SupportedVersion } from "./protocol.js";
import type {
  HandlerContext,
  ImplementationInfo,
  MethodTypes,
  NotificationContext,
  SessionInfo,
} from "./server.js";
import { isStub } from "./server.js";
import type { Transport } from "./transports/transport.js";
import { checkPeerResult, validationError } from "./validate.js";

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
}

/** What HTTP transports add to the Transport contract: the version header and session expiry. */
interface SessionAwareTransport extends Transport {
  protocolVersion?: string | undefined;
  onsessionexpired?: () => void;
}

export interface ServerDescription {
  protocolVersion: string;
  serverInfo: ImplementationInfo;
  capabilities: Capabilities;
  instructions?: string;
}

export class Client<Out extends MethodTypes = MethodTypes, OutNotes extends MethodTypes = MethodTypes> {
  readonly capabilities: Capabilities;
  private connection: Connection | undefined;
  private server: ServerDescription | undefined;
  private negotiated: SupportedVersion | undefined;
  private readonly handlers: Record<string, AnyHandler | undefined>;

  constructor(
    readonly protocol: ProtocolTables,
    readonly options: ClientOptions,
  ) {
    const given = (options.handlers ?? {}) as Record<string, AnyHandler | undefined>;
    this.handlers = Object.fromEntries(Object.entries(given).filter(([, h]) => !isStub(h)));
    const derived = deriveCapabilities(
      Object.values(protocol.serverRequests),
      (e) => !!this.handlers[e.handler],
    );
    this.capabilities = mergeCapabilities(derived, options.capabilities);
  }

  /** Connects and runs the initialize handshake; rejects when the server answers a version we cannot speak. */
  async connect(transport: Transport, options: RequestOptions = {}): Promise<ServerDescription> {
    if (this.connection) throw new McpError(ErrorCode.InvalidRequest, "already connected");
    const connection = new Connection({
      transport,
      onRequest: (request, ctx) => this.onRequest(request, ctx),
      onNotification: (n) => this.onNotification(n),
      acceptBatches: () => this.negotiated?.batches ?? false,
      ...(this.options.requestTimeoutMs ? { defaultTimeoutMs: this.options.requestTimeoutMs } : {}),
      onHandlerError: (error) => this.reportError(error),
    });
    this.connection = connection;
    this.transport = transport as SessionAwareTransport;
    await connection.start();
    try {
      const description = await this.handshake(options);
      // A session the server forgot (HTTP 404) is started again, as the spec asks: a new initialize.
      this.transport.onsessionexpired = () => {
        this.reinitializing ??= this.handshake({}).finally(() => {
          this.reinitializing = undefined;
        });
      };
      return description;
    } catch (error) {
      await connection.close();
      this.connection = undefined;
      throw error;
    }
  }

  private transport: SessionAwareTransport | undefined;
  private reinitializing: Promise<ServerDescription> | undefined;

  /** initialize → check the answer → tell the transport the version → notifications/initialized. */
  private async handshake(options: RequestOptions): Promise<ServerDescription> {
    const connection = this.connection!;
    const result = await connection.request(
      "initialize",
      {
        protocolVersion: this.protocol.version,
        capabilities: this.capabilities,
        clientInfo: this.options.info,
      },
      options,
    );
    const checked = this.protocol.clientRequests.initialize!.result.safeParse(result);
    if (!checked.success)
      throw validationError(ErrorCode.InvalidParams, "invalid initialize result", checked.error);
    const description = checked.data as ServerDescription;
    const negotiated = this.protocol.supportedVersions.find((s) => s.version === description.protocolVersion);
    if (!negotiated) {
      throw new McpError(
        ErrorCode.InvalidRequest,
        `the server answered protocol version ${description.protocolVersion}; this client speaks ${this.protocol.supportedVersions.map((s) => s.version).join(", ")}`,
      );
    }
    this.negotiated = negotiated;
    this.server = description;
    if (this.transport && "protocolVersion" in this.transport)
      this.transport.protocolVersion = negotiated.version;
    await connection.notify("notifications/initialized");
    return description;
  }

  get serverDescription(): ServerDescription | undefined {
    return this.server;
  }

  get protocolVersion(): string | undefined {
    return this.negotiated?.version;
  }

  /** A typed request; refused locally when the server's capabilities do not offer it (strict mode). */
  async request<M extends keyof Out & string>(
    method: M,
    params?: Out[M]["params"],
    options?: RequestOptions,
  ): Promise<NonNullable<Out[M]["result"]>> {
    if (this.reinitializing) await this.reinitializing;
    const connection = this.ready();
    const entry = this.protocol.clientRequests[method];
    if (!entry)
      throw new McpError(
        ErrorCode.MethodNotFound,
        `${method} is not a client request in this protocol version`,
      );
    if (
      this.options.strictCapabilities !== false &&
      entry.capability &&
      !hasCapability(this.server!.capabilities, entry.capability)
    ) {
      throw new McpError(
        ErrorCode.MethodNotFound,
        `the server does not offer ${capabilityName(entry.capability)} (needed by ${method})`,
      );
    }
    const result = await connection.request(method, params as Record<string, unknown> | undefined, options);
    return checkPeerResult(entry.result, method, result, "server") as NonNullable<Out[M]["result"]>;
  }

  async notify<M extends keyof OutNotes & string>(method: M, params?: OutNotes[M]["params"]): Promise<void> {
    await this.ready().notify(method, params as Record<string, unknown> | undefined);
  }

  async close(): Promise<void> {
    await this.connection?.close();
  }

  private ready(): Connection {
    if (!this.connection || !this.server)
      throw new McpError(ErrorCode.ConnectionClosed, "not connected: call connect() first");
    return this.connection;
  }

  private session(): SessionInfo {
    return {
      protocolVersion: this.negotiated?.version ?? this.protocol.version,
      clientInfo: this.server?.serverInfo ?? { name: "", version: "" },
      clientCapabilities: this.server?.capabilities ?? {},
    };
  }

  private async onRequest(
    request: JsonRpcRequest,
    rc: IncomingRequestContext,
  ): Promise<Record<string, unknown>> {
    if (request.method === "ping") return {};
    const entry = this.protocol.serverRequests[request.method];
    if (!entry || RUNTIME_METHODS.has(request.method))
      throw new McpError(ErrorCode.MethodNotFound, `Method not found: ${request.method}`);
    if (entry.capability && !hasCapability(this.capabilities, entry.capability)) {
      throw new McpError(
        ErrorCode.MethodNotFound,
        `Method not found: ${request.method} (this client does not offer ${capabilityName(entry.capability)})`,
      );
    }
    const handler = this.handlers[entry.handler];
    if (!handler) throw new McpError(ErrorCode.MethodNotFound, `Method not found: ${request.method}`);
    const checked = entry.params.safeParse(request.params);
    if (!checked.success)
      throw validationError(ErrorCode.InvalidParams, `Invalid params for ${request.method}`, checked.error);
    const ctx: HandlerContext<Out, OutNotes> = {
      signal: rc.signal,
      requestId: rc.id,
      session: this.session(),
      ...(rc.progressToken === undefined
        ? {}
        : {
            progress: (progress: number, total?: number, message?: string) =>
              this.connection!.progress(rc.progressToken!, {
                progress,
                ...(total === undefined ? {} : { total }),
                ...(message === undefined ? {} : { message }),
              }),
          }),
      log: async () => {},
      request: (method, params, options) => this.request(method, params, options),
      notify: (method, params) => this.notify(method, params),
    };
    const result = await handler(checked.data, ctx);
    const valid = entry.result.safeParse(result);
    if (!valid.success) {
      const error = validationError(
        ErrorCode.InternalError,
        `the ${entry.handler} handler returned an invalid result`,
        valid.error,
      );
      this.reportError(error);
      throw error;
    }
    return result as Record<string, unknown>;
  }

  private async onNotification(n: JsonRpcNotification): Promise<void> {
    const entry = this.protocol.serverNotifications[n.method];
    const handler = entry && this.handlers[entry.handler];
    if (!entry || !handler) return;
    const checked = entry.params.safeParse(n.params);
    if (!checked.success) {
      this.reportError(
        validationError(ErrorCode.InvalidParams, `invalid ${n.method} notification`, checked.error),
      );
      return;
    }
    const ctx: NotificationContext = { session: this.session() };
    await handler(checked.data, ctx);
  }

  private reportError(error: unknown): void {
    if (this.options.onError) this.options.onError(error);
    else
      process.stderr.write(
        `mcp client: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
      );
  }
}
