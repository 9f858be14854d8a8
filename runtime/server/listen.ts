/**
 * `subscriptions/listen` (stateless lifecycle): a client opens a long-lived request naming the change
 * notifications it wants; the server acknowledges the subset it will send, then delivers only those,
 * each tagged with the listen request's id in `_meta`. The request stays open until the client cancels
 * it (HTTP: closes the stream) or the server shuts down (a final result).
 */

import type { IncomingRequestContext } from "../jsonrpc/connection.js";
import type { RequestId } from "../jsonrpc/messages.js";
import type { Capabilities } from "../mcp/capabilities.js";
import type { MethodTypes } from "../mcp/handler-context.js";
import { META, RESULT_TYPE, readRequestMeta } from "../mcp/request-meta.js";
import type { SubscriptionFilter } from "../mcp/subscriptions.js";
import { TASK_STATUS_NOTIFICATION } from "../mcp/tasks.js";
import type { ServerSession } from "./session.js";
import { listenedTaskIds, watchListenedTasks } from "./task-listen.js";

/** Filter flag → the notification it opts into, and the server capability that offers it. */
const FLAGS = [
  ["toolsListChanged", "notifications/tools/list_changed", ["tools", "listChanged"]],
  ["promptsListChanged", "notifications/prompts/list_changed", ["prompts", "listChanged"]],
  ["resourcesListChanged", "notifications/resources/list_changed", ["resources", "listChanged"]],
] as const;
const RESOURCE_UPDATED = "notifications/resources/updated";

const declared = (caps: Capabilities, [area, flag]: readonly [string, string]): boolean =>
  (caps[area] as Record<string, unknown> | undefined)?.[flag] === true;

/** The part of `requested` this server will honour, given its capabilities. */
export function agreedFilter(requested: SubscriptionFilter, caps: Capabilities): SubscriptionFilter {
  const agreed: SubscriptionFilter = {};
  for (const [flag, , cap] of FLAGS) if (requested[flag] === true && declared(caps, cap)) agreed[flag] = true;
  if (requested.resourceSubscriptions?.length && declared(caps, ["resources", "subscribe"]))
    agreed.resourceSubscriptions = [...requested.resourceSubscriptions];
  return agreed;
}

export interface Listener {
  id: RequestId;
  filter: SubscriptionFilter;
  send(method: string, params: Record<string, unknown>): Promise<void>;
  /** Ends the subscription from the server's side (shutdown): the listen request gets its result. */
  end(): void;
}

/** The open `subscriptions/listen` requests of a server. */
export class Listeners {
  private readonly listeners = new Set<Listener>();

  add(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get size(): number {
    return this.listeners.size;
  }

  /** Sends `method` to every listener whose filter asked for it, tagged with its subscription id. */
  async deliver(method: string, params: Record<string, unknown> | undefined): Promise<void> {
    const sends: Promise<void>[] = [];
    for (const l of this.listeners) {
      if (!wants(l.filter, method, params)) continue;
      const meta = { ...(params?._meta as Record<string, unknown> | undefined), [META.subscriptionId]: l.id };
      sends.push(l.send(method, { ...params, _meta: meta }).catch(() => {}));
    }
    await Promise.all(sends);
  }

  endAll(): void {
    for (const l of [...this.listeners]) l.end();
    this.listeners.clear();
  }
}

function wants(
  filter: SubscriptionFilter,
  method: string,
  params: Record<string, unknown> | undefined,
): boolean {
  if (method === RESOURCE_UPDATED) {
    const uri = params?.uri;
    return typeof uri === "string" && (filter.resourceSubscriptions?.includes(uri) ?? false);
  }
  return FLAGS.some(([flag, notification]) => notification === method && filter[flag] === true);
}

/**
 * `subscriptions/listen`: acknowledge the agreed filter first, then deliver matching notifications on
 * this request's stream until the client cancels it or the server closes (which answers it).
 */
export async function serveListen(
  session: ServerSession<MethodTypes, MethodTypes>,
  params: Record<string, unknown>,
  rc: IncomingRequestContext,
): Promise<Record<string, unknown>> {
  const requested = (params.notifications ?? {}) as SubscriptionFilter;
  const filter = agreedFilter(requested, session.server.capabilities);
  const tag = { [META.subscriptionId]: rc.id };
  // The tasks extension: the caller's tasks it names, as they change on any instance.
  const tasks = session.server.tasks;
  const taskIds = tasks ? listenedTaskIds(requested.taskIds, readRequestMeta(params)) : [];
  if (taskIds.length > 0) filter.taskIds = taskIds;
  const unwatch =
    tasks && taskIds.length > 0
      ? await watchListenedTasks(tasks, taskIds, rc, (task) =>
          session.connection.notify(TASK_STATUS_NOTIFICATION, { ...task, _meta: tag }, rc.id),
        )
      : undefined;
  await session.connection.notify(
    "notifications/subscriptions/acknowledged",
    { _meta: tag, notifications: filter },
    rc.id,
  );
  return new Promise((resolve) => {
    const remove = session.server.listeners.add({
      id: rc.id,
      filter,
      send: (method, p) => session.connection.notify(method, p, rc.id),
      end: () => {
        remove();
        unwatch?.();
        resolve({ resultType: RESULT_TYPE.complete, _meta: { ...session.server.resultMeta, ...tag } });
      },
    });
    rc.signal.addEventListener(
      "abort",
      () => {
        remove();
        unwatch?.();
      },
      { once: true },
    );
  });
}
