/**
 * A tool's task support, as `execution.taskSupport` declares it (2025-11-25 core tasks; the 2026-07-28
 * tasks extension reads the same field): `forbidden` (the default: never a task), `optional` (a task
 * when the client asks for one) or `required` (only as a task). It stays in the tool's `tools/list`
 * entry (`definition.execution.taskSupport`), which is where the server reads it; the generated types
 * name the tools that may (`TaskTools`) and must (`RequiredTaskTools`) run as tasks.
 */

import { literalUnion } from "../protocol/escape.js";

export type TaskSupport = "forbidden" | "optional" | "required";

export const TASK_SUPPORT: readonly TaskSupport[] = ["forbidden", "optional", "required"];

/** What a tools/list entry declares; anything but `optional` or `required` is `forbidden`. */
export function taskSupportOf(definition: { execution?: unknown }): TaskSupport {
  const execution = definition.execution;
  const value =
    typeof execution === "object" && execution !== null
      ? (execution as { taskSupport?: unknown }).taskSupport
      : undefined;
  return value === "optional" || value === "required" ? value : "forbidden";
}

/** Whether `execution` is what the contract compiler accepts: an object with a known `taskSupport` or none. */
export function isExecution(execution: unknown): boolean {
  if (typeof execution !== "object" || execution === null || Array.isArray(execution)) return false;
  const value = (execution as { taskSupport?: unknown }).taskSupport;
  return value === undefined || TASK_SUPPORT.includes(value as TaskSupport);
}

/**
 * The generated `TaskTools` (optional or required) and `RequiredTaskTools` types of `tools`: unions of
 * their names as string literal types (`stringLiteral`, the one escaping path), `never` when there is none.
 */
export function taskToolUnions(tools: readonly { name: string; definition: { execution?: unknown } }[]): {
  taskTools: string;
  requiredTaskTools: string;
} {
  const union = (...kinds: TaskSupport[]) =>
    literalUnion(tools.filter((t) => kinds.includes(taskSupportOf(t.definition))).map((t) => t.name));
  return { taskTools: union("optional", "required"), requiredTaskTools: union("required") };
}
