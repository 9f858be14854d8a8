/**
 * `subscriptions/listen` on the client (stateless versions). Each listen request is one subscription,
 * named by the request's JSON-RPC id: the server puts that id in the `_meta` of every notification it
 * sends for it, acknowledges first, and ends it with a result (or, on stdio, notifications/cancelled).
 * The client ends it by cancelling the request: stdio sends notifications/cancelled, HTTP aborts the POST.
 */

import { isPeerCancelled, REQUEST_CANCELLED } from "../jsonrpc/connection.js";
import { ErrorCode, McpError, type RequestId } from "../jsonrpc/messages.js";
import type { SubscriptionFilter } from "../mcp/subscriptions.js";
import { toError } from "../util/errors.js";

export type SubscriptionEnd = { by: "client" } | { by: "server" } | { by: "error"; error: Error };

export interface Subscription {
  /** The listen request's id: `_meta["io.modelcontextprotocol/subscriptionId"]` of its notifications. */
  readonly id: RequestId;
  /** What the server agreed to send: the requested filter less what it does not support. */
  readonly notifications: SubscriptionFilter;
  /** Settles (never rejects) when the subscription ends: closed here, ended by the server, or lost. */
  readonly closed: Promise<SubscriptionEnd>;
  close(): Promise<void>;
}

// biome-ignore lint/suspicious/noExplicitAny: the generated ClientHandlers interface types every handler.
type AnyHandler = (params: any, ctx: any) => unknown;

/** One subscription from the listen call until it ends. */
export class LiveSubscription implements Subscription {
  #id: RequestId | undefined;
  #notifications: SubscriptionFilter | undefined;
  #ack: { resolve: () => void; reject: (error: Error) => void } | undefined;
  #end!: (end: SubscriptionEnd) => void;
  #ended = false;
  #endedBy: SubscriptionEnd | undefined;
  readonly closed: Promise<SubscriptionEnd>;
  /** Aborting it cancels the listen request. */
  readonly abort = new AbortController();

  constructor(
    readonly handlers: Readonly<Record<string, AnyHandler | undefined>>,
    private readonly forget: (sub: LiveSubscription) => void,
  ) {
    this.closed = new Promise((resolve) => {
      this.#end = resolve;
    });
  }

  get id(): RequestId {
    if (this.#id === undefined) throw new Error("the subscription's listen request was not sent");
    return this.#id;
  }

  get sent(): boolean {
    return this.#id !== undefined;
  }

  get notifications(): SubscriptionFilter {
    return this.#notifications ?? {};
  }

  learnId(id: RequestId): void {
    this.#id = id;
  }

  /**
   * Follows the listen request: a result, or the server's notifications/cancelled (stdio), is its
   * graceful end; our cancellation the client's; anything else an error.
   */
  track(done: Promise<unknown>): void {
    done.then(
      () => this.finish({ by: "server" }),
      (error: unknown) =>
        this.finish(
          isPeerCancelled(error)
            ? { by: "server" }
            : error instanceof McpError && error.code === REQUEST_CANCELLED && this.abort.signal.aborted
              ? { by: "client" }
              : { by: "error", error: toError(error) },
        ),
    );
  }

  acknowledge(notifications: SubscriptionFilter): void {
    this.#notifications ??= notifications;
    this.#ack?.resolve();
  }

  /**
   * Resolves on the server's acknowledgement; rejects when the subscription ends first, after
   * `timeoutMs`, or when `signal` aborts (the last two also cancel the listen request).
   */
  acknowledged(timeoutMs: number, signal: AbortSignal | undefined): Promise<void> {
    if (this.#notifications) return Promise.resolve();
    if (this.#ended) return Promise.reject(this.#unacknowledged());
    return new Promise<void>((resolve, reject) => {
      const fail = (error: Error) => {
        cleanup();
        this.abort.abort(error.message);
        reject(error);
      };
      const onAbort = () => fail(new McpError(REQUEST_CANCELLED, "subscriptions/listen cancelled"));
      const timer = Number.isFinite(timeoutMs)
        ? setTimeout(
            () =>
              fail(
                new McpError(
                  ErrorCode.RequestTimeout,
                  `the server did not acknowledge subscriptions/listen within ${timeoutMs} ms`,
                ),
              ),
            timeoutMs,
          )
        : undefined;
      const cleanup = () => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        this.#ack = undefined;
      };
      this.#ack = {
        resolve: () => {
          cleanup();
          resolve();
        },
        reject: (error) => {
          cleanup();
          reject(error);
        },
      };
      if (signal?.aborted) onAbort();
      else signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  async close(): Promise<void> {
    if (!this.#ended) this.abort.abort("subscription closed by the client");
    await this.closed;
  }

  /** Ends it with `error` (e.g. a malformed acknowledgement) and cancels the listen request. */
  fail(error: Error): void {
    this.finish({ by: "error", error });
    this.abort.abort(error.message);
  }

  finish(end: SubscriptionEnd): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#endedBy = end;
    this.forget(this);
    this.#ack?.reject(this.#unacknowledged());
    this.#end(end);
  }

  /** Why an acknowledgement will never come. */
  #unacknowledged(): Error {
    const end = this.#endedBy;
    if (end?.by === "error") return end.error;
    return new McpError(
      ErrorCode.ConnectionClosed,
      end?.by === "server"
        ? "the server ended the subscription before acknowledging it"
        : "subscription closed before the server acknowledged it",
    );
  }
}

/** The open subscriptions of one connection, by the id of their listen request. */
export class Subscriptions {
  readonly #byId = new Map<RequestId, LiveSubscription>();

  open(handlers: Record<string, AnyHandler | undefined>): LiveSubscription {
    return new LiveSubscription(handlers, (s) => {
      if (s.sent && this.#byId.get(s.id) === s) this.#byId.delete(s.id);
    });
  }

  /** The listen request's id, as the connection assigns it: it names the subscription from now on. */
  named(sub: LiveSubscription, id: RequestId): void {
    sub.learnId(id);
    this.#byId.set(id, sub);
  }

  get(id: RequestId): LiveSubscription | undefined {
    return this.#byId.get(id);
  }
}
