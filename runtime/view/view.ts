/**
 * The view side of MCP Apps (`io.modelcontextprotocol/ui`, specification 2026-01-26): an HTML app in a
 * host's frame talking to the host over `postMessage` JSON-RPC 2.0. `connectView` sends `ui/initialize`,
 * takes the host's answer and sends `ui/notifications/initialized`; then the host's tool-input,
 * tool-result, tool-cancelled and host-context-changed notifications reach the handlers, and the view
 * calls its server's tools (`tools/call`, which the host forwards) and reports its size. No dependencies:
 * it runs in any browser frame. A contract's generated `app.ts` binds it with the contract's types.
 */

/** The Apps protocol version this module speaks in `ui/initialize`. */
export const APPS_PROTOCOL_VERSION = "2026-01-26";

/** Where messages go and come from: the host's window (`window.parent`) and this frame's window. */
export interface ViewPort {
  postMessage(message: unknown, targetOrigin: string): void;
}
export interface ViewEvents {
  addEventListener(type: "message", listener: (event: { data: unknown; source: unknown }) => void): void;
  removeEventListener(type: "message", listener: (event: { data: unknown; source: unknown }) => void): void;
}

/** A tool result as the host relays it (the core `CallToolResult`). */
export interface ViewToolResult {
  content?: unknown[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  _meta?: Record<string, unknown>;
  [key: string]: unknown;
}

/** What the host said about itself in its `ui/initialize` answer. */
export interface HostInfo {
  protocolVersion: string;
  hostInfo: { name: string; version: string; [key: string]: unknown };
  hostCapabilities: Record<string, unknown>;
  hostContext: { toolInfo?: { tool?: { name?: string } }; [key: string]: unknown };
}

export interface ViewHandlers {
  /** The tool's complete arguments (`ui/notifications/tool-input`), once, before its result. */
  toolInput?(args: Record<string, unknown>): void;
  /** The tool's result (`ui/notifications/tool-result`). */
  toolResult?(result: ViewToolResult): void;
  /** The call was cancelled (`ui/notifications/tool-cancelled`). */
  toolCancelled?(reason: string | undefined): void;
  /** Part of the host context changed (`ui/notifications/host-context-changed`). */
  hostContextChanged?(changed: Record<string, unknown>): void;
  /** The host is about to remove the view (`ui/resource-teardown`); answered when this returns. */
  teardown?(): void | Promise<void>;
  /** A message from the host that is not JSON-RPC, or a notification a handler threw on. */
  error?(error: Error): void;
}

export interface ViewOptions {
  appInfo: { name: string; version: string };
  /** Declared in `ui/initialize` (`availableDisplayModes`, `tools`, …). */
  appCapabilities?: Record<string, unknown>;
  /** Default `window.parent`. */
  host?: ViewPort;
  /** Default `window`. */
  events?: ViewEvents;
  /** The host's origin when known; default `*` (a sandboxed view does not know its host's origin). */
  targetOrigin?: string;
  /** How long a request waits for its answer; default 30 s. */
  timeoutMs?: number;
}

/** A JSON-RPC error the host answered with. */
export class ViewRequestError extends Error {
  override name = "ViewRequestError";
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

interface Pending {
  resolve(value: unknown): void;
  reject(error: Error): void;
  timer: ReturnType<typeof setTimeout>;
}

/** A connected view: what the host said, and the requests a view sends. */
export class View {
  readonly #host: ViewPort;
  readonly #events: ViewEvents;
  readonly #origin: string;
  readonly #timeoutMs: number;
  readonly #pending = new Map<number, Pending>();
  readonly #handlers: ViewHandlers;
  readonly #listener: (event: { data: unknown; source: unknown }) => void;
  #next = 1;
  #info: HostInfo | undefined;

  constructor(options: ViewOptions, handlers: ViewHandlers) {
    const frame = globalThis as unknown as { parent?: ViewPort } & Partial<ViewEvents>;
    this.#host = options.host ?? (frame.parent as ViewPort);
    this.#events = options.events ?? (frame as ViewEvents);
    this.#origin = options.targetOrigin ?? "*";
    this.#timeoutMs = options.timeoutMs ?? 30_000;
    this.#handlers = handlers;
    this.#listener = (event) => {
      // Only the host speaks to the view: other frames' messages are not the protocol's.
      if (event.source !== this.#host) return;
      this.#receive(event.data);
    };
    this.#events.addEventListener("message", this.#listener);
  }

  /** The host's `ui/initialize` answer. */
  get host(): HostInfo {
    if (!this.#info) throw new Error("the view is not connected: await connectView()");
    return this.#info;
  }

  /** Calls a tool of the server the view came from, through the host. */
  callTool(name: string, args: Record<string, unknown> = {}): Promise<ViewToolResult> {
    return this.request("tools/call", { name, arguments: args }) as Promise<ViewToolResult>;
  }

  /** Tells the host the view's content size (`ui/notifications/size-changed`). */
  sizeChanged(size: { width?: number; height?: number }): void {
    this.notify("ui/notifications/size-changed", size);
  }

  /** A request to the host; its result, or a ViewRequestError. */
  request(method: string, params?: Record<string, unknown>): Promise<unknown> {
    const id = this.#next++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending.delete(id);
        reject(new ViewRequestError(-32001, `${method}: no answer from the host in ${this.#timeoutMs} ms`));
      }, this.#timeoutMs);
      this.#pending.set(id, { resolve, reject, timer });
      try {
        this.#send({ jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params }) });
      } catch (error) {
        // No host to post to (not in a frame): refused now, not at the timeout.
        clearTimeout(timer);
        this.#pending.delete(id);
        reject(error);
      }
    });
  }

  notify(method: string, params?: Record<string, unknown>): void {
    this.#send({ jsonrpc: "2.0", method, ...(params === undefined ? {} : { params }) });
  }

  /** Stops listening; requests still waiting are refused. */
  close(): void {
    this.#events.removeEventListener("message", this.#listener);
    for (const [id, p] of this.#pending) {
      clearTimeout(p.timer);
      p.reject(new ViewRequestError(-32000, "the view was closed"));
      this.#pending.delete(id);
    }
  }

  /** @internal `connectView`'s handshake. */
  async initialize(options: ViewOptions): Promise<void> {
    const answer = (await this.request("ui/initialize", {
      appInfo: options.appInfo,
      appCapabilities: options.appCapabilities ?? {},
      protocolVersion: APPS_PROTOCOL_VERSION,
    })) as HostInfo;
    if (!isRecord(answer) || !isRecord(answer.hostContext) || typeof answer.protocolVersion !== "string")
      throw new ViewRequestError(
        -32603,
        "the host answered ui/initialize without protocolVersion and hostContext",
      );
    this.#info = answer;
    this.notify("ui/notifications/initialized");
  }

  #send(message: Record<string, unknown>): void {
    this.#host.postMessage(message, this.#origin);
  }

  #receive(data: unknown): void {
    if (!isRecord(data) || data.jsonrpc !== "2.0") {
      this.#handlers.error?.(new Error("a message from the host that is not JSON-RPC 2.0"));
      return;
    }
    if (typeof data.method === "string") {
      if ("id" in data) void this.#answer(data.id, data.method, data.params);
      else this.#notified(data.method, isRecord(data.params) ? data.params : {});
      return;
    }
    const pending = typeof data.id === "number" ? this.#pending.get(data.id) : undefined;
    if (!pending) return;
    this.#pending.delete(data.id as number);
    clearTimeout(pending.timer);
    if (isRecord(data.error)) {
      const { code, message, data: more } = data.error;
      pending.reject(new ViewRequestError(Number(code), String(message), more));
    } else pending.resolve(data.result);
  }

  #notified(method: string, params: Record<string, unknown>): void {
    const h = this.#handlers;
    try {
      if (method === "ui/notifications/tool-input")
        h.toolInput?.(isRecord(params.arguments) ? params.arguments : {});
      else if (method === "ui/notifications/tool-result") h.toolResult?.(params as ViewToolResult);
      else if (method === "ui/notifications/tool-cancelled")
        h.toolCancelled?.(typeof params.reason === "string" ? params.reason : undefined);
      else if (method === "ui/notifications/host-context-changed") {
        if (this.#info) this.#info = { ...this.#info, hostContext: { ...this.#info.hostContext, ...params } };
        h.hostContextChanged?.(params);
      }
    } catch (error) {
      h.error?.(error instanceof Error ? error : new Error(String(error)));
    }
  }

  async #answer(id: unknown, method: string, _params: unknown): Promise<void> {
    const reply = (body: Record<string, unknown>) => this.#send({ jsonrpc: "2.0", id, ...body });
    if (method === "ping") return reply({ result: {} });
    if (method === "ui/resource-teardown") {
      try {
        await this.#handlers.teardown?.();
        return reply({ result: {} });
      } catch (error) {
        return reply({
          error: { code: -32603, message: error instanceof Error ? error.message : String(error) },
        });
      }
    }
    reply({ error: { code: -32601, message: `Method not found: ${method}` } });
  }
}

/** Connects a view to its host: `ui/initialize`, then `ui/notifications/initialized`. */
export async function connectView(options: ViewOptions, handlers: ViewHandlers = {}): Promise<View> {
  const view = new View(options, handlers);
  try {
    await view.initialize(options);
  } catch (error) {
    view.close();
    throw error;
  }
  return view;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
