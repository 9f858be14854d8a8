/** One fixed resource under `mcp-codegen test`: its URI read once must answer contents. */

import type { ContractResource } from "../contract/model.js";
import { type ItemRun, printItem } from "./test-run.js";
import { contentsProblem } from "./test-verdicts.js";

export async function testResource(resource: ContractResource, run: ItemRun): Promise<boolean> {
  const uri = resource.definition.uri as string;
  const problem = contentsProblem(await run.session.readResource(uri));
  return printItem(run, `resource ${resource.name}`, {
    summary: problem === undefined ? `${uri} read` : `${uri} not read as it must be`,
    problems: problem === undefined ? [] : [`    problem:   ${problem}`],
  });
}
