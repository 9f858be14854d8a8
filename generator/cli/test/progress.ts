/**
 * The progress line of `mcp-codegen test` on a terminal: items done, the items under test with their
 * calls so far, the time taken; redrawn in place on stderr, cleared before each report line is printed.
 * Off a terminal (piped, CI) it writes nothing: the report lines are the whole output.
 */

import { terminal } from "../report.js";

export interface Progress {
  started(label: string): void;
  call(label: string): void;
  finished(label: string): void;
  /** Prints report lines (stdout) with the line out of their way. */
  print(lines: string[]): void;
  stop(): void;
}

export function progressLine(total: number, stream: NodeJS.WriteStream = process.stderr): Progress {
  const print = (lines: string[]) => {
    for (const line of lines) process.stdout.write(`${terminal(line)}\n`);
  };
  if (stream.isTTY !== true || process.env.CI)
    return { started() {}, call() {}, finished() {}, print, stop() {} };
  const begun = performance.now();
  const running = new Map<string, number>();
  let done = 0;
  let drawn = false;
  const draw = () => {
    const items = [...running].map(([label, calls]) => `${label} (${calls} calls)`).join(", ");
    const seconds = Math.round((performance.now() - begun) / 1000);
    const text = terminal(`testing ${done}/${total} done${items ? ` · ${items}` : ""} · ${seconds} s`);
    // A terminal that does not say its width (0) is taken as 80 columns.
    const width = stream.columns || 80;
    stream.write(`\r\x1b[K${text.length > width - 1 ? `${text.slice(0, width - 2)}…` : text}`);
    drawn = true;
  };
  const clear = () => {
    if (drawn) stream.write("\r\x1b[K");
    drawn = false;
  };
  let last = 0;
  const throttled = () => {
    const now = performance.now();
    if (now - last < 100) return;
    last = now;
    draw();
  };
  // Redrawn each second too: a slow call shows the time passing.
  const timer = setInterval(draw, 1000);
  timer.unref();
  return {
    started(label) {
      running.set(label, 0);
      throttled();
    },
    call(label) {
      running.set(label, (running.get(label) ?? 0) + 1);
      throttled();
    },
    finished(label) {
      running.delete(label);
      done++;
      draw();
    },
    print(lines) {
      clear();
      print(lines);
      draw();
    },
    stop() {
      clearInterval(timer);
      clear();
    },
  };
}
