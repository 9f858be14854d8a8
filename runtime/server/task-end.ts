/**
 * How a tool call run as a task ends, in either era: its result completes the task (an `isError` result
 * too: the wire of each era shows it as it says), a tool's throw is an `isError` result as for a plain
 * call, a protocol error (McpError) fails it, and a result that breaks the schema fails it as the
 * server's fault.
 */

import type { IncomingRequestContext } from "../jsonrpc/connection.js";
import { ErrorCode } from "../jsonrpc/messages.js";
import { invalid } from "../mcp/check-errors.js";
import type { MethodTypes } from "../mcp/handler-context.js";
import { INPUT_PENDING, isInputRequired } from "../mcp/input-rounds.js";
import type { RequestEntry } from "../mcp/tables.js";
import { type TaskEnd, taskErrorOf } from "../mcp/task-store.js";
import type { ServerSession } from "./session.js";

/** What a handler did: returned a value or threw. */
export type HandlerOutcome = { readonly value: unknown } | { readonly error: unknown };

/** Runs `run` and says how it went, a synchronous throw included; never rejects. */
export async function outcomeOf(run: () => unknown): Promise<HandlerOutcome> {
  try {
    return { value: await run() };
  } catch (error) {
    return { error };
  }
}

export function toolTaskEnd(
  session: ServerSession<MethodTypes, MethodTypes>,
  entry: RequestEntry,
  outcome: HandlerOutcome,
  rc: IncomingRequestContext,
  /** Members the era's result carries that the runtime fills in (`resultType` from 2026-07-28). */
  filled?: Readonly<Record<string, unknown>>,
): TaskEnd {
  const { server } = session;
  let result: unknown;
  if ("error" in outcome) {
    if (outcome.error === INPUT_PENDING)
      return failed(server.fault(`${entry.method}: input requested where the task cannot ask for it`));
    try {
      // Tool errors become an isError result, protocol errors (McpError) are thrown on.
      result = session.handlerError(entry, outcome.error, rc);
    } catch (thrown) {
      return failed(thrown);
    }
  } else result = outcome.value;
  if (filled && typeof result === "object" && result !== null) result = { ...filled, ...result };
  if (isInputRequired(result))
    return failed(server.fault(`the ${entry.method} handler returned an InputRequiredResult inside a task`));
  if (server.validateResults) {
    const message = `the ${entry.method} handler returned an invalid result`;
    const error = invalid(entry.result, result, ErrorCode.InternalError, message);
    if (error) {
      server.reportError(error);
      return failed(error);
    }
  }
  return { status: "completed", result: result as Record<string, unknown> };
}

const failed = (error: unknown): TaskEnd => ({ status: "failed", error: taskErrorOf(error) });
