/**
 * The contract half of `generate`, for `dev`: the protocol is generated once and kept in memory, so a
 * contract edit costs only compiling the contract (`project-contract.ts`, as `generate` compiles it).
 */

import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { Generated } from "../emit/generate.js";
import { writeFileAtomic, writeOutput } from "../output/write.js";
import type { ProjectConfig } from "../project/project.js";
import { addContractStubs } from "../project/stubs.js";
import { generateVersion } from "./generate-versions.js";
import { compileProjectContract, loadProjectContract } from "./project-contract.js";

export interface Regenerated {
  /** Paths written (absolute), the handlers file included when stubs were added. */
  written: string[];
  /** Contract entries that got a stub in the handlers file. */
  stubs: string[];
  warnings: string[];
}

const prefixed = (files: Record<string, string>) =>
  Object.fromEntries(Object.entries(files).map(([name, text]) => [`contract/${name}`, text]));

export function createRegenerator(root: string, config: ProjectConfig) {
  let protocol: Promise<Generated> | undefined;
  let protocolWritten = false;
  /** `read` receives every file the contract read and folder it listed (skills), even when it fails. */
  return async function regenerate(read?: Set<string>): Promise<Regenerated> {
    protocol ??= generateVersion({
      version: config.protocol,
      ...(config.schema ? { schema: config.schema } : {}),
    });
    const next = await protocol.catch((e: unknown) => {
      protocol = undefined;
      throw e;
    });
    const contractFiles: Record<string, string> = {};
    const warnings: string[] = [];
    let stubs: string[] = [];
    const handlersPath = join(root, config.handlers);
    let handlers: string | undefined;
    if (config.contract) {
      const contract = await loadProjectContract(root, config.contract, read);
      const compiled = await compileProjectContract(
        contract,
        config,
        config.protocol,
        next.model.definitions,
      );
      warnings.push(...compiled.warnings);
      Object.assign(contractFiles, compiled.files);
      const text = await readFile(handlersPath, "utf8");
      const added = addContractStubs(text, contract);
      if (added.text !== text) handlers = added.text;
      stubs = added.added;
    }
    const out = join(root, config.output);
    // The protocol's files are written on the first pass; later passes touch the contract's alone.
    const written = protocolWritten
      ? await writeOutput(join(out, "contract"), contractFiles)
      : await writeOutput(out, { ...next.files, ...prefixed(contractFiles) });
    protocolWritten = true;
    if (handlers !== undefined) {
      await writeFileAtomic(handlersPath, handlers);
      written.push(handlersPath);
    }
    return { written, stubs, warnings };
  };
}
