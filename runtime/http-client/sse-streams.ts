/**
 * The SSE streams a Streamable HTTP client reads: the streams answering its POSTs and the session's
 * standalone GET stream. A stream that breaks before it delivered the responses it owes is resumed with
 * GET and `Last-Event-ID`, after the server's `retry:` delay, a bounded number of times; a stream that
 * cannot be resumed answers the requests it owed with an error, so their callers learn at once.
 */

import {
  ErrorCode,
  isObject,
  isRequestId,
  type JsonRpcFailure,
  type RequestId,
} from "../jsonrpc/messages.js";
import { mediaType } from "../util/media-type.js";
import { discard, type HttpStatusError, messageWithCause, SessionExpiredError } from "./fetch-results.js";
import { EVENT_STREAM, eventMessage, readEventStream, type SseEvent, SseLimitError } from "./sse-parse.js";

export interface ReconnectOptions {
  /** Delay before the first reconnection when the server gave no `retry:` (1000). */
  initialDelayMs?: number;
  /** Cap of the doubling delay between reconnections that bring nothing (30000). */
  maxDelayMs?: number;
  /** Reconnections in a row that deliver no event before the stream is given up (5). */
  maxRetries?: number;
}

const DEFAULTS: Readonly<Required<ReconnectOptions>> = {
  initialDelayMs: 1000,
  maxDelayMs: 30_000,
  maxRetries: 5,
};

/** What the streams need of the transport that owns them. */
export interface StreamsHost {
  /** The MCP endpoint, for messages. */
  readonly url: URL;
  /** Whether the transport is open: once closed, nothing is read, resumed or answered any more. */
  isOpen(): boolean;
  /** The transport's current session id. */
  sessionId(): string | undefined;
  /** GETs the endpoint in `session`; `signal` or the transport's close aborts it. */
  get(headers: Record<string, string>, signal: AbortSignal, session: string | undefined): Promise<Response>;
  /** Reads an answer that is not a success; a 404 for `session` expires it (SessionExpiredError). */
  statusError(response: Response, method: string, session: string | undefined): Promise<HttpStatusError>;
  /** Hands a received message (or batch) to the transport's user. */
  deliver(value: unknown): void;
  /** Hands an error to the transport's user. */
  report(error: Error): void;
}

/** One SSE stream and the state needed to resume it. */
interface Stream {
  readonly kind: "request" | "standalone";
  /** Ids of the requests whose responses this stream still owes (request streams only). */
  readonly pending: Set<RequestId>;
  /** Ends this stream alone; linked to the transport's controller. */
  readonly abort: AbortController;
  /** The session it belongs to: it cannot be resumed in another. */
  readonly session: string | undefined;
  /** Stateless streams are never resumed: a broken one loses its request. */
  readonly resumable: boolean;
  lastEventId?: string;
  retryMs?: number;
  /** Reconnections since a connection of this stream last delivered an event. */
  attempts: number;
  lastFailure?: string;
  /** The pending reconnection. */
  timer?: ReturnType<typeof setTimeout>;
}

export class SseStreams {
  readonly #host: StreamsHost;
  readonly #reconnect: Required<ReconnectOptions>;
  readonly #streams = new Set<Stream>();
  #standalone: Stream | undefined;

  constructor(host: StreamsHost, reconnect: ReconnectOptions | undefined) {
    this.#host = host;
    this.#reconnect = { ...DEFAULTS, ...definedOnly(reconnect) };
  }

  /** Reads the SSE stream a POST was answered with; it owes the responses to `requests`. */
  readAnswer(
    body: ReadableStream<Uint8Array>,
    requests: Set<RequestId>,
    abort: AbortController,
    resumable: boolean,
  ): void {
    const stream = this.#newStream("request", requests, abort, resumable);
    void this.#consume(stream, body);
  }

  /** GETs the session's standalone stream, unless it is open already or there is no session. */
  openStandalone(): void {
    if (this.#standalone || this.#host.sessionId() === undefined) return;
    this.#standalone = this.#newStream("standalone");
    void this.#connect(this.#standalone);
  }

  /** Stops resuming the stream that owes `id`'s response: the client cancelled that request. */
  forget(id: RequestId): void {
    for (const stream of this.#streams) {
      if (stream.pending.delete(id) && stream.pending.size === 0) this.#drop(stream);
    }
  }

  /** `session` is gone, and every stream of it: their requests fail now rather than at their timeout. */
  expire(session: string | undefined): void {
    for (const stream of this.#streams) {
      if (stream.session !== session) continue;
      if (stream.kind === "standalone") this.#drop(stream);
      else this.#lose(stream, `MCP session ${session} expired`);
    }
  }

  /** Ends every stream and pending reconnection, answering nothing: the transport is closing. */
  closeAll(): void {
    for (const stream of this.#streams) {
      clearTimeout(stream.timer);
      stream.abort.abort();
    }
    this.#streams.clear();
    this.#standalone = undefined;
  }

  #newStream(
    kind: Stream["kind"],
    pending = new Set<RequestId>(),
    abort = new AbortController(),
    resumable = true,
  ): Stream {
    const stream: Stream = { kind, pending, abort, session: this.#host.sessionId(), resumable, attempts: 0 };
    this.#streams.add(stream);
    return stream;
  }

  /** Reads one connection of `stream`, then decides whether it is done, resumes, or is lost. */
  async #consume(stream: Stream, body: ReadableStream<Uint8Array>): Promise<void> {
    let events = 0;
    let failure: unknown;
    try {
      await readEventStream(
        body,
        {
          onEvent: (event) => {
            events++;
            this.#onEvent(stream, event);
          },
          onRetry: (ms) => {
            stream.retryMs = ms;
          },
        },
        { signal: stream.abort.signal },
      );
    } catch (error) {
      failure = error;
    }
    if (!this.#live(stream)) return;
    if (stream.kind === "request" && stream.pending.size === 0) {
      this.#drop(stream);
      return;
    }
    if (events > 0) stream.attempts = 0;
    if (failure instanceof SseLimitError) {
      this.#lose(stream, failure.message);
      return;
    }
    stream.lastFailure = failure
      ? `the stream broke: ${messageWithCause(failure)}`
      : `the server ended the stream${stream.kind === "request" ? " before its responses" : ""}`;
    this.#reconnectLater(stream);
  }

  #onEvent(stream: Stream, event: SseEvent): void {
    // An empty id resets the last event id (HTML EventSource), so no Last-Event-ID is sent after it.
    if (event.id !== undefined) stream.lastEventId = event.id === "" ? undefined : event.id;
    const value = eventMessage(event, this.#host.url, (error) => this.#host.report(error));
    if (value === undefined) return;
    for (const id of responseIds(value)) stream.pending.delete(id);
    this.#host.deliver(value);
    // Its responses are in: nothing more is expected on it (a resumed GET may otherwise stay open).
    if (stream.kind === "request" && stream.pending.size === 0 && this.#live(stream)) this.#drop(stream);
  }

  #reconnectLater(stream: Stream): void {
    if (!stream.resumable) {
      this.#lose(stream, `${stream.lastFailure ?? "the stream ended"} (stateless streams are not resumed)`);
      return;
    }
    if (stream.kind === "request" && stream.lastEventId === undefined) {
      this.#lose(stream, `${stream.lastFailure ?? "the stream ended"}, and no event id to resume from`);
      return;
    }
    const { initialDelayMs, maxDelayMs, maxRetries } = this.#reconnect;
    if (stream.attempts >= maxRetries) {
      this.#lose(stream, `gave up after ${maxRetries} reconnections: ${stream.lastFailure ?? "no events"}`);
      return;
    }
    stream.attempts++;
    const delay = stream.retryMs ?? Math.min(initialDelayMs * 2 ** (stream.attempts - 1), maxDelayMs);
    stream.timer = setTimeout(() => {
      stream.timer = undefined;
      void this.#connect(stream);
    }, delay);
  }

  /** GETs a new connection of `stream`: the standalone stream, or a resumption from its last event id. */
  async #connect(stream: Stream): Promise<void> {
    if (!this.#live(stream)) return;
    if (stream.session !== this.#host.sessionId()) {
      this.#lose(stream, "its session ended");
      return;
    }
    const headers: Record<string, string> = { accept: EVENT_STREAM };
    if (stream.lastEventId !== undefined) headers["last-event-id"] = stream.lastEventId;
    let response: Response;
    try {
      response = await this.#host.get(headers, stream.abort.signal, stream.session);
    } catch (error) {
      if (!this.#live(stream)) return;
      stream.lastFailure = `GET failed: ${messageWithCause(error)}`;
      this.#reconnectLater(stream);
      return;
    }
    if (!this.#live(stream)) {
      await discard(response);
      return;
    }
    if (response.status === 405) {
      await discard(response);
      // The server offers no GET stream: nothing to listen on, nothing to resume from.
      if (stream.kind === "standalone") this.#drop(stream);
      else this.#lose(stream, "the server offers no GET stream to resume the response stream on (405)");
      return;
    }
    if (!response.ok) {
      const error = await this.#host.statusError(response, "GET", stream.session);
      if (error instanceof SessionExpiredError) {
        if (stream.kind === "standalone") this.#drop(stream);
        else this.#lose(stream, error.message);
        return;
      }
      stream.lastFailure = error.message;
      this.#reconnectLater(stream);
      return;
    }
    const type = mediaType(response.headers.get("content-type"));
    if (type !== EVENT_STREAM || !response.body) {
      await discard(response);
      stream.lastFailure = `GET ${this.#host.url} answered with content type "${type}"`;
      this.#reconnectLater(stream);
      return;
    }
    await this.#consume(stream, response.body);
  }

  #live(stream: Stream): boolean {
    return this.#host.isOpen() && !stream.abort.signal.aborted;
  }

  #drop(stream: Stream): void {
    clearTimeout(stream.timer);
    stream.abort.abort();
    this.#streams.delete(stream);
    if (this.#standalone === stream) this.#standalone = undefined;
  }

  /**
   * A stream that cannot be resumed. The requests it owed get an error response in its place, so their
   * callers learn now rather than at their timeout; the loss of the standalone stream is reported.
   */
  #lose(stream: Stream, reason: string): void {
    if (!this.#streams.has(stream)) return; // already dropped or lost: its requests were answered
    this.#drop(stream);
    const message = `Streamable HTTP: ${reason}`;
    if (stream.kind === "standalone") {
      this.#host.report(new Error(`${message} (the server→client stream of ${this.#host.url})`));
      return;
    }
    for (const id of stream.pending) {
      const failure: JsonRpcFailure = {
        jsonrpc: "2.0",
        id,
        error: { code: ErrorCode.ConnectionClosed, message },
      };
      this.#host.deliver(failure);
    }
  }
}

/** Ids answered by a received value (a response, or a batch holding responses). */
function responseIds(value: unknown): RequestId[] {
  const ids: RequestId[] = [];
  for (const m of Array.isArray(value) ? value : [value]) {
    if (isObject(m) && !("method" in m) && ("result" in m || "error" in m) && isRequestId(m.id))
      ids.push(m.id);
  }
  return ids;
}

/** The options the user set, so that an `undefined` among them leaves the default in place. */
function definedOnly<T extends object>(value: T | undefined): Partial<T> {
  return Object.fromEntries(Object.entries(value ?? {}).filter(([, v]) => v !== undefined)) as Partial<T>;
}
