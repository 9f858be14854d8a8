/**
 * Notification fan-out across the instances of one server that share a MessageBus: what one instance
 * sends to all (`notifyAll`, `notifyResourceUpdated`) it delivers to its own sessions and listen
 * streams at once, and publishes on the server's fan-out channel; every other instance delivers it to
 * its own. Each message names its publisher, which skips it: delivered once per instance.
 */

import { channels, type MessageBus } from "../mcp/message-bus.js";
import { unref } from "../util/timers.js";

/** What travels on the fan-out channel (through JSON on a shared bus). */
interface FanOutMessage {
  /** The publishing instance: it has delivered the notification already. */
  from: string;
  method: string;
  params?: Record<string, unknown>;
  /** `resources/updated`: the sessions subscribed to its URI, read once by the publisher. */
  sessions?: string[];
}

/** Delivers a notification to this instance's sessions (those in `sessions` only, when given) and streams. */
export type DeliverHere = (
  method: string,
  params: Record<string, unknown> | undefined,
  sessions: ReadonlySet<string> | undefined,
) => Promise<unknown>;

/**
 * A transport serving a session that several instances hold at once (each a copy rebuilt from the
 * session's record) says whether fan-out goes through it: exactly one copy should take it, or the
 * client hears each notification once per copy. Absent: it does.
 */
export interface FanOutTarget {
  readonly receivesFanOut?: boolean;
  /**
   * False when this copy closing does not end the session (other instances go on serving it): its
   * resource subscriptions stay. Absent: a closed session has ended.
   */
  readonly sessionEnded?: boolean;
}

/** First and longest wait before subscribing again to a bus that could not subscribe (Redis down at start). */
const RETRY_FIRST_MS = 100;
const RETRY_MAX_MS = 5000;

export class FanOut {
  /** Drawn on first publish, not at construction: Workers allow no random values while a module loads. */
  #origin: string | undefined;
  readonly #channel: string;
  readonly #subscribed: Promise<void>;
  #settle: () => void = () => {};
  #unsubscribe: (() => void) | undefined;
  #retry: ReturnType<typeof setTimeout> | undefined;
  #closed = false;

  constructor(
    private readonly bus: MessageBus,
    server: string,
    private readonly deliver: DeliverHere,
    private readonly report: (error: unknown) => void,
  ) {
    this.#channel = channels.fanOut(server);
    this.#subscribed = new Promise((resolve) => {
      this.#settle = resolve;
    });
    this.#subscribe(RETRY_FIRST_MS);
  }

  /** Settles once this instance receives what the others publish (at once after close()). */
  get subscribed(): Promise<void> {
    return this.#subscribed;
  }

  /** Subscribes once; a bus that cannot subscribe yet is reported and asked again, waiting longer each time. */
  #subscribe(delayMs: number): void {
    let subscribing: ReturnType<MessageBus["subscribe"]>;
    try {
      subscribing = this.bus.subscribe(this.#channel, (message) => this.#received(message));
    } catch (error) {
      subscribing = Promise.reject(error);
    }
    Promise.resolve(subscribing).then(
      (unsubscribe) => {
        if (this.#closed) unsubscribe();
        else this.#unsubscribe = unsubscribe;
        this.#settle();
      },
      (error: unknown) => {
        if (this.#closed) return;
        this.report(error);
        this.#retry = setTimeout(() => this.#subscribe(Math.min(delayMs * 2, RETRY_MAX_MS)), delayMs);
        unref(this.#retry);
      },
    );
  }

  /** Publishes a notification this instance has delivered itself: the others deliver it to theirs. */
  publish(
    method: string,
    params: Record<string, unknown> | undefined,
    sessions?: ReadonlySet<string>,
  ): ReturnType<MessageBus["publish"]> {
    this.#origin ??= crypto.randomUUID();
    const message: FanOutMessage = { from: this.#origin, method };
    if (params !== undefined) message.params = params;
    if (sessions !== undefined) message.sessions = [...sessions];
    return this.bus.publish(this.#channel, message);
  }

  #received(message: unknown): void {
    if (!isFanOutMessage(message) || message.from === this.#origin) return;
    const sessions = message.sessions && new Set(message.sessions);
    this.deliver(message.method, message.params, sessions).catch(this.report);
  }

  /** Stops receiving (the server is closing). */
  close(): void {
    this.#closed = true;
    clearTimeout(this.#retry);
    this.#settle();
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
  }
}

/** A bus is shared infrastructure, yet what it carries is checked before it reaches a session. */
function isFanOutMessage(value: unknown): value is FanOutMessage {
  if (typeof value !== "object" || value === null) return false;
  const m = value as Record<string, unknown>;
  if (typeof m.from !== "string" || typeof m.method !== "string") return false;
  if (
    m.params !== undefined &&
    (typeof m.params !== "object" || m.params === null || Array.isArray(m.params))
  )
    return false;
  return (
    m.sessions === undefined || (Array.isArray(m.sessions) && m.sessions.every((s) => typeof s === "string"))
  );
}
