/**
 * One tool under `mcp-codegen test`: the contract's examples and defaults, then arguments sampled from its
 * inputSchema, sent with tools/call (no JSON-RPC error; structuredContent its outputSchema accepts unless
 * isError), then each required argument missing and wrong-typed, which must be refused naming it. A tool
 * that may run as a task is then called as one (tool-tasks.ts); one that must is called as a task
 * throughout.
 */

import fc from "fast-check";
import type { ContractTool, JsonObject } from "../../contract/model.js";
import { taskSupportOf } from "../../contract/task-support.js";
import type { Json } from "../../protocol/load.js";
import { seedsOf } from "../../sampling/seeds.js";
import { requiredArguments, wrongArguments } from "../../sampling/wrong-values.js";
import {
  assertSampled,
  checkedSeeds,
  type ItemOutcome,
  type ItemRun,
  notSlow,
  printItem,
  propertyRun,
  refusals,
  smallest,
  Violation,
} from "./run.js";
import { testToolTasks } from "./tool-tasks.js";
import { answerProblem, refusalProblem, show } from "./verdicts.js";

/** The tool's property run, then its refusals; prints its summary or its failures. How it came out. */
export async function testTool(
  tool: ContractTool,
  arbitrary: fc.Arbitrary<Json>,
  run: ItemRun,
): Promise<ItemOutcome> {
  const { session, checks, definitions } = run;
  const input = checks.get(tool.input)!;
  const output = tool.output ? checks.get(tool.output)! : undefined;
  let refusedWithIsError = 0;
  const valid = smallest(fc.sample(arbitrary, { numRuns: 20, seed: run.seed }));
  const object = typeof valid === "object" && valid !== null && !Array.isArray(valid) ? valid : undefined;
  const required = requiredArguments(definitions[tool.input]!, definitions);
  const seeded = checkedSeeds(seedsOf(tool.test, object ?? {}, required), input, "the inputSchema");
  const support = taskSupportOf(tool.definition);
  // A tool that runs only as a task is refused a plain call: every call is a task, awaited.
  const asTask = support === "required";
  const probe = async (args: Json): Promise<void> => {
    assertSampled(input, args, "arguments");
    const outcome = await session.callTool(tool.name, args as Record<string, unknown>, run.timeoutMs, asTask);
    notSlow(outcome);
    const problem = answerProblem(outcome, output);
    if (problem !== undefined) throw new Violation(problem);
    if (outcome.kind === "result" && outcome.result.isError === true) refusedWithIsError++;
  };
  const report = await propertyRun(
    arbitrary,
    probe,
    run,
    (args) => ["  sampled arguments", `    arguments: ${show(args)}`],
    undefined,
    seeded.seeds.map((s) => s.value as Json),
  );
  report.problems.unshift(...seeded.problems);
  if (report.problems.length === 0 && refusedWithIsError > 0)
    report.summary += ` (${refusedWithIsError} answered isError)`;

  // Refusals: from a small valid sample, each required argument missing, then wrong-typed.
  const mistakes = object ? wrongArguments(object as JsonObject, required, input) : [];
  await refusals(
    run,
    report,
    mistakes.map((m) => ({
      field: m.field,
      mistake: m.mistake,
      send: () => session.callTool(tool.name, m.args, run.timeoutMs, asTask),
      shown: [`    arguments: ${show(m.args)}`],
    })),
    { kind: "required argument", noun: "arguments" },
    refusalProblem,
  );
  if (support !== "forbidden") {
    // The contract's own input first (its examples, then defaults), else the smallest sample.
    const args = (seeded.seeds[0]?.value ?? object ?? {}) as Record<string, unknown>;
    const tasks = await testToolTasks(session, tool.name, args, output, run.timeoutMs);
    if (tasks.summary) report.summary += `; ${tasks.summary}`;
    report.problems.push(...tasks.problems);
  }
  return printItem(run, tool.name, report);
}
