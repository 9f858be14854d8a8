/**
 * A handler's context while its request runs as a task: the same `ctx` as a plain call, but `signal`
 * aborts on the task's cancel, lost lease or the server closing; `status(message)` is the task's status
 * message; progress outlives the request that created the task; input (2025-11-25) is asked of the
 * client as a request tied to the task, the task input_required meanwhile.
 */

import type { IncomingRequestContext, RequestOptions } from "../jsonrpc/connection.js";
import type { RequestId } from "../jsonrpc/messages.js";
import type { HandlerContext, InputOptions, MethodTypes, SessionInfo } from "../mcp/handler-context.js";
import type { LogLevel } from "../mcp/logging.js";
import { withRelatedTask } from "../mcp/task-wire.js";
import { clientRunsAsTask, requestAsClientTask } from "./client-task-request.js";
import { RequestContext } from "./request-context.js";
import type { ServerSession } from "./session.js";
import type { RunningTask } from "./task-runner.js";

export class TaskContext<Out extends MethodTypes, OutNotes extends MethodTypes> extends RequestContext<
  Out,
  OutNotes
> {
  readonly #session: ServerSession<Out, OutNotes>;
  readonly #token: IncomingRequestContext["progressToken"];
  #progress: HandlerContext<Out, OutNotes>["progress"];

  constructor(
    session: ServerSession<Out, OutNotes>,
    rc: IncomingRequestContext,
    info: SessionInfo,
    readonly task: RunningTask,
    /** A `tasks/result` request of this session waiting for the task (or soon): input goes on its stream. */
    private readonly resultRequest: (signal: AbortSignal) => Promise<RequestId | undefined> = async () =>
      undefined,
  ) {
    super(session, { ...rc, signal: task.signal }, info, undefined);
    this.#session = session;
    this.#token = rc.progressToken;
  }

  override status(message: string): Promise<void> {
    return this.task.update({ statusMessage: message }).then(() => undefined);
  }

  /**
   * The request's progress token stays valid for the task's life: progress goes to the client while
   * the session has a stream for it (no longer the creating request's, which was answered); a progress
   * that cannot be sent is dropped, never the task's failure.
   */
  override get progress(): HandlerContext<Out, OutNotes>["progress"] {
    const token = this.#token;
    if (token === undefined) return undefined;
    this.#progress ??= (progress: number, total?: number, message?: string) =>
      this.#session.connection
        .progress(token, {
          progress,
          ...(total === undefined ? {} : { total }),
          ...(message === undefined ? {} : { message }),
        })
        .catch(() => {});
    return this.#progress;
  }

  override log(level: LogLevel, data: unknown, logger?: string): Promise<void> {
    return this.#session.log(level, data, logger).catch(() => {});
  }

  /** Requests to the client tie themselves to the task, not to the answered request that created it. */
  override request<M extends keyof Out & string>(
    method: M,
    params: Out[M]["params"],
    options?: RequestOptions,
  ): Promise<NonNullable<Out[M]["result"]>> {
    const { relatedRequestId: _, ...rest } = options ?? {};
    return this.#session.request(method, withRelatedTask(params, this.task.taskId) as Out[M]["params"], {
      signal: this.task.signal,
      ...rest,
    });
  }

  override notify<M extends keyof OutNotes & string>(
    method: M,
    params: OutNotes[M]["params"],
  ): Promise<void> {
    return this.#session.notify(method, params);
  }

  /**
   * Input (elicitation, sampling) asked of the client while the task says input_required; with the
   * `task` option, as a task of the client's own when it runs such requests as tasks.
   */
  override async input(
    method: string,
    _handlerName: string,
    params: unknown,
    options?: InputOptions,
  ): Promise<unknown> {
    const asTask = options?.task && clientRunsAsTask(method, this.session.clientCapabilities);
    await this.task.update({ status: "input_required" });
    try {
      const relatedRequestId = await this.resultRequest(this.task.signal);
      this.task.signal.throwIfAborted();
      if (asTask && options?.task)
        return await requestAsClientTask(
          this.#session as unknown as ServerSession<MethodTypes, MethodTypes>,
          method,
          withRelatedTask(params, this.task.taskId),
          options.task,
          this.task.signal,
          relatedRequestId,
        );
      return await this.#session.request(
        method as keyof Out & string,
        withRelatedTask(params, this.task.taskId) as Out[keyof Out & string]["params"],
        { signal: this.task.signal, relatedRequestId },
      );
    } finally {
      await this.task.update({ status: "working" });
    }
  }
}
