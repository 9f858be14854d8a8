/** A failed check as one line for people: where in the value, then which rule. */

import type { Fail } from "./check.js";

/** `a.b[2]: Expected number`: where in the value and which rule. */
export function describeFailure(failure: Fail): string {
  let where = "";
  for (const step of failure.path)
    where += typeof step === "number" ? `[${step}]` : where ? `.${step}` : step;
  return where ? `${where}: ${failure.message}` : failure.message;
}
