/**
 * The authorization response a redirect brings back (RFC 6749 §4.1.2), checked before its code is used:
 * `state` must be the one sent, and the issuer as RFC 9207 §2.4 and the 2026-07-28 "Authorization
 * Response Validation" require: a present `iss` must equal the recorded issuer by simple string
 * comparison (no normalization), whatever the metadata says; an absent one is refused when the metadata
 * advertised `authorization_response_iss_parameter_supported`.
 */

import { OAuthClientError } from "./errors.js";

export interface AuthorizationResponse {
  readonly code?: string;
  readonly state?: string;
  readonly iss?: string;
  readonly error?: string;
  readonly error_description?: string;
}

/** The parameters of a redirect URL (query; a fragment too, for a response_mode that uses one). */
export function authorizationResponseFrom(redirect: URL): AuthorizationResponse {
  const params = new URLSearchParams(redirect.search);
  if (redirect.hash.length > 1)
    for (const [k, v] of new URLSearchParams(redirect.hash.slice(1))) if (!params.has(k)) params.set(k, v);
  const get = (name: string) => params.get(name) ?? undefined;
  const out: Record<string, string> = {};
  for (const name of ["code", "state", "iss", "error", "error_description"] as const) {
    const value = get(name);
    if (value !== undefined) out[name] = value;
  }
  return out;
}

export interface ExpectedResponse {
  readonly state: string;
  /** The issuer recorded with the PKCE verifier when the request was made. */
  readonly issuer: string;
  /** `authorization_response_iss_parameter_supported` of the metadata (false when there was none). */
  readonly issSupported: boolean;
}

/** The issuer verdict alone: undefined when acceptable, else why not. */
export function issuerProblem(
  iss: string | undefined,
  expected: Pick<ExpectedResponse, "issuer" | "issSupported">,
): OAuthClientError | undefined {
  if (iss !== undefined) {
    if (iss === expected.issuer) return undefined;
    return new OAuthClientError(
      "iss_mismatch",
      `the authorization response names issuer ${JSON.stringify(iss)}, not ${JSON.stringify(expected.issuer)} (RFC 9207): refused`,
    );
  }
  if (expected.issSupported)
    return new OAuthClientError(
      "iss_missing",
      `the authorization server ${expected.issuer} advertises the iss parameter but its response has none (RFC 9207): refused`,
    );
  return undefined;
}

/** The code, once state and issuer are right; a throw otherwise (an error response included). */
export function acceptAuthorizationResponse(
  response: AuthorizationResponse,
  expected: ExpectedResponse,
): string {
  const issuer = issuerProblem(response.iss, expected);
  // An error response from a mix-up attacker must not be shown as the real server's: the issuer first.
  if (issuer) throw issuer;
  if (response.state !== expected.state)
    throw new OAuthClientError(
      "state_mismatch",
      "the authorization response's state is not the one sent: refused",
    );
  if (response.error !== undefined)
    throw new OAuthClientError(
      response.error,
      `authorization refused by ${expected.issuer}: ${response.error}${response.error_description ? ` (${response.error_description})` : ""}`,
    );
  if (!response.code)
    throw new OAuthClientError("authorization_failed", "the authorization response carries no code");
  return response.code;
}
