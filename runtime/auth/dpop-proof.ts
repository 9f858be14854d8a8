/**
 * The client's side of DPoP (RFC 9449): one key pair per client, a fresh proof JWT for every HTTP request
 * (token endpoint and resource alike), and the nonces servers hand out (§8 authorization server, §9
 * resource server), remembered per origin because each server issues its own.
 */

import { calculateJwkThumbprint, exportJWK, generateKeyPair, type JWK, SignJWT } from "jose";
import { accessTokenHash } from "./access-token-hash.js";

/** Asymmetric algorithms a proof may use (RFC 9449 §4.2: never `none`, never a MAC). */
export const DPOP_ALGORITHMS = ["ES256", "ES384", "ES512", "RS256", "PS256", "EdDSA"] as const;
export type DpopAlgorithm = (typeof DPOP_ALGORITHMS)[number];

export interface DpopProofRequest {
  readonly method: string;
  readonly url: string;
  /** Present when the proof goes with an access token: its hash becomes `ath` (RFC 9449 §4.2). */
  readonly accessToken?: string;
}

/** `htu` is the target URI without query and fragment (RFC 9449 §4.2). */
export function dpopTarget(url: string): string {
  const target = new URL(url);
  target.search = "";
  target.hash = "";
  return target.href;
}

interface DpopKey {
  readonly privateKey: CryptoKey;
  readonly publicJwk: JWK;
  readonly thumbprint: string;
}

async function generateDpopKey(algorithm: DpopAlgorithm): Promise<DpopKey> {
  const { privateKey, publicKey } = await generateKeyPair(algorithm, { extractable: false });
  const jwk = await exportJWK(publicKey);
  // Only the members that identify the key: no `key_ops`/`ext`, which some servers refuse in `jwk`.
  const publicJwk: JWK = Object.fromEntries(
    Object.entries(jwk).filter(([name]) => ["kty", "crv", "x", "y", "n", "e"].includes(name)),
  );
  return { privateKey, publicJwk, thumbprint: await calculateJwkThumbprint(publicJwk, "sha256") };
}

/**
 * Signs DPoP proofs with one key pair, made on first use (so a client can be configured synchronously),
 * and keeps the last nonce each origin asked for. The private key is not extractable; only the public
 * JWK travels, in each proof's header.
 */
export class DpopProver {
  readonly algorithm: DpopAlgorithm;
  #key: Promise<DpopKey> | undefined;
  readonly #nonces = new Map<string, string>();

  /** ES256 by default: the one algorithm every DPoP server supports. */
  constructor(algorithm: DpopAlgorithm = "ES256") {
    if (!DPOP_ALGORITHMS.includes(algorithm)) throw new TypeError(`unsupported DPoP algorithm: ${algorithm}`);
    this.algorithm = algorithm;
  }

  #keyPair(): Promise<DpopKey> {
    this.#key ??= generateDpopKey(this.algorithm);
    return this.#key;
  }

  /** RFC 7638 thumbprint of the public key: what a bound token's `cnf.jkt` names. */
  async thumbprint(): Promise<string> {
    return (await this.#keyPair()).thumbprint;
  }

  /** A proof for one request: fresh `jti`, current `iat`, the origin's nonce when one is known. */
  async proof(request: DpopProofRequest): Promise<string> {
    // Read before any await, so the proof carries the nonce a caller saw in nonce() just before.
    const nonce = this.nonce(request.url);
    const key = await this.#keyPair();
    const claims: Record<string, string> = {
      htm: request.method.toUpperCase(),
      htu: dpopTarget(request.url),
    };
    if (nonce !== undefined) claims.nonce = nonce;
    if (request.accessToken !== undefined) claims.ath = await accessTokenHash(request.accessToken);
    return new SignJWT(claims)
      .setProtectedHeader({ alg: this.algorithm, typ: "dpop+jwt", jwk: key.publicJwk })
      .setJti(crypto.randomUUID())
      .setIssuedAt()
      .sign(key.privateKey);
  }

  /** The nonce the next proof for `url` carries: the last one its origin gave, if any. */
  nonce(url: string): string | undefined {
    return this.#nonces.get(new URL(url).origin);
  }

  /** Remembers the `DPoP-Nonce` a response from `url` carries, for that origin, and returns it. */
  learnNonce(url: string, response: Response): string | undefined {
    const nonce = response.headers.get("dpop-nonce")?.trim();
    // RFC 9449 §8.1: the nonce is NQCHAR (printable ASCII without quote and backslash), never empty.
    if (!nonce || !/^[\x21\x23-\x5b\x5d-\x7e]+$/.test(nonce)) return undefined;
    this.#nonces.set(new URL(url).origin, nonce);
    return nonce;
  }
}
