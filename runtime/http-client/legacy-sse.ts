/**
 * The legacy HTTP+SSE transport (protocol 2024-11-05), client side: one long GET stream carries every
 * server message; its first event, `endpoint`, names the URL the client POSTs its messages to. The
 * session lives exactly as long as that stream, so the stream's end closes the transport.
 */

import type { JsonRpcMessage } from "../jsonrpc/messages.js";
import { runHandler, type Transport } from "../jsonrpc/transport.js";
import { toError, transportClosed } from "../util/errors.js";
import { mediaType } from "../util/media-type.js";
import { type FetchOptions, fetchOf, type HeadersOption, resolveHeaders } from "./fetch-options.js";
import { discard, fetchFailed, messageWithCause, statusError } from "./fetch-results.js";
import { EVENT_STREAM, eventMessage, readEventStream, type SseEvent } from "./sse-parse.js";

export interface SseClientTransportOptions extends FetchOptions {
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
    this.#fetch = fetchOf(options);
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
    if (this.#state !== "open" || !this.#endpoint) throw transportClosed();
    const body = JSON.stringify(message);
    const headers = await resolveHeaders(this.#headers);
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
      if (this.#state !== "open") throw transportClosed();
      const failure = fetchFailed(`POST ${this.#endpoint}`, error);
      this.onerror?.(failure);
      throw failure;
    }
    if (!response.ok) throw await statusError(response, `POST ${this.#endpoint}`);
    await discard(response);
  }

  async close(): Promise<void> {
    this.#finish();
  }

  async #open(): Promise<ReadableStream<Uint8Array>> {
    const headers = await resolveHeaders(this.#headers);
    headers.set("accept", EVENT_STREAM);
    let response: Response;
    try {
      response = await this.#fetch(this.#url, { method: "GET", headers, signal: this.#abort.signal });
    } catch (error) {
      throw fetchFailed(`GET ${this.#url}`, error);
    }
    if (!response.ok) throw await statusError(response, `GET ${this.#url}`);
    const type = mediaType(response.headers.get("content-type"));
    if (type !== EVENT_STREAM || !response.body) {
      await discard(response);
      throw new Error(`GET ${this.#url} answered with content type "${type}", not an SSE stream`);
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
      ? `the SSE stream broke: ${messageWithCause(failure)}`
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
    const value = eventMessage(event, this.#url, (error) => this.onerror?.(error));
    if (value !== undefined) runHandler(this, () => this.onmessage?.(value));
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
    this.#abort.abort(transportClosed());
    this.#ready?.reject(transportClosed());
    if (!wasOpen) return;
    runHandler(this, () => this.onclose?.());
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
