/**
 * A contract's items against the protocol's own definitions (`Tool`, `Prompt`, `Resource`,
 * `ResourceTemplate`): a field the protocol types otherwise (`readOnlyHint: "yes"`, an icon without `src`)
 * would make the generated server answer every `tools/list` with an error, or a client refuse the whole
 * list. Checked with the protocol's plain validators, compiled in memory, so it is refused here instead,
 * naming the contract, the item and the place.
 */

import type { DefinitionModel } from "../protocol/model.js";
import { compileChecks } from "./checks.js";
import { ContractError } from "./load.js";
import type { ContractModel } from "./model.js";
import type { CompiledMemo } from "./transpile.js";

const ITEMS = [
  ["tools", "Tool"],
  ["prompts", "Prompt"],
  ["resources", "Resource"],
  ["resourceTemplates", "ResourceTemplate"],
] as const;

/** Throws a ContractError for the first item of `contract` the protocol's definitions refuse. */
export function checkProtocolFit(
  contract: ContractModel,
  protocol: readonly DefinitionModel[],
  compiled?: CompiledMemo,
): void {
  const byName = new Map(protocol.map((d) => [d.name, d]));
  const needed = new Map<string, DefinitionModel>();
  const reach = (name: string) => {
    const def = byName.get(name);
    if (!def || needed.has(name)) return;
    needed.set(name, def);
    for (const r of def.refs) reach(r);
  };
  for (const [key, def] of ITEMS) if (contract[key].length > 0) reach(def);
  if (needed.size === 0) return;
  const checks = compileChecks([...needed.values()], compiled);
  for (const [key, def] of ITEMS) {
    const check = checks.get(def);
    if (!check) continue;
    for (const item of contract[key]) {
      const failure = check(item.definition);
      if (failure)
        throw new ContractError(
          contract.source,
          [`${key}.${item.name}`, ...failure.path].join("."),
          `${failure.message} (the protocol's ${def})`,
        );
    }
  }
}
