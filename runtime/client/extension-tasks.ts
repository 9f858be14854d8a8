/**
 * The 2026-07-28 tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663) on the wire, as a client
 * reads it. No generated types cover it yet (its schema is not published where the generator loads
 * schemas from; docs/tasks.md), so what the server sends is checked here, field by field: the flat
 * `CreateTaskResult` (`resultType: "task"` beside the task's own fields) and the `DetailedTask` that
 * `tasks/get` answers, with the result, the error or the input requests inlined.
 */

import { isObject } from "../jsonrpc/messages.js";
import type { Capabilities } from "../mcp/capabilities.js";
import type { InputRequest } from "../mcp/input-rounds.js";
import { TASKS_EXTENSION } from "../mcp/tasks.js";
import { badTaskField, readTaskBase, type ToolTaskInfo } from "./tool-task.js";

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
  const bad = (field: string, expected: string) => badTaskField(where, field, expected);
  const [fields, base] = readTaskBase(value, where);
  const count = (field: string) => {
    const n = fields[field];
    if (n !== undefined && n !== null && !(Number.isInteger(n) && (n as number) >= 0))
      throw bad(field, "a whole number of milliseconds");
    return n as number | null | undefined;
  };
  const ttl = count("ttlMs");
  const pollInterval = count("pollIntervalMs");
  const info: ToolTaskInfo = {
    ...base,
    ttl: ttl ?? null,
    ...(pollInterval === undefined || pollInterval === null ? {} : { pollInterval }),
  };
  const task: DetailedTask = { info };
  if (info.status === "completed") {
    if (fields.result !== undefined && !isObject(fields.result)) throw bad("result", "an object");
    if (isObject(fields.result)) task.result = fields.result;
  }
  if (info.status === "failed") {
    const error = fields.error;
    if (!isObject(error) || typeof error.code !== "number" || typeof error.message !== "string")
      throw bad("error", "a JSON-RPC error object, as a failed task has");
    task.error = {
      code: error.code,
      message: error.message,
      ...(error.data === undefined ? {} : { data: error.data }),
    };
  }
  if (info.status === "input_required" && fields.inputRequests !== undefined) {
    if (!isObject(fields.inputRequests)) throw bad("inputRequests", "an object of input requests by key");
    task.inputRequests = Object.entries(fields.inputRequests).map(([key, request]) => {
      if (!isObject(request) || typeof request.method !== "string")
        throw bad(`inputRequests.${key}`, "an input request with a method");
      return [key, { method: request.method, params: request.params }];
    });
  }
  return task;
}
