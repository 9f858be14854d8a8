/**
 * The server's side of `resources/subscribe` (handshake era): the user's `subscribe` and `unsubscribe`
 * handlers, wrapped so that what they accept is recorded in the ResourceSubscriptionStore, where every
 * instance finds the subscribers of an updated resource. A session is keyed by its id, or (stdio) by a
 * key drawn for it when it first subscribes.
 */

import { ErrorCode, McpError } from "../jsonrpc/messages.js";
import type { AnyHandler, MethodTypes } from "../mcp/handler-context.js";
import { isStub } from "../mcp/not-implemented.js";
import type { ResourceSubscriptionStore } from "../mcp/resource-subscriptions.js";
import { reportedStoreError } from "../mcp/store-unavailable.js";
import type { ProtocolTables } from "../mcp/tables.js";
import type { RequestContext } from "./request-context.js";
import type { ServerSession } from "./session.js";

type AnySession = ServerSession<MethodTypes, MethodTypes>;
type Handlers = Record<string, AnyHandler | undefined>;

export class SubscribedSessions {
  /** Keys of sessions without an id (stdio), drawn when one first subscribes. */
  readonly #localKeys = new WeakMap<AnySession, string>();
  /** Sessions this instance recorded subscriptions for: theirs are forgotten when they end here. */
  readonly #recordedHere = new Set<string>();

  constructor(
    readonly store: ResourceSubscriptionStore,
    private readonly report: (error: unknown) => void,
  ) {}

  /** A session's key in the store, if it has one (an id, or a key drawn when it subscribed). */
  keyOf(session: AnySession): string | undefined {
    return session.sessionId ?? this.#localKeys.get(session);
  }

  /**
   * `handlers` with `subscribe` and `unsubscribe` recording what they accept; the same object when it
   * has neither. The user's object stays the prototype: every other handler is found as before.
   */
  recording(handlers: Handlers, tables: ProtocolTables | undefined): Handlers {
    const subscribe = tables?.clientRequests["resources/subscribe"]?.handler;
    const unsubscribe = tables?.clientRequests["resources/unsubscribe"]?.handler;
    const onSubscribe = subscribe === undefined ? undefined : served(handlers[subscribe]);
    const onUnsubscribe = unsubscribe === undefined ? undefined : served(handlers[unsubscribe]);
    if (!onSubscribe && !onUnsubscribe) return handlers;
    const recording = Object.create(handlers) as Handlers;
    if (onSubscribe) recording[subscribe!] = (params, ctx) => this.#subscribe(onSubscribe, params, ctx);
    if (onUnsubscribe)
      recording[unsubscribe!] = (params, ctx) => this.#unsubscribe(onUnsubscribe, params, ctx);
    return recording;
  }

  /** A session ended: its subscriptions go, when this instance recorded any. */
  ended(session: AnySession): void {
    const key = this.keyOf(session);
    if (key === undefined || !this.#recordedHere.delete(key)) return;
    try {
      const forgotten = this.store.forget(key);
      if (forgotten instanceof Promise) forgotten.catch(this.report);
    } catch (error) {
      this.report(error);
    }
  }

  /**
   * Recorded before the user's handler runs, so that a subscription over the store's bound is refused
   * first; removed again if the handler throws.
   */
  async #subscribe(handler: AnyHandler, params: unknown, ctx: unknown): Promise<unknown> {
    const uri = (params as { uri: string }).uri;
    const key = this.#keyFor(ctx as RequestContext<MethodTypes, MethodTypes>);
    if (key === undefined) return handler(params, ctx);
    if (!(await this.#stored(() => this.store.add(key, uri))))
      throw new McpError(
        ErrorCode.InvalidRequest,
        "too many resource subscriptions: this session holds as many as the server keeps for one (unsubscribe from some first)",
      );
    this.#recordedHere.add(key);
    try {
      return await handler(params, ctx);
    } catch (error) {
      try {
        await this.store.remove(key, uri);
      } catch (failure) {
        this.report(failure);
      }
      throw error;
    }
  }

  async #unsubscribe(handler: AnyHandler, params: unknown, ctx: unknown): Promise<unknown> {
    const result = await handler(params, ctx);
    const key = this.#keyFor(ctx as RequestContext<MethodTypes, MethodTypes>);
    const uri = (params as { uri: string }).uri;
    if (key !== undefined) await this.#stored(() => this.store.remove(key, uri));
    return result;
  }

  /** The key a request's session subscribes under; none for one that cannot be sent updates (stateless HTTP). */
  #keyFor(ctx: RequestContext<MethodTypes, MethodTypes>): string | undefined {
    if (ctx.session.sessionless) return undefined;
    const session = ctx.serverSession;
    let key = this.keyOf(session);
    if (key === undefined) {
      key = `local-${crypto.randomUUID()}`;
      this.#localKeys.set(session, key);
    }
    return key;
  }

  /** The store's answer; its failure to answer as STORE_UNAVAILABLE (reported), else as it is. */
  async #stored<T>(call: () => T | Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      throw reportedStoreError(error, this.report);
    }
  }
}

/** The handler when the user gave one that is not a `notImplemented` stub. */
const served = (handler: AnyHandler | undefined): AnyHandler | undefined =>
  handler !== undefined && !isStub(handler) ? handler : undefined;
