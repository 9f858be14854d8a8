/** Keeping stray output out of a protocol spoken on process.stdout. */

/**
 * Points process.stdout.write at stderr, so that console.log from user code or a dependency cannot corrupt
 * the protocol stream. Returns the undo; it leaves alone a write that someone else replaced since.
 */
export function redirectStdoutToStderr(): () => void {
  const stdout = process.stdout;
  const original = stdout.write;
  const redirected = function (this: unknown, ...args: unknown[]): boolean {
    return Reflect.apply(process.stderr.write, process.stderr, args);
  } as typeof stdout.write;
  stdout.write = redirected;
  return () => {
    if (stdout.write === redirected) stdout.write = original;
  };
}
