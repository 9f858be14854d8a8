/**
 * `generate`'s warnings about a contract's patterns that can backtrack catastrophically
 * (generator/backtracking.ts, through recheck), each naming the tool, prompt, template or definition, the place in its
 * schema, the pattern, and the `maxLength` or rewrite that fixes it.
 */

import { backtrackingRisk, backtrackingWarning, DEFAULT_PATTERN_MAX_LENGTH } from "../backtracking.js";
import type { SchemaNode } from "../load.js";
import type { ContractModel } from "./model.js";

export async function patternWarnings(
  contract: ContractModel,
  patternMaxLength = DEFAULT_PATTERN_MAX_LENGTH,
): Promise<string[]> {
  const owners = new Map<string, string>();
  for (const t of contract.tools) {
    owners.set(t.input, `tool ${JSON.stringify(t.name)} inputSchema`);
    if (t.output) owners.set(t.output, `tool ${JSON.stringify(t.name)} outputSchema`);
  }
  for (const p of contract.prompts) owners.set(p.args, `prompt ${JSON.stringify(p.name)} arguments`);
  for (const t of contract.resourceTemplates)
    owners.set(t.vars, `resource template ${JSON.stringify(t.name)} variables`);
  const warnings: string[] = [];
  for (const def of contract.definitions) {
    const owner = owners.get(def.name) ?? `definition ${JSON.stringify(def.name)}`;
    const root = def.schema.pointer;
    const check = async (pattern: string, longest: number, pointer: string) => {
      const risk = await backtrackingRisk(pattern, longest);
      if (!risk) return;
      const place = `${owner} at ${pointer.slice(root.length) || "/"}`;
      warnings.push(backtrackingWarning(place, pattern, risk, longest));
    };
    for (const node of nodesOf(def.schema)) {
      if (node.pattern !== undefined)
        await check(node.pattern, node.maxLength ?? patternMaxLength, node.pointer);
      // Property names matched against patternProperties are bounded by the default limit only.
      for (const source of Object.keys(node.patternProperties ?? {}))
        await check(source, patternMaxLength, `${node.pointer}/patternProperties`);
    }
  }
  return warnings;
}

/** Every schema node below `root` (and `root`), not following `$ref`s (each definition is visited). */
function* nodesOf(root: SchemaNode): Generator<SchemaNode> {
  const stack = [root];
  while (stack.length > 0) {
    const node = stack.pop()!;
    yield node;
    const children = [
      ...Object.values(node.properties ?? {}),
      ...Object.values(node.patternProperties ?? {}),
      ...(node.prefixItems ?? []),
      ...(node.anyOf ?? []),
      ...(node.oneOf ?? []),
      ...(node.allOf ?? []),
      node.additionalProperties,
      node.items,
      node.propertyNames,
      node.not,
      node.if,
      node.then,
      node.else,
    ];
    for (const child of children.reverse()) if (child) stack.push(child);
  }
}
