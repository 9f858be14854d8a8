/**
 * One prompt under `mcp-codegen test`: the contract's argument examples and defaults, then argument
 * objects sampled from its arguments (strings, enum values where declared, required ones always,
 * optional ones sometimes), sent with prompts/get, which must
 * answer messages; then each required argument missing and each enum argument outside its enum, which
 * must be refused with -32602 naming it.
 */

import fc from "fast-check";
import type { ContractPrompt } from "../../contract/model.js";
import type { Json } from "../../protocol/load.js";
import { seedsOf } from "../../sampling/seeds.js";
import { wrongPromptArguments } from "../../sampling/wrong-prompt-arguments.js";
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
import { invalidParamsProblem, promptProblem, show } from "./verdicts.js";

/** The prompt's property run, then its refusals; prints its summary or its failures. How it came out. */
export async function testPrompt(
  prompt: ContractPrompt,
  arbitrary: fc.Arbitrary<Json>,
  run: ItemRun,
): Promise<ItemOutcome> {
  const { session } = run;
  const check = run.checks.get(prompt.args)!;
  const valid = smallest(fc.sample(arbitrary, { numRuns: 20, seed: run.seed })) as Record<string, string>;
  const required = prompt.arguments.filter((a) => a.required).map((a) => a.name);
  const seeded = checkedSeeds(seedsOf(prompt.test, valid ?? {}, required), check, "the arguments");
  const probe = async (args: Json): Promise<void> => {
    assertSampled(check, args, "arguments");
    const outcome = await session.getPrompt(prompt.name, args as Record<string, string>, run.timeoutMs);
    notSlow(outcome);
    const problem = promptProblem(outcome);
    if (problem !== undefined) throw new Violation(problem);
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

  await refusals(
    run,
    report,
    wrongPromptArguments(valid ?? {}, prompt.arguments, check).map((m) => ({
      field: m.field,
      mistake: m.mistake,
      send: () => session.getPrompt(prompt.name, m.args as Record<string, string>, run.timeoutMs),
      shown: [`    arguments: ${show(m.args)}`],
    })),
    { kind: "argument", noun: "arguments" },
    (outcome, field) => invalidParamsProblem(outcome, field),
  );
  return printItem(run, `prompt ${prompt.name}`, report);
}
