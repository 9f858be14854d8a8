/**
 * Messages between the parts of a server that may run in different instances: what is addressed to a
 * session or to a request in flight (a client's answer to a server→client request, `notifications/
 * cancelled`, progress) goes to the instance holding it, and notifications fan out to every instance
 * with subscribers (list-changed, `resources/updated`, `subscriptions/listen` streams). A bus carries
 * JSON values on named channels; the in-memory bus delivers within one process.
 */

import type { MaybePromise } from "../util/maybe-promise.js";

/** Receives what is published on a channel: a JSON value (a bus may have sent it through JSON). */
export type BusListener = (message: unknown) => void;

export interface MessageBus {
  /**
   * Sends `message` to every current subscriber of `channel`, in any instance. Resolves once the bus has
   * taken it (not once subscribers have run): to the number of subscribers it reached where the bus knows
   * it, else undefined.
   */
  publish(channel: string, message: unknown): MaybePromise<number | undefined>;
  /**
   * Calls `listener` with each message published on `channel` from now on; resolves, once subscribed,
   * to the function that unsubscribes.
   */
  subscribe(channel: string, listener: BusListener): MaybePromise<() => void>;
  /** Optional: whether the bus can deliver now (a readiness probe asks; absent: always). */
  healthy?(): MaybePromise<boolean>;
}

/**
 * Channel names, one place for every part that publishes or subscribes. A shared bus prefixes them (one
 * Redis for several servers); ids are the runtime's own (session ids are hex, request ids are
 * JSON-encoded so that 1 and "1" differ).
 */
export const channels = {
  /** Messages for a session's live objects, wherever they are (answers, cancellations, progress, its end). */
  session: (sessionId: string) => `session:${sessionId}`,
  /** Messages for one request in flight in a session (its cancellation, progress it asked for). */
  request: (sessionId: string, requestId: string | number) =>
    `request:${sessionId}:${JSON.stringify(requestId)}`,
  /** Messages for one instance of a server (the producer of a stream another instance resumed). */
  instance: (tag: string) => `instance:${tag}`,
  /** Notifications for every session and listen stream of a server (list-changed, resources/updated). */
  fanOut: (server: string) => `fanout:${server}`,
  /** A task's record after each change (status, input, its end): its runner, waiting `tasks/result`s. */
  task: (taskId: string) => `task:${taskId}`,
} as const;

/**
 * Delivers within one process, synchronously as `publish` is called, in subscription order. A
 * listener that throws is reported and does not stop the others.
 */
export class InMemoryMessageBus implements MessageBus {
  readonly #listeners = new Map<string, Set<BusListener>>();

  constructor(private readonly onError: (error: unknown) => void = () => {}) {}

  publish(channel: string, message: unknown): number {
    const listeners = this.#listeners.get(channel);
    if (!listeners) return 0;
    // A snapshot: a listener may unsubscribe (itself or another) while the message is delivered.
    const reached = [...listeners];
    for (const listener of reached) {
      try {
        listener(message);
      } catch (error) {
        this.onError(error);
      }
    }
    return reached.length;
  }

  subscribe(channel: string, listener: BusListener): () => void {
    let listeners = this.#listeners.get(channel);
    if (!listeners) {
      listeners = new Set();
      this.#listeners.set(channel, listeners);
    }
    // Each subscription is its own entry, even for a listener given twice.
    const entry: BusListener = (message) => listener(message);
    listeners.add(entry);
    return () => {
      const current = this.#listeners.get(channel);
      if (!current?.delete(entry)) return;
      if (current.size === 0) this.#listeners.delete(channel);
    };
  }

  /** Channels with at least one subscriber (tests, metrics). */
  get channelCount(): number {
    return this.#listeners.size;
  }

  healthy(): boolean {
    return true;
  }
}
