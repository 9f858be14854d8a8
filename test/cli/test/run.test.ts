/**
 * One item's property run in `mcp-codegen test`: a summary of the runs that passed, a failure shrunk and
 * shown with its problem, and an item whose samples are nearly all skipped reported, not passed; a
 * timed-out call reported slow and not shrunk, a spent budget reported and not failed, seeds first.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type ItemRun, propertyRun, Slow, Violation } from "../../../generator/cli/test/run.js";

const run = { runs: 30, seed: 42 } as ItemRun;
const show = (n: number) => [`    value: ${n}`];

describe("propertyRun", () => {
  it("counts the runs that passed", async () => {
    expect(await propertyRun(fc.integer(), async () => {}, run, show)).toEqual({
      summary: "30 runs, 30 passed",
      problems: [],
    });
  });

  it("shrinks a failure and shows it with the problem", async () => {
    const report = await propertyRun(
      fc.integer({ min: 0, max: 1000 }),
      async (n) => {
        if (n > 100) throw new Violation(`${n} is too big`);
      },
      run,
      show,
    );
    expect(report.summary).toMatch(/^run \d+ of 30 failed \(shrunk \d+ times\)$/);
    expect(report.problems).toEqual(["    value: 101", "    problem:   101 is too big"]);
  });

  it("reports an item whose samples are skipped, with what to do", async () => {
    const report = await propertyRun(
      fc.integer(),
      async () => {
        fc.pre(false);
      },
      run,
      show,
      { why: "did not read back", problem: "fix the template" },
    );
    expect(report.summary).toMatch(/^0 of 30 runs, then too many samples did not read back \(\d+\)$/);
    expect(report.problems).toEqual(["  fix the template"]);
  });

  it("reports a timed-out call as slow and makes no call after it: nothing is shrunk", async () => {
    const seen: number[] = [];
    const report = await propertyRun(
      fc.integer({ min: 0, max: 1000 }),
      async (n) => {
        seen.push(n);
        if (n > 100) throw new Slow(`no answer for ${n}`);
      },
      run,
      show,
    );
    const failing = seen.findIndex((n) => n > 100);
    expect(failing).toBeGreaterThanOrEqual(0);
    // The failing value is the last one sent: shrinking would have sent smaller ones.
    expect(seen.length).toBe(failing + 1);
    expect(report.summary).toBe(`run ${failing + 1} of 30 timed out (slow: not shrunk)`);
    expect(report.problems).toEqual([
      `    value: ${seen[failing]}`,
      `    problem:   no answer for ${seen[failing]}`,
    ]);
  });

  it("stops when the item's share of the budget is spent, and says so without failing", async () => {
    const report = await propertyRun(
      fc.integer(),
      () => new Promise<void>((resolve) => setTimeout(resolve, 20)),
      { ...run, timeLimitMs: 100 },
      show,
    );
    const cut = /^(\d+) of 30 runs, \1 passed \(budget spent\)$/.exec(report.summary);
    expect(cut, report.summary).not.toBeNull();
    expect(Number(cut![1])).toBeLessThan(30);
    expect(report).toMatchObject({ problems: [], cut: true });
  });

  it("tries the seeds first, within the run count", async () => {
    const seen: number[] = [];
    await propertyRun(
      fc.integer({ min: 0, max: 10 }),
      async (n) => {
        seen.push(n);
      },
      run,
      show,
      undefined,
      [7777, 8888],
    );
    expect(seen.slice(0, 2)).toEqual([7777, 8888]);
    expect(seen).toHaveLength(30);
  });
});
