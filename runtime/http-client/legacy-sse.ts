/**
 * The legacy HTTP+SSE transport (protocol 2024-11-05), client side: one long GET stream carries every
 * server message; its first event, `endpoint`, names the URL the client POSTs its messages to. The
 * session lives exactly as long as that stream, so the stream's end closes the transport.
 */

import type { JsonRpcMessage } from "../jsonrpc/messages.js";
import type { Transport } from "../jsonrpc/transport.js";
import { readEventStream, type SseEvent } from "./sse-parse.js";
import {
  closedError,
  discard,
  type HeadersOption,
  HttpStatusError,
  mediaType,
  messageOf,
  resolveHeaders,
  rpcErrorIn,
  statusText,
  toError,
} from "./streamable-http.js";

export interface SseClientTransportOptions {
  /** Sent on the GET and every POST (e.g. Authorization); a function is called before each request. */
  headers?: HeadersOption;
  fetch?: typeof fetch;
  /** How long start() waits for the `endpoint` event after the stream opened (10000). */
  endpointTimeoutMs?: number;
}

const DEFAULT_ENDPOINT_TIMEOUT_MS = 10_000;

export class SseClientTransport implements Transport {
  readonly #url: URL;
  readonly #fetch: typeof fetch;
  readonly #headers: HeadersOption | undefined;
  readonly #endpointTimeoutMs: number;
  readonly #abort = new AbortController();
  #state: "new" | "starting" | "open" | "closed" = "new";
  #endpoint: URL | undefined;
  /** Settles start(): the endpoint event, or the failure that came first. */
  #ready?: { resolve: () => void; reject: (error: Error) => void };

  onmessage?: (message: unknown) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;

  constructor(url: string | URL, options: SseClientTransportOptions = {}) {
    this.#url = new URL(url);
    this.#fetch = options.fetch ?? ((input, init) => fetch(input, init));
    this.#headers = options.headers;
    this.#endpointTimeoutMs = options.endpointTimeoutMs ?? DEFAULT_ENDPOINT_TIMEOUT_MS;
  }

  /** Where messages are POSTed, once the server named it. */
  get endpoint(): URL | undefined {
    return this.#endpoint;
  }

  /** Opens the stream and resolves once the server named its message endpoint. */
  async start(): Promise<void> {
    if (this.#state !== "new") throw new Error("SseClientTransport already started");
    this.#state = "starting";
    try {
      const body = await this.#open();
      const ready = new Promise<void>((resolve, reject) => {
        this.#ready = { resolve, reject };
      });
      void this.#read(body);
      await withTimeout(
        ready,
        this.#endpointTimeoutMs,
        `${this.#url} sent no endpoint event within ${this.#endpointTimeoutMs} ms`,
      );
    } catch (error) {
      this.#finish();
      throw error;
    } finally {
      this.#ready = undefined;
    }
  }

  async send(message: JsonRpcMessage | JsonRpcMessage[]): Promise<void> {
    if (this.#state !== "open" || !this.#endpoint) throw closedError();
    const body = JSON.stringify(message);
    const headers = new Headers(await resolveHeaders(this.#headers));
    headers.set("content-type", "application/json");
    let response: Response;
    try {
      response = await this.#fetch(this.#endpoint, {
        method: "POST",
        headers,
        body,
        signal: this.#abort.signal,
      });
    } catch (error) {
      if (this.#state !== "open") throw closedError();
      const failure = new Error(`POST ${this.#endpoint} failed: ${messageOf(error)}`, { cause: error });
      this.onerror?.(failure);
      throw failure;
    }
    if (!response.ok) {
      const text = await response.text().catch(() => "");
      const rpc = rpcErrorIn(text);
      const detail = rpc ? `: ${rpc.message} (${rpc.code})` : text ? `: ${text.slice(0, 200)}` : "";
      throw new HttpStatusError(
        response.status,
        `POST ${this.#endpoint} answered ${statusText(response)}${detail}`,
        rpc,
      );
    }
    await discard(response);
  }

  async close(): Promise<void> {
    this.#finish();
  }

  async #open(): Promise<ReadableStream<Uint8Array>> {
    const headers = new Headers(await resolveHeaders(this.#headers));
    headers.set("accept", "text/event-stream");
    let response: Response;
    try {
      response = await this.#fetch(this.#url, { method: "GET", headers, signal: this.#abort.signal });
    } catch (error) {
      throw new Error(`GET ${this.#url} failed: ${messageOf(error)}`, { cause: error });
    }
    if (!response.ok) {
      const text = await response.text().catch(() => "");
      throw new HttpStatusError(
        response.status,
        `GET ${this.#url} answered ${statusText(response)}`,
        rpcErrorIn(text),
      );
    }
    if (mediaType(response) !== "text/event-stream" || !response.body) {
      await discard(response);
      throw new Error(
        `GET ${this.#url} answered with content type "${mediaType(response)}", not an SSE stream`,
      );
    }
    return response.body;
  }

  async #read(body: ReadableStream<Uint8Array>): Promise<void> {
    let failure: Error | undefined;
    try {
      await readEventStream(
        body,
        { onEvent: (event) => this.#onEvent(event) },
        { signal: this.#abort.signal },
      );
    } catch (error) {
      failure = toError(error);
    }
    if (this.#state === "closed") return;
    const reason = failure
      ? `the SSE stream broke: ${messageOf(failure)}`
      : "the server ended the SSE stream";
    if (this.#state === "starting") {
      this.#ready?.reject(new Error(`${this.#url}: ${reason} before naming its endpoint`));
      return;
    }
    if (failure) this.onerror?.(new Error(`${this.#url}: ${reason}`, { cause: failure }));
    this.#finish();
  }

  #onEvent(event: SseEvent): void {
    if (event.event === "endpoint") {
      this.#onEndpoint(event.data);
      return;
    }
    if (event.event !== undefined && event.event !== "message") return;
    if (event.data === "") return;
    let value: unknown;
    try {
      value = JSON.parse(event.data);
    } catch (error) {
      this.onerror?.(new Error(`unreadable SSE message from ${this.#url}: ${messageOf(error)}`));
      return;
    }
    try {
      this.onmessage?.(value);
    } catch (error) {
      this.onerror?.(toError(error));
    }
  }

  /** The first endpoint event wins; it must stay on the stream's origin, where our headers were meant to go. */
  #onEndpoint(data: string): void {
    if (this.#state !== "starting" || !this.#ready) return;
    let endpoint: URL;
    try {
      endpoint = new URL(data.trim(), this.#url);
    } catch {
      this.#ready.reject(new Error(`${this.#url} named an invalid endpoint: ${JSON.stringify(data)}`));
      return;
    }
    if (endpoint.origin !== this.#url.origin) {
      this.#ready.reject(
        new Error(`${this.#url} named an endpoint on another origin (${endpoint.origin}); refusing it`),
      );
      return;
    }
    this.#endpoint = endpoint;
    this.#state = "open";
    this.#ready.resolve();
  }

  /** Runs once: aborts the stream and any POST in flight; onclose only for a transport that had opened. */
  #finish(): void {
    if (this.#state === "closed") return;
    const wasOpen = this.#state === "open";
    this.#state = "closed";
    this.#abort.abort(closedError());
    this.#ready?.reject(closedError());
    if (!wasOpen) return;
    try {
      this.onclose?.();
    } catch (error) {
      this.onerror?.(toError(error));
    }
  }
}

async function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
