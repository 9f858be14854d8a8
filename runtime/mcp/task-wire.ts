/**
 * A stored task as each protocol generation shows it. The store knows no generation; the 2025-11-25
 * core tasks and the 2026-07-28 tasks extension name the same facts differently (see docs/tasks.md).
 */

import type { TaskRecord, TaskStatus } from "./task-store.js";
import { RELATED_TASK } from "./tasks.js";

const iso = (ms: number): string => new Date(ms).toISOString();

/** `params` (a request's, or a result) with `_meta` tying it to the task `taskId` (2025-11-25). */
export function withRelatedTask(params: unknown, taskId: string): Record<string, unknown> {
  const p = (params ?? {}) as Record<string, unknown>;
  const meta = p._meta as Record<string, unknown> | undefined;
  return { ...p, _meta: { ...meta, [RELATED_TASK]: { taskId } } };
}

/**
 * 2025-11-25: a tool's `isError` result is a failed task (the store keeps it completed, with its result,
 * which `tasks/result` answers).
 */
export function coreStatus(task: TaskRecord): TaskStatus {
  return task.status === "completed" && task.result?.isError === true ? "failed" : task.status;
}

/** The 2025-11-25 `Task`: `ttl`, `pollInterval`. */
export function coreTask(task: TaskRecord): Record<string, unknown> {
  return {
    taskId: task.taskId,
    status: coreStatus(task),
    ...(task.statusMessage === undefined ? {} : { statusMessage: task.statusMessage }),
    createdAt: iso(task.createdAt),
    lastUpdatedAt: iso(task.lastUpdatedAt),
    ttl: task.ttlMs,
    ...(task.pollIntervalMs === undefined ? {} : { pollInterval: task.pollIntervalMs }),
  };
}

/** The 2026-07-28 extension's `Task`: `ttlMs`, `pollIntervalMs` (the 2025 names never appear). */
export function extensionTask(task: TaskRecord): Record<string, unknown> {
  return {
    taskId: task.taskId,
    status: task.status,
    ...(task.statusMessage === undefined ? {} : { statusMessage: task.statusMessage }),
    createdAt: iso(task.createdAt),
    lastUpdatedAt: iso(task.lastUpdatedAt),
    ttlMs: task.ttlMs,
    ...(task.pollIntervalMs === undefined ? {} : { pollIntervalMs: task.pollIntervalMs }),
  };
}

/**
 * The 2026-07-28 `DetailedTask`: the task with what its status carries inlined: the input it waits for
 * (input_required), its result (completed), its error (failed).
 */
export function detailedTask(task: TaskRecord): Record<string, unknown> {
  const out = extensionTask(task);
  if (task.status === "input_required" && task.inputRequests) out.inputRequests = task.inputRequests;
  if (task.status === "completed" && task.result) out.result = task.result;
  if (task.status === "failed" && task.error) out.error = task.error;
  return out;
}
