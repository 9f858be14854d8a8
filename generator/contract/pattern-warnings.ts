/**
 * A contract's patterns that can backtrack catastrophically (generator/util/backtracking.ts, through recheck):
 * `generate` warns about each, naming the tool, prompt, template or definition, the place in its schema,
 * the pattern, and the `maxLength` or rewrite that fixes it; where the schema sets no `maxLength`, the
 * validators run the pattern only on strings within its safe length (`boundsOf`).
 */

import type { SchemaNode } from "../protocol/load.js";
import {
  type BacktrackingRisk,
  backtrackingRisk,
  backtrackingWarning,
  DEFAULT_PATTERN_MAX_LENGTH,
} from "../util/backtracking.js";
import type { ContractModel } from "./model.js";

export interface PatternRisk {
  /** `tool "greet" inputSchema at /properties/name`. */
  place: string;
  pattern: string;
  risk: BacktrackingRisk;
  /** The longest string it runs on as written: the schema's `maxLength`, else `patternMaxLength`. */
  longest: number;
  /** Whether the schema sets no `maxLength` there (then the validators bound it). */
  unbounded: boolean;
}

export async function patternRisks(
  contract: ContractModel,
  patternMaxLength = DEFAULT_PATTERN_MAX_LENGTH,
): Promise<PatternRisk[]> {
  const owners = new Map<string, string>();
  for (const t of contract.tools) {
    owners.set(t.input, `tool ${JSON.stringify(t.name)} inputSchema`);
    if (t.output) owners.set(t.output, `tool ${JSON.stringify(t.name)} outputSchema`);
  }
  for (const p of contract.prompts) owners.set(p.args, `prompt ${JSON.stringify(p.name)} arguments`);
  for (const t of contract.resourceTemplates)
    owners.set(t.vars, `resource template ${JSON.stringify(t.name)} variables`);
  const risks: PatternRisk[] = [];
  // One judgement per pattern: recheck takes milliseconds a pattern, seconds for a hard one.
  const judged = new Map<string, Promise<BacktrackingRisk | undefined>>();
  for (const def of contract.definitions) {
    const owner = owners.get(def.name) ?? `definition ${JSON.stringify(def.name)}`;
    const root = def.schema.pointer;
    const check = async (pattern: string, maxLength: number | undefined, pointer: string) => {
      const longest = maxLength ?? patternMaxLength;
      const key = `${longest} ${pattern}`;
      if (!judged.has(key)) judged.set(key, backtrackingRisk(pattern, longest));
      const risk = await judged.get(key);
      if (!risk) return;
      const place = `${owner} at ${pointer.slice(root.length) || "/"}`;
      risks.push({ place, pattern, risk, longest, unbounded: maxLength === undefined });
    };
    for (const node of nodesOf(def.schema)) {
      if (node.pattern !== undefined) await check(node.pattern, node.maxLength, node.pointer);
      // Property names matched against patternProperties are bounded by the default limit only.
      for (const source of Object.keys(node.patternProperties ?? {}))
        await check(source, undefined, `${node.pointer}/patternProperties`);
    }
  }
  return risks;
}

/** `generate`'s warning lines. */
export const patternWarnings = (risks: readonly PatternRisk[]): string[] =>
  risks.map((r) => backtrackingWarning(r.place, r.pattern, r.risk, r.longest, r.unbounded));

/** The validators' bound for each risky pattern met without a `maxLength` (`ValidatorOptions.patternBounds`). */
export function boundsOf(risks: readonly PatternRisk[]): Map<string, number> {
  const bounds = new Map<string, number>();
  for (const r of risks) if (r.unbounded) bounds.set(r.pattern, r.risk.safeMaxLength);
  return bounds;
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
