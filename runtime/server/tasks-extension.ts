/**
 * The tasks extension of the stateless era (`io.modelcontextprotocol/tasks`, SEP-2663, 2026-07-28 on),
 * implemented by the runtime as it implements `subscriptions/listen`: negotiated per request (the
 * extension in the request's `_meta` client capabilities), the server alone deciding that a `tools/call`
 * of a task-capable tool runs as a task (answered with a flat CreateTaskResult, `resultType: "task"`),
 * `tasks/get` → DetailedTask (input asked for, result or error inlined), `tasks/update` answering input,
 * `tasks/cancel` acknowledged (idempotent on a terminal task). A `required` tool called without the
 * extension, and `tasks/*` without it: -32021 naming the extension. No `requestState` on the task wire.
 */

import type { IncomingRequestContext } from "../jsonrpc/connection.js";
import { ErrorCode, isObject, McpError } from "../jsonrpc/messages.js";
import type { AnyHandler, MethodTypes, SessionInfo } from "../mcp/handler-context.js";
import { isInputRequired } from "../mcp/input-rounds.js";
import { missingCapability, RESULT_TYPE, type RequestMeta } from "../mcp/request-meta.js";
import type { RequestEntry } from "../mcp/tables.js";
import type { TaskRecord } from "../mcp/task-store.js";
import { detailedTask, extensionTask } from "../mcp/task-wire.js";
import { EXTENSION_TASK_METHODS, TASKS_EXTENSION } from "../mcp/tasks.js";
import { ExtensionTaskContext } from "./extension-task-context.js";
import type { StatelessRequest } from "./request-context.js";
import { notFound, type ServerTasks } from "./server-tasks.js";
import type { ServerSession } from "./session.js";
import { type HandlerOutcome, outcomeOf, toolTaskEnd } from "./task-end.js";

type AnySession = ServerSession<MethodTypes, MethodTypes>;

export const isExtensionMethod = (method: string): boolean => EXTENSION_TASK_METHODS.has(method);

/** Whether the request declared the tasks extension in its `_meta` client capabilities. */
export function declaresTasks(meta: RequestMeta): boolean {
  const extensions = (meta.clientCapabilities as { extensions?: unknown }).extensions;
  return isObject(extensions) && isObject(extensions[TASKS_EXTENSION]);
}

/** -32021 naming the extension, for a request that needs it and did not declare it. */
export const needsExtension = (): McpError =>
  missingCapability(
    { extensions: { [TASKS_EXTENSION]: {} } },
    `extensions["${TASKS_EXTENSION}"] (the tasks extension)`,
  );

/** `tasks/get`, `tasks/update`, `tasks/cancel`, after the stateless checks of `_meta` and version. */
export async function serveExtensionMethod(
  tasks: ServerTasks,
  session: AnySession,
  method: string,
  params: unknown,
  meta: RequestMeta,
  rc: IncomingRequestContext,
): Promise<Record<string, unknown>> {
  if (!declaresTasks(meta)) throw needsExtension();
  const p = (isObject(params) ? params : {}) as Record<string, unknown>;
  const taskId = p.taskId;
  if (typeof taskId !== "string")
    throw new McpError(ErrorCode.InvalidParams, "Invalid params: taskId must be a string");
  const owner = tasks.ownerOf(rc, undefined);
  const complete = (result: Record<string, unknown> = {}) => ({
    ...result,
    resultType: RESULT_TYPE.complete,
    _meta: session.server.resultMeta,
  });
  if (method === "tasks/get") return complete(detailedTask(await tasks.get(taskId, owner)));
  const outcome =
    method === "tasks/cancel"
      ? await tasks.cancel(taskId, owner)
      : await tasks.respond(taskId, owner, inputResponsesOf(p));
  // A terminal task: cancelling or answering it again changes nothing, and is acknowledged the same.
  if (!outcome.ok && outcome.reason !== "terminal") throw notFound();
  return complete();
}

function inputResponsesOf(params: Record<string, unknown>): Readonly<Record<string, unknown>> {
  const responses = params.inputResponses;
  if (!isObject(responses))
    throw new McpError(ErrorCode.InvalidParams, "Invalid params: inputResponses must be an object");
  return responses;
}

/**
 * Whether a stateless `tools/call` runs as a task: the tool allows it and the request declared the
 * extension. A `required` tool without the extension is -32021.
 */
export function callsAsTask(tasks: ServerTasks, params: Record<string, unknown>, meta: RequestMeta): boolean {
  const support = tasks.support(params.name);
  if (support === "forbidden") return false;
  const declared = declaresTasks(meta);
  if (support === "required" && !declared) throw needsExtension();
  return declared;
}

/** What answers the round: the request's own answer (an input round, a quick result) or the task. */
export type SettleRound = (
  ctx: ExtensionTaskContext<MethodTypes, MethodTypes>,
  outcome: HandlerOutcome,
) => unknown;

/**
 * A `tools/call` as a task. Without a grace the task exists before the handler runs. With one, the
 * handler runs as a plain request first: input it asks for, or (optional tools) its result, within the
 * grace answer the request (`settle`); once the grace passes it goes on as a task.
 */
export async function callAsTask(
  tasks: ServerTasks,
  session: AnySession,
  entry: RequestEntry,
  params: Record<string, unknown>,
  handler: AnyHandler,
  rc: IncomingRequestContext,
  info: SessionInfo,
  stateless: StatelessRequest,
  settle: SettleRound,
): Promise<unknown> {
  const ctx = new ExtensionTaskContext(session, rc, info, stateless);
  const taskRc = { ...rc, signal: ctx.signal };
  const owner = tasks.ownerOf(rc, undefined);
  const grace = tasks.graceMs(params.name);
  let running: Promise<HandlerOutcome> | undefined;
  if (grace > 0) {
    running = outcomeOf(() => handler(params, ctx));
    let timer: ReturnType<typeof setTimeout> | undefined;
    const first = await Promise.race([
      running,
      new Promise<undefined>((resolve) => {
        timer = setTimeout(() => resolve(undefined), grace);
      }),
    ]);
    clearTimeout(timer);
    if (first !== undefined) {
      const asks = (ctx.round?.pending.size ?? 0) > 0 || ("value" in first && isInputRequired(first.value));
      if (asks || tasks.support(params.name) === "optional") return settle(ctx, first);
    }
  }
  const created = await tasks.create(owner, entry.method, tasks.defaultTtlMs);
  const started = running;
  tasks.runner.start(created, async (task) => {
    ctx.promote(task);
    const outcome = await (started ?? outcomeOf(() => handler(params, ctx)));
    return toolTaskEnd(session, entry, outcome, taskRc, { resultType: RESULT_TYPE.complete });
  });
  return createTaskResult(session, created);
}

/** The flat CreateTaskResult: the task itself, `resultType: "task"`; never `requestState`. */
function createTaskResult(session: AnySession, task: TaskRecord): Record<string, unknown> {
  return { ...extensionTask(task), resultType: "task", _meta: session.server.resultMeta };
}
