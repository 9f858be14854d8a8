/**
 * One URL, either HTTP transport: the backwards-compatibility procedure of the Streamable HTTP spec for
 * clients that must also reach servers of the legacy HTTP+SSE transport (2024-11-05).
 *
 * The procedure probes with the initialize request itself, and the client sends that request through
 * `send` after `start`. So the decision happens inside a wrapper transport, on its first `send`: it POSTs
 * the message with Streamable HTTP; if the server answers 400, 404 or 405, it GETs the same URL as a
 * legacy SSE stream, waits for the `endpoint` event and POSTs the message there. Whichever worked gets
 * every later call; messages sent while the first one is deciding wait for it.
 *
 * A client speaking a stateless version (2026-07-28 on) sets `stateless` first: its messages go by
 * Streamable HTTP, which every stateless server speaks. When it then falls back to the initialize
 * handshake of an older server (unsetting `stateless`), the decision above is made on that initialize.
 */

import type { JsonRpcMessage } from "../jsonrpc/messages.js";
import type { Transport } from "../jsonrpc/transport.js";
import type { StatelessHttp } from "../mcp/stateless-http.js";
import { transportClosed } from "../util/errors.js";
import { HttpStatusError, messageWithCause } from "./fetch-results.js";
import { SseClientTransport } from "./legacy-sse.js";
import { type StreamableHttpClientOptions, StreamableHttpClientTransport } from "./streamable-http.js";

export type HttpTransportKind = "streamable-http" | "sse";

/** The statuses the spec names: a server that does not take a POST of initialize at this URL. */
const FALLBACK_STATUSES: ReadonlySet<number> = new Set([400, 404, 405]);

type Inner = StreamableHttpClientTransport | SseClientTransport;

export class HttpClientTransport implements Transport {
  readonly #url: URL;
  readonly #options: StreamableHttpClientOptions;
  #inner: Inner | undefined;
  #kind: HttpTransportKind | undefined;
  #deciding: Promise<void> | undefined;
  #protocolVersion: string | undefined;
  #stateless: StatelessHttp | undefined;
  /** The inner transport was made for stateless messages, before any decision. */
  #statelessInner = false;
  #state: "new" | "open" | "closed" = "new";

  onmessage?: (message: unknown) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;
  /** Streamable HTTP only: see StreamableHttpClientTransport.onsessionexpired. */
  onsessionexpired?: () => void;

  constructor(url: string | URL, options: StreamableHttpClientOptions = {}) {
    this.#url = new URL(url);
    this.#options = options;
  }

  /** Which transport the server speaks, once the first message went through. */
  get kind(): HttpTransportKind | undefined {
    return this.#kind;
  }

  get sessionId(): string | undefined {
    return this.#inner instanceof StreamableHttpClientTransport ? this.#inner.sessionId : undefined;
  }

  /** Sent as MCP-Protocol-Version by Streamable HTTP; the legacy transport has no such header. */
  get protocolVersion(): string | undefined {
    return this.#protocolVersion;
  }

  set protocolVersion(version: string | undefined) {
    this.#protocolVersion = version;
    if (this.#inner instanceof StreamableHttpClientTransport) this.#inner.protocolVersion = version;
  }

  /** See StreamableHttpClientTransport.stateless. */
  get stateless(): StatelessHttp | undefined {
    return this.#stateless;
  }

  set stateless(hooks: StatelessHttp | undefined) {
    this.#stateless = hooks;
    const inner = this.#inner;
    if (hooks || !this.#statelessInner) {
      if (inner instanceof StreamableHttpClientTransport) inner.stateless = hooks;
      return;
    }
    // Back to the initialize era: the next message decides between the two HTTP transports afresh.
    this.#statelessInner = false;
    this.#inner = undefined;
    this.#kind = undefined;
    if (inner) void this.#discard(inner);
  }

  async start(): Promise<void> {
    if (this.#state !== "new") throw new Error("HttpClientTransport already started");
    this.#state = "open";
  }

  async send(message: JsonRpcMessage | JsonRpcMessage[]): Promise<void> {
    if (this.#state !== "open") throw transportClosed();
    if (this.#inner) return this.#inner.send(message);
    if (this.#stateless && !this.#deciding) {
      const streamable = new StreamableHttpClientTransport(this.#url, this.#options);
      streamable.stateless = this.#stateless;
      this.#attach(streamable);
      // Set before awaiting, so that messages sent meanwhile use it too (start() opens it at once).
      const started = streamable.start();
      this.#inner = streamable;
      this.#kind = "streamable-http";
      this.#statelessInner = true;
      await started;
      return streamable.send(message);
    }
    if (this.#deciding) {
      await this.#deciding;
      return this.send(message);
    }
    this.#deciding = this.#decide(message);
    try {
      await this.#deciding;
    } finally {
      this.#deciding = undefined;
    }
  }

  async close(): Promise<void> {
    if (this.#state === "closed") return;
    const wasOpen = this.#state === "open";
    this.#state = "closed";
    const inner = this.#inner;
    if (inner) {
      inner.onclose = undefined;
      await inner.close();
    }
    if (wasOpen) this.onclose?.();
  }

  /** Sends the first message with Streamable HTTP, or with the legacy transport when the server asks. */
  async #decide(message: JsonRpcMessage | JsonRpcMessage[]): Promise<void> {
    const streamable = new StreamableHttpClientTransport(this.#url, this.#options);
    streamable.protocolVersion = this.#protocolVersion;
    streamable.onsessionexpired = () => this.onsessionexpired?.();
    this.#attach(streamable);
    await streamable.start();
    this.#inner = streamable;
    let refused: HttpStatusError;
    try {
      await streamable.send(message);
      this.#kind = "streamable-http";
      return;
    } catch (error) {
      this.#inner = undefined;
      await this.#discard(streamable);
      if (!(error instanceof HttpStatusError) || !FALLBACK_STATUSES.has(error.status)) throw error;
      refused = error;
    }
    if (this.#state !== "open") throw transportClosed();

    const legacy = new SseClientTransport(this.#url, {
      ...(this.#options.headers ? { headers: this.#options.headers } : {}),
      ...(this.#options.fetch ? { fetch: this.#options.fetch } : {}),
    });
    this.#attach(legacy);
    try {
      await legacy.start();
    } catch (error) {
      await this.#discard(legacy);
      throw new Error(
        `${this.#url} refused a Streamable HTTP POST (${refused.status}) and is no legacy HTTP+SSE server either: ${messageWithCause(error)}`,
        { cause: error },
      );
    }
    if (this.#state !== "open") {
      await this.#discard(legacy);
      throw transportClosed();
    }
    this.#inner = legacy;
    this.#kind = "sse";
    await legacy.send(message);
  }

  #attach(inner: Inner): void {
    inner.onmessage = (message) => this.onmessage?.(message);
    inner.onerror = (error) => this.onerror?.(error);
    // The inner transport closed by itself (the legacy stream ended): so does this one.
    inner.onclose = () => void this.close();
  }

  /** Closes an inner transport that was not chosen, without a word to this one's handlers. */
  async #discard(inner: Inner): Promise<void> {
    inner.onmessage = undefined;
    inner.onerror = undefined;
    inner.onclose = undefined;
    if (inner instanceof StreamableHttpClientTransport) inner.onsessionexpired = undefined;
    await inner.close().catch(() => {});
  }
}

/**
 * A transport for an MCP server URL of either HTTP kind, ready for `Client.connect`. Detection happens on
 * the first message (see HttpClientTransport); `kind` tells the result afterwards.
 */
export async function connectHttp(
  url: string | URL,
  options?: StreamableHttpClientOptions,
): Promise<HttpClientTransport> {
  return new HttpClientTransport(url, options);
}
