/**
 * Multi round-trip requests (stateless lifecycle): a handler that needs the client's input (elicitation,
 * sampling, roots) answers with an InputRequiredResult, and the client retries the request with
 * `inputResponses` and the `requestState` it was given. The runtime keeps a handler's earlier answers in
 * that state, sealed with an HMAC so a client cannot forge or alter them, and replays them when the
 * handler asks again on the retry: `ctx.elicit(...)` reads as one call in either era.
 */

import type * as NodeCrypto from "node:crypto";
import { ErrorCode, McpError } from "./jsonrpc/messages.js";
import { RESULT_TYPE } from "./lifecycle/modern.js";

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

/** What the sealed `requestState` carries from one round to the next. */
export interface RoundState {
  /** The method and target (tool/prompt name, resource uri) the state belongs to. */
  method: string;
  target: string | undefined;
  /** Answers the handler consumed in earlier rounds, by input key. */
  answers: Record<string, unknown>;
  /** Keys asked for in the last round, with their methods (to validate the retry's inputResponses). */
  asked: Record<string, string>;
  /** The handler's own requestState, if it returned one. */
  user?: string;
  /** Expiry, ms since the epoch. */
  expires: number;
}

const SEP = ".";

let loaded: typeof NodeCrypto | undefined;
/**
 * node:crypto, loaded on the first seal or open rather than at import: a server whose clients never need
 * a multi round-trip request (every 2025-era session) does not pay for loading it at startup.
 */
const nodeCrypto = (): typeof NodeCrypto => (loaded ??= process.getBuiltinModule("node:crypto"));

/** Seals and opens round states: base64url(JSON) "." base64url(HMAC-SHA256). */
export class StateSealer {
  #key: Buffer | undefined;

  constructor(
    private readonly secret: string | Uint8Array | undefined,
    readonly ttlMs: number,
  ) {}

  /** The HMAC key: the given secret, or 32 random bytes drawn on first use. */
  private get key(): Buffer {
    this.#key ??= this.secret === undefined ? nodeCrypto().randomBytes(32) : Buffer.from(this.secret);
    return this.#key;
  }

  seal(state: RoundState): string {
    const body = Buffer.from(JSON.stringify(state), "utf8").toString("base64url");
    return `${body}${SEP}${this.mac(body)}`;
  }

  /** The state, or an InvalidParams error when it was altered, forged, expired or belongs elsewhere. */
  open(token: unknown, method: string, target: string | undefined): RoundState {
    const fail = (why: string) =>
      new McpError(ErrorCode.InvalidParams, `requestState integrity check failed: ${why}`);
    if (typeof token !== "string") throw fail("not a string");
    const cut = token.lastIndexOf(SEP);
    if (cut <= 0) throw fail("malformed");
    const body = token.slice(0, cut);
    const given = Buffer.from(token.slice(cut + 1), "utf8");
    const expected = Buffer.from(this.mac(body), "utf8");
    if (given.length !== expected.length || !nodeCrypto().timingSafeEqual(given, expected))
      throw fail("bad signature");
    let state: RoundState;
    try {
      state = JSON.parse(Buffer.from(body, "base64url").toString("utf8")) as RoundState;
    } catch {
      throw fail("malformed");
    }
    if (state.method !== method || state.target !== target) throw fail("issued for another request");
    if (Date.now() > state.expires) throw fail("expired");
    return state;
  }

  private mac(body: string): string {
    return nodeCrypto().createHmac("sha256", this.key).update(body).digest("base64url");
  }
}

/** The input state of one request round: answers available to the handler and questions it asked. */
export class Round {
  /** Answers the handler read this round (what the next round must replay). */
  readonly consumed: Record<string, unknown> = {};
  readonly pending = new Map<string, InputRequest>();
  private readonly counters = new Map<string, number>();

  constructor(
    /** Earlier rounds' answers and this retry's inputResponses, by key. */
    readonly answers: Readonly<Record<string, unknown>>,
  ) {}

  /** The key of an input request: the caller's, or the handler name and a count (`elicit-1`). */
  keyFor(handler: string, given: string | undefined): string {
    if (given !== undefined) return given;
    const n = (this.counters.get(handler) ?? 0) + 1;
    this.counters.set(handler, n);
    return `${handler}-${n}`;
  }
}
