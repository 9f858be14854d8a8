/**
 * One session's polls of tasks its client runs for it (task-augmented sampling and elicitation,
 * 2025-11-25), woken early when the client sends `notifications/tasks/status` for one of them: the
 * notification is optional, so it only shortens a wait and is never relied on.
 */

import { isObject } from "../jsonrpc/messages.js";

export class ClientTaskWakeups {
  readonly #waiting = new Map<string, Set<() => void>>();

  /** Calls `wake` each time the client reports a change of `taskId`, until the returned function is called. */
  watch(taskId: string, wake: () => void): () => void {
    const wakes = this.#waiting.get(taskId) ?? new Set();
    this.#waiting.set(taskId, wakes);
    wakes.add(wake);
    return () => {
      wakes.delete(wake);
      if (wakes.size === 0 && this.#waiting.get(taskId) === wakes) this.#waiting.delete(taskId);
    };
  }

  /** A `notifications/tasks/status` from the client: wakes the polls of the task it names, if any. */
  notified(params: unknown): void {
    if (!isObject(params) || typeof params.taskId !== "string") return;
    const wakes = this.#waiting.get(params.taskId);
    if (wakes) for (const wake of [...wakes]) wake();
  }
}
