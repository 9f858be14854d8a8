/** The names both sides of tasks use: the 2025-11-25 core tasks and the 2026-07-28 tasks extension. */

/** `_meta` key tying a message to a task (2025-11-25). */
export const RELATED_TASK = "io.modelcontextprotocol/related-task";

/** The tasks extension's name (2026-07-28 on), in capabilities and per-request `_meta`. */
export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";

/** The `resultType` of a result that is a created task (the extension). */
export const RESULT_TYPE_TASK = "task";

/** The extension's status notification, sent on `subscriptions/listen` streams naming `taskIds`. */
export const TASK_STATUS_NOTIFICATION = "notifications/tasks";

/** The 2025-11-25 task methods (a receiver of task-augmented requests answers them). */
export const CORE_TASK_METHODS: ReadonlySet<string> = new Set([
  "tasks/get",
  "tasks/result",
  "tasks/list",
  "tasks/cancel",
]);

/**
 * The extension's methods; each names its task in the `Mcp-Name` header. Its `tasks/result` and
 * `tasks/list` do not exist (-32601 as any unknown method).
 */
export const EXTENSION_TASK_METHODS: ReadonlySet<string> = new Set([
  "tasks/get",
  "tasks/update",
  "tasks/cancel",
]);

/** The 2025-11-25 status notification a task's receiver may send its requestor (`Task` as params). */
export const CORE_TASK_STATUS_NOTIFICATION = "notifications/tasks/status";

/**
 * 2025-11-25: the server→client requests a client may run as tasks, each with the path under
 * `capabilities.tasks.requests` where the client declares it.
 */
export const CLIENT_TASK_REQUESTS: Readonly<Record<string, readonly [string, string]>> = {
  "sampling/createMessage": ["sampling", "createMessage"],
  "elicitation/create": ["elicitation", "create"],
};
