/** The authorization request URL (OAuth 2.1 §4.1.1 with PKCE, RFC 8707 `resource`). */

import { OAuthClientError } from "./errors.js";
import type { Pkce } from "./pkce.js";

export interface AuthorizationRequest {
  readonly authorizationEndpoint: string;
  readonly clientId: string;
  readonly redirectUri: string;
  readonly pkce: Pkce;
  readonly state: string;
  /** Omitted from the URL when undefined (the spec: no scope to ask for, no parameter). */
  readonly scope?: string;
  readonly resource?: string;
}

/**
 * The URL to send the user to. The endpoint comes from metadata a server chose, and the URL is about to
 * be opened by a browser or the OS: anything but an http(s) URL (`javascript:`, `file:`, a custom scheme
 * that starts a program) is refused.
 */
export function authorizationUrl(request: AuthorizationRequest): URL {
  let url: URL;
  try {
    url = new URL(request.authorizationEndpoint);
  } catch {
    throw new OAuthClientError(
      "discovery_failed",
      `the authorization endpoint is not a URL: ${JSON.stringify(request.authorizationEndpoint)}`,
    );
  }
  if (url.protocol !== "https:" && url.protocol !== "http:")
    throw new OAuthClientError(
      "discovery_failed",
      `the authorization endpoint ${JSON.stringify(request.authorizationEndpoint)} is not an http(s) URL: refused`,
    );
  const set = (name: string, value: string | undefined) => {
    if (value !== undefined) url.searchParams.set(name, value);
  };
  set("response_type", "code");
  set("client_id", request.clientId);
  set("redirect_uri", request.redirectUri);
  set("code_challenge", request.pkce.challenge);
  set("code_challenge_method", request.pkce.method);
  set("state", request.state);
  set("scope", request.scope);
  set("resource", request.resource);
  return url;
}
