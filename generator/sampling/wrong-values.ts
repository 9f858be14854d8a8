/**
 * Arguments a server must refuse: for each required argument of a tool, the valid arguments with that
 * one missing, and with it replaced by a value of a type its schema does not take. Each is proven
 * invalid by the contract's own check (and failing at that argument) before it is sent.
 */

import type { CheckFn } from "../contract/checks.js";
import type { Json, SchemaNode } from "../protocol/load.js";

export interface WrongArguments {
  /** The required argument the mistake is about; the server's refusal must name it. */
  field: string;
  /** `missing`, or `wrong type` with the value sent. */
  mistake: string;
  args: Record<string, Json>;
}

/** Values of every JSON type: one of them has a type the argument's schema refuses. */
const CANDIDATES: Json[] = [true, "not-a-valid-value", 12345, null, [], {}, 0.5];

/** The names `node` requires, through `$ref`s and allOf members at the top. */
export function requiredArguments(
  node: SchemaNode,
  definitions: Readonly<Record<string, SchemaNode>>,
): string[] {
  const names = new Set<string>();
  const seen = new Set<SchemaNode>();
  const visit = (n: SchemaNode | undefined) => {
    if (!n || seen.has(n)) return;
    seen.add(n);
    for (const r of n.required ?? []) names.add(r);
    if (n.ref !== undefined) visit(definitions[n.ref]);
    for (const m of n.allOf ?? []) visit(m);
  };
  visit(node);
  return [...names].sort();
}

/** The mistakes to send for `valid` arguments, each refused by `check` at its field. */
export function wrongArguments(
  valid: Record<string, Json>,
  fields: readonly string[],
  check: CheckFn,
): WrongArguments[] {
  const out: WrongArguments[] = [];
  const failsAt = (args: Record<string, Json>, field: string) => check(args)?.path[0] === field;
  for (const field of fields) {
    const { [field]: _, ...missing } = valid;
    if (failsAt(missing, field)) out.push({ field, mistake: "missing", args: missing });
    const wrong = CANDIDATES.find((value) => failsAt({ ...valid, [field]: value }, field));
    if (wrong !== undefined)
      out.push({
        field,
        mistake: `wrong type (${JSON.stringify(wrong)})`,
        args: { ...valid, [field]: wrong },
      });
  }
  return out;
}
