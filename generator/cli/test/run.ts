/**
 * What every item's run in `mcp-codegen test` shares: the session and the contract's checks, one
 * property run of the contract's seeds then sampled inputs (fast-check, shrunk on failure; a call that
 * timed out is reported as slow and not shrunk, since every step would wait out the timeout again; the
 * run stops when its share of the budget is spent), the refusals of wrong inputs, and the item's report
 * (a ✓/✗ line, then its problems indented).
 */

import fc from "fast-check";
import type { CheckFn } from "../../contract/checks.js";
import type { Json, SchemaNode } from "../../protocol/load.js";
import type { Seed } from "../../sampling/seeds.js";
import type { CallOutcome, ServerSession } from "./session.js";
import { show, where } from "./verdicts.js";

export interface ItemRun {
  session: ServerSession;
  checks: Map<string, CheckFn>;
  definitions: Record<string, SchemaNode>;
  /** Inputs to try (the item's `test.runs`, else `--runs`), seeds included. */
  runs: number;
  seed: number;
  /** How long one call may take (the item's `test.timeoutMs`, else `--timeout`). */
  timeoutMs?: number;
  /** How long this item's sampling may take (its share of `--budget`); none: no limit. */
  timeLimitMs?: number;
  /** When the whole budget is spent (performance.now()); refusals are not sent past it. */
  deadline?: number;
  /** Told of each call made, for the progress line. */
  tick?: () => void;
  out: (line: string) => void;
}

/** A failed probe of one call: what was wrong with the server's answer. */
export class Violation extends Error {
  override name = "Violation";
}

/** A call with no answer within its timeout: a failure, but not one to shrink. */
export class Slow extends Violation {
  override name = "Slow";
}

/** Throws Slow when the call timed out. */
export function notSlow(outcome: CallOutcome): void {
  if (outcome.kind === "lost" && outcome.timedOut)
    throw new Slow(
      `${outcome.message} (slow: give the item more time with test: { timeoutMs } in the contract, or --timeout)`,
    );
}

/**
 * The seeds the contract's own check takes, and a problem per one it refuses: an example that fails
 * its own schema is the contract's mistake, and it is said so.
 */
export function checkedSeeds(
  seeds: Seed[],
  check: CheckFn,
  schema: string,
): { seeds: Seed[]; problems: string[] } {
  const problems: string[] = [];
  const valid = seeds.filter((s) => {
    const invalid = check(s.value);
    if (invalid)
      problems.push(
        `  the contract's ${s.origin}: ${show(s.value)} fails ${schema} at ${where(invalid)}; fix the contract`,
      );
    return !invalid;
  });
  return { seeds: valid, problems };
}

/** A sample the contract's own check refuses is mcp-codegen's bug, not the server's: it says so. */
export function assertSampled(check: CheckFn, value: unknown, what: "arguments" | "variables"): void {
  const invalid = check(value);
  if (invalid)
    throw new Violation(
      `mcp-codegen sampled ${what} the contract's own check refuses (${where(invalid)}): a bug in mcp-codegen, please report it`,
    );
}

/** What one item's runs came to: its summary and, when something failed, the lines that say what. */
export interface ItemReport {
  summary: string;
  problems: string[];
  /** Sampling stopped early: the budget was spent. */
  cut?: true;
}

/**
 * `run.runs` probes, `examples` first, then values from `arbitrary`; a probe throws (a Violation) on a
 * wrong answer, or skips a value with `fc.pre` (`skipped` says why and what to do, when fast-check gives
 * up on too many). On failure, `describe` gives the lines that show the shrunk value.
 */
export async function propertyRun<T>(
  arbitrary: fc.Arbitrary<T>,
  probe: (value: T) => Promise<void>,
  run: ItemRun,
  describe: (value: T) => string[],
  skipped: { why: string; problem: string } = {
    why: "skipped",
    problem: "mcp-codegen cannot sample this item: please report it with the contract",
  },
  examples: T[] = [],
): Promise<ItemReport> {
  let slow = false;
  // Once a call timed out, shrinking candidates pass untried: each would wait out the timeout again.
  const guarded = async (value: T): Promise<void> => {
    if (slow) return;
    run.tick?.();
    try {
      await probe(value);
    } catch (e) {
      if (e instanceof Slow) slow = true;
      throw e;
    }
  };
  const details = await fc.check(fc.asyncProperty(arbitrary, guarded), {
    numRuns: run.runs,
    seed: run.seed,
    examples: examples.map((e) => [e] as [T]),
    ...(run.timeLimitMs === undefined ? {} : { interruptAfterTimeLimit: run.timeLimitMs }),
  });
  if (!details.failed && details.interrupted)
    return {
      summary: `${details.numRuns} of ${run.runs} runs, ${details.numRuns} passed (budget spent)`,
      problems: [],
      cut: true,
    };
  if (!details.failed) return { summary: `${details.numRuns} runs, ${details.numRuns} passed`, problems: [] };
  if (details.counterexample === null)
    return {
      summary: `${details.numRuns} of ${run.runs} runs, then too many samples ${skipped.why} (${details.numSkips})`,
      problems: [`  ${skipped.problem}`],
    };
  const error = details.errorInstance;
  if (error instanceof Slow)
    return {
      summary: `run ${details.numRuns} of ${run.runs} timed out (slow: not shrunk)`,
      problems: [...describe(details.counterexample[0]), `    problem:   ${error.message}`],
    };
  return {
    summary: `run ${details.numRuns} of ${run.runs} failed (shrunk ${details.numShrinks} times)`,
    problems: [
      ...describe(details.counterexample[0]),
      `    problem:   ${error instanceof Error ? error.message : show(error)}`,
    ],
  };
}

/** A wrong input the server must refuse: what it is about, how to send it, the lines that show it. */
export interface Mistake {
  field: string;
  mistake: string;
  send: () => Promise<CallOutcome>;
  shown: string[];
}

/**
 * Sends each mistake and asks `verdict` whether the answer refused it; adds the refusal count to the
 * summary and a problem per mistake taken. `kind` names what a field is (`required argument`), `noun`
 * what was sent (`arguments`, `URIs`).
 */
export async function refusals(
  run: ItemRun,
  report: ItemReport,
  mistakes: readonly Mistake[],
  { kind, noun }: { kind: string; noun: string },
  verdict: (outcome: CallOutcome, field: string) => string | undefined,
): Promise<void> {
  if (mistakes.length > 0 && run.deadline !== undefined && performance.now() >= run.deadline) {
    report.summary += `; wrong ${noun} not sent (budget spent)`;
    report.cut = true;
    return;
  }
  let refused = 0;
  for (const mistake of mistakes) {
    run.tick?.();
    const problem = verdict(await mistake.send(), mistake.field);
    if (problem === undefined) {
      refused++;
      continue;
    }
    report.problems.push(
      `  ${kind} ${mistake.field}, ${mistake.mistake}: not refused as it must be`,
      ...mistake.shown,
      `    problem:   ${problem}`,
    );
  }
  if (mistakes.length > 0) report.summary += `; ${refused} of ${mistakes.length} wrong ${noun} refused`;
}

/** How an item came out: `cut` passed what it ran, but the budget ran out before all of it. */
export type ItemOutcome = "passed" | "failed" | "cut";

/** Prints the item's ✓/✗ line and its problems; how it came out. */
export function printItem(run: ItemRun, label: string, report: ItemReport): ItemOutcome {
  const ok = report.problems.length === 0;
  run.out(`${ok ? "✓" : "✗"} ${label}: ${report.summary}`);
  for (const line of report.problems) run.out(line);
  return !ok ? "failed" : report.cut ? "cut" : "passed";
}

/** The sample with the shortest JSON: the one a reader takes in at a glance. */
export function smallest<T extends Json>(samples: T[]): T | undefined {
  return samples.reduce<T | undefined>(
    (best, s) => (best === undefined || JSON.stringify(s).length < JSON.stringify(best).length ? s : best),
    undefined,
  );
}
