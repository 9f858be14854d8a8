/**
 * The token verifier an SDK v2 server gives `requireBearerAuth`, as SDK v2's documentation has users
 * write one: the JWT checked with jose against the issuer's JWKS (issuer, audience = the resource,
 * `at+jwt`), its claims as SDK v2's AuthInfo. Used by the SDK v2 peer in the tests
 * (test/auth/sdk-protected-server.ts) and in the auth bench (bench/fixtures/http-auth-sdk2.ts).
 */

import { type AuthInfo, OAuthError, OAuthErrorCode } from "@modelcontextprotocol/server";
import { createRemoteJWKSet, jwtVerify } from "jose";

export function sdkJwtVerifier(options: { issuer: string; resource: string; jwksUri: string }): {
  verifyAccessToken(token: string): Promise<AuthInfo>;
} {
  const jwks = createRemoteJWKSet(new URL(options.jwksUri));
  return {
    async verifyAccessToken(token) {
      try {
        const { payload } = await jwtVerify(token, jwks, {
          issuer: options.issuer,
          audience: options.resource,
          algorithms: ["ES256", "RS256"],
          typ: "at+jwt",
        });
        return {
          token,
          clientId: String(payload.client_id),
          scopes: typeof payload.scope === "string" ? payload.scope.split(" ").filter(Boolean) : [],
          expiresAt: payload.exp,
          resource: new URL(options.resource),
          extra: { sub: payload.sub },
        };
      } catch (error) {
        throw new OAuthError(
          OAuthErrorCode.InvalidToken,
          error instanceof Error ? error.message : "invalid token",
        );
      }
    },
  };
}
