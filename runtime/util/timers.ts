/** Node timers have unref(); elsewhere a timer does not hold the runtime open anyway. */
export function unref(timer: unknown): void {
  (timer as { unref?: () => void } | undefined)?.unref?.();
}

/** How a `wait` may end early, and whether it holds the process open. */
export interface WaitOptions {
  /** Handed the function that ends the wait early (no sooner than `minMs` after it began). */
  readonly onWake?: (wake: () => void) => void;
  readonly minMs?: number;
  /** The wait does not keep a Node process alive by itself. */
  readonly unref?: boolean;
}

/**
 * Resolves after `ms`, or early once woken (`onWake`); rejects with `signal.reason` once `signal` aborts.
 * A poll's pause between two asks.
 */
export function wait(ms: number, signal?: AbortSignal, options: WaitOptions = {}): Promise<void> {
  const { onWake, minMs = 0 } = options;
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const started = Date.now();
    const arm = (delay: number) => {
      const t = setTimeout(done, delay);
      if (options.unref) unref(t);
      return t;
    };
    const settle = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      onWake?.(() => {});
    };
    const done = () => {
      settle();
      resolve();
    };
    const onAbort = () => {
      settle();
      reject(signal!.reason);
    };
    let timer = arm(ms);
    onWake?.(() => {
      clearTimeout(timer);
      timer = arm(Math.max(0, minMs - (Date.now() - started)));
    });
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
