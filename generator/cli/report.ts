/**
 * Progress and messages, on stderr (stdout is for data). On a terminal a step shows a spinner until it is
 * done; under CI or when piped, plain lines only. `--quiet` leaves errors and notices only. Messages
 * carry servers' names and text: what would be a terminal control is printed as an escape (`terminal`).
 */

import { visible } from "../protocol/escape.js";

/** Text as the terminal gets it: lines kept, control characters, bidi overrides and the like shown escaped. */
export const terminal = (text: string): string => visible(text, { lines: true });

export interface Step {
  done(message: string): void;
}

export interface Reporter {
  /** Starts a timed step; its `done` line reports the duration. */
  step(message: string): Step;
  info(message: string): void;
  /** What the user must know even with --quiet: a file of theirs was backed up before being replaced. */
  notice(message: string): void;
  error(message: string): void;
}

const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

export function createReporter(opts: { quiet?: boolean; stream?: NodeJS.WriteStream } = {}): Reporter {
  const out = opts.stream ?? process.stderr;
  const interactive = !opts.quiet && out.isTTY === true && !process.env.CI;
  /** Steps whose spinner is drawn: a message printed meanwhile first clears the spinner's line. */
  let spinning = 0;
  const clear = () => {
    if (spinning > 0) out.write("\r\x1b[K");
  };
  const write = (line: string) => {
    if (opts.quiet) return;
    clear();
    out.write(`${terminal(line)}\n`);
  };
  return {
    step: (text) => {
      const message = terminal(text);
      const started = performance.now();
      let frame = 0;
      const timer = interactive
        ? setInterval(() => out.write(`\r${FRAMES[frame++ % FRAMES.length]} ${message}`), 80)
        : undefined;
      timer?.unref();
      if (interactive) {
        spinning++;
        out.write(`${FRAMES[0]} ${message}`);
      }
      return {
        done: (m) => {
          if (timer) {
            clearInterval(timer);
            out.write("\r\x1b[K");
            spinning--;
          }
          write(`✓ ${m} [${Math.round(performance.now() - started)} ms]`);
        },
      };
    },
    info: write,
    notice: (message) => {
      clear();
      out.write(`${terminal(message)}\n`);
    },
    error: (message) => {
      clear();
      out.write(`error: ${terminal(message)}\n`);
    },
  };
}
