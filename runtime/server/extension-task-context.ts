/**
 * A handler's context for a 2026-07-28 `tools/call` that runs (or may come to run) as a task of the
 * tasks extension. Until `promote`, it is the request's context (input asked for is an input round);
 * after, the task's: `signal` aborts on the task's cancel, lost lease or the server closing, not on the
 * answered request; `status(message)` and progress (which the extension does not send for tasks) set the
 * task's status message; input asked for is put on the task (input_required with `inputRequests`, shown
 * by `tasks/get`) and its answer, given with `tasks/update` on any instance, resolves the handler's await.
 */

import type { IncomingRequestContext } from "../jsonrpc/connection.js";
import { ErrorCode, McpError } from "../jsonrpc/messages.js";
import type { HandlerContext, InputOptions, MethodTypes, SessionInfo } from "../mcp/handler-context.js";
import type { LogLevel } from "../mcp/logging.js";
import { isTerminal, type TaskRecord } from "../mcp/task-store.js";
import { checkInputResponse, RequestContext, type StatelessRequest } from "./request-context.js";
import type { ServerSession } from "./session.js";
import type { RunningTask } from "./task-runner.js";

export class ExtensionTaskContext<
  Out extends MethodTypes,
  OutNotes extends MethodTypes,
> extends RequestContext<Out, OutNotes> {
  readonly #controller: AbortController;
  readonly #stateless: StatelessRequest;
  readonly #unlink: () => void;
  #task: RunningTask | undefined;
  #asked = 0;

  constructor(
    session: ServerSession<Out, OutNotes>,
    rc: IncomingRequestContext,
    info: SessionInfo,
    stateless: StatelessRequest,
  ) {
    const controller = new AbortController();
    super(session, { ...rc, signal: controller.signal }, info, stateless);
    this.#controller = controller;
    this.#stateless = stateless;
    // Until it is a task, the request's end (a cancel, the connection closing) aborts the handler.
    const abort = () => controller.abort(rc.signal.reason);
    if (rc.signal.aborted) abort();
    else rc.signal.addEventListener("abort", abort, { once: true });
    this.#unlink = () => rc.signal.removeEventListener("abort", abort);
  }

  /** From now on the handler runs as `task`: detached from the request, which is answered. */
  promote(task: RunningTask): void {
    this.#unlink();
    this.#task = task;
    const abort = () => this.#controller.abort(task.signal.reason);
    if (task.signal.aborted) abort();
    else task.signal.addEventListener("abort", abort, { once: true });
  }

  override status(message: string): Promise<void> {
    return this.#task
      ? this.#task.update({ statusMessage: message }).then(() => undefined)
      : Promise.resolve();
  }

  override get progress(): HandlerContext<Out, OutNotes>["progress"] {
    const request = super.progress;
    if (!request && this.#task === undefined) return undefined;
    return (progress: number, total?: number, message?: string) => {
      if (this.#task === undefined) return request ? request(progress, total, message) : Promise.resolve();
      const text = message ?? (total === undefined ? String(progress) : `${progress}/${total}`);
      return this.status(text);
    };
  }

  /** A task has no stream for log messages: they go nowhere once the request is answered. */
  override log(level: LogLevel, data: unknown, logger?: string): Promise<void> {
    return this.#task ? Promise.resolve() : super.log(level, data, logger);
  }

  override input(
    method: string,
    handlerName: string,
    params: unknown,
    options?: InputOptions,
  ): Promise<unknown> {
    if (!this.#task) return super.input(method, handlerName, params, options);
    return this.#taskInput(this.#task, method, options?.key ?? `${handlerName}-${++this.#asked}`, params);
  }

  async #taskInput(task: RunningTask, method: string, key: string, params: unknown): Promise<unknown> {
    const request = { method, ...(params === undefined ? {} : { params }) };
    let seen: TaskRecord | undefined = await task.update({
      status: "input_required",
      inputRequests: { [key]: request },
    });
    for (;;) {
      if (seen === undefined || isTerminal(seen.status) || task.signal.aborted)
        throw new McpError(ErrorCode.InternalError, "the task ended while it waited for input");
      const responses = seen.inputResponses;
      if (responses && Object.hasOwn(responses, key))
        return checkInputResponse(this.#stateless.tables, method, key, responses[key]);
      seen = await nextOrAbort(task);
    }
  }
}

/** The task's next record, or undefined once its signal aborts. */
function nextOrAbort(task: RunningTask): Promise<TaskRecord | undefined> {
  if (task.signal.aborted) return Promise.resolve(undefined);
  return new Promise((resolve) => {
    const aborted = () => resolve(undefined);
    task.signal.addEventListener("abort", aborted, { once: true });
    task.nextChange().then((record) => {
      task.signal.removeEventListener("abort", aborted);
      resolve(record);
    });
  });
}
