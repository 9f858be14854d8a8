/** Node timers have unref(); elsewhere a timer does not hold the runtime open anyway. */
export function unref(timer: unknown): void {
  (timer as { unref?: () => void } | undefined)?.unref?.();
}
