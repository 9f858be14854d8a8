/**
 * The 2026-07-28 tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663) on the wire, as a client
 * reads it. No generated types cover it yet (its schema is not published where the generator loads
 * schemas from; docs/tasks.md), so what the server sends is checked here, field by field: the flat
 * `CreateTaskResult` (`resultType: "task"` beside the task's own fields) and the `DetailedTask` that
 * `tasks/get` answers, with the result, the error or the input requests inlined.
 */

import { ErrorCode, isObject, McpError } from "../jsonrpc/messages.js";
import type { Capabilities } from "../mcp/capabilities.js";
import type { InputRequest } from "../mcp/input-rounds.js";
import type { ToolTaskInfo, ToolTaskStatus } from "./tool-task.js";

export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";
export const RESULT_TYPE_TASK = "task";

/** The methods the extension adds; each names its task in the `Mcp-Name` header. */
export const EXTENSION_TASK_METHODS: ReadonlySet<string> = new Set([
  "tasks/get",
  "tasks/update",
  "tasks/cancel",
]);

const STATUSES: ReadonlySet<string> = new Set([
  "working",
  "input_required",
  "completed",
  "failed",
  "cancelled",
]);

/** `capabilities` with the extension declared (what one request's `_meta` carries to ask for a task). */
export function withTasksExtension(capabilities: Capabilities): Capabilities {
  const extensions = isObject(capabilities.extensions) ? capabilities.extensions : {};
  return { ...capabilities, extensions: { ...extensions, [TASKS_EXTENSION]: {} } };
}

/** Whether a server declares the extension (`capabilities.extensions`). */
export const offersTasksExtension = (capabilities: Capabilities): boolean =>
  isObject(capabilities.extensions) && isObject(capabilities.extensions[TASKS_EXTENSION]);

/** A `DetailedTask` (or the task of a flat `CreateTaskResult`): the task, and what it inlines. */
export interface DetailedTask {
  info: ToolTaskInfo;
  /** completed: the result the call would have answered. */
  result?: Record<string, unknown>;
  /** failed: the JSON-RPC error the call ended with. */
  error?: { code: number; message: string; data?: unknown };
  /** input_required: what it waits for, by key. */
  inputRequests?: Array<[key: string, request: InputRequest]>;
}

/** The task the server sent, checked (-32602 naming the field); `ttlMs`/`pollIntervalMs` as the info's `ttl`/`pollInterval`. */
export function readDetailedTask(value: unknown, where: string): DetailedTask {
  const bad = (field: string, expected: string) =>
    new McpError(ErrorCode.InvalidParams, `${where}: the server's task has no valid ${field} (${expected})`);
  if (!isObject(value))
    throw new McpError(ErrorCode.InvalidParams, `${where}: the server sent no task object`);
  const count = (field: string) => {
    const n = value[field];
    if (n !== undefined && n !== null && !(Number.isInteger(n) && (n as number) >= 0))
      throw bad(field, "a whole number of milliseconds");
    return n as number | null | undefined;
  };
  if (typeof value.taskId !== "string" || value.taskId === "") throw bad("taskId", "a non-empty string");
  if (typeof value.status !== "string" || !STATUSES.has(value.status))
    throw bad("status", [...STATUSES].join(" | "));
  if (value.statusMessage !== undefined && typeof value.statusMessage !== "string")
    throw bad("statusMessage", "a string");
  if (typeof value.createdAt !== "string") throw bad("createdAt", "an ISO 8601 string");
  if (typeof value.lastUpdatedAt !== "string") throw bad("lastUpdatedAt", "an ISO 8601 string");
  const ttl = count("ttlMs");
  const pollInterval = count("pollIntervalMs");
  const info: ToolTaskInfo = {
    taskId: value.taskId,
    status: value.status as ToolTaskStatus,
    ...(value.statusMessage === undefined ? {} : { statusMessage: value.statusMessage }),
    createdAt: value.createdAt,
    lastUpdatedAt: value.lastUpdatedAt,
    ttl: ttl ?? null,
    ...(pollInterval === undefined || pollInterval === null ? {} : { pollInterval }),
  };
  const task: DetailedTask = { info };
  if (info.status === "completed") {
    if (value.result !== undefined && !isObject(value.result)) throw bad("result", "an object");
    if (isObject(value.result)) task.result = value.result;
  }
  if (info.status === "failed") {
    const error = value.error;
    if (!isObject(error) || typeof error.code !== "number" || typeof error.message !== "string")
      throw bad("error", "a JSON-RPC error object, as a failed task has");
    task.error = {
      code: error.code,
      message: error.message,
      ...(error.data === undefined ? {} : { data: error.data }),
    };
  }
  if (info.status === "input_required" && value.inputRequests !== undefined) {
    if (!isObject(value.inputRequests)) throw bad("inputRequests", "an object of input requests by key");
    task.inputRequests = Object.entries(value.inputRequests).map(([key, request]) => {
      if (!isObject(request) || typeof request.method !== "string")
        throw bad(`inputRequests.${key}`, "an input request with a method");
      return [key, { method: request.method, params: request.params }];
    });
  }
  return task;
}
