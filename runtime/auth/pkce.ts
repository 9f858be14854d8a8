/**
 * PKCE (RFC 7636) with S256, the only method MCP clients use. Web Crypto only.
 */

import { toBase64Url, utf8Bytes } from "../util/base64.js";
import { OAuthClientError } from "./errors.js";

export interface Pkce {
  /** 43 characters of base64url over 32 random bytes: kept by the client until the token request. */
  readonly verifier: string;
  readonly challenge: string;
  readonly method: "S256";
}

export async function s256(verifier: string): Promise<string> {
  return toBase64Url(new Uint8Array(await crypto.subtle.digest("SHA-256", utf8Bytes(verifier))));
}

export async function createPkce(): Promise<Pkce> {
  const verifier = toBase64Url(crypto.getRandomValues(new Uint8Array(32)));
  return { verifier, challenge: await s256(verifier), method: "S256" };
}

/**
 * Refuses an authorization server whose metadata lists `code_challenge_methods_supported` without S256
 * (the spec: clients MUST refuse to proceed). Metadata that omits the field, and the 2025-03-26 default
 * endpoints with no metadata at all, are given the benefit of the doubt: S256 is still sent.
 */
export function assertS256(
  metadata: { code_challenge_methods_supported?: readonly string[] },
  issuer: string,
) {
  const methods = metadata.code_challenge_methods_supported;
  if (methods !== undefined && !methods.includes("S256"))
    throw new OAuthClientError(
      "pkce_unsupported",
      `the authorization server ${issuer} does not support PKCE with S256 (code_challenge_methods_supported: ${JSON.stringify(methods)})`,
    );
}

/** A random `state` value: 128 bits of base64url. */
export const randomState = () => toBase64Url(crypto.getRandomValues(new Uint8Array(16)));
