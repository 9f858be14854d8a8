/**
 * The JWS algorithms a signature from a public key may use: asymmetric only. `none` is no signature, and
 * an HS* MAC keyed with a public key is the classic confusion attack, so neither appears here. Access
 * tokens (`jwtVerifier`), DPoP proofs and client assertions share the list.
 */

export const ASYMMETRIC_ALGORITHMS: readonly string[] = Object.freeze([
  "RS256",
  "RS384",
  "RS512",
  "PS256",
  "PS384",
  "PS512",
  "ES256",
  "ES384",
  "ES512",
  "EdDSA",
  "Ed25519",
]);
