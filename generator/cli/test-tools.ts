/**
 * One tool under `mcp-codegen test`: arguments sampled from its inputSchema and sent with tools/call (no
 * JSON-RPC error; structuredContent its outputSchema accepts unless isError), then each required argument
 * missing and wrong-typed, which must be refused naming it.
 */

import fc from "fast-check";
import type { ContractTool } from "../contract/model.js";
import { requiredArguments, wrongArguments } from "../contract/wrong-values.js";
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
import { answerProblem, refusalProblem, show } from "./test-verdicts.js";

/** The tool's property run, then its refusals; prints its summary or its failures. Passed or not. */
export async function testTool(
  tool: ContractTool,
  arbitrary: fc.Arbitrary<Json>,
  run: ItemRun,
): Promise<boolean> {
  const { session, checks, definitions } = run;
  const input = checks.get(tool.input)!;
  const output = tool.output ? checks.get(tool.output)! : undefined;
  let refusedWithIsError = 0;
  const probe = async (args: Json): Promise<void> => {
    assertSampled(input, args, "arguments");
    const outcome = await session.callTool(tool.name, args as Record<string, unknown>);
    const problem = answerProblem(outcome, output);
    if (problem !== undefined) throw new Violation(problem);
    if (outcome.kind === "result" && outcome.result.isError === true) refusedWithIsError++;
  };
  const report = await propertyRun(arbitrary, probe, run, (args) => [
    "  sampled arguments",
    `    arguments: ${show(args)}`,
  ]);
  if (report.problems.length === 0 && refusedWithIsError > 0)
    report.summary += ` (${refusedWithIsError} answered isError)`;

  // Refusals: from a small valid sample, each required argument missing, then wrong-typed.
  const valid = smallest(fc.sample(arbitrary, { numRuns: 20, seed: run.seed }));
  const mistakes =
    typeof valid === "object" && valid !== null && !Array.isArray(valid)
      ? wrongArguments(valid, requiredArguments(definitions[tool.input]!, definitions), input)
      : [];
  await refusals(
    report,
    mistakes.map((m) => ({
      field: m.field,
      mistake: m.mistake,
      send: () => session.callTool(tool.name, m.args),
      shown: [`    arguments: ${show(m.args)}`],
    })),
    { kind: "required argument", noun: "arguments" },
    refusalProblem,
  );
  return printItem(run, tool.name, report);
}
