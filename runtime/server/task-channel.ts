/**
 * A task's bus channel (`task:<id>`): every change of a task's record is published there, so that what
 * waits on the task hears of it on any instance sharing the bus: its runner (a cancel made elsewhere),
 * a `tasks/result` waiting for the end, status notifications. The store stays the truth: a listener that
 * misses a message learns the same on its next read.
 */

import { channels, type MessageBus } from "../mcp/message-bus.js";
import type { TaskRecord } from "../mcp/task-store.js";

/** Tells every instance that `task` changed; a bus that cannot take it is reported, not thrown. */
export async function publishTask(
  bus: MessageBus,
  task: TaskRecord,
  report: (error: unknown) => void,
): Promise<void> {
  try {
    await bus.publish(channels.task(task.taskId), task);
  } catch (error) {
    report(error);
  }
}

/** Calls `listener` with each record published for `taskId`; resolves to the function that stops it. */
export async function watchTask(
  bus: MessageBus,
  taskId: string,
  listener: (task: TaskRecord) => void,
): Promise<() => void> {
  return bus.subscribe(channels.task(taskId), (message) => {
    const task = message as TaskRecord | undefined;
    if (task?.taskId === taskId) listener(task);
  });
}
