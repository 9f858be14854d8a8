/** Graceful shutdown on SIGTERM and SIGINT, the way deployments stop a process. */

export interface ShutdownOptions {
  /** Default SIGTERM and SIGINT. */
  signals?: readonly NodeJS.Signals[];
  /** Called with what close() threw, before the process exits 1 (default: printed to stderr). */
  onError?: (error: unknown) => void;
}

/**
 * On the first signal, runs `close` (a server's or `serveHttp` handle's: it drains what is in flight)
 * and exits 0 once it settles (1 if it threw); a second signal exits at once (128 + signal number).
 * Returns a function that removes the listeners.
 */
export function shutdownOnSignals(close: () => Promise<unknown>, options: ShutdownOptions = {}): () => void {
  const signals = options.signals ?? ["SIGTERM", "SIGINT"];
  let closing = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (closing) process.exit(128 + (SIGNAL_NUMBERS[signal] ?? 15));
    closing = true;
    close().then(
      () => process.exit(0),
      (error: unknown) => {
        if (options.onError) options.onError(error);
        else
          process.stderr.write(
            `shutdown failed: ${error instanceof Error ? error.message : String(error)}\n`,
          );
        process.exit(1);
      },
    );
  };
  for (const signal of signals) process.on(signal, onSignal);
  return () => {
    for (const signal of signals) process.off(signal, onSignal);
  };
}

const SIGNAL_NUMBERS: Readonly<Partial<Record<NodeJS.Signals, number>>> = Object.freeze({
  SIGHUP: 1,
  SIGINT: 2,
  SIGTERM: 15,
});
