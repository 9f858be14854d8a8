/**
 * Prompt arguments a server must refuse: the valid arguments with each required argument missing, and
 * with each enum argument given a string outside its enum. Prompt arguments are strings on the wire, so
 * a wrong type is not sendable; a value outside the enum is the mistake a client can make. Each is
 * proven invalid by the contract's own check (failing at that argument) before it is sent.
 */

import type { CheckFn } from "../contract/checks.js";
import type { ContractPromptArgument } from "../contract/model.js";
import type { WrongArguments } from "./wrong-values.js";

/** Strings tried in turn for an enum argument: the first its enum lacks is sent. */
const OUTSIDE = ["not-a-valid-value", "not-a-valid-value-either"];

export function wrongPromptArguments(
  valid: Readonly<Record<string, string>>,
  declared: readonly ContractPromptArgument[],
  check: CheckFn,
): WrongArguments[] {
  const out: WrongArguments[] = [];
  const failsAt = (args: Record<string, string>, field: string) => check(args)?.path[0] === field;
  for (const arg of declared) {
    const field = arg.name;
    if (arg.required) {
      const { [field]: _, ...missing } = valid;
      if (failsAt(missing, field)) out.push({ field, mistake: "missing", args: missing });
    }
    if (arg.enum) {
      const outside = OUTSIDE.find((v) => !arg.enum!.includes(v));
      if (outside !== undefined && failsAt({ ...valid, [field]: outside }, field))
        out.push({
          field,
          mistake: `outside its enum (${JSON.stringify(outside)})`,
          args: { ...valid, [field]: outside },
        });
    }
  }
  return out;
}
