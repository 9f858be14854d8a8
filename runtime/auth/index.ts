/**
 * OAuth 2.1 for MCP: the resource server's token checks and metadata, and the client's login. Files that
 * need JOSE (JWT, JWKS, DPoP) import `jose`; nothing outside this entry does, so a server without
 * authorization loads none of it.
 */

export { type AuthInfo, InsufficientScope, isAuthInfo, missingScopes } from "../mcp/auth-info.js";
export { accessTokenHash } from "./access-token-hash.js";
export { type AuthorizationRequest, authorizationUrl } from "./authorization-request.js";
export {
  type AuthorizationResponse,
  acceptAuthorizationResponse,
  authorizationResponseFrom,
  type ExpectedResponse,
  issuerProblem,
} from "./authorization-response.js";
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
export { type BearerChallenge, responseChallenge } from "./challenge-parse.js";
export {
  CLIENT_ASSERTION_TYPE,
  type ClientAssertionOptions,
  importClientKey,
  privateKeyJwt,
  signClientAssertion,
} from "./client-assertion.js";
export {
  BUILT_IN_CLIENT_AUTHENTICATION,
  type ClientAuthentication,
  type ClientAuthenticationContext,
  chooseClientAuthentication,
  type TokenRequestParts,
} from "./client-auth.js";
export {
  type DiscoveredResource,
  type Discovery,
  type DiscoveryOptions,
  discover,
  discoverAuthorizationServer,
  discoverProtectedResource,
} from "./discovery.js";
export { DpopConstraint } from "./dpop-constraint.js";
export {
  DPOP_ALGORITHMS,
  type DpopAlgorithm,
  type DpopProofRequest,
  DpopProver,
  dpopTarget,
} from "./dpop-proof.js";
export {
  DEFAULT_DPOP_ALGORITHMS,
  type DpopCheck,
  type DpopOptions,
  type DpopResult,
  DpopVerifier,
} from "./dpop-verify.js";
export { OAuthClientError, type OAuthClientReason } from "./errors.js";
export {
  clientCredentials,
  type EnterpriseIdentityProvider,
  enterpriseManaged,
  type Fresh,
  GRANT_CLIENT_CREDENTIALS,
  GRANT_JWT_BEARER,
  GRANT_TOKEN_EXCHANGE,
  jwtBearer,
  TOKEN_TYPE_ID_JAG,
  TOKEN_TYPE_ID_TOKEN,
} from "./grants.js";
export type { Refusal, ResourceGuard, Verdict } from "./guard.js";
export { type IntrospectionOptions, introspectionVerifier } from "./introspect.js";
export type { AuthorizationServerMetadata, ProtectedResourceMetadata } from "./metadata.js";
export { type Grant, type GrantContext, OAuthClient, type OAuthClientOptions } from "./oauth-client.js";
export { assertS256, createPkce, type Pkce, randomState, s256 } from "./pkce.js";
export {
  canonicalResource,
  type MetadataOptions,
  PRM_WELL_KNOWN,
  protectedResourceMetadata,
  protectedResourceMetadataUrls,
} from "./protected-resource.js";
export {
  applicationTypeOf,
  type ClientMetadata,
  clientFor,
  type PreRegisteredClient,
  type RegistrationOptions,
  registerClient,
} from "./registration.js";
export { resourceCovers } from "./resource.js";
export { DEFAULT_MAX_AUTHORIZATION_BYTES, type ProtectOptions, protect } from "./resource-server.js";
export { joinScope, type ScopeInputs, selectScopes, splitScope, stepUpScopes, unionScopes } from "./scope.js";
export type { SenderConstraint } from "./sender-constraint.js";
export { requestToken, type TokenRequest, tokenRequestBody, tokensFrom } from "./token-request.js";
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
export { authorizationServerMetadataUrls, resourceMetadataCandidates } from "./well-known.js";
