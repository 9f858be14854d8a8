/**
 * Why an OAuth client stopped. `code` is the OAuth error when a server gave one (`invalid_grant`, …) or
 * one of the client's own reasons; messages name URLs and fields, never a token or a secret.
 */

export type OAuthClientReason =
  | "discovery_failed"
  | "resource_mismatch"
  | "issuer_mismatch"
  | "pkce_unsupported"
  | "registration_unavailable"
  | "state_mismatch"
  | "iss_mismatch"
  | "iss_missing"
  | "authorization_failed"
  | "token_request_failed"
  | "invalid_token_response";

export class OAuthClientError extends Error {
  constructor(
    /** An OAuth error code from the server, or the client's reason. */
    readonly code: OAuthClientReason | (string & {}),
    message: string,
    /** The HTTP status of the response that failed, if one did. */
    readonly status?: number,
  ) {
    super(message);
    this.name = "OAuthClientError";
  }
}
