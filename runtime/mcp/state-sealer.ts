/**
 * Sealing of the `requestState` a stateless-era server hands a client between input rounds: the state
 * travels as base64url(JSON) "." base64url(HMAC-SHA256), so a client can neither forge nor alter the
 * answers it carries. WebCrypto only: the same code runs on Node, Bun, Deno and Workers.
 */

import { ErrorCode, McpError } from "../jsonrpc/messages.js";
import { fromBase64Url, toBase64Url, utf8Bytes, utf8Text } from "../util/base64.js";

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

export class StateSealer {
  #key: Promise<CryptoKey> | undefined;

  constructor(
    private readonly secret: string | Uint8Array | undefined,
    readonly ttlMs: number,
  ) {}

  /** The HMAC key: the given secret, or 32 random bytes drawn on first use. */
  #hmacKey(): Promise<CryptoKey> {
    this.#key ??= crypto.subtle.importKey(
      "raw",
      this.secret === undefined
        ? crypto.getRandomValues(new Uint8Array(32))
        : typeof this.secret === "string"
          ? utf8Bytes(this.secret)
          : new Uint8Array(this.secret),
      { name: "HMAC", hash: "SHA-256" },
      false,
      ["sign", "verify"],
    );
    return this.#key;
  }

  async seal(state: RoundState): Promise<string> {
    const body = toBase64Url(utf8Bytes(JSON.stringify(state)));
    const mac = await crypto.subtle.sign("HMAC", await this.#hmacKey(), utf8Bytes(body));
    return `${body}${SEP}${toBase64Url(new Uint8Array(mac))}`;
  }

  /** The state, or an InvalidParams error when it was altered, forged, expired or belongs elsewhere. */
  async open(token: unknown, method: string, target: string | undefined): Promise<RoundState> {
    const fail = (why: string) =>
      new McpError(ErrorCode.InvalidParams, `requestState integrity check failed: ${why}`);
    if (typeof token !== "string") throw fail("not a string");
    const cut = token.lastIndexOf(SEP);
    if (cut <= 0) throw fail("malformed");
    const body = token.slice(0, cut);
    const mac = fromBase64Url(token.slice(cut + 1));
    // verify() compares in constant time.
    if (!mac || !(await crypto.subtle.verify("HMAC", await this.#hmacKey(), mac, utf8Bytes(body))))
      throw fail("bad signature");
    let state: RoundState;
    try {
      state = JSON.parse(utf8Text(fromBase64Url(body) ?? new Uint8Array())) as RoundState;
    } catch {
      throw fail("malformed");
    }
    if (state.method !== method || state.target !== target) throw fail("issued for another request");
    if (Date.now() > state.expires) throw fail("expired");
    return state;
  }
}
