/** A failed check as one line for people: where in the value, then which rule, for each failure. */

import { type Fail, failuresOf, MAX_FAILURES } from "./check.js";

/** `a.b[2]: Expected number`: where in the value and which rule. */
const describeOne = (failure: Fail): string => {
  let where = "";
  for (const step of failure.path)
    where += typeof step === "number" ? `[${step}]` : where ? `.${step}` : step;
  return where ? `${where}: ${failure.message}` : failure.message;
};

/** Each failure a check returned, in its order, described. */
export const describeEach = (failure: Fail): string[] => failuresOf(failure).map(describeOne);

/**
 * Every failure a check returned, in its order, `; ` between them (`a: Required; b[2]: Expected number`);
 * at `MAX_FAILURES` it says the list may be cut short.
 */
export function describeFailure(failure: Fail): string {
  const all = describeEach(failure);
  return `${all.join("; ")}${cutShort(all.length)}`;
}

/** What ends a list of `count` failures: at `MAX_FAILURES`, that the check stopped there. */
export const cutShort = (count: number): string =>
  count < MAX_FAILURES ? "" : `; (the first ${MAX_FAILURES} problems; there may be more)`;
