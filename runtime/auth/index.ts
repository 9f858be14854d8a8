/**
 * OAuth 2.1 for MCP: the resource server's token checks and metadata, and the client's login. Files that
 * need JOSE (JWT, JWKS, DPoP) import `jose`; nothing outside this entry does, so a server without
 * authorization loads none of it.
 */

export { type AuthInfo, InsufficientScope, isAuthInfo, missingScopes } from "../mcp/auth-info.js";
export {
  MemoryTokenStore,
  type StoredClient,
  type StoredTokens,
  type TokenStore,
  type TokenStoreKey,
} from "./token-store.js";
