/** A handler's context: what `ctx` is for a request handler on the server, in either era. */

import type { IncomingRequestContext, RequestOptions } from "../jsonrpc/connection.js";
import { ErrorCode, McpError, type RequestId } from "../jsonrpc/messages.js";
import { assertValid } from "../mcp/check-errors.js";
import type { HandlerContext, InputOptions, MethodTypes, SessionInfo } from "../mcp/handler-context.js";
import { INPUT_PENDING, type Round } from "../mcp/input-rounds.js";
import type { LogLevel } from "../mcp/logging.js";
import type { RequestMeta } from "../mcp/request-meta.js";
import { entryOf, type ProtocolTables, RUNTIME_METHODS } from "../mcp/tables.js";
import { clientRunsAsTask, requestAsClientTask } from "./client-task-request.js";
import type { ServerSession } from "./session.js";

/** What a stateless-era request brings to its handler's context. */
export interface StatelessRequest {
  meta: RequestMeta;
  tables: ProtocolTables;
  round: Round | undefined;
}

/**
 * A handler's context. A class rather than an object literal of closures: one allocation per request,
 * methods shared on the prototype, the progress function made only when a handler asks for it. The
 * input helpers (`elicit`, `createMessage`, `listRoots`: one per server→client request in the tables)
 * are added to the prototype by name from the tables.
 */
export class RequestContext<Out extends MethodTypes, OutNotes extends MethodTypes>
  implements HandlerContext<Out, OutNotes>
{
  progressSent = false;
  #progress: HandlerContext<Out, OutNotes>["progress"];

  constructor(
    private readonly owner: ServerSession<Out, OutNotes>,
    private readonly rc: IncomingRequestContext,
    readonly session: SessionInfo,
    private readonly stateless: StatelessRequest | undefined,
  ) {}

  get round(): Round | undefined {
    return this.stateless?.round;
  }

  get signal(): AbortSignal {
    return this.rc.signal;
  }

  get requestId(): RequestId {
    return this.rc.id;
  }

  /** @internal The session serving this request (the server keys its resource subscriptions by it). */
  get serverSession(): ServerSession<Out, OutNotes> {
    return this.owner;
  }

  /** @internal The transport serving this request, for transport-level helpers such as `closeSseStream`. */
  get transport(): unknown {
    return this.owner.transport;
  }

  get auth(): unknown {
    return this.rc.extra?.auth;
  }

  get progress(): HandlerContext<Out, OutNotes>["progress"] {
    const token = this.rc.progressToken;
    if (token === undefined) return undefined;
    this.#progress ??= (progress: number, total?: number, message?: string) => {
      this.progressSent = true;
      return this.owner.connection.progress(
        token,
        {
          progress,
          ...(total === undefined ? {} : { total }),
          ...(message === undefined ? {} : { message }),
        },
        this.rc.id,
      );
    };
    return this.#progress;
  }

  /** The status message of the task the request runs as; outside a task it goes nowhere. */
  status(_message: string): Promise<void> {
    return Promise.resolve();
  }

  log(level: LogLevel, data: unknown, logger?: string): Promise<void> {
    if (this.stateless) {
      // Stateless era: only when this request asked for logs, at its own level.
      const minimum = this.stateless.meta.logLevel as LogLevel | undefined;
      return this.owner.log(level, data, logger, this.rc.id, minimum);
    }
    return this.owner.log(level, data, logger, this.rc.id);
  }

  request<M extends keyof Out & string>(
    method: M,
    params: Out[M]["params"],
    options?: RequestOptions,
  ): Promise<NonNullable<Out[M]["result"]>> {
    return this.owner.request(method, params, { relatedRequestId: this.rc.id, ...options });
  }

  notify<M extends keyof OutNotes & string>(method: M, params: OutNotes[M]["params"]): Promise<void> {
    return this.owner.notify(method, params, this.rc.id);
  }

  /**
   * Input from the client, one API in both eras: a server→client request in the handshake era; in the
   * stateless era the answer replayed from an earlier round, or a question for this round's
   * InputRequiredResult (the handler then ends, and runs again when the client retries).
   */
  input(method: string, handlerName: string, params: unknown, options?: InputOptions): Promise<unknown> {
    if (!this.stateless) {
      try {
        if (options?.task && clientRunsAsTask(method, this.session.clientCapabilities))
          return requestAsClientTask(
            this.owner as unknown as ServerSession<MethodTypes, MethodTypes>,
            method,
            params,
            options.task,
            this.signal,
            this.rc.id,
          );
      } catch (error) {
        return Promise.reject(error);
      }
      return this.owner.requestInput(method, params, this.rc.id);
    }
    const round = this.stateless.round;
    if (!round) {
      return Promise.reject(
        new McpError(ErrorCode.InternalError, `${method}: this request cannot ask the client for input`),
      );
    }
    const key = round.keyFor(handlerName, options?.key);
    if (key in round.answers) {
      try {
        const answer = checkInputResponse(this.stateless.tables, method, key, round.answers[key]);
        round.consumed[key] = answer;
        return Promise.resolve(answer);
      } catch (error) {
        return Promise.reject(error);
      }
    }
    round.pending.set(key, { method, ...(params === undefined ? {} : { params }) });
    const pending = Promise.reject(INPUT_PENDING);
    pending.catch(() => {});
    return pending;
  }
}

/** The input helpers of a context, named after the handlers of the server→client requests. */
export function addInputHelpers(tables: readonly ProtocolTables[]): void {
  const proto = RequestContext.prototype as unknown as Record<string, unknown>;
  for (const t of tables) {
    for (const entry of Object.values(t.serverRequests)) {
      if (entry.handler in proto || RUNTIME_METHODS.has(entry.method)) continue;
      proto[entry.handler] = function (
        this: RequestContext<MethodTypes, MethodTypes>,
        params: unknown,
        options?: InputOptions,
      ) {
        return this.input(entry.method, entry.handler, params, options);
      };
    }
  }
}

/** A retry's answer to an input request, checked against the request's result schema (-32602). */
export function checkInputResponse(
  tables: ProtocolTables,
  method: string,
  key: string,
  answer: unknown,
): unknown {
  const entry = entryOf(tables.serverRequests, method);
  if (!entry) return answer;
  const message = `Invalid params: inputResponses.${key} is not a ${method} result`;
  assertValid(entry.result, answer, ErrorCode.InvalidParams, message);
  return answer;
}
