/**
 * The `tasks/result` requests (2025-11-25) waiting on this instance, by task. Input a task asks of its
 * client goes out on the stream of such a request (the specification's way: a client that sees
 * `input_required` calls `tasks/result` and reads the input request there), so a client without a GET
 * stream gets it too.
 */

import type { RequestId } from "../jsonrpc/messages.js";
import { unref } from "../util/timers.js";

interface Wait {
  readonly session: object;
  readonly requestId: RequestId;
}

export class TaskResultWaits {
  readonly #waits = new Map<string, Wait[]>();
  readonly #watchers = new Map<string, Set<(wait: Wait) => void>>();

  /** `requestId` of `session` waits for `taskId`'s result; the returned function ends the wait. */
  add(taskId: string, session: object, requestId: RequestId): () => void {
    const wait = { session, requestId };
    this.#waits.set(taskId, [...(this.#waits.get(taskId) ?? []), wait]);
    for (const watcher of this.#watchers.get(taskId) ?? []) watcher(wait);
    return () => {
      const left = (this.#waits.get(taskId) ?? []).filter((w) => w !== wait);
      if (left.length === 0) this.#waits.delete(taskId);
      else this.#waits.set(taskId, left);
    };
  }

  /** The latest `tasks/result` of `session` waiting for `taskId`, if one is. */
  of(taskId: string, session: object): RequestId | undefined {
    return this.#waits
      .get(taskId)
      ?.filter((w) => w.session === session)
      .at(-1)?.requestId;
  }

  /**
   * A `tasks/result` of `session` waiting for `taskId`: one already waiting, else the first to come
   * within `ms` (the client polls, sees input_required, then asks); undefined after `ms` or on abort.
   */
  next(taskId: string, session: object, ms: number, signal: AbortSignal): Promise<RequestId | undefined> {
    const now = this.of(taskId, session);
    if (now !== undefined || signal.aborted) return Promise.resolve(now);
    return new Promise((resolve) => {
      const watchers = this.#watchers.get(taskId) ?? new Set();
      this.#watchers.set(taskId, watchers);
      const done = (id: RequestId | undefined) => {
        clearTimeout(timer);
        signal.removeEventListener("abort", aborted);
        watchers.delete(watcher);
        if (watchers.size === 0) this.#watchers.delete(taskId);
        resolve(id);
      };
      const watcher = (wait: Wait) => {
        if (wait.session === session) done(wait.requestId);
      };
      const aborted = () => done(undefined);
      const timer = setTimeout(aborted, ms);
      unref(timer);
      watchers.add(watcher);
      signal.addEventListener("abort", aborted, { once: true });
    });
  }
}
