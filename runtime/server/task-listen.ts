/**
 * `notifications/tasks` on `subscriptions/listen` streams (the tasks extension): a listen request whose
 * filter names `taskIds` (and that declared the extension) gets the DetailedTask of each of those tasks,
 * of its own owner, whenever it changes on any instance (through the task's bus channel).
 */

import type { IncomingRequestContext } from "../jsonrpc/connection.js";
import type { RequestMeta } from "../mcp/request-meta.js";
import { detailedTask } from "../mcp/task-wire.js";
import type { ServerTasks } from "./server-tasks.js";
import { watchTask } from "./task-channel.js";
import { declaresTasks, needsExtension } from "./tasks-extension.js";

const MAX_WATCHED = 100;

/** The task ids a listen filter asks for, checked; none when it names none. */
export function listenedTaskIds(requested: unknown, meta: RequestMeta): string[] {
  if (!Array.isArray(requested) || requested.length === 0) return [];
  if (!declaresTasks(meta)) throw needsExtension();
  return [...new Set(requested.filter((id): id is string => typeof id === "string"))].slice(0, MAX_WATCHED);
}

/** Sends each change of the caller's tasks among `taskIds`; resolves to what stops it. */
export async function watchListenedTasks(
  tasks: ServerTasks,
  taskIds: readonly string[],
  rc: IncomingRequestContext,
  send: (params: Record<string, unknown>) => Promise<void>,
): Promise<() => void> {
  const owner = tasks.ownerOf(rc, undefined);
  const stops = await Promise.all(
    taskIds.map((id) =>
      watchTask(tasks.bus, id, (task) => {
        if (task.owner === owner) send(detailedTask(task)).catch(() => {});
      }),
    ),
  );
  return () => {
    for (const stop of stops) stop();
  };
}
