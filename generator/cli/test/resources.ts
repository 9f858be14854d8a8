/** One fixed resource under `mcp-codegen test`: its URI read once must answer contents. */

import type { ContractResource } from "../../contract/model.js";
import { type ItemOutcome, type ItemRun, printItem } from "./run.js";
import { contentsProblem } from "./verdicts.js";

export async function testResource(resource: ContractResource, run: ItemRun): Promise<ItemOutcome> {
  const uri = resource.definition.uri as string;
  run.tick?.();
  const outcome = await run.session.readResource(uri, run.timeoutMs);
  const problem =
    outcome.kind === "lost" && outcome.timedOut
      ? `${outcome.message} (slow: give it more time with test: { timeoutMs } in the contract, or --timeout)`
      : contentsProblem(outcome);
  return printItem(run, `resource ${resource.name}`, {
    summary: problem === undefined ? `${uri} read` : `${uri} not read as it must be`,
    problems: problem === undefined ? [] : [`    problem:   ${problem}`],
  });
}
