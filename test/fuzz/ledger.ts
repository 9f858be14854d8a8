/**
 * What the fuzz campaign checks against its frames: every id owed is answered exactly once, with the
 * code its kind decides where it does; never -32603 (an internal error is a crash path); answers with
 * id null exactly as many as owed; no answer to anything else. Counts, not lists: 10^6 frames fit.
 */
import type { Frame } from "./frames.js";

export interface Answer {
  id?: unknown;
  result?: unknown;
  error?: { code?: unknown; message?: unknown };
}

export class Ledger {
  readonly owed = new Map<string, number | undefined>();
  readonly seen = new Map<string, number>();
  nullsOwed = 0;
  nullsSeen = 0;
  frames = 0;
  answers = 0;
  readonly problems: string[] = [];

  expect(frame: Frame): void {
    this.frames++;
    for (const id of frame.ids) this.owed.set(id, frame.codes[id]);
    this.nullsOwed += frame.nulls;
  }

  /** One answer the server sent. */
  record(answer: Answer, where = ""): void {
    this.answers++;
    const code = answer.error?.code;
    if (code === -32603) this.problem(`internal error ${where}: ${JSON.stringify(answer).slice(0, 300)}`);
    if (answer.id === null || answer.id === undefined) {
      this.nullsSeen++;
      return;
    }
    const id = String(answer.id);
    if (!this.owed.has(id)) {
      this.problem(`an answer nobody was owed ${where}: ${JSON.stringify(answer).slice(0, 300)}`);
      return;
    }
    this.seen.set(id, (this.seen.get(id) ?? 0) + 1);
    const want = this.owed.get(id);
    if (want !== undefined && code !== want)
      this.problem(`id ${id} got ${JSON.stringify(answer).slice(0, 200)}, wanted error ${want}`);
  }

  problem(text: string): void {
    if (this.problems.length < 20) this.problems.push(text);
  }

  /** Ids not answered yet (or answered more than once), for waiting and for the verdict. */
  missing(): string[] {
    const out: string[] = [];
    for (const id of this.owed.keys()) if (this.seen.get(id) !== 1) out.push(id);
    return out;
  }

  /** Everything wrong, in words: empty when the campaign passed. */
  verdict(): string[] {
    const wrong = [...this.problems];
    const missing = this.missing();
    if (missing.length > 0) {
      const sample = missing.slice(0, 5).map((id) => `${id}×${this.seen.get(id) ?? 0}`);
      wrong.push(`${missing.length} ids not answered exactly once (${sample.join(", ")})`);
    }
    if (this.nullsSeen !== this.nullsOwed)
      wrong.push(`${this.nullsSeen} answers with id null, ${this.nullsOwed} owed`);
    return wrong;
  }
}

/** A stack frame line: what must never reach stderr, however bad the input. */
export const STACK_LINE = /^\s+at .+(:\d+:\d+\)?|\(native\))$/m;
