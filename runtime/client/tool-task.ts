/**
 * A tool call run as a task, seen from the client that asked for it (2025-11-25 core tasks): the task the
 * server created, polled with `tasks/get` at the server's `pollInterval`, its outcome fetched with
 * `tasks/result` once it is terminal (or while it waits for input, which the server sends on that
 * request's stream), cancelled with `tasks/cancel`. A poll that fails for want of a connection (a
 * network error, a session being started again) is tried again at the poll interval: the task lives on
 * the server, so polling it resumes once the client reaches the server again.
 */

import { REQUEST_CANCELLED } from "../jsonrpc/connection.js";
import { ErrorCode, isObject, McpError } from "../jsonrpc/messages.js";
import { isTerminal, type TaskStatus } from "../mcp/task-store.js";
import { wait } from "../util/timers.js";

export type ToolTaskStatus = TaskStatus;

/** A task as the server describes it (`Task` of 2025-11-25). */
export interface ToolTaskInfo {
  taskId: string;
  status: ToolTaskStatus;
  statusMessage?: string;
  /** ISO 8601. */
  createdAt: string;
  lastUpdatedAt: string;
  /** How long the server keeps it from creation (ms); null: unlimited. */
  ttl: number | null;
  /** How often the server suggests polling it (ms). */
  pollInterval?: number;
}

/** `task` of a call's options: run it as a task, optionally asking it be kept `ttl` ms. */
export type TaskRequest = true | { ttl?: number };

/** What waiting for a task's outcome may be told. */
export interface ToolTaskWaitOptions {
  /** Aborting stops waiting and cancels the task (`tasks/cancel`). */
  signal?: AbortSignal;
  /** How long to keep polling through lost connections before giving up (default: the task's TTL, else 10 min). */
  reconnectTimeoutMs?: number;
}

/** A task-augmented tool call the caller holds: poll it, wait for it, cancel it, on this client or another. */
export interface ToolTask<R = unknown> {
  /** The server's id for the task: enough to find it again (`client.toolTask(taskId)`) after a reconnect. */
  readonly taskId: string;
  /** The task as the server created it. */
  readonly created: ToolTaskInfo;
  /** `tasks/get`: the task as it stands. */
  status(): Promise<ToolTaskInfo>;
  /**
   * Polls until the task ends, then answers what the call would have: the tool's result (`tasks/result`);
   * a failed task rejects with its error, a cancelled one with REQUEST_CANCELLED.
   */
  result(options?: ToolTaskWaitOptions): Promise<R>;
  /** `tasks/cancel`: the task as the server left it (cancelled). */
  cancel(): Promise<ToolTaskInfo>;
}

/** The requests a task needs from the client that polls it, in the wire of its protocol generation. */
export interface TaskPeer {
  /** `tasks/get`: the task as it stands. */
  get(taskId: string, signal: AbortSignal | undefined): Promise<ToolTaskInfo>;
  /** A terminal (or, in 2025-11-25, input_required) task's outcome as the call would have answered. */
  payload(taskId: string, signal: AbortSignal | undefined): Promise<Record<string, unknown>>;
  /** `tasks/cancel`: the task as the server left it. */
  cancel(taskId: string): Promise<ToolTaskInfo>;
  /**
   * 2026-07-28: answers the input an input_required task waits for (`tasks/update`), then polling goes
   * on; false when there was nothing new to answer (sent before, not yet taken). Absent (2025-11-25):
   * the input comes on the stream of `tasks/result`, which `payload` sends.
   */
  answer?(taskId: string, signal: AbortSignal | undefined): Promise<boolean>;
  /** The connection was closed by this side: polling again cannot succeed. */
  readonly closed: boolean;
}

const STATUSES: ReadonlySet<string> = new Set([
  "working",
  "input_required",
  "completed",
  "failed",
  "cancelled",
]);
const DEFAULT_POLL_MS = 1000;
/** The server's interval is honoured within these bounds: never a busy loop, never hours apart. */
const MIN_POLL_MS = 50;
const MAX_POLL_MS = 60_000;
const DEFAULT_RECONNECT_MS = 10 * 60_000;

/** -32602: a field of the task the server sent is not what it should be. */
export const badTaskField = (where: string, field: string, expected: string): McpError =>
  new McpError(ErrorCode.InvalidParams, `${where}: the server's task has no valid ${field} (${expected})`);

/**
 * What a task has in every protocol generation (id, status, message, times), checked field by field
 * (-32602 naming the field); with the task object, for the fields each generation names its own way.
 */
export function readTaskBase(
  value: unknown,
  where: string,
): [task: Record<string, unknown>, base: Omit<ToolTaskInfo, "ttl" | "pollInterval">] {
  const bad = (field: string, expected: string) => badTaskField(where, field, expected);
  if (!isObject(value))
    throw new McpError(ErrorCode.InvalidParams, `${where}: the server sent no task object`);
  if (typeof value.taskId !== "string" || value.taskId === "") throw bad("taskId", "a non-empty string");
  if (typeof value.status !== "string" || !STATUSES.has(value.status))
    throw bad("status", [...STATUSES].join(" | "));
  if (value.statusMessage !== undefined && typeof value.statusMessage !== "string")
    throw bad("statusMessage", "a string");
  if (typeof value.createdAt !== "string") throw bad("createdAt", "an ISO 8601 string");
  if (typeof value.lastUpdatedAt !== "string") throw bad("lastUpdatedAt", "an ISO 8601 string");
  return [
    value,
    {
      taskId: value.taskId,
      status: value.status as ToolTaskStatus,
      ...(value.statusMessage === undefined ? {} : { statusMessage: value.statusMessage }),
      createdAt: value.createdAt,
      lastUpdatedAt: value.lastUpdatedAt,
    },
  ];
}

/** A `Task` the server sent (2025-11-25: `ttl`, `pollInterval`), checked field by field. */
export function readTask(value: unknown, where: string): ToolTaskInfo {
  const [task, base] = readTaskBase(value, where);
  if (task.ttl !== null && !(typeof task.ttl === "number" && task.ttl >= 0))
    throw badTaskField(where, "ttl", "milliseconds or null");
  if (task.pollInterval !== undefined && !(typeof task.pollInterval === "number" && task.pollInterval >= 0))
    throw badTaskField(where, "pollInterval", "milliseconds");
  return {
    ...base,
    ttl: task.ttl as number | null,
    ...(task.pollInterval === undefined ? {} : { pollInterval: task.pollInterval as number }),
  };
}

/** The task of a `CreateTaskResult` (`{ task }`), or undefined when the result is not one. */
export function createdTask(result: Record<string, unknown>, where: string): ToolTaskInfo | undefined {
  return isObject(result.task) ? readTask(result.task, where) : undefined;
}

/** A poll failure worth retrying: the request never reached an answer (no JSON-RPC error came back). */
const isConnectionFailure = (error: unknown): boolean =>
  !(error instanceof McpError) ||
  error.code === ErrorCode.ConnectionClosed ||
  error.code === ErrorCode.RequestTimeout;

/** Resolves after `ms`, or rejects with REQUEST_CANCELLED once `signal` aborts. */
const pause = (ms: number, signal: AbortSignal | undefined): Promise<void> =>
  wait(ms, signal).catch(() => {
    throw cancelled(signal!);
  });

const cancelled = (signal: AbortSignal): McpError =>
  new McpError(
    REQUEST_CANCELLED,
    `Request cancelled: ${signal.reason instanceof Error ? signal.reason.message : String(signal.reason ?? "aborted")}`,
  );

/** Holds one task of a server; `check` turns the fetched payload into the call's result (or throws). */
export class PolledToolTask<R> implements ToolTask<R> {
  readonly taskId: string;
  #last: ToolTaskInfo;

  constructor(
    readonly created: ToolTaskInfo,
    readonly tool: string,
    private readonly peer: TaskPeer,
    private readonly check: (payload: Record<string, unknown>) => R,
    /**
     * Told once the task is seen to have ended or `result()` settled (perhaps more than once): what
     * listened for the task (its progress) may stop.
     */
    private readonly ended: () => void = () => {},
  ) {
    this.taskId = created.taskId;
    this.#last = created;
  }

  async status(): Promise<ToolTaskInfo> {
    return this.#seen(await this.peer.get(this.taskId, undefined));
  }

  async cancel(): Promise<ToolTaskInfo> {
    return this.#seen(await this.peer.cancel(this.taskId));
  }

  #seen(task: ToolTaskInfo): ToolTaskInfo {
    this.#last = task;
    if (isTerminal(task.status)) this.ended();
    return task;
  }

  async result(options: ToolTaskWaitOptions = {}): Promise<R> {
    const { signal } = options;
    const onAbort = () => {
      // The task lives on the server: stopping to wait is not enough, it is cancelled there too.
      this.peer.cancel(this.taskId).then(
        (task) => this.#seen(task),
        () => {},
      );
    };
    if (signal?.aborted) {
      onAbort();
      throw cancelled(signal);
    }
    signal?.addEventListener("abort", onAbort, { once: true });
    try {
      return await this.#wait(options);
    } finally {
      signal?.removeEventListener("abort", onAbort);
      // After the outcome came (not when the status first said terminal): the task's last progress,
      // sent before it ended, may come on another stream than the poll that saw the end.
      this.ended();
    }
  }

  async #wait(options: ToolTaskWaitOptions): Promise<R> {
    const { signal } = options;
    const patience = options.reconnectTimeoutMs ?? this.#last.ttl ?? DEFAULT_RECONNECT_MS;
    let failingSince: number | undefined;
    let task = this.#last;
    for (;;) {
      if (isTerminal(task.status)) return this.#outcome(task, signal);
      if (task.status === "input_required") {
        // 2025-11-25: the input comes on the stream of a pending tasks/result, which then answers.
        if (!this.peer.answer) return this.#fetch(signal);
        if (!(await this.peer.answer(this.taskId, signal))) await pause(pollDelay(task), signal);
      } else await pause(pollDelay(task), signal);
      try {
        task = await this.peer.get(this.taskId, signal);
        this.#last = task;
        failingSince = undefined;
      } catch (error) {
        if (signal?.aborted) throw cancelled(signal);
        if (this.peer.closed || !isConnectionFailure(error)) throw error;
        failingSince ??= Date.now();
        if (Date.now() - failingSince > patience) throw error;
      }
    }
  }

  async #outcome(task: ToolTaskInfo, signal: AbortSignal | undefined): Promise<R> {
    if (task.status === "cancelled")
      throw new McpError(
        REQUEST_CANCELLED,
        `Task ${task.taskId} (tools/call ${this.tool}) was cancelled${task.statusMessage ? `: ${task.statusMessage}` : ""}`,
        { taskId: task.taskId },
      );
    // Completed or failed: tasks/result answers what the call would have (a result, or its error).
    return this.#fetch(signal);
  }

  async #fetch(signal: AbortSignal | undefined): Promise<R> {
    return this.check(await this.peer.payload(this.taskId, signal));
  }
}

function pollDelay(task: ToolTaskInfo): number {
  const ms = task.pollInterval ?? DEFAULT_POLL_MS;
  return Math.min(MAX_POLL_MS, Math.max(MIN_POLL_MS, ms));
}
