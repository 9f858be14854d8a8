/**
 * A TokenVerifier for JWT access tokens (RFC 9068) signed by the authorization server's keys: signature
 * against its JWKS (fetched, cached, refetched on an unknown `kid` at most once per cooldown), issuer,
 * audience (this server's canonical resource URI, RFC 8707), expiry and not-before with a bounded clock
 * skew, and an algorithm allow-list that never admits `none` nor a symmetric (HS*) algorithm. A token
 * accepted once is taken on trust for `cacheTtlSec` (60 s; never past its expiry): what it grants
 * cannot change meanwhile but by its key leaving the JWKS, and a removed key is trusted until the next
 * JWKS fetch anyway (up to `jwksCacheMaxAgeMs`, 10 min).
 */

import {
  createLocalJWKSet,
  createRemoteJWKSet,
  errors,
  type JSONWebKeySet,
  type JWTVerifyGetKey,
  jwtVerify,
} from "jose";
import { ASYMMETRIC_ALGORITHMS } from "./algorithms.js";
import { canonicalResource } from "./protected-resource.js";
import { VerifiedTokens } from "./verified-tokens.js";
import { authInfoOf, InvalidToken, type TokenVerifier } from "./verifier.js";

/** Asymmetric algorithms only: the keys come from a public JWKS. */
export const DEFAULT_JWT_ALGORITHMS: readonly string[] = ASYMMETRIC_ALGORITHMS;

export const DEFAULT_CLOCK_TOLERANCE_SEC = 30;
export const MAX_CLOCK_TOLERANCE_SEC = 60;

export interface JwtVerifierOptions {
  /** The issuer (`iss`) accepted, or several. */
  issuer: string | readonly string[];
  /** The audience the token must name: this server's resource URI (made canonical), or several. */
  audience: string | readonly string[];
  /** Where the issuer publishes its keys (`jwks_uri` of its metadata). */
  jwksUri?: string | URL;
  /** Or the keys themselves. */
  jwks?: JSONWebKeySet;
  /** Allowed signing algorithms (default DEFAULT_JWT_ALGORITHMS); `none` and HS* are refused. */
  algorithms?: readonly string[];
  /** Clock skew allowed on `exp`/`nbf`/`iat`, seconds (default 30, at most 60). */
  clockToleranceSec?: number;
  /** The claim holding the scopes (default `scope`, then `scp`). */
  scopeClaim?: string;
  /** Required `typ` header (e.g. `at+jwt`, RFC 9068); default: any. */
  typ?: string;
  /** Least time between two JWKS fetches (the rate limit on unknown `kid`s), ms (default 30 s). */
  jwksCooldownMs?: number;
  /** How long fetched keys are trusted before a refetch, ms (default 10 min). */
  jwksCacheMaxAgeMs?: number;
  /** JWKS fetch timeout, ms (default 5 s). */
  jwksTimeoutMs?: number;
  /** Longest an accepted token is taken on trust without a new check, seconds (default 60; 0: no cache). */
  cacheTtlSec?: number;
  /** Accepted tokens remembered at most (default 1000; the oldest goes first). */
  maxEntries?: number;
  /** Clock (tests), ms since the epoch. */
  now?: () => number;
}

/** jose error codes that mean the token is bad (anything else is the server's trouble, e.g. the JWKS is down). */
const TOKEN_FAULTS: ReadonlySet<string> = new Set([
  errors.JWTExpired.code,
  errors.JWTClaimValidationFailed.code,
  errors.JOSEAlgNotAllowed.code,
  errors.JOSENotSupported.code,
  errors.JWSInvalid.code,
  errors.JWTInvalid.code,
  errors.JWKInvalid.code,
  errors.JWKSNoMatchingKey.code,
  errors.JWKSMultipleMatchingKeys.code,
  errors.JWSSignatureVerificationFailed.code,
]);

/** A TokenVerifier for JWTs from `options.issuer`; throws TypeError/RangeError on bad options. */
export function jwtVerifier(options: JwtVerifierOptions): TokenVerifier {
  const algorithms = [...(options.algorithms ?? DEFAULT_JWT_ALGORITHMS)];
  for (const alg of algorithms) {
    if (alg === "none" || /^HS/i.test(alg)) {
      throw new TypeError(`algorithm ${alg} cannot verify tokens against public keys`);
    }
  }
  const tolerance = options.clockToleranceSec ?? DEFAULT_CLOCK_TOLERANCE_SEC;
  if (!(tolerance >= 0 && tolerance <= MAX_CLOCK_TOLERANCE_SEC)) {
    throw new RangeError(`clockToleranceSec must be within 0..${MAX_CLOCK_TOLERANCE_SEC}`);
  }
  const keys = keySet(options);
  const audiences = (typeof options.audience === "string" ? [options.audience] : options.audience).map((a) =>
    canonicalResource(a),
  );
  const issuers = typeof options.issuer === "string" ? [options.issuer] : [...options.issuer];
  const now = options.now;
  const clock = now ?? Date.now;
  const accepted = new VerifiedTokens((options.cacheTtlSec ?? 60) * 1000, options.maxEntries ?? 1000);
  return async (token) => {
    const known = accepted.get(token, clock());
    if (known !== undefined) return known;
    let payload: Record<string, unknown>;
    try {
      ({ payload } = await jwtVerify(token, keys, {
        algorithms,
        issuer: issuers,
        audience: audiences,
        clockTolerance: tolerance,
        requiredClaims: ["exp"],
        ...(options.typ !== undefined ? { typ: options.typ } : {}),
        ...(now ? { currentDate: new Date(now()) } : {}),
      }));
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (typeof code === "string" && TOKEN_FAULTS.has(code)) throw new InvalidToken(describeFault(error));
      throw error;
    }
    const info = authInfoOf(payload, audienceMatched(payload.aud, audiences), options.scopeClaim);
    accepted.set(token, info, clock());
    return info;
  };
}

function keySet(options: JwtVerifierOptions): JWTVerifyGetKey {
  if (options.jwks) return createLocalJWKSet(options.jwks);
  if (options.jwksUri === undefined) throw new TypeError("jwtVerifier needs jwksUri or jwks");
  return createRemoteJWKSet(new URL(options.jwksUri), {
    cooldownDuration: options.jwksCooldownMs ?? 30_000,
    cacheMaxAge: options.jwksCacheMaxAgeMs ?? 600_000,
    timeoutDuration: options.jwksTimeoutMs ?? 5_000,
  });
}

function audienceMatched(aud: unknown, audiences: readonly string[]): string | undefined {
  const named = typeof aud === "string" ? [aud] : Array.isArray(aud) ? aud : [];
  return audiences.find((a) => named.includes(a));
}

/** What the client is told: the kind of fault, never the token or a claim's value. */
function describeFault(error: unknown): string {
  if (error instanceof errors.JWTExpired) return "the token has expired";
  if (error instanceof errors.JWTClaimValidationFailed) {
    switch (error.claim) {
      case "nbf":
        return "the token is not valid yet";
      case "iat":
        return "the token's issue time is in the future";
      case "aud":
        return "the token is not for this resource";
      case "iss":
        return "the token is not from a trusted issuer";
      default:
        return `the token's ${error.claim} claim is not acceptable`;
    }
  }
  if (error instanceof errors.JOSEAlgNotAllowed) return "the token's algorithm is not accepted";
  if (error instanceof errors.JWKSNoMatchingKey) return "no key of the issuer matches the token";
  if (error instanceof errors.JWSSignatureVerificationFailed) return "the token's signature does not verify";
  return "the token is malformed";
}
