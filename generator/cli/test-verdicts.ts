/**
 * The verdicts of `mcp-codegen test` on one call's outcome: does the answer to valid arguments hold to
 * the contract, and is the answer to wrong arguments a refusal that names the argument at fault.
 */

import type { CheckFn } from "../contract/checks.js";
import type { CallOutcome } from "./test-session.js";

const INVALID_PARAMS = -32602;

export const show = (value: unknown): string => {
  const text = JSON.stringify(value);
  return text === undefined ? String(value) : text;
};

/** `a.b[2]: Expected number`. */
export function where(failure: { path: (string | number)[]; message: string }): string {
  let at = "";
  for (const step of failure.path) at += typeof step === "number" ? `[${step}]` : at ? `.${step}` : step;
  return at ? `${at}: ${failure.message}` : failure.message;
}

export function describeOutcome(outcome: Exclude<CallOutcome, { kind: "result" }>): string {
  if (outcome.kind === "lost") return outcome.message;
  return `JSON-RPC error ${outcome.code}: ${outcome.message}${outcome.data === undefined ? "" : ` ${show(outcome.data)}`}`;
}

/** Whether `text` names `field` as a word of its own: `a` is named by "a: Expected number", not by "add". */
function names(text: string, field: string): boolean {
  const escaped = field.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp(`(?:^|[^\\p{L}\\p{N}_$])${escaped}(?:$|[^\\p{L}\\p{N}_$])`, "u").test(text);
}

/** Why `outcome` is not a refusal naming `field` (an isError result or a -32602 error), or undefined. */
export function refusalProblem(outcome: CallOutcome, field: string): string | undefined {
  if (outcome.kind === "lost") return outcome.message;
  if (outcome.kind === "error") {
    if (outcome.code !== INVALID_PARAMS)
      return `answered ${describeOutcome(outcome)}, not -32602 or an isError result`;
    return names(`${outcome.message} ${show(outcome.data ?? "")}`, field)
      ? undefined
      : `the -32602 error does not name ${field}: ${describeOutcome(outcome)}`;
  }
  const result = outcome.result;
  if (result.isError !== true) return `accepted: answered ${show(result)}`;
  const text = Array.isArray(result.content)
    ? result.content.map((c) => (c as { type?: string; text?: string }).text ?? "").join("\n")
    : "";
  return names(text, field)
    ? undefined
    : `refused, but the isError text does not name ${field}: ${show(text)}`;
}

/**
 * What is wrong with the answer to valid arguments, or undefined: no JSON-RPC error, and with an
 * outputSchema (`output`) structuredContent it accepts, unless the tool answered isError.
 */
export function answerProblem(outcome: CallOutcome, output: CheckFn | undefined): string | undefined {
  if (outcome.kind !== "result") return describeOutcome(outcome);
  const result = outcome.result;
  if (result.isError === true || !output) return undefined;
  if (result.structuredContent === undefined)
    return "no structuredContent in the result, though the tool declares an outputSchema";
  const wrong = output(result.structuredContent);
  return wrong
    ? `structuredContent fails the outputSchema at ${where(wrong)}; it was ${show(result.structuredContent)}`
    : undefined;
}
