/**
 * How a token request authenticates the client (RFC 6749 §2.3, RFC 7523 §2.2): each authenticator adds
 * its part to the form and headers of one request, called again for every attempt so that an assertion is
 * never reused.
 */

import { CLIENT_ASSERTION_TYPE, signClientAssertion } from "./client-assertion.js";

export interface TokenRequestParts {
  readonly form: URLSearchParams;
  readonly headers: Headers;
  /** The authorization server's issuer identifier (a client assertion's audience). */
  readonly issuer: string;
  readonly tokenEndpoint: string;
}

export type ClientAuthenticator = (request: TokenRequestParts) => Promise<void> | void;

/** A public client: its id in the form, no secret (`none`). */
export function publicClient(clientId: string): ClientAuthenticator {
  return ({ form }) => form.set("client_id", clientId);
}

/**
 * `client_secret_basic`: id and secret form-encoded, then joined by a colon in Basic credentials (RFC 6749
 * §2.3.1), so that a colon or non-ASCII character in either survives.
 */
export function clientSecretBasic(clientId: string, clientSecret: string): ClientAuthenticator {
  const credentials = `${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret)}`;
  const encoded = btoa(String.fromCharCode(...new TextEncoder().encode(credentials)));
  return ({ headers }) => headers.set("authorization", `Basic ${encoded}`);
}

/** `client_secret_post`: id and secret in the form. */
export function clientSecretPost(clientId: string, clientSecret: string): ClientAuthenticator {
  return ({ form }) => {
    form.set("client_id", clientId);
    form.set("client_secret", clientSecret);
  };
}

/** `private_key_jwt`: a fresh assertion signed with the client's key, audience the issuer. */
export function privateKeyJwt(
  clientId: string,
  privateKey: CryptoKey,
  algorithm: string,
): ClientAuthenticator {
  return async ({ form, issuer }) => {
    form.set("client_id", clientId);
    form.set("client_assertion_type", CLIENT_ASSERTION_TYPE);
    form.set(
      "client_assertion",
      await signClientAssertion({ clientId, audience: issuer, privateKey, algorithm }),
    );
  };
}
