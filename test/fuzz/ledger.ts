/**
 * What the fuzz campaign checks against its frames: every id owed is answered exactly once, with the
 * code its kind decides where it does; never -32603 (an internal error is a crash path); answers with
 * id null exactly as many as owed; no answer to anything else. Counts, not lists: 10^6 frames fit.
 */
import type { Exact, Frame } from "./frames.js";

export interface Answer {
  id?: unknown;
  result?: unknown;
  error?: { code?: unknown; message?: unknown };
}

/** The text a result carries: a tool's first content block, a prompt's first message, a resource's first contents. */
function resultText(result: unknown): unknown {
  const r = result as {
    content?: { text?: unknown }[];
    messages?: { content?: { text?: unknown } }[];
    contents?: { text?: unknown }[];
  };
  return r?.content?.[0]?.text ?? r?.messages?.[0]?.content?.text ?? r?.contents?.[0]?.text;
}

export class Ledger {
  /** Per id owed: an error code, an exact answer, or only an answer (undefined). */
  readonly owed = new Map<string, number | Exact | undefined>();
  readonly seen = new Map<string, number>();
  nullsOwed = 0;
  nullsSeen = 0;
  frames = 0;
  answers = 0;
  readonly problems: string[] = [];

  /**
   * `argumentsAreErrors`: whether the session's version answers invalid tool arguments with -32602
   * rather than a result flagged `isError` (versions before 2025-11-25).
   */
  constructor(readonly argumentsAreErrors = false) {}

  expect(frame: Frame): void {
    this.frames++;
    for (const id of frame.ids) this.owe(id, frame.exact?.[id] ?? frame.codes[id]);
    this.nullsOwed += frame.nulls;
  }

  /** An id owed one answer beside a frame's own (a request the sender adds): an error code, an exact answer, or any. */
  owe(id: string, due: number | Exact | undefined): void {
    this.owed.set(id, due);
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
    if (typeof want === "object") this.check(id, answer, want);
    else if (want !== undefined && code !== want)
      this.problem(`id ${id} got ${JSON.stringify(answer).slice(0, 200)}, wanted error ${want}`);
  }

  /** An answer against the exact one owed. */
  private check(id: string, answer: Answer, want: Exact): void {
    const owed: Exact =
      "invalid" in want
        ? this.argumentsAreErrors
          ? { code: -32602, message: want.invalid }
          : { text: want.invalid, isError: true }
        : want;
    const got =
      "code" in owed
        ? { code: answer.error?.code, message: answer.error?.message }
        : answer.error
          ? { error: answer.error }
          : {
              text: resultText(answer.result),
              isError: (answer.result as { isError?: unknown } | undefined)?.isError === true,
            };
    if (JSON.stringify(got) !== JSON.stringify(owed))
      this.problem(`id ${id} got ${JSON.stringify(answer).slice(0, 300)}, wanted ${JSON.stringify(owed)}`);
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
