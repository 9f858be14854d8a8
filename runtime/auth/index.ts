/**
 * OAuth 2.1 for MCP: the resource server's token checks and metadata, and the client's login. Files that
 * need JOSE (JWT, JWKS, DPoP) import `jose`; nothing outside this entry does, so a server without
 * authorization loads none of it.
 */

export { type AuthInfo, InsufficientScope, isAuthInfo, missingScopes } from "../mcp/auth-info.js";
export {
  bearerChallenge,
  type Challenge,
  type ChallengeParams,
  challengeFor,
  challengeScopes,
  formatChallenge,
  formatChallenges,
  parseChallenges,
} from "./challenge.js";
export {
  DEFAULT_DPOP_ALGORITHMS,
  type DpopCheck,
  type DpopOptions,
  type DpopResult,
  DpopVerifier,
  tokenHash,
} from "./dpop-verify.js";
export type { Refusal, ResourceGuard, Verdict } from "./guard.js";
export { type IntrospectionOptions, introspectionVerifier } from "./introspect.js";
export {
  canonicalResource,
  type MetadataOptions,
  PRM_WELL_KNOWN,
  type ProtectedResourceMetadata,
  protectedResourceMetadata,
  protectedResourceMetadataUrls,
} from "./protected-resource.js";
export { DEFAULT_MAX_AUTHORIZATION_BYTES, type ProtectOptions, protect } from "./resource-server.js";
export {
  MemoryTokenStore,
  type StoredClient,
  type StoredTokens,
  type TokenStore,
  type TokenStoreKey,
} from "./token-store.js";
export {
  type AuthRequest,
  audiencesOf,
  authInfoOf,
  InvalidToken,
  scopesOf,
  type TokenVerifier,
} from "./verifier.js";
export {
  DEFAULT_CLOCK_TOLERANCE_SEC,
  DEFAULT_JWT_ALGORITHMS,
  type JwtVerifierOptions,
  jwtVerifier,
  MAX_CLOCK_TOLERANCE_SEC,
} from "./verify-jwt.js";
