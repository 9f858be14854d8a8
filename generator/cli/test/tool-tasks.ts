/**
 * A task tool under `mcp-codegen test` (its contract's `execution.taskSupport` is optional or required):
 * called as a task with valid arguments, the task is created, polled to its end and its result held to
 * the contract as a plain call's is; called again, the task is cancelled, and the server must then
 * report it cancelled (a task that ended before the cancel reached it is said so, not failed: the tool
 * was quicker than the cancellation).
 */

import { ErrorCode } from "@mcp-codegen/runtime";
import type { ToolTask } from "@mcp-codegen/runtime/client";
import type { CheckFn } from "../../contract/checks.js";
import type { ServerSession } from "./session.js";
import { answerProblem, describeOutcome, show } from "./verdicts.js";

export interface TaskChecks {
  /** What was seen, for the tool's summary: `as a task: completed, cancelled`. */
  summary: string;
  problems: string[];
}

export async function testToolTasks(
  session: ServerSession,
  tool: string,
  args: Record<string, unknown>,
  output: CheckFn | undefined,
  timeoutMs: number | undefined,
): Promise<TaskChecks> {
  const problems: string[] = [];
  const seen: string[] = [];
  const shown = `    arguments: ${show(args)}`;
  const fail = (what: string) => problems.push(`  as a task: ${what}`, shown);

  const start = async (): Promise<ToolTask | undefined> => {
    const started = await session.startToolTask(tool, args, timeoutMs);
    if (started.kind === "task") return started.task;
    fail(
      `tools/call with params.task created no task: ${started.kind === "result" ? `answered ${show(started.result)}` : describeOutcome(started)}`,
    );
    return undefined;
  };
  const statusOf = async (task: ToolTask): Promise<string | undefined> => {
    const got = await session.taskStatus(task, timeoutMs);
    if (got.kind === "result") return String(got.result.status);
    fail(`tasks/get ${task.taskId}: ${describeOutcome(got)}`);
    return undefined;
  };

  const first = await start();
  if (first) {
    const outcome = await session.taskResult(first, timeoutMs);
    const problem = answerProblem(outcome, output);
    if (problem !== undefined) fail(`polled to its end, then: ${problem}`);
    else {
      const status = await statusOf(first);
      if (status === "completed" || status === "failed") seen.push(status);
      else if (status !== undefined) fail(`tasks/result answered, but tasks/get says ${status}`);
    }
  }

  const second = await start();
  if (second) {
    const cancelled = await session.taskCancel(second, timeoutMs);
    if (cancelled.kind === "result" && cancelled.result.status !== "cancelled")
      fail(`tasks/cancel answered the task ${show(cancelled.result.status)}, not cancelled`);
    else if (cancelled.kind === "result") {
      const status = await statusOf(second);
      if (status === "cancelled") seen.push("cancelled");
      else if (status !== undefined) fail(`cancelled, but tasks/get then says ${status}`);
    } else if (cancelled.kind === "error" && cancelled.code === ErrorCode.InvalidParams) {
      // Refused: the task must have ended already (terminal tasks cannot be cancelled).
      const status = await statusOf(second);
      if (status === "completed" || status === "failed") seen.push(`${status} before the cancel reached it`);
      else if (status !== undefined)
        fail(`tasks/cancel refused (${cancelled.message}) a task that is ${status}`);
    } else fail(`tasks/cancel ${second.taskId}: ${describeOutcome(cancelled)}`);
  }
  return { summary: seen.length ? `as a task: ${seen.join(", ")}` : "", problems };
}
