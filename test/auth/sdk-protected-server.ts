/**
 * An MCP server protected the way the official SDK v2 documents it, for tests of clients against a real
 * resource server: `createMcpHandler` from `@modelcontextprotocol/server` behind its `requireBearerAuth`
 * gate, its Protected Resource Metadata from `oauthMetadataResponse`, served by `toNodeHandler` from
 * `@modelcontextprotocol/node` on 127.0.0.1. Access tokens are JWTs checked with `jose` against the test
 * authorization server's JWKS (issuer, audience = this server's URL, ES256/RS256 only).
 *
 * ```ts
 * const server = await startSdkProtectedServer(as, { scopes: ["mcp:tools"], adminScope: "mcp:admin" });
 * server.url; // "http://127.0.0.1:<port>/mcp", registered with `as` as a resource
 * ```
 *
 * Tools: `whoami` (needs `scopes`) answers `{ sub, clientId, scopes }` as JSON text; `admin` also needs
 * `adminScope`, asked for by a 403 `insufficient_scope` challenge (step-up). `requests` counts the
 * requests that reached the MCP handler, i.e. passed the gate.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { toNodeHandler } from "@modelcontextprotocol/node";
import {
  type AuthInfo,
  createMcpHandler,
  getOAuthProtectedResourceMetadataUrl,
  McpServer,
  type OAuthMetadata,
  oauthMetadataResponse,
  requireBearerAuth,
  requireScopes,
} from "@modelcontextprotocol/server";
import type { AuthorizationServer } from "./oidc-provider.js";
import { sdkJwtVerifier } from "./sdk-jwt-verifier.js";

export interface SdkProtectedServerOptions {
  /** Scopes every request needs (and the server lists in `scopes_supported`). */
  readonly scopes: readonly [string, ...string[]];
  /** A further scope the `admin` tool needs. */
  readonly adminScope?: string;
  /** Lifetime of the access tokens the authorization server issues for this resource, in seconds. */
  readonly accessTokenTtl?: number;
}

export interface SdkProtectedServer {
  readonly url: string;
  readonly requests: { count: number };
  close(): Promise<void>;
}

export async function startSdkProtectedServer(
  as: AuthorizationServer,
  options: SdkProtectedServerOptions,
): Promise<SdkProtectedServer> {
  const metadata = await as.metadata();
  const requests = { count: 0 };

  const mcp = createMcpHandler(() => {
    const server = new McpServer({ name: "sdk-v2-protected", version: "1.0.0" });
    const whoami = (auth: AuthInfo | undefined) => ({
      content: [
        {
          type: "text" as const,
          text: JSON.stringify({ sub: auth?.extra?.sub, clientId: auth?.clientId, scopes: auth?.scopes }),
        },
      ],
    });
    server.registerTool("whoami", { description: "Who the token says you are" }, (ctx) =>
      whoami(ctx.http?.authInfo),
    );
    if (options.adminScope !== undefined) {
      server.registerTool(
        "admin",
        {
          description: "Needs the admin scope",
          scopeChallenge: requireScopes(...options.scopes, options.adminScope),
        },
        (ctx) => whoami(ctx.http?.authInfo),
      );
    }
    return server;
  });

  const http = createServer();
  await new Promise<void>((resolve, reject) => {
    http.once("error", reject);
    http.listen(0, "127.0.0.1", () => resolve());
  });
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  as.addResource({
    uri: url,
    scopes: [...options.scopes, ...(options.adminScope ? [options.adminScope] : [])],
    accessTokenTtl: options.accessTokenTtl,
  });

  const gate = requireBearerAuth({
    verifier: sdkJwtVerifier({ issuer: as.issuer, resource: url, jwksUri: String(metadata.jwks_uri) }),
    expectedResource: new URL(url),
    requiredScopes: [...options.scopes],
    resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(new URL(url)),
  });
  const metadataOptions = {
    oauthMetadata: metadata as unknown as OAuthMetadata,
    resourceServerUrl: new URL(url),
    scopesSupported: [...options.scopes, ...(options.adminScope ? [options.adminScope] : [])],
    dangerouslyAllowInsecureIssuerUrl: true,
  };

  const handle = async (request: Request): Promise<Response> => {
    const wellKnown = oauthMetadataResponse(request, metadataOptions);
    if (wellKnown !== undefined) return wellKnown;
    if (new URL(request.url).pathname !== "/mcp") return new Response("not found", { status: 404 });
    const auth = await gate(request);
    if (auth instanceof Response) return auth;
    requests.count++;
    return mcp.fetch(request, { authInfo: auth });
  };
  http.on("request", toNodeHandler({ fetch: handle }));

  return {
    url,
    requests,
    async close() {
      await mcp.close();
      await new Promise<void>((resolve) => {
        http.close(() => resolve());
        http.closeAllConnections();
      });
    },
  };
}
