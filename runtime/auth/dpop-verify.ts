/**
 * DPoP proofs (RFC 9449) as a resource server checks them (§4.3, §7): a JWT of type `dpop+jwt`, signed
 * with an asymmetric algorithm by the key in its own `jwk` header; `htm`/`htu` naming this request
 * (`htu` without query or fragment); `iat` recent; `jti` not seen before (a bounded replay cache);
 * `ath` the hash of the access token; the key's thumbprint equal to the token's `cnf.jkt`; and, when
 * server nonces are on (§9), a `nonce` this server issued (else `use_dpop_nonce` with a fresh one).
 */

import { calculateJwkThumbprint, EmbeddedJWK, errors, jwtVerify } from "jose";
import { toBase64Url } from "../util/base64.js";
import { accessTokenHash } from "./access-token-hash.js";
import { ASYMMETRIC_ALGORITHMS } from "./algorithms.js";

export const DEFAULT_DPOP_ALGORITHMS: readonly string[] = ASYMMETRIC_ALGORITHMS;

export interface DpopOptions {
  /** Proof algorithms accepted (default DEFAULT_DPOP_ALGORITHMS); `none` and HS* are refused. */
  algorithms?: readonly string[];
  /** How old a proof's `iat` may be, seconds (default 60). */
  maxAgeSec?: number;
  /** Clock skew allowed on `iat`, either way, seconds (default 30). */
  clockToleranceSec?: number;
  /** `jti`s remembered at most (default 10,000; the oldest is forgotten first). */
  maxJtis?: number;
  /** Require server-issued nonces (RFC 9449 §9); `rotateSec`: how long one nonce is current (default 300). */
  nonces?: boolean | { rotateSec?: number };
  /** Clock (tests), ms since the epoch. */
  now?: () => number;
}

/** What a proof is checked against. */
export interface DpopCheck {
  /** The `DPoP` header (null when absent). */
  proof: string | null;
  method: string;
  /** The request's URI without query and fragment. */
  htu: string;
  /** The access token the proof must be bound to (`ath`). */
  token: string;
  /** The token's `cnf.jkt`, when the token is bound. */
  jkt?: string | undefined;
}

export type DpopResult =
  | { ok: true; jkt: string }
  | { ok: false; error: "invalid_dpop_proof" | "use_dpop_nonce"; description: string };

/** Checks proofs; keeps the replay cache and the server nonces of one resource server. */
export class DpopVerifier {
  readonly algorithms: readonly string[];
  readonly #maxAge: number;
  readonly #skew: number;
  readonly #maxJtis: number;
  readonly #rotateMs: number | undefined;
  readonly #now: () => number;
  /** `jkt jti` → when it may be forgotten (ms); Map order is insertion order. */
  readonly #seen = new Map<string, number>();
  #nonce: { current: string; previous: string | undefined; since: number } | undefined;

  constructor(options: DpopOptions = {}) {
    this.algorithms = [...(options.algorithms ?? DEFAULT_DPOP_ALGORITHMS)];
    for (const alg of this.algorithms) {
      if (alg === "none" || /^HS/i.test(alg)) throw new TypeError(`DPoP proofs are never signed with ${alg}`);
    }
    this.#maxAge = options.maxAgeSec ?? 60;
    this.#skew = options.clockToleranceSec ?? 30;
    this.#maxJtis = options.maxJtis ?? 10_000;
    const nonces = options.nonces;
    this.#rotateMs = nonces
      ? (typeof nonces === "object" ? (nonces.rotateSec ?? 300) : 300) * 1000
      : undefined;
    this.#now = options.now ?? Date.now;
  }

  /** The nonce clients must use now (undefined when nonces are off); rotates lazily. */
  get nonce(): string | undefined {
    if (this.#rotateMs === undefined) return undefined;
    const now = this.#now();
    if (this.#nonce === undefined || now - this.#nonce.since >= this.#rotateMs) {
      this.#nonce = { current: freshNonce(), previous: this.#nonce?.current, since: now };
    }
    return this.#nonce.current;
  }

  async verify(check: DpopCheck): Promise<DpopResult> {
    const fail = (description: string): DpopResult => ({
      ok: false,
      error: "invalid_dpop_proof",
      description,
    });
    if (check.proof === null || check.proof === "") return fail("a DPoP proof is required");
    if (check.proof.includes(",")) return fail("exactly one DPoP proof is allowed");
    let payload: Record<string, unknown>;
    let jwk: Record<string, unknown>;
    try {
      const verified = await jwtVerify(check.proof, EmbeddedJWK, {
        typ: "dpop+jwt",
        algorithms: [...this.algorithms],
      });
      payload = verified.payload;
      jwk = verified.protectedHeader.jwk as Record<string, unknown>;
    } catch (error) {
      if (error instanceof errors.JOSEError) return fail("the DPoP proof does not verify");
      throw error;
    }
    if (typeof payload.jti !== "string" || payload.jti === "") return fail("the DPoP proof has no jti");
    if (payload.htm !== check.method) return fail("the DPoP proof's htm is not this request's method");
    if (typeof payload.htu !== "string" || /[?#]/.test(payload.htu)) {
      return fail("the DPoP proof's htu is not a URI without query and fragment");
    }
    if (normalHtu(payload.htu) !== normalHtu(check.htu))
      return fail("the DPoP proof's htu is not this request's URI");
    const now = this.#now() / 1000;
    const iat = payload.iat;
    if (typeof iat !== "number" || iat > now + this.#skew || iat < now - this.#maxAge - this.#skew) {
      return fail("the DPoP proof's iat is outside the accepted window");
    }
    if (payload.ath !== (await accessTokenHash(check.token)))
      return fail("the DPoP proof is not bound to this token");
    const jkt = await calculateJwkThumbprint(jwk, "sha256");
    if (check.jkt !== undefined && jkt !== check.jkt)
      return fail("the DPoP proof's key is not the token's key");
    if (this.#rotateMs !== undefined) {
      const current = this.nonce;
      const nonce = payload.nonce;
      if (nonce !== current && (nonce === undefined || nonce !== this.#nonce?.previous)) {
        return { ok: false, error: "use_dpop_nonce", description: "use the DPoP nonce this server gives" };
      }
    }
    // Replays last: a proof refused for its nonce is retried with another jti anyway.
    if (!this.#firstUse(`${jkt} ${payload.jti}`, (iat + this.#maxAge + 2 * this.#skew) * 1000)) {
      return fail("the DPoP proof was already used");
    }
    return { ok: true, jkt };
  }

  #firstUse(key: string, forgetAt: number): boolean {
    const now = this.#now();
    const until = this.#seen.get(key);
    if (until !== undefined && until > now) return false;
    if (this.#seen.size >= this.#maxJtis) {
      for (const [k, t] of this.#seen) {
        if (t <= now) this.#seen.delete(k);
        else break;
      }
      if (this.#seen.size >= this.#maxJtis) this.#seen.delete(this.#seen.keys().next().value!);
    }
    this.#seen.set(key, forgetAt);
    return true;
  }
}

/** Scheme and host lower case, default port dropped, no trailing slash (RFC 9449 §4.3: syntax-based normalization). */
function normalHtu(uri: string): string {
  try {
    const u = new URL(uri);
    return `${u.protocol}//${u.host}${u.pathname.replace(/\/+$/, "")}`;
  } catch {
    return "";
  }
}

function freshNonce(): string {
  return toBase64Url(crypto.getRandomValues(new Uint8Array(24)));
}
