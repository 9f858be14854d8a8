/**
 * Multi round-trip requests (stateless lifecycle): a handler that needs the client's input (elicitation,
 * sampling, roots) answers with an InputRequiredResult, and the client retries the request with
 * `inputResponses` and the `requestState` it was given. The runtime keeps a handler's earlier answers in
 * that state (sealed: state-sealer.ts), and replays them when the handler asks again on the retry:
 * `ctx.elicit(...)` reads as one call in either era.
 */

import { RESULT_TYPE } from "./request-meta.js";
import type { SealingKey } from "./state-sealer.js";

/** An input request inside an InputRequiredResult: a method and its params, no id. */
export interface InputRequest {
  method: string;
  params?: unknown;
}

export interface InputRequiredResult {
  resultType: typeof RESULT_TYPE.inputRequired;
  inputRequests?: Record<string, InputRequest>;
  requestState?: string;
  [key: string]: unknown;
}

/**
 * A result asking the client for input; `requestState` is the handler's own (opaque to the client,
 * sealed by the runtime, handed back in `params.requestState` on the retry).
 */
export function inputRequired(result: {
  inputRequests?: Record<string, InputRequest>;
  requestState?: string;
}): InputRequiredResult {
  if (!result.inputRequests && result.requestState === undefined)
    throw new TypeError("an InputRequiredResult needs inputRequests or requestState");
  return { resultType: RESULT_TYPE.inputRequired, ...result };
}

export const isInputRequired = (value: unknown): value is InputRequiredResult =>
  typeof value === "object" &&
  value !== null &&
  (value as { resultType?: unknown }).resultType === RESULT_TYPE.inputRequired;

/** Thrown into a handler awaiting input it does not have yet: the runtime answers InputRequiredResult. */
export const INPUT_PENDING: unique symbol = Symbol("mcp-codegen.inputPending");

/** The input state of one request round: answers available to the handler and questions it asked. */
export class Round {
  /** Answers the handler read this round (what the next round must replay). */
  readonly consumed: Record<string, unknown> = {};
  readonly pending = new Map<string, InputRequest>();
  private readonly counters = new Map<string, number>();

  constructor(
    /** Earlier rounds' answers and this retry's inputResponses, by key. */
    readonly answers: Readonly<Record<string, unknown>>,
    /** The request's params as the client sent them (round-binding.ts): what the next state binds. */
    readonly params: string,
    /** The key the next state is sealed with, when read already (a retry's: see StateSealer.openWithSealing). */
    readonly sealing?: SealingKey,
  ) {}

  /** The key of an input request: the caller's, or the handler name and a count (`elicit-1`). */
  keyFor(handler: string, given: string | undefined): string {
    if (given !== undefined) return given;
    const n = (this.counters.get(handler) ?? 0) + 1;
    this.counters.set(handler, n);
    return `${handler}-${n}`;
  }
}

/** The tool or prompt name, or resource uri, a request is about (what a sealed state is bound to). */
export function targetOf(params: Record<string, unknown>): string | undefined {
  const target = params.name ?? params.uri;
  return typeof target === "string" ? target : undefined;
}
