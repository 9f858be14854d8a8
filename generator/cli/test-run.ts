/**
 * What every item's run in `mcp-codegen test` shares: the session and the contract's checks, one
 * property run of sampled inputs (fast-check, shrunk on failure), the refusals of wrong inputs, and the
 * item's report (a ✓/✗ line, then its problems indented).
 */

import fc from "fast-check";
import type { CheckFn } from "../contract/checks.js";
import type { Json, SchemaNode } from "../load.js";
import type { CallOutcome, ServerSession } from "./test-session.js";
import { show, where } from "./test-verdicts.js";

export interface ItemRun {
  session: ServerSession;
  checks: Map<string, CheckFn>;
  definitions: Record<string, SchemaNode>;
  runs: number;
  seed: number;
  out: (line: string) => void;
}

/** A failed probe of one call: what was wrong with the server's answer. */
export class Violation extends Error {
  override name = "Violation";
}

/** What one item's runs came to: its summary and, when something failed, the lines that say what. */
/** A sample the contract's own check refuses is mcp-codegen's bug, not the server's: it says so. */
export function assertSampled(check: CheckFn, value: unknown, what: "arguments" | "variables"): void {
  const invalid = check(value);
  if (invalid)
    throw new Violation(
      `mcp-codegen sampled ${what} the contract's own check refuses (${where(invalid)}): a bug in mcp-codegen, please report it`,
    );
}

export interface ItemReport {
  summary: string;
  problems: string[];
}

/**
 * `run.runs` probes of values from `arbitrary`; a probe throws (a Violation) on a wrong answer, or skips
 * a value with `fc.pre` (`skipped` says why and what to do, when fast-check gives up on too many). On failure,
 * `describe` gives the lines that show the shrunk value.
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
): Promise<ItemReport> {
  const details = await fc.check(fc.asyncProperty(arbitrary, probe), { numRuns: run.runs, seed: run.seed });
  if (!details.failed) return { summary: `${details.numRuns} runs, ${details.numRuns} passed`, problems: [] };
  if (details.counterexample === null)
    return {
      summary: `${details.numRuns} of ${run.runs} runs, then too many samples ${skipped.why} (${details.numSkips})`,
      problems: [`  ${skipped.problem}`],
    };
  const error = details.errorInstance;
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
  report: ItemReport,
  mistakes: readonly Mistake[],
  { kind, noun }: { kind: string; noun: string },
  verdict: (outcome: CallOutcome, field: string) => string | undefined,
): Promise<void> {
  let refused = 0;
  for (const mistake of mistakes) {
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

/** Prints the item's ✓/✗ line and its problems; whether it passed. */
export function printItem(run: ItemRun, label: string, report: ItemReport): boolean {
  const ok = report.problems.length === 0;
  run.out(`${ok ? "✓" : "✗"} ${label}: ${report.summary}`);
  for (const line of report.problems) run.out(line);
  return ok;
}

/** The sample with the shortest JSON: the one a reader takes in at a glance. */
export function smallest<T extends Json>(samples: T[]): T | undefined {
  return samples.reduce<T | undefined>(
    (best, s) => (best === undefined || JSON.stringify(s).length < JSON.stringify(best).length ? s : best),
    undefined,
  );
}
