/**
 * Access tokens a verifier accepted and what each granted, reused until the earlier of the token's expiry
 * and a time-to-live, so that a client sending the same token on every request pays for one signature
 * check rather than one per request. Only accepted tokens enter, so filling it takes tokens the issuer
 * signed (or the introspection endpoint judged active), and it holds at most `maxEntries` (the oldest goes
 * first). `jwtVerifier` keys it by the token itself: a digest through WebCrypto (the only one the runtime
 * has off Node) costs about as much as the rest of a call; `introspectionVerifier` by a digest.
 */

import type { AuthInfo } from "../mcp/auth-info.js";

export class VerifiedTokens {
  /** Token → what it granted and until when (ms); Map order is insertion order. */
  readonly #entries = new Map<string, { info: AuthInfo; until: number }>();

  constructor(
    readonly ttlMs: number,
    readonly maxEntries: number,
  ) {}

  get size(): number {
    return this.#entries.size;
  }

  /** What `token` granted, if it was accepted and its entry still holds at `now` (ms since the epoch). */
  get(token: string, now: number): AuthInfo | undefined {
    const hit = this.#entries.get(token);
    if (hit === undefined) return undefined;
    if (hit.until > now) return hit.info;
    this.#entries.delete(token);
    return undefined;
  }

  /** Remembers that `token` granted `info` (frozen: every request with it shares it) from `now` on. */
  set(token: string, info: AuthInfo, now: number): void {
    const expiry = info.expiresAt !== undefined ? info.expiresAt * 1000 : Number.POSITIVE_INFINITY;
    const until = Math.min(now + this.ttlMs, expiry);
    if (until <= now || this.maxEntries < 1) return;
    if (!this.#entries.has(token) && this.#entries.size >= this.maxEntries) {
      this.#entries.delete(this.#entries.keys().next().value!);
    }
    this.#entries.set(token, { info, until });
  }
}
