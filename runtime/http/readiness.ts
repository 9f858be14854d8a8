/**
 * Readiness: whether an instance should be sent traffic. It is not while it drains (a load balancer stops
 * sending before the drain ends) nor while a store it needs says it cannot serve. A store's answer is
 * bounded in time: a store too slow to answer counts as unhealthy, and the probe never hangs.
 */

import type { Reply } from "./core.js";
import type { MaybePromise } from "./session-store.js";

/** Anything that may say it cannot serve now: the stores (SessionStore, EventStore, …) have it as an option. */
export interface HealthReporter {
  healthy?(): MaybePromise<boolean>;
}

/** How long a store may take to say whether it is healthy. */
export const DEFAULT_HEALTH_TIMEOUT_MS = 2000;

/** Whether every reporter that reports is healthy, within `timeoutMs`; one that throws is not. */
export async function allHealthy(
  reporters: readonly (HealthReporter | undefined)[],
  timeoutMs = DEFAULT_HEALTH_TIMEOUT_MS,
): Promise<boolean> {
  const answers: MaybePromise<boolean>[] = [];
  for (const reporter of reporters) {
    if (typeof reporter?.healthy !== "function") continue;
    try {
      const answer = reporter.healthy();
      if (answer === false) return false;
      if (answer instanceof Promise) answers.push(answer);
    } catch {
      return false;
    }
  }
  if (answers.length === 0) return true;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  try {
    const all = Promise.all(answers).then((values) => values.every((v) => v === true));
    return await Promise.race([all, late]);
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The probe's answer: 200 when ready, else 503 with Retry-After; never cached, no CORS headers (a probe
 * is not a browser's business).
 */
export function readinessReply(ready: boolean): Reply {
  return ready
    ? {
        status: 200,
        headers: { "content-type": "application/json", "cache-control": "no-store" },
        body: '{"status":"ready"}',
      }
    : {
        status: 503,
        headers: { "content-type": "application/json", "cache-control": "no-store", "retry-after": "5" },
        body: '{"status":"unready"}',
      };
}
