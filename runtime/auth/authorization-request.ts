/** The authorization request URL (OAuth 2.1 §4.1.1 with PKCE, RFC 8707 `resource`). */

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

export function authorizationUrl(request: AuthorizationRequest): URL {
  const url = new URL(request.authorizationEndpoint);
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
