/**
 * A protected MCP server (`serveHttp` with `auth: protect(…)`) over real HTTP on 127.0.0.1, against a
 * stand-in authorization server (keys made by jose, its JWKS and introspection endpoint served over
 * HTTP): the Protected Resource Metadata routes, the negative matrix in both eras (2025-11-25 sessions,
 * 2026-07-28 stateless), each refusal's status and challenge with the tool handler never called;
 * per-request scopes before dispatch; sessions bound to their subject; the official SDK v2 client and
 * raw 2026 requests succeeding with a valid token; introspection.
 */
import {
  Client as ClientV2,
  discoverOAuthProtectedResourceMetadata,
  extractWWWAuthenticateParams,
  StreamableHTTPClientTransport,
} from "@modelcontextprotocol/client";
import { type JWTPayload, SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { introspectionVerifier } from "../../../runtime/auth/introspect.js";
import type { ProtectOptions } from "../../../runtime/auth/resource-server.js";
import { jwtVerifier } from "../../../runtime/auth/verify-jwt.js";
import { isAuthInfo } from "../../../runtime/mcp/auth-info.js";
import { INTROSPECTION_CLIENT, startIssuer, type TestIssuer } from "../../fixtures/auth/issuer.js";
import {
  bearer,
  call2025,
  call2026,
  challenge,
  NOW,
  openSession,
  type Served,
  protectedServer as serve,
  tokenFor,
  V2025,
  V2026,
} from "../../fixtures/auth/protected-server.js";

const cleanups: (() => Promise<void>)[] = [];
let as: TestIssuer;
beforeAll(async () => {
  as = await startIssuer();
  cleanups.push(() => as.close());
});
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

const protectedServer = (extra?: (resource: string) => Partial<ProtectOptions>) => serve(as, cleanups, extra);
const token = (resource: string, claims: JWTPayload = {}, kid?: string) =>
  tokenFor(as, resource, claims, kid);

const metadataUrl = (resource: string) =>
  resource.replace("/mcp", "/.well-known/oauth-protected-resource/mcp");

function b64url(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString("base64url");
}

describe("Protected Resource Metadata", () => {
  it("is served without a token at the path-aware and the root address, offline_access left out", async () => {
    const { url, resource } = await protectedServer(() => ({ resourceName: "Test MCP" }));
    const origin = new URL(url).origin;
    for (const path of [
      "/.well-known/oauth-protected-resource/mcp",
      "/.well-known/oauth-protected-resource",
    ]) {
      const response = await fetch(`${origin}${path}`);
      expect(response.status, path).toBe(200);
      expect(response.headers.get("content-type")).toBe("application/json");
      expect(await response.json()).toEqual({
        resource,
        authorization_servers: [as.issuer],
        bearer_methods_supported: ["header"],
        scopes_supported: ["mcp:read", "mcp:admin"],
        resource_name: "Test MCP",
      });
    }
    const post = await fetch(`${origin}/.well-known/oauth-protected-resource/mcp`, { method: "POST" });
    expect(post.status).toBe(405);
    expect((await fetch(`${origin}/.well-known/oauth-protected-resource/other`)).status).toBe(404);
  });
});

/** One refusal case: the token (or headers) a client sends, what it must get. */
interface Case {
  name: string;
  headers: (resource: string) => Promise<Record<string, string>>;
  status: number;
  /** The Bearer challenge's `error` (undefined: none). */
  error?: string;
  query?: string;
}

const CASES: Case[] = [
  { name: "no token", headers: async () => ({}), status: 401 },
  {
    name: "another scheme (Basic)",
    headers: async () => ({ authorization: "Basic YWxpY2U6cHc=" }),
    status: 401,
  },
  {
    name: "expired",
    headers: async (r) => bearer(await token(r, { exp: NOW() - 120, iat: NOW() - 600 })),
    status: 401,
    error: "invalid_token",
  },
  {
    name: "not yet valid",
    headers: async (r) => bearer(await token(r, { nbf: NOW() + 120 })),
    status: 401,
    error: "invalid_token",
  },
  {
    name: "wrong audience",
    headers: async () => bearer(await token("http://127.0.0.1:1/other")),
    status: 401,
    error: "invalid_token",
  },
  {
    name: "wrong issuer",
    headers: async (r) => bearer(await token(r, { iss: "http://127.0.0.1:1" })),
    status: 401,
    error: "invalid_token",
  },
  {
    name: "alg none",
    headers: async (r) => {
      const claims = { iss: as.issuer, sub: "alice", aud: r, scope: "mcp:read", exp: NOW() + 300 };
      return bearer(`${b64url({ alg: "none", typ: "JWT" })}.${b64url(claims)}.`);
    },
    status: 401,
    error: "invalid_token",
  },
  {
    name: "HS256 keyed with the issuer's public key",
    headers: async (r) => {
      const secret = new TextEncoder().encode(await as.publicPem());
      const jwt = await new SignJWT({ sub: "alice", aud: r, scope: "mcp:read", iss: as.issuer })
        .setProtectedHeader({ alg: "HS256", kid: "rsa-1" })
        .setIssuedAt()
        .setExpirationTime("5m")
        .sign(secret);
      return bearer(jwt);
    },
    status: 401,
    error: "invalid_token",
  },
  {
    name: "tampered payload (signature no longer matches)",
    headers: async (r) => {
      const [h, , s] = (await token(r)).split(".");
      const forged = {
        iss: as.issuer,
        sub: "mallory",
        aud: r,
        scope: "mcp:read mcp:admin",
        exp: NOW() + 300,
      };
      return bearer(`${h}.${b64url(forged)}.${s}`);
    },
    status: 401,
    error: "invalid_token",
  },
  {
    name: "unknown kid",
    headers: async (r) => bearer(await token(r, {}, "hidden")),
    status: 401,
    error: "invalid_token",
  },
  {
    name: "missing scope",
    headers: async (r) => bearer(await token(r, { scope: "other" })),
    status: 403,
    error: "insufficient_scope",
  },
  {
    name: "token in the query string",
    headers: async (r) => bearer(await token(r)),
    query: "?access_token=abc",
    status: 400,
    error: "invalid_request",
  },
  {
    name: "oversized Authorization header",
    headers: async () => bearer("a".repeat(9000)),
    status: 431,
    error: "invalid_request",
  },
  {
    name: "malformed Authorization header",
    headers: async () => ({ authorization: "Bearer two words" }),
    status: 400,
    error: "invalid_request",
  },
];

describe("refusals: status and challenge, and no handler runs", () => {
  let served: Served;
  let session: string;
  beforeAll(async () => {
    served = await protectedServer();
    session = await openSession(served.url, bearer(await token(served.resource)));
  });

  for (const era of [V2025, V2026] as const) {
    for (const c of CASES) {
      it(`${era}: ${c.name} → ${c.status}${c.error ? ` ${c.error}` : ""}`, async () => {
        const headers = await c.headers(served.resource);
        const url = served.url + (c.query ?? "");
        const before = served.calls.length;
        const response =
          era === V2026
            ? await call2026(url, "whoami", headers)
            : await call2025(url, session, "whoami", headers);
        expect(response.status).toBe(c.status);
        const body = await response.text();
        const params = challenge(response);
        expect(params.resource_metadata).toBe(metadataUrl(served.resource));
        expect(params.error).toBe(c.error);
        expect(params.scope).toBe("mcp:read");
        // Never echoed: nothing of the token comes back.
        const sent = headers.authorization?.split(" ")[1];
        if (sent && sent.length > 8) {
          expect(body).not.toContain(sent);
          expect(response.headers.get("www-authenticate")).not.toContain(sent);
        }
        expect(served.calls.length).toBe(before);
      });
    }
  }

  it("a valid token gets through in both eras, and ctx.auth is its AuthInfo", async () => {
    const headers = bearer(await token(served.resource));
    const r2026 = await call2026(served.url, "whoami", headers);
    expect(r2026.status).toBe(200);
    expect(await r2026.text()).toContain("whoami alice mcp:read");
    const r2025 = await call2025(served.url, session, "whoami", headers);
    expect(r2025.status).toBe(200);
    expect(await r2025.text()).toContain("whoami alice mcp:read");
    const seen = served.calls.at(-1);
    expect(isAuthInfo(seen)).toBe(true);
    expect(seen).toMatchObject({
      subject: "alice",
      clientId: "app",
      issuer: as.issuer,
      resource: served.resource,
    });
  });
});

describe("the JWKS", () => {
  it("is fetched again for an unknown kid at most once per cooldown; a rotated-in key then verifies", async () => {
    const served = await protectedServer((resource) => ({
      verifier: jwtVerifier({
        issuer: as.issuer,
        audience: resource,
        jwksUri: as.jwksUri,
        jwksCooldownMs: 400,
      }),
    }));
    const valid = bearer(await token(served.resource));
    expect((await call2026(served.url, "whoami", valid)).status).toBe(200);
    const hits = as.jwksHits;
    const unknown = bearer(await token(served.resource, {}, "hidden"));
    for (let i = 0; i < 5; i++) expect((await call2026(served.url, "whoami", unknown)).status).toBe(401);
    expect(as.jwksHits - hits).toBeLessThanOrEqual(1);
    as.publishHidden();
    await new Promise((resolve) => setTimeout(resolve, 450));
    expect((await call2026(served.url, "whoami", unknown)).status).toBe(200);
    expect(as.jwksHits - hits).toBeLessThanOrEqual(2);
  });
});

describe("per-request scopes (Server.requiredScopes), before dispatch", () => {
  it("403 insufficient_scope naming the whole set, as JSON before any stream, in both eras", async () => {
    const served = await protectedServer();
    served.server.requiredScopes = (method, params) =>
      method === "tools/call" && (params as { name?: string }).name === "admin" ? ["mcp:admin"] : [];
    const narrow = bearer(await token(served.resource));
    const session = await openSession(served.url, narrow);
    for (const response of [
      await call2026(served.url, "admin", narrow),
      await call2025(served.url, session, "admin", narrow),
    ]) {
      expect(response.status).toBe(403);
      expect(response.headers.get("content-type")).toBe("application/json");
      const params = challenge(response);
      expect(params.error).toBe("insufficient_scope");
      expect(params.scope).toBe("mcp:read mcp:admin");
      await response.text();
    }
    expect(served.calls).toEqual([]);
    // The session lives on; a wider token gets through.
    const wide = bearer(await token(served.resource, { scope: "mcp:read mcp:admin" }));
    expect((await call2025(served.url, session, "admin", wide)).status).toBe(200);
    expect((await call2026(served.url, "admin", wide)).status).toBe(200);
    expect(served.calls.length).toBe(2);
  });
});

describe("an InsufficientScope thrown by a handler", () => {
  it("is a 403 with the step-up challenge while the answer is still JSON (2026); an error in the stream once SSE began (2025)", async () => {
    const served = await protectedServer();
    const headers = bearer(await token(served.resource));
    const response = await call2026(served.url, "step-up", headers);
    expect(response.status).toBe(403);
    const params = challenge(response);
    expect(params.error).toBe("insufficient_scope");
    expect(params.scope).toBe("mcp:read mcp:admin");
    expect(params.resource_metadata).toBe(metadataUrl(served.resource));
    const body = (await response.json()) as { error: { code: number; data: unknown } };
    expect(body.error.code).toBe(-32003);
    expect(body.error.data).toEqual({ requiredScopes: ["mcp:admin"], missingScopes: ["mcp:admin"] });

    const session = await openSession(served.url, headers);
    const inSession = await call2025(served.url, session, "step-up", headers);
    expect(inSession.status).toBe(200);
    expect(inSession.headers.get("content-type")).toContain("text/event-stream");
    const text = await inSession.text();
    expect(text).toContain('"code":-32003');
    expect(text).not.toContain("isError");
  });
});

describe("a session belongs to the subject that opened it", () => {
  it("another subject's valid token gets 404 on POST, GET and DELETE; the session survives", async () => {
    const served = await protectedServer();
    const alice = bearer(await token(served.resource));
    const bob = bearer(await token(served.resource, { sub: "bob" }));
    const session = await openSession(served.url, alice);
    const common = { "mcp-session-id": session, "mcp-protocol-version": V2025 };
    const post = await call2025(served.url, session, "whoami", bob);
    expect(post.status).toBe(404);
    await post.text();
    const get = await fetch(served.url, { headers: { ...bob, ...common, accept: "text/event-stream" } });
    expect(get.status).toBe(404);
    await get.text();
    const del = await fetch(served.url, { method: "DELETE", headers: { ...bob, ...common } });
    expect(del.status).toBe(404);
    await del.text();
    expect(served.calls).toEqual([]);
    const stream = new AbortController();
    const own = await fetch(served.url, {
      headers: { ...alice, ...common, accept: "text/event-stream" },
      signal: stream.signal,
    });
    expect(own.status).toBe(200);
    expect(own.headers.get("content-type")).toContain("text/event-stream");
    stream.abort();
    const mine = await call2025(served.url, session, "whoami", alice);
    expect(mine.status).toBe(200);
    expect(await mine.text()).toContain("whoami alice");
    const deleted = await fetch(served.url, { method: "DELETE", headers: { ...alice, ...common } });
    expect(deleted.status).toBe(204);
  });
});

describe("real clients", () => {
  it("the official SDK v2 client calls a tool with a valid JWT (authProvider)", async () => {
    const served = await protectedServer();
    const jwt = await token(served.resource, { sub: "sdk-user" });
    const client = new ClientV2({ name: "sdk-v2", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(served.url), { authProvider: { token: async () => jwt } }),
    );
    const result = await client.callTool({ name: "whoami", arguments: {} });
    expect(result.content).toEqual([{ type: "text", text: "whoami sdk-user mcp:read" }]);
    await client.close();
  });

  it("the official SDK v2 client reads our 401 challenge, discovers the metadata it names, then gets through", async () => {
    const served = await protectedServer();
    let current: string | undefined;
    const seen: { metadataUrl?: string; scope?: string; resource?: string; servers?: string[] } = {};
    const client = new ClientV2({ name: "sdk-v2", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(served.url), {
        authProvider: {
          token: async () => current,
          onUnauthorized: async (ctx) => {
            const params = extractWWWAuthenticateParams(ctx.response);
            const metadata = await discoverOAuthProtectedResourceMetadata(
              ctx.serverUrl,
              { resourceMetadataUrl: params.resourceMetadataUrl! },
              ctx.fetchFn,
            );
            Object.assign(seen, {
              metadataUrl: params.resourceMetadataUrl?.href,
              scope: params.scope,
              resource: metadata.resource,
              servers: metadata.authorization_servers,
            });
            current = await token(metadata.resource, { sub: "late", scope: params.scope });
          },
        },
      }),
    );
    expect(seen).toEqual({
      metadataUrl: metadataUrl(served.resource),
      scope: "mcp:read",
      resource: served.resource,
      servers: [as.issuer],
    });
    const result = await client.callTool({ name: "whoami", arguments: {} });
    expect(result.content).toEqual([{ type: "text", text: "whoami late mcp:read" }]);
    await client.close();
  });

  it("the official SDK v2 client without a token is refused with the challenge", async () => {
    const served = await protectedServer();
    const client = new ClientV2({ name: "sdk-v2", version: "1.0.0" });
    await expect(
      client.connect(
        new StreamableHTTPClientTransport(new URL(served.url), {
          authProvider: { token: async () => undefined },
        }),
      ),
    ).rejects.toThrow();
    expect(served.calls).toEqual([]);
  });
});

describe("introspection does not follow redirects", () => {
  it("a redirecting endpoint is a verifier failure: the token goes nowhere else", async () => {
    const served = await protectedServer((resource) => ({
      verifier: introspectionVerifier({
        endpoint: `${as.issuer}/introspect-moved`,
        clientId: INTROSPECTION_CLIENT.id,
        clientSecret: INTROSPECTION_CLIENT.secret,
        audience: resource,
      }),
    }));
    as.opaque("opaque-redirected", { sub: "carol", scope: "mcp:read", aud: served.resource });
    const before = as.introspections;
    const response = await call2026(served.url, "whoami", bearer("opaque-redirected"));
    expect(response.status).toBe(500);
    await response.text();
    expect(as.introspections).toBe(before);
    expect(served.calls).toEqual([]);
  });
});

describe("a verifier that fails", () => {
  it("is a 500 reported without the token, and the body does not echo it", async () => {
    const served = await protectedServer(() => ({
      verifier: async (t) => {
        throw new Error(`backend down while checking ${t}`);
      },
    }));
    const secret = "secret-token-value-123";
    const response = await call2026(served.url, "whoami", bearer(secret));
    expect(response.status).toBe(500);
    expect(await response.text()).not.toContain(secret);
    expect(served.reports).toHaveLength(1);
    expect(String(served.reports[0])).toContain("backend down while checking [token]");
    expect(String(served.reports[0])).not.toContain(secret);
    expect(served.calls).toEqual([]);
  });
});

describe("opaque tokens by introspection (RFC 7662)", () => {
  it("accepts an active token for this resource, caches it, refuses unknown and foreign ones", async () => {
    const served = await protectedServer((resource) => ({
      verifier: introspectionVerifier({
        endpoint: as.introspectionEndpoint,
        clientId: INTROSPECTION_CLIENT.id,
        clientSecret: INTROSPECTION_CLIENT.secret,
        audience: resource,
        issuer: as.issuer,
      }),
    }));
    const exp = NOW() + 300;
    as.opaque("opaque-good-1", {
      sub: "carol",
      scope: "mcp:read",
      aud: served.resource,
      iss: as.issuer,
      exp,
    });
    as.opaque("opaque-foreign", { sub: "carol", scope: "mcp:read", aud: "https://other.example/mcp", exp });
    as.opaque("opaque-expired", { sub: "carol", scope: "mcp:read", aud: served.resource, exp: NOW() - 120 });
    const before = as.introspections;
    for (let i = 0; i < 3; i++) {
      const ok = await call2026(served.url, "whoami", bearer("opaque-good-1"));
      expect(ok.status).toBe(200);
      expect(await ok.text()).toContain("whoami carol mcp:read");
    }
    expect(as.introspections - before).toBe(1);
    for (const bad of ["opaque-unknown", "opaque-foreign", "opaque-expired"]) {
      const response = await call2026(served.url, "whoami", bearer(bad));
      expect(response.status, bad).toBe(401);
      expect(challenge(response).error).toBe("invalid_token");
      await response.text();
    }
    expect(served.calls.length).toBe(3);
  });
});
