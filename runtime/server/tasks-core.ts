/**
 * The 2025-11-25 core tasks on a handshake-era session: `tools/call` with `params.task` answered
 * `CreateTaskResult { task }` while the tool runs detached; `tasks/get`, `tasks/result` (waits for the
 * end, then answers what the call would have), `tasks/list` (the caller's own), `tasks/cancel`; and
 * `notifications/tasks/status` to the session that created the task, while it is open here.
 */

import type { IncomingRequestContext } from "../jsonrpc/connection.js";
import { ErrorCode, McpError } from "../jsonrpc/messages.js";
import type { AnyHandler, MethodTypes } from "../mcp/handler-context.js";
import type { RequestEntry } from "../mcp/tables.js";
import type { TaskEnd, TaskRecord } from "../mcp/task-store.js";
import { coreTask, withRelatedTask } from "../mcp/task-wire.js";
import { notFound, type ServerTasks } from "./server-tasks.js";
import type { ServerSession } from "./session.js";
import { TaskContext } from "./task-context.js";
import { outcomeOf, toolTaskEnd } from "./task-end.js";

type AnySession = ServerSession<MethodTypes, MethodTypes>;
type Answer = Record<string, unknown> | Promise<Record<string, unknown>>;

/**
 * Serves `entry` when it is a task matter (a task-augmented or task-gated `tools/call`, `tasks/*`);
 * undefined when the session serves it as any other request.
 */
export function serveCoreTasks(
  tasks: ServerTasks,
  session: AnySession,
  entry: RequestEntry,
  params: Record<string, unknown>,
  handler: AnyHandler | undefined,
  rc: IncomingRequestContext,
): Answer | undefined {
  switch (entry.method) {
    case "tools/call":
      return callTool(tasks, session, entry, params, handler, rc);
    case "tasks/get":
      return tasks.get(params.taskId, owner(tasks, session, rc)).then(coreTask);
    case "tasks/result":
      return result(tasks, session, owner(tasks, session, rc), params.taskId, rc);
    case "tasks/list":
      return list(tasks, owner(tasks, session, rc), params.cursor);
    case "tasks/cancel":
      return cancel(tasks, owner(tasks, session, rc), params.taskId);
    default:
      return undefined;
  }
}

const owner = (tasks: ServerTasks, session: AnySession, rc: IncomingRequestContext): string =>
  tasks.ownerOf(rc, session.sessionId);

function callTool(
  tasks: ServerTasks,
  session: AnySession,
  entry: RequestEntry,
  params: Record<string, unknown>,
  handler: AnyHandler | undefined,
  rc: IncomingRequestContext,
): Answer | undefined {
  const support = tasks.support(params.name);
  const asked = params.task !== undefined;
  if (asked && support === "forbidden")
    throw new McpError(
      ErrorCode.MethodNotFound,
      `Tool ${JSON.stringify(params.name)} does not support task-augmented calls (its execution.taskSupport is forbidden)`,
    );
  if (!asked && support === "required")
    throw new McpError(
      ErrorCode.MethodNotFound,
      `Tool ${JSON.stringify(params.name)} must be called as a task (its execution.taskSupport is required): add params.task`,
    );
  if (!asked || !handler) return undefined;
  const { task: metadata, ...call } = params;
  const ttl = (metadata as { ttl?: unknown } | null)?.ttl;
  return tasks.create(owner(tasks, session, rc), entry.method, tasks.clampTtl(ttl)).then((created) => {
    tasks.runner.start(
      created,
      (running) =>
        runTool(
          session,
          entry,
          call,
          handler,
          rc,
          new TaskContext(session, rc, session.session!, running, (signal) =>
            tasks.resultWaits.next(running.taskId, session, inputWaitMs(tasks), signal),
          ),
        ),
      (seen) => statusNotification(session, seen),
    );
    return { task: coreTask(created) };
  });
}

/**
 * How long a task's input request waits for the client's `tasks/result` to go out on: two poll
 * intervals (a polling client sees input_required within one), bounded; after it, the request goes
 * out on the session (the GET stream over HTTP), for clients that listen there.
 */
const inputWaitMs = (tasks: ServerTasks): number => Math.min(5000, 2 * tasks.pollIntervalMs);

/** Runs the tool's handler for its task. */
async function runTool(
  session: AnySession,
  entry: RequestEntry,
  params: Record<string, unknown>,
  handler: AnyHandler,
  rc: IncomingRequestContext,
  ctx: TaskContext<MethodTypes, MethodTypes>,
): Promise<TaskEnd> {
  const outcome = await outcomeOf(() => handler(params, ctx));
  return toolTaskEnd(session, entry, outcome, { ...rc, signal: ctx.signal });
}

/** `notifications/tasks/status` to the session that created the task, while its connection is open. */
function statusNotification(session: AnySession, task: TaskRecord): void {
  if (!session.initialized) return;
  session.notify("notifications/tasks/status", coreTask(task)).catch(() => {});
}

/**
 * What the call would have answered: its result with the related-task `_meta`, or its error. While it
 * waits, input the task asks of the client goes out on this request's stream.
 */
async function result(
  tasks: ServerTasks,
  session: AnySession,
  owner: string,
  taskId: unknown,
  rc: IncomingRequestContext,
): Promise<Record<string, unknown>> {
  const waiting = typeof taskId === "string" ? tasks.resultWaits.add(taskId, session, rc.id) : undefined;
  let task: TaskRecord;
  try {
    task = await tasks.settled(taskId, owner, rc.signal);
  } finally {
    waiting?.();
  }
  if (task.status === "completed" && task.result) return withRelatedTask(task.result, task.taskId);
  if (task.status === "failed" && task.error)
    throw new McpError(task.error.code, task.error.message, task.error.data);
  throw new McpError(ErrorCode.InvalidRequest, "The task was cancelled: it has no result", {
    taskId: task.taskId,
    status: task.status,
  });
}

async function list(tasks: ServerTasks, owner: string, cursor: unknown): Promise<Record<string, unknown>> {
  const page = await tasks.ask(() =>
    tasks.store.list(owner, { cursor: typeof cursor === "string" ? cursor : undefined }),
  );
  return {
    tasks: page.tasks.map(coreTask),
    ...(page.nextCursor === undefined ? {} : { nextCursor: page.nextCursor }),
  };
}

async function cancel(tasks: ServerTasks, owner: string, taskId: unknown): Promise<Record<string, unknown>> {
  if (typeof taskId !== "string") throw notFound();
  const outcome = await tasks.cancel(taskId, owner);
  if (outcome.ok) return coreTask(outcome.task);
  if (outcome.reason === "terminal")
    throw new McpError(
      ErrorCode.InvalidParams,
      `Cannot cancel the task: it is already ${outcome.task.status}`,
      { taskId, status: outcome.task.status },
    );
  throw notFound();
}
