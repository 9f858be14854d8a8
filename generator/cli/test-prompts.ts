/**
 * One prompt under `mcp-codegen test`: argument objects sampled from its arguments (strings, enum values
 * where declared, required ones always, optional ones sometimes) and sent with prompts/get, which must
 * answer messages; then each required argument missing and each enum argument outside its enum, which
 * must be refused with -32602 naming it.
 */

import fc from "fast-check";
import type { ContractPrompt } from "../contract/model.js";
import { wrongPromptArguments } from "../contract/wrong-prompt-arguments.js";
import type { Json } from "../load.js";
import {
  assertSampled,
  type ItemRun,
  printItem,
  propertyRun,
  refusals,
  smallest,
  Violation,
} from "./test-run.js";
import { invalidParamsProblem, promptProblem, show } from "./test-verdicts.js";

/** The prompt's property run, then its refusals; prints its summary or its failures. Passed or not. */
export async function testPrompt(
  prompt: ContractPrompt,
  arbitrary: fc.Arbitrary<Json>,
  run: ItemRun,
): Promise<boolean> {
  const { session } = run;
  const check = run.checks.get(prompt.args)!;
  const probe = async (args: Json): Promise<void> => {
    assertSampled(check, args, "arguments");
    const problem = promptProblem(await session.getPrompt(prompt.name, args as Record<string, string>));
    if (problem !== undefined) throw new Violation(problem);
  };
  const report = await propertyRun(arbitrary, probe, run, (args) => [
    "  sampled arguments",
    `    arguments: ${show(args)}`,
  ]);

  const valid = smallest(fc.sample(arbitrary, { numRuns: 20, seed: run.seed })) as Record<string, string>;
  await refusals(
    report,
    wrongPromptArguments(valid ?? {}, prompt.arguments, check).map((m) => ({
      field: m.field,
      mistake: m.mistake,
      send: () => session.getPrompt(prompt.name, m.args as Record<string, string>),
      shown: [`    arguments: ${show(m.args)}`],
    })),
    { kind: "argument", noun: "arguments" },
    (outcome, field) => invalidParamsProblem(outcome, field),
  );
  return printItem(run, `prompt ${prompt.name}`, report);
}
