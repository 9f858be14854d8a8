/**
 * A project's contract, read and compiled: what `generate` (`regenerate-project.ts`) and `dev`
 * (`dev-generate.ts`) both do with it. The compiler is loaded only when a contract is compiled, so a run
 * that reads it back from the stamp never loads it.
 */

import { join } from "node:path";
import { cacheDir } from "../../schema/loader.js";
import { ContractError, loadContract } from "../contract/load.js";
import type { ContractModel } from "../contract/model.js";
import { type CompiledMemo, folderMemo } from "../contract/transpile.js";
import type { ProjectConfig } from "../project/project.js";
import type { ProtocolModel } from "../protocol/model.js";
import { CliError } from "./errors.js";

/** The project's contract, with a failure to read or compile it as bad input (exit 2). */
export async function loadProjectContract(root: string, path: string, read?: Set<string>) {
  try {
    return await loadContract(join(root, path), path, read, root);
  } catch (e) {
    if (e instanceof ContractError) throw new CliError(e.message);
    throw e;
  }
}

/**
 * The contract's files (names inside `contract/`) for protocol `target`, and `generate`'s warnings
 * about it (`contract.yaml: pattern …`). A ContractError (the contract does not fit the protocol) is an
 * input error: printed as its message, exit 2.
 */
export async function compileProjectContract(
  contract: ContractModel,
  config: ProjectConfig,
  target: string,
  definitions: ProtocolModel["definitions"],
  compiled?: CompiledMemo,
): Promise<{ files: Record<string, string>; warnings: string[] }> {
  const [{ checkProtocolFit }, { boundsOf, patternRisks, patternWarnings }, { emitContract }] =
    await Promise.all([
      import("../contract/protocol-fit.js"),
      import("../contract/pattern-warnings.js"),
      import("../contract/emit.js"),
    ]);
  checkProtocolFit(contract, definitions, folderMemo(join(cacheDir(), "compiled")));
  const risks = await patternRisks(contract, config.patternMaxLength);
  const files = await emitContract(contract, {
    protocolVersion: target,
    ...(config.patternMaxLength === undefined ? {} : { patternMaxLength: config.patternMaxLength }),
    patternBounds: boundsOf(risks),
    ...(compiled ? { compiled } : {}),
  });
  return { files, warnings: patternWarnings(risks).map((w) => `${config.contract}: ${w}`) };
}
