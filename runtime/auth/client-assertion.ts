/**
 * `private_key_jwt` client authentication (RFC 7523 §2.2, OpenID Connect Core §9): the client proves who
 * it is with a short-lived JWT signed by its own key, instead of a shared secret.
 */

import { importPKCS8, SignJWT } from "jose";
import { ASYMMETRIC_ALGORITHMS } from "./algorithms.js";
import type { ClientAuthentication } from "./client-auth.js";

export const CLIENT_ASSERTION_TYPE = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";

/** Signing algorithms a client key may use: asymmetric only (a MAC key is a client secret). */
const ASSERTION_ALGORITHMS: ReadonlySet<string> = new Set(ASYMMETRIC_ALGORITHMS);

export interface ClientAssertionOptions {
  readonly clientId: string;
  /**
   * The authorization server's issuer identifier: RFC 7523bis makes it the one audience value, so an
   * assertion cannot be replayed at another server's endpoint.
   */
  readonly audience: string;
  readonly privateKey: CryptoKey;
  readonly algorithm: string;
  /** Seconds the assertion stays valid; short, since it is made for one request. Default 60. */
  readonly lifetimeSeconds?: number;
}

/** Imports a PKCS#8 PEM private key for client assertions, refusing a symmetric or unknown algorithm. */
export async function importClientKey(pem: string, algorithm: string): Promise<CryptoKey> {
  if (!ASSERTION_ALGORITHMS.has(algorithm))
    throw new TypeError(
      `unsupported client assertion algorithm "${algorithm}" (asymmetric JWS algorithms only)`,
    );
  return importPKCS8(pem, algorithm);
}

/** One assertion: `iss` = `sub` = the client id, the issuer as `aud`, a fresh `jti`, `iat` and `exp`. */
export async function signClientAssertion(options: ClientAssertionOptions): Promise<string> {
  if (!ASSERTION_ALGORITHMS.has(options.algorithm))
    throw new TypeError(
      `unsupported client assertion algorithm "${options.algorithm}" (asymmetric JWS algorithms only)`,
    );
  const lifetime = options.lifetimeSeconds ?? 60;
  return new SignJWT({})
    .setProtectedHeader({ alg: options.algorithm, typ: "JWT" })
    .setIssuer(options.clientId)
    .setSubject(options.clientId)
    .setAudience(options.audience)
    .setJti(crypto.randomUUID())
    .setIssuedAt()
    .setExpirationTime(`${lifetime}s`)
    .sign(options.privateKey);
}

/**
 * The `private_key_jwt` method for `OAuthClientOptions.clientAuthentication`: a fresh assertion for every
 * token request, audience the server's issuer. `key` is a private CryptoKey or a PKCS#8 PEM, imported on
 * first use.
 */
export function privateKeyJwt(key: CryptoKey | string, algorithm: string): ClientAuthentication {
  let imported: Promise<CryptoKey> | undefined;
  const privateKey = () => {
    imported ??= typeof key === "string" ? importClientKey(key, algorithm) : Promise.resolve(key);
    return imported;
  };
  return async ({ body }, { client, issuer }) => {
    const assertion = await signClientAssertion({
      clientId: client.client_id,
      audience: issuer,
      privateKey: await privateKey(),
      algorithm,
    });
    body.set("client_id", client.client_id);
    body.set("client_assertion_type", CLIENT_ASSERTION_TYPE);
    body.set("client_assertion", assertion);
  };
}
