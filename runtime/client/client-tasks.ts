/**
 * The client as a task receiver (2025-11-25): a server that sends `sampling/createMessage` or
 * `elicitation/create` with `params.task` gets a `CreateTaskResult` at once, the handler runs as that
 * task in the client's own task store, and the server polls it with `tasks/get`, waits for its outcome
 * with `tasks/result`, lists with `tasks/list` and cancels with `tasks/cancel` (which aborts the
 * handler's `ctx.signal`). The client has one peer, so every task has the same owner.
 */

import { ErrorCode, isObject, McpError } from "../jsonrpc/messages.js";
import type { Capabilities } from "../mcp/capabilities.js";
import { InMemoryTaskStore, isTerminal, taskErrorOf } from "../mcp/task-store.js";
import { coreTask } from "../mcp/task-wire.js";
import { CLIENT_TASK_REQUESTS, RELATED_TASK } from "../mcp/tasks.js";
import { messageOf } from "../util/errors.js";

export interface ClientTaskOptions {
  /** How long a task is kept when the server asks for none (ms, default 60 s). */
  ttlMs?: number;
  /** The longest a server may ask a task be kept (ms, default 10 min). */
  maxTtlMs?: number;
  /** The poll interval suggested to the server (ms, default 500). */
  pollIntervalMs?: number;
  /** Tasks kept at once (default 100): a server asking for more gets -32603. */
  maxTasks?: number;
}

/** The requests a client may be asked to run as tasks, by the handler that answers each. */
const TASK_REQUESTS: Readonly<Record<string, { handler: string; path: readonly [string, string] }>> = {
  "sampling/createMessage": {
    handler: "createMessage",
    path: CLIENT_TASK_REQUESTS["sampling/createMessage"]!,
  },
  "elicitation/create": { handler: "elicit", path: CLIENT_TASK_REQUESTS["elicitation/create"]! },
};

const OWNER = "server";
const HOLDER = "client";
const MIN_TTL_MS = 1000;

const notFound = (taskId: unknown) =>
  new McpError(ErrorCode.InvalidParams, `Task not found or expired: ${String(taskId)}`);

/** `capabilities.tasks` of a client whose handlers include `handlers`. */
export function taskCapabilities(has: (handler: string) => boolean): Capabilities | undefined {
  const requests: Record<string, Record<string, object>> = {};
  for (const { handler, path } of Object.values(TASK_REQUESTS))
    if (has(handler)) requests[path[0]] = { ...requests[path[0]], [path[1]]: {} };
  if (Object.keys(requests).length === 0) return undefined;
  return { tasks: { list: {}, cancel: {}, requests } };
}

export class ClientTasks {
  readonly #store: InMemoryTaskStore;
  /** Running handlers: their outcome (for tasks/result) and how to stop them (tasks/cancel). */
  readonly #running = new Map<string, { done: Promise<void>; abort: AbortController }>();
  readonly #ttlMs: number;
  readonly #maxTtlMs: number;
  readonly #pollIntervalMs: number;

  constructor(options: ClientTaskOptions = {}) {
    this.#store = new InMemoryTaskStore({
      maxTasks: options.maxTasks ?? 100,
      maxTasksPerOwner: options.maxTasks ?? 100,
    });
    this.#ttlMs = options.ttlMs ?? 60_000;
    this.#maxTtlMs = options.maxTtlMs ?? 10 * 60_000;
    this.#pollIntervalMs = options.pollIntervalMs ?? 500;
  }

  /** The handler a task-augmented `method` needs, when the client runs `method` as a task at all. */
  handlerOf(method: string): string | undefined {
    return TASK_REQUESTS[method]?.handler;
  }

  /** Starts `run` as a new task; answers the `CreateTaskResult`. */
  create(
    method: string,
    task: Record<string, unknown>,
    run: (signal: AbortSignal) => Promise<Record<string, unknown>>,
  ): Record<string, unknown> {
    const asked = typeof task.ttl === "number" && task.ttl >= 0 ? task.ttl : this.#ttlMs;
    const ttlMs = Math.min(this.#maxTtlMs, Math.max(MIN_TTL_MS, asked));
    // The lease lasts as long as the task: this process is its only runner.
    const created = this.#store.create({
      owner: OWNER,
      method,
      ttlMs,
      pollIntervalMs: this.#pollIntervalMs,
      holder: HOLDER,
      leaseMs: ttlMs,
    });
    if (!created.ok)
      throw new McpError(ErrorCode.InternalError, "This client holds as many tasks as it keeps");
    const { taskId } = created.task;
    const abort = new AbortController();
    const done = run(abort.signal).then(
      (result) => void this.#store.finish(taskId, HOLDER, { status: "completed", result }),
      (error: unknown) =>
        void this.#store.finish(taskId, HOLDER, {
          status: "failed",
          error: taskErrorOf(error),
          statusMessage: messageOf(error),
        }),
    );
    const running = { done, abort };
    this.#running.set(taskId, running);
    void done.finally(() => this.#running.delete(taskId));
    return { task: coreTask(created.task) };
  }

  /** `tasks/get`, `tasks/result`, `tasks/list`, `tasks/cancel` from the server. */
  async serve(method: string, params: unknown, signal: AbortSignal): Promise<Record<string, unknown>> {
    const p = isObject(params) ? params : {};
    if (method === "tasks/list") {
      const page = this.#store.list(OWNER, typeof p.cursor === "string" ? { cursor: p.cursor } : {});
      return { tasks: page.tasks.map(coreTask), ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) };
    }
    const taskId = typeof p.taskId === "string" ? p.taskId : undefined;
    if (taskId === undefined)
      throw new McpError(ErrorCode.InvalidParams, `${method}: taskId must be a string`);
    if (method === "tasks/cancel") {
      const outcome = this.#store.cancel(taskId, OWNER, "Cancelled by the server");
      if (!outcome.ok && outcome.reason === "terminal")
        throw new McpError(ErrorCode.InvalidParams, `Task ${taskId} is already ${outcome.task.status}`);
      if (!outcome.ok) throw notFound(taskId);
      this.#running.get(taskId)?.abort.abort(new Error("the task was cancelled"));
      return coreTask(outcome.task);
    }
    if (method === "tasks/result") {
      const running = this.#running.get(taskId);
      if (running) await Promise.race([running.done, aborted(signal)]);
      return this.#payload(taskId);
    }
    const task = this.#store.get(taskId, OWNER);
    if (!task) throw notFound(taskId);
    return coreTask(task);
  }

  /** Aborts every running handler (the client is closing). */
  close(): void {
    for (const { abort } of this.#running.values()) abort.abort(new Error("the client closed"));
  }

  /** A terminal task's outcome as its request would have answered: the result, or the error thrown. */
  #payload(taskId: string): Record<string, unknown> {
    const task = this.#store.get(taskId, OWNER);
    if (!task) throw notFound(taskId);
    if (!isTerminal(task.status))
      throw new McpError(ErrorCode.InternalError, `Task ${taskId} is still ${task.status}`);
    const related = { [RELATED_TASK]: { taskId } };
    if (task.status === "completed") {
      const result = task.result ?? {};
      return { ...result, _meta: { ...(isObject(result._meta) ? result._meta : {}), ...related } };
    }
    if (task.status === "failed" && task.error)
      throw new McpError(task.error.code, task.error.message, task.error.data);
    throw new McpError(ErrorCode.InvalidParams, `Task ${taskId} was cancelled`);
  }
}

/** Never resolves; rejects once `signal` aborts (the server gave up waiting). */
function aborted(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    const fail = () =>
      reject(new McpError(ErrorCode.InternalError, "tasks/result: the request was cancelled"));
    if (signal.aborted) fail();
    else signal.addEventListener("abort", fail, { once: true });
  });
}
