/** Progress and messages. Plain lines (stderr) unless quiet; data goes to stdout elsewhere. */

export interface Step {
  done(message: string): void;
}

export interface Reporter {
  /** Starts a timed step; its `done` line reports the duration. */
  step(message: string): Step;
  info(message: string): void;
  error(message: string): void;
}

export function createReporter(opts: { quiet?: boolean } = {}): Reporter {
  const write = (line: string) => {
    if (!opts.quiet) process.stderr.write(`${line}\n`);
  };
  return {
    step: () => {
      const started = performance.now();
      return { done: (m) => write(`✓ ${m} [${Math.round(performance.now() - started)} ms]`) };
    },
    info: write,
    error: (message) => process.stderr.write(`error: ${message}\n`),
  };
}
