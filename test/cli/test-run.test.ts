/**
 * One item's property run in `mcp-codegen test`: a summary of the runs that passed, a failure shrunk and
 * shown with its problem, and an item whose samples are nearly all skipped reported, not passed.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type ItemRun, propertyRun, Violation } from "../../generator/cli/test-run.js";

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
});
