/**
 * A server→client request the client runs as a task of its own (2025-11-25 task-augmented
 * `sampling/createMessage` and `elicitation/create`): sent with `params.task`, answered with a
 * CreateTaskResult, polled with `tasks/get` at the client's `pollInterval` (a `notifications/tasks/status`
 * from the client wakes the poll early) until it ends, then its outcome fetched with `tasks/result`, so
 * the handler awaits the same result a plain request would have given. The wait is bounded by the
 * task's TTL and by the handler's signal, whose abort cancels the client's task with `tasks/cancel`.
 */

import type { Check } from "../check/check.js";
import { REQUEST_CANCELLED } from "../jsonrpc/connection.js";
import { ErrorCode, isObject, McpError, type RequestId } from "../jsonrpc/messages.js";
import { hasCapability } from "../mcp/capabilities.js";
import { checkPeerResult } from "../mcp/check-errors.js";
import type { InputOptions, MethodTypes } from "../mcp/handler-context.js";
import { entryOf } from "../mcp/tables.js";
import { isTerminal, type TaskStatus } from "../mcp/task-store.js";
import { CLIENT_TASK_REQUESTS, RELATED_TASK } from "../mcp/tasks.js";
import { messageOf } from "../util/errors.js";
import { wait } from "../util/timers.js";
import type { ServerSession } from "./session.js";

const DEFAULT_POLL_MS = 1000;
/** The client's interval is honoured within these bounds: never a busy loop, never minutes apart. */
const MIN_POLL_MS = 50;
const MAX_POLL_MS = 30_000;
/** Errors of the way to the client rather than of its task. */
const LOST: ReadonlySet<number> = new Set([
  ErrorCode.ConnectionClosed,
  ErrorCode.RequestTimeout,
  REQUEST_CANCELLED,
]);

/**
 * Whether the client declared it runs `method` as a task (`capabilities.tasks.requests.<path>`); a
 * method no client runs as a task is a programming error, refused at once.
 */
export function clientRunsAsTask(method: string, clientCapabilities: unknown): boolean {
  const path = Object.hasOwn(CLIENT_TASK_REQUESTS, method) ? CLIENT_TASK_REQUESTS[method] : undefined;
  if (!path)
    throw new McpError(
      ErrorCode.InternalError,
      `${method} cannot be sent as a task: only ${Object.keys(CLIENT_TASK_REQUESTS).join(" and ")} can`,
    );
  return hasCapability(clientCapabilities, {
    side: "client",
    path: ["tasks", "requests", ...path],
    leaf: "object",
  });
}

type Send = (
  method: string,
  params: unknown,
  withSignal: boolean,
  extra?: { check?: Check; timeoutMs?: number },
) => Promise<Record<string, unknown>>;

/** The client's task as this poll knows it. */
interface ClientTask {
  taskId: string;
  status: TaskStatus;
  statusMessage?: string;
  ttl: number | null;
  pollInterval?: number;
}

/**
 * Sends `method` to the client as a task and awaits its outcome (the caller checked
 * `clientRunsAsTask`). `signal` is the handler's; `relatedRequestId` the request whose stream the
 * requests go on (over HTTP; none: the session's stream).
 */
export async function requestAsClientTask(
  session: ServerSession<MethodTypes, MethodTypes>,
  method: string,
  params: unknown,
  task: NonNullable<InputOptions["task"]>,
  signal: AbortSignal,
  relatedRequestId: RequestId | undefined,
): Promise<unknown> {
  const tables = session.server.handshake;
  const entry = tables && entryOf(tables.serverRequests, method);
  const taskEntry = tables && entryOf(tables.serverRequests, "tasks/get");
  if (!entry || !taskEntry)
    throw new McpError(
      ErrorCode.InternalError,
      `${method} cannot be sent as a task in this protocol version`,
    );
  const asked = task.ttl === undefined ? {} : { ttl: task.ttl };
  /** One request to the client; `timeoutMs` absent: the server's request timeout, as for any request. */
  const send: Send = (m, p, withSignal, extra = {}) =>
    session.request(
      m,
      p as Record<string, unknown>,
      {
        ...(extra.timeoutMs === undefined ? {} : { timeoutMs: extra.timeoutMs }),
        ...(relatedRequestId === undefined ? {} : { relatedRequestId }),
        ...(withSignal ? { signal } : {}),
      },
      extra.check,
    ) as Promise<Record<string, unknown>>;

  // A client that answers at once instead of creating a task has its result returned, checked as usual.
  const created = await send(method, { ...(isObject(params) ? params : {}), task: asked }, true, {
    check: (v) => (isObject(v) && isObject(v.task) ? taskEntry.result(v.task) : entry.result(v)),
  });
  if (!isObject(created.task)) return created;
  let current = readTask(created.task, method);
  const { taskId } = current;
  const ttl = current.ttl ?? task.ttl;
  const deadline = ttl === undefined ? Number.POSITIVE_INFINITY : Date.now() + ttl;

  const cancel = () =>
    void send("tasks/cancel", { taskId }, false).catch(() => {
      // The client may not cancel (no tasks.cancel), or be gone: the task then ends on its own.
    });
  signal.addEventListener("abort", cancel, { once: true });
  if (signal.aborted) cancel();
  const wakeups = session.clientTasks;
  let wake: (() => void) | undefined;
  const unwatch = wakeups.watch(taskId, () => wake?.());
  try {
    while (!isTerminal(current.status)) {
      // input_required: the client's input requests come on the stream of tasks/result, which then
      // answers the outcome (the specification's way for a requestor to see them).
      if (current.status === "input_required")
        return await outcome(send, method, entry.result, current, deadline);
      if (Date.now() >= deadline) throw expired(method, taskId, ttl, cancel);
      await wait(pollDelay(current, deadline), signal, {
        onWake: (w) => {
          wake = w;
        },
        minMs: MIN_POLL_MS,
      });
      try {
        current = readTask(await send("tasks/get", { taskId }, true), method);
      } catch (error) {
        // A client may forget its task the moment its TTL ends: that is the expiry, not a bad answer.
        if (error instanceof McpError && !LOST.has(error.code) && Date.now() >= deadline)
          throw expired(method, taskId, ttl, cancel);
        throw error;
      }
    }
    return await outcome(send, method, entry.result, current, deadline);
  } catch (error) {
    if (signal.aborted) throw cancelledError(method, taskId, signal);
    throw error;
  } finally {
    unwatch();
    signal.removeEventListener("abort", cancel);
  }
}

/** The client's task outlived its TTL without ending: cancelled (it may still run there), refused here. */
function expired(method: string, taskId: string, ttl: number | undefined, cancel: () => void): McpError {
  cancel();
  return new McpError(
    ErrorCode.InternalError,
    `${method}: the client's task ${taskId} did not finish within its ttl (${ttl} ms)`,
    { taskId },
  );
}

/** The ended (or input_required) task's outcome: its result checked as `method`'s, or a clear error. */
async function outcome(
  send: Send,
  method: string,
  check: Check,
  task: ClientTask,
  deadline: number,
): Promise<unknown> {
  const { taskId } = task;
  if (task.status === "cancelled")
    throw new McpError(
      REQUEST_CANCELLED,
      `${method}: the client cancelled its task ${taskId}${task.statusMessage ? `: ${task.statusMessage}` : ""}`,
      { taskId, status: task.status },
    );
  let payload: Record<string, unknown>;
  try {
    // tasks/result waits while the task waits for input: no longer than the task is kept.
    payload = await send("tasks/result", { taskId }, true, {
      timeoutMs: Math.max(MIN_POLL_MS, deadline - Date.now()),
    });
  } catch (error) {
    // The client answers tasks/result with the error its request ended with: the task's failure.
    // A connection that went away is not the task's doing, and is told as it is.
    if (!(error instanceof McpError) || LOST.has(error.code)) throw error;
    throw new McpError(error.code, `${method}: the client's task ${taskId} failed: ${error.message}`, {
      ...(isObject(error.data) ? error.data : error.data === undefined ? {} : { data: error.data }),
      taskId,
      status: task.status,
    });
  }
  if (task.status === "failed")
    throw new McpError(
      ErrorCode.InternalError,
      `${method}: the client's task ${taskId} failed${task.statusMessage ? `: ${task.statusMessage}` : ""}`,
      { taskId, status: task.status },
    );
  return checkPeerResult(check, method, stripRelated(payload), "client");
}

/** tasks/result's answer without the related-task `_meta` it carries (the plain result has none). */
function stripRelated(payload: Record<string, unknown>): Record<string, unknown> {
  if (!isObject(payload._meta) || !(RELATED_TASK in payload._meta)) return payload;
  const { [RELATED_TASK]: _, ...meta } = payload._meta;
  const { _meta: __, ...rest } = payload;
  return Object.keys(meta).length === 0 ? rest : { ...rest, _meta: meta };
}

/** The `Task` the client sent (already checked against the schema's Task), as this poll uses it. */
function readTask(value: unknown, method: string): ClientTask {
  if (!isObject(value) || typeof value.taskId !== "string")
    throw new McpError(ErrorCode.InvalidParams, `invalid task from the client for ${method}: no taskId`);
  return {
    taskId: value.taskId,
    status: value.status as TaskStatus,
    ...(typeof value.statusMessage === "string" ? { statusMessage: value.statusMessage } : {}),
    ttl: typeof value.ttl === "number" ? value.ttl : null,
    ...(typeof value.pollInterval === "number" ? { pollInterval: value.pollInterval } : {}),
  };
}

function pollDelay(task: ClientTask, deadline: number): number {
  const ms = Math.min(MAX_POLL_MS, Math.max(MIN_POLL_MS, task.pollInterval ?? DEFAULT_POLL_MS));
  return Math.max(MIN_POLL_MS, Math.min(ms, deadline - Date.now()));
}

const cancelledError = (method: string, taskId: string, signal: AbortSignal): McpError =>
  new McpError(
    REQUEST_CANCELLED,
    `${method}: the request was cancelled (${messageOf(signal.reason)}), so the client's task ${taskId} was cancelled`,
    { taskId },
  );
