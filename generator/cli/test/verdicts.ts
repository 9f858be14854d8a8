/**
 * The verdicts of `mcp-codegen test` on one call's outcome: does the answer to valid arguments (a tool's
 * result, a prompt's messages, a resource's contents) hold to the contract, and is the answer to wrong
 * arguments a refusal that names the argument or variable at fault.
 */

import type { CheckFn } from "../../contract/checks.js";
import type { CallOutcome } from "./session.js";

const INVALID_PARAMS = -32602;
/** resources/read of a URI that names nothing (handshake era); the stateless era answers -32602 instead. */
const RESOURCE_NOT_FOUND = -32002;

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
  if (outcome.kind === "malformed") return `answered ${outcome.message}`;
  return `JSON-RPC error ${outcome.code}: ${outcome.message}${outcome.data === undefined ? "" : ` ${show(outcome.data)}`}`;
}

/** Whether `text` names `field` as a word of its own: `a` is named by "a: Expected number", not by "add". */
function names(text: string, field: string): boolean {
  const escaped = field.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp(`(?:^|[^\\p{L}\\p{N}_$])${escaped}(?:$|[^\\p{L}\\p{N}_$])`, "u").test(text);
}

/**
 * Whether a resources/read answer says the resource does not exist: -32002, or the stateless era's
 * -32602 "Resource not found" (SEP-2164), told apart from a refused variable by its message.
 */
export function isNotFound(outcome: CallOutcome): outcome is Extract<CallOutcome, { kind: "error" }> {
  if (outcome.kind !== "error") return false;
  return (
    outcome.code === RESOURCE_NOT_FOUND ||
    (outcome.code === INVALID_PARAMS && /^resource not found\b/i.test(outcome.message))
  );
}

/** Why `outcome` is not a refusal naming `field` (an isError result or a -32602 error), or undefined. */
export function refusalProblem(outcome: CallOutcome, field: string): string | undefined {
  if (outcome.kind !== "result") return invalidParamsProblem(outcome, field, "-32602 or an isError result");
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
 * Why `outcome` is not a -32602 error naming `field`, or undefined: how prompts/get and resources/read
 * refuse (they have no isError result). `wanted` says what would have been a refusal.
 */
export function invalidParamsProblem(
  outcome: CallOutcome,
  field: string,
  wanted = "-32602",
): string | undefined {
  if (outcome.kind === "result") return `accepted: answered ${show(outcome.result)}`;
  if (outcome.kind !== "error") return describeOutcome(outcome);
  if (outcome.code !== INVALID_PARAMS) return `answered ${describeOutcome(outcome)}, not ${wanted}`;
  return names(`${outcome.message} ${show(outcome.data ?? "")}`, field)
    ? undefined
    : `the -32602 error does not name ${field}: ${describeOutcome(outcome)}`;
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

/** What is wrong with a `prompts/get` answer to valid arguments, or undefined: a result with `messages`. */
export function promptProblem(outcome: CallOutcome): string | undefined {
  if (outcome.kind !== "result") return describeOutcome(outcome);
  return Array.isArray(outcome.result.messages)
    ? undefined
    : `the result has no messages array: ${show(outcome.result)}`;
}

/**
 * What is wrong with a `resources/read` answer, or undefined: `contents` holds at least one item, each
 * with its `uri` and a `text` or a `blob`.
 */
export function contentsProblem(outcome: CallOutcome): string | undefined {
  if (outcome.kind !== "result") return describeOutcome(outcome);
  const contents = outcome.result.contents;
  if (!Array.isArray(contents)) return `the result has no contents array: ${show(outcome.result)}`;
  if (contents.length === 0) return "the result's contents array is empty";
  for (const [i, item] of contents.entries()) {
    const c = (typeof item === "object" && item !== null ? item : {}) as Record<string, unknown>;
    if (typeof c.uri !== "string") return `contents[${i}] has no uri: ${show(item)}`;
    if (typeof c.text !== "string" && typeof c.blob !== "string")
      return `contents[${i}] has neither text nor blob: ${show(item)}`;
  }
  return undefined;
}
