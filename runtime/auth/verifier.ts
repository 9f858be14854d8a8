/**
 * What a token verifier is: a function from an access token (and the request carrying it) to the
 * `AuthInfo` it grants, throwing `InvalidToken` to refuse. `jwtVerifier` and `introspectionVerifier`
 * make one; a user-supplied verifier is any function of the same type.
 */

import type { AuthInfo } from "../mcp/auth-info.js";

/** The request a token came with, as far as verifiers and DPoP checks need it. */
export interface AuthRequest {
  readonly method: string;
  /** Path and query, as in the request line. */
  readonly url: string;
  /** A header by lower-case name; several values joined by ", ". */
  header(name: string): string | null;
}

export type TokenVerifier = (token: string, request: AuthRequest) => Promise<AuthInfo>;

/**
 * The token is not acceptable (expired, wrong audience, bad signature, inactive…): answered 401
 * `error="invalid_token"`. `description` goes to the client: it must never contain the token.
 */
export class InvalidToken extends Error {
  override readonly name = "InvalidToken";
  constructor(readonly description: string) {
    super(description);
  }
}

/** The scopes of a claim set: `scope` (space-separated, RFC 9068/8693) or `scp` (a list or a string). */
export function scopesOf(claims: Record<string, unknown>, claim = "scope"): string[] {
  const value = claims[claim] ?? (claim === "scope" ? claims.scp : undefined);
  if (typeof value === "string") return value.split(" ").filter((s) => s !== "");
  if (Array.isArray(value)) return value.filter((s): s is string => typeof s === "string");
  return [];
}

/**
 * The AuthInfo of verified claims (a JWT payload or an introspection answer), frozen through and through:
 * a verifier's cache hands the same one to every request with that token, so a handler must not be able
 * to change what a later request is granted.
 */
export function authInfoOf(
  claims: Record<string, unknown>,
  resource: string | undefined,
  scopeClaim = "scope",
): AuthInfo {
  const clientId =
    typeof claims.client_id === "string"
      ? claims.client_id
      : typeof claims.azp === "string"
        ? claims.azp
        : undefined;
  const subject = typeof claims.sub === "string" && claims.sub !== "" ? claims.sub : clientId;
  if (subject === undefined) throw new InvalidToken("the token names no subject");
  return Object.freeze({
    subject,
    ...(clientId !== undefined ? { clientId } : {}),
    scopes: Object.freeze(scopesOf(claims, scopeClaim)),
    ...(typeof claims.exp === "number" ? { expiresAt: claims.exp } : {}),
    ...(typeof claims.iss === "string" ? { issuer: claims.iss } : {}),
    ...(resource !== undefined ? { resource } : {}),
    claims: deepFreeze({ ...claims }),
  });
}

/** `value` with every object and array in it frozen (each before its members: cycles end). */
function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

/** The audiences of a claim set (`aud` as a string or a list). */
export function audiencesOf(claims: Record<string, unknown>): string[] {
  const aud = claims.aud;
  if (typeof aud === "string") return [aud];
  if (Array.isArray(aud)) return aud.filter((a): a is string => typeof a === "string");
  return [];
}
