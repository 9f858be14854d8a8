/**
 * The test authorization server (test/auth/oidc-provider.ts: oidc-provider on 127.0.0.1) proven with real
 * peers: first with plain OAuth requests (DCR, authorization code + PKCE S256, resource indicators, JWT and
 * opaque access tokens, introspection, refresh after expiry, refusals), then the official SDK v2 client
 * logging in through it to an SDK v2 server protected by `requireBearerAuth`, which verifies the JWTs
 * through the provider's JWKS.
 */
import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import {
  calculateJwkThumbprint,
  createRemoteJWKSet,
  decodeJwt,
  decodeProtectedHeader,
  exportJWK,
  generateKeyPair,
  errors as joseErrors,
  jwtVerify,
  SignJWT,
} from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AuthorizationResponseError, FileTokenStore, loopbackRedirect } from "../../runtime/node/index.js";
import {
  AuthorizationDenied,
  type AuthorizationServer,
  startAuthorizationServer,
} from "../auth/oidc-provider.js";
import { afterLogin, connectWithLogin, SdkOAuthClient } from "../auth/sdk-oauth-client.js";
import { type SdkProtectedServer, startSdkProtectedServer } from "../auth/sdk-protected-server.js";

const JWT_RESOURCE = "http://127.0.0.1:1/mcp";
const OPAQUE_RESOURCE = "http://127.0.0.1:2/mcp";
const SHORT_RESOURCE = "http://127.0.0.1:3/mcp";
const REDIRECT = "http://127.0.0.1:9/callback";

type Json = Record<string, unknown>;

function pkce() {
  const verifier = randomBytes(32).toString("base64url");
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") };
}

async function register(as: AuthorizationServer, metadata: Json): Promise<{ status: number; body: Json }> {
  const response = await fetch(`${as.issuer}/reg`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(metadata),
  });
  return { status: response.status, body: (await response.json()) as Json };
}

async function publicClient(as: AuthorizationServer): Promise<string> {
  const { status, body } = await register(as, {
    redirect_uris: [REDIRECT],
    token_endpoint_auth_method: "none",
    grant_types: ["authorization_code", "refresh_token"],
  });
  expect(status).toBe(201);
  return String(body.client_id);
}

function authorizationUrl(as: AuthorizationServer, params: Record<string, string>): URL {
  const url = new URL(`${as.issuer}/auth`);
  url.search = new URLSearchParams({ response_type: "code", redirect_uri: REDIRECT, ...params }).toString();
  return url;
}

async function tokenRequest(
  as: AuthorizationServer,
  params: Record<string, string>,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: Json; headers: Headers }> {
  const response = await fetch(`${as.issuer}/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
    body: new URLSearchParams(params),
  });
  return { status: response.status, body: (await response.json()) as Json, headers: response.headers };
}

/** Registers nothing: logs `clientId` in for `resource` with `scope` and redeems the code. */
async function login(as: AuthorizationServer, clientId: string, resource: string, scope: string) {
  const { verifier, challenge } = pkce();
  const state = randomBytes(8).toString("hex");
  const response = await as.authorize(
    authorizationUrl(as, {
      client_id: clientId,
      scope,
      state,
      resource,
      code_challenge: challenge,
      code_challenge_method: "S256",
    }),
  );
  expect(response.state).toBe(state);
  expect(response.iss).toBe(as.issuer);
  return tokenRequest(as, {
    grant_type: "authorization_code",
    code: response.code,
    code_verifier: verifier,
    redirect_uri: REDIRECT,
    client_id: clientId,
    resource,
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("the test authorization server, with plain OAuth requests", () => {
  let as: AuthorizationServer;
  let clientId: string;
  beforeAll(async () => {
    as = await startAuthorizationServer({
      scopes: ["mcp:read", "mcp:write"],
      resources: [
        { uri: JWT_RESOURCE },
        { uri: OPAQUE_RESOURCE, scopes: ["mcp:read"], format: "opaque" },
        { uri: SHORT_RESOURCE, accessTokenTtl: 1 },
      ],
    });
    clientId = await publicClient(as);
  });
  afterAll(async () => {
    expect(as.errors).toEqual([]);
    await as.close();
  });

  it("publishes metadata an MCP client needs: S256 only, iss in responses, DCR, introspection, JWKS", async () => {
    const metadata = await as.metadata();
    expect(metadata).toMatchObject({
      issuer: as.issuer,
      code_challenge_methods_supported: ["S256"],
      authorization_response_iss_parameter_supported: true,
      registration_endpoint: `${as.issuer}/reg`,
      introspection_endpoint: as.introspectionEndpoint,
      jwks_uri: as.jwksUri,
    });
    expect(metadata.token_endpoint_auth_methods_supported).toEqual(
      expect.arrayContaining(["none", "client_secret_basic", "client_secret_post", "private_key_jwt"]),
    );
    const jwks = (await (await fetch(as.jwksUri)).json()) as { keys: Json[] };
    expect(jwks.keys).toEqual([expect.objectContaining({ kid: as.publicJwk.kid, alg: "ES256" })]);
    expect(jwks.keys[0]).not.toHaveProperty("d");
  });

  it("registers loopback http redirect URIs for web and native clients, and refuses a non-loopback http one for native", async () => {
    const web = await register(as, { redirect_uris: ["http://127.0.0.1:4567/callback"] });
    expect(web.status).toBe(201);
    expect(web.body.application_type).toBe("web");
    const native = await register(as, { application_type: "native", redirect_uris: ["http://localhost/cb"] });
    expect(native.status).toBe(201);
    const remote = await register(as, {
      application_type: "native",
      redirect_uris: ["http://example.com/cb"],
    });
    expect(remote.status).toBe(400);
    expect(remote.body.error).toBe("invalid_redirect_uri");
  });

  it("issues a JWT for the resource asked, audience = the resource, scopes limited to the allowed set", async () => {
    const { status, body } = await login(as, clientId, JWT_RESOURCE, "mcp:read mcp:write mcp:unknown");
    expect(status).toBe(200);
    expect(body).toMatchObject({ token_type: "Bearer", scope: "mcp:read mcp:write", expires_in: 300 });
    expect(typeof body.refresh_token).toBe("string");
    const token = String(body.access_token);
    expect(decodeProtectedHeader(token)).toMatchObject({
      alg: "ES256",
      typ: "at+jwt",
      kid: as.publicJwk.kid,
    });
    const { payload } = await jwtVerify(token, createRemoteJWKSet(new URL(as.jwksUri)), {
      issuer: as.issuer,
      audience: JWT_RESOURCE,
    });
    expect(payload).toMatchObject({ sub: "alice", client_id: clientId, scope: "mcp:read mcp:write" });
    await expect(
      jwtVerify(token, createRemoteJWKSet(new URL(as.jwksUri)), {
        issuer: as.issuer,
        audience: OPAQUE_RESOURCE,
      }),
    ).rejects.toBeInstanceOf(joseErrors.JWTClaimValidationFailed);
    expect(JSON.stringify(as.log)).not.toContain(token);
    expect(JSON.stringify(as.log)).not.toContain(String(body.refresh_token));
  });

  it("issues opaque tokens for an opaque resource, readable only by introspection with the introspector's secret", async () => {
    const { status, body } = await login(as, clientId, OPAQUE_RESOURCE, "mcp:read mcp:write");
    expect(status).toBe(200);
    expect(body.scope).toBe("mcp:read");
    const token = String(body.access_token);
    expect(token.split(".")).toHaveLength(1);
    const introspect = (secret: string) =>
      fetch(as.introspectionEndpoint, {
        method: "POST",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          authorization: `Basic ${Buffer.from(`${as.introspector.clientId}:${secret}`).toString("base64")}`,
        },
        body: new URLSearchParams({ token }),
      });
    const good = await introspect(as.introspector.clientSecret);
    expect(good.status).toBe(200);
    expect(await good.json()).toMatchObject({
      active: true,
      sub: "alice",
      client_id: clientId,
      aud: OPAQUE_RESOURCE,
      scope: "mcp:read",
      iss: as.issuer,
    });
    const wrong = await introspect("not-the-secret");
    expect(wrong.status).toBe(401);
  });

  it("refreshes after the access token expired; the refreshed token verifies, the old one does not", async () => {
    const first = await login(as, clientId, SHORT_RESOURCE, "mcp:read");
    expect(first.body.expires_in).toBe(1);
    const jwks = createRemoteJWKSet(new URL(as.jwksUri));
    const verify = (token: unknown) =>
      jwtVerify(String(token), jwks, { issuer: as.issuer, audience: SHORT_RESOURCE });
    await sleep(2100);
    await expect(verify(first.body.access_token)).rejects.toBeInstanceOf(joseErrors.JWTExpired);
    const refreshed = await tokenRequest(as, {
      grant_type: "refresh_token",
      refresh_token: String(first.body.refresh_token),
      client_id: clientId,
    });
    expect(refreshed.status).toBe(200);
    expect((await verify(refreshed.body.access_token)).payload).toMatchObject({
      aud: SHORT_RESOURCE,
      scope: "mcp:read",
    });
    expect(as.log.grants.at(-1)).toMatchObject({ grantType: "refresh_token", clientId, refreshToken: true });
    // A public client's refresh token rotates: the used one is spent.
    const reused = await tokenRequest(as, {
      grant_type: "refresh_token",
      refresh_token: String(first.body.refresh_token),
      client_id: clientId,
    });
    expect(reused.body.error).toBe("invalid_grant");
  });

  it("requires PKCE S256 of every client and checks the verifier", async () => {
    const noPkce = await as.authorizeRedirect(
      authorizationUrl(as, { client_id: clientId, scope: "mcp:read", resource: JWT_RESOURCE, state: "s" }),
    );
    expect(noPkce.searchParams.get("error")).toBe("invalid_request");
    expect(noPkce.searchParams.get("error_description")).toMatch(/PKCE/);
    const plain = await as.authorizeRedirect(
      authorizationUrl(as, {
        client_id: clientId,
        resource: JWT_RESOURCE,
        code_challenge: "x".repeat(43),
        code_challenge_method: "plain",
      }),
    );
    expect(plain.searchParams.get("error")).toBe("invalid_request");
    const { challenge } = pkce();
    const response = await as.authorize(
      authorizationUrl(as, {
        client_id: clientId,
        scope: "mcp:read",
        resource: JWT_RESOURCE,
        code_challenge: challenge,
        code_challenge_method: "S256",
      }),
    );
    const wrongVerifier = await tokenRequest(as, {
      grant_type: "authorization_code",
      code: response.code,
      code_verifier: pkce().verifier,
      redirect_uri: REDIRECT,
      client_id: clientId,
    });
    expect(wrongVerifier.body.error).toBe("invalid_grant");
  });

  it("refuses a resource it does not know with invalid_target, and a user's refusal with access_denied", async () => {
    const { challenge } = pkce();
    const params = { client_id: clientId, code_challenge: challenge, code_challenge_method: "S256" };
    const unknown = await as.authorizeRedirect(
      authorizationUrl(as, { ...params, resource: "http://127.0.0.1:7/x" }),
    );
    expect(unknown.searchParams.get("error")).toBe("invalid_target");
    const denied = as.authorize(
      authorizationUrl(as, { ...params, scope: "mcp:read", resource: JWT_RESOURCE }),
      {
        deny: true,
      },
    );
    await expect(denied).rejects.toBeInstanceOf(AuthorizationDenied);
    await expect(denied).rejects.toMatchObject({ error: "access_denied" });
  });

  it("signs in the account asked for", async () => {
    const { verifier, challenge } = pkce();
    const response = await as.authorize(
      authorizationUrl(as, {
        client_id: clientId,
        scope: "mcp:read",
        resource: JWT_RESOURCE,
        code_challenge: challenge,
        code_challenge_method: "S256",
      }),
      { accountId: "bob" },
    );
    const { body } = await tokenRequest(as, {
      grant_type: "authorization_code",
      code: response.code,
      code_verifier: verifier,
      redirect_uri: REDIRECT,
      client_id: clientId,
    });
    const { payload } = await jwtVerify(String(body.access_token), createRemoteJWKSet(new URL(as.jwksUri)), {
      issuer: as.issuer,
      audience: JWT_RESOURCE,
    });
    expect(payload.sub).toBe("bob");
  });

  it("signJwt signs with the server's key, so tests can make tokens it would never issue", async () => {
    const token = await as.signJwt({ aud: "http://elsewhere", sub: "mallory", exp: 1 });
    const jwks = createRemoteJWKSet(new URL(as.jwksUri));
    await expect(jwtVerify(token, jwks, { issuer: as.issuer })).rejects.toBeInstanceOf(joseErrors.JWTExpired);
    const fresh = await as.signJwt({ aud: "http://elsewhere", sub: "mallory" });
    expect(
      (await jwtVerify(fresh, jwks, { issuer: as.issuer, audience: "http://elsewhere" })).payload.sub,
    ).toBe("mallory");
  });
});

describe("a CLI's login through it: loopback redirect and token file", () => {
  it("gets the code on a real loopback endpoint, redeems it, and keeps the tokens in a 0600 file", async () => {
    const as = await startAuthorizationServer({ resources: [{ uri: JWT_RESOURCE, scopes: ["mcp:read"] }] });
    const dir = mkdtempSync(join(tmpdir(), "mcp-codegen-cli-login-"));
    try {
      const redirect = await loopbackRedirect({ timeoutMs: 10_000 });
      const { body: client } = await register(as, {
        application_type: "native",
        redirect_uris: [redirect.redirectUri],
        token_endpoint_auth_method: "none",
        grant_types: ["authorization_code", "refresh_token"],
      });
      const { verifier, challenge } = pkce();
      const state = randomBytes(16).toString("base64url");
      const url = new URL(`${as.issuer}/auth`);
      url.search = new URLSearchParams({
        response_type: "code",
        client_id: String(client.client_id),
        redirect_uri: redirect.redirectUri,
        scope: "mcp:read",
        state,
        resource: JWT_RESOURCE,
        code_challenge: challenge,
        code_challenge_method: "S256",
      }).toString();
      const waiting = redirect.wait(state);
      // The browser: through the provider's pages, then to the loopback endpoint.
      const back = await as.authorizeRedirect(url);
      expect(back.origin + back.pathname).toBe(redirect.redirectUri);
      expect((await fetch(back)).status).toBe(200);
      const { code, iss } = await waiting;
      expect(iss).toBe(as.issuer);
      const { body: tokens } = await tokenRequest(as, {
        grant_type: "authorization_code",
        code,
        code_verifier: verifier,
        redirect_uri: redirect.redirectUri,
        client_id: String(client.client_id),
        resource: JWT_RESOURCE,
      });
      const path = join(dir, "config", "mcp-codegen", "tokens.json");
      const key = { issuer: as.issuer, resource: JWT_RESOURCE };
      await new FileTokenStore(path).setTokens(key, {
        access_token: String(tokens.access_token),
        token_type: String(tokens.token_type),
        refresh_token: String(tokens.refresh_token),
        expires_at: Math.floor(Date.now() / 1000) + Number(tokens.expires_in),
      });
      expect(statSync(path).mode & 0o777).toBe(0o600);
      const stored = await new FileTokenStore(path).getTokens(key);
      const { payload } = await jwtVerify(
        String(stored?.access_token),
        createRemoteJWKSet(new URL(as.jwksUri)),
        {
          issuer: as.issuer,
          audience: JWT_RESOURCE,
        },
      );
      expect(payload.scope).toBe("mcp:read");

      // The user refuses: the loopback endpoint rejects with the provider's error.
      const refused = await loopbackRedirect({ timeoutMs: 10_000 });
      url.searchParams.set("redirect_uri", refused.redirectUri);
      const { body: second } = await register(as, {
        redirect_uris: [refused.redirectUri],
        token_endpoint_auth_method: "none",
      });
      url.searchParams.set("client_id", String(second.client_id));
      const rejection = refused.wait(state);
      rejection.catch(() => {});
      expect((await fetch(await as.authorizeRedirect(url, { deny: true }))).status).toBe(400);
      await expect(rejection).rejects.toBeInstanceOf(AuthorizationResponseError);
      await expect(rejection).rejects.toMatchObject({ error: "access_denied", iss: as.issuer });
      await redirect.close();
      await refused.close();
      expect(as.errors).toEqual([]);
    } finally {
      await as.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("an authorization request without scope", () => {
  it("is refused with access_denied, unless scopeWhenOmitted names what to grant", async () => {
    for (const scopeWhenOmitted of [undefined, "mcp:read"]) {
      const as = await startAuthorizationServer({
        scopeWhenOmitted,
        resources: [{ uri: JWT_RESOURCE, scopes: ["mcp:read"] }],
      });
      try {
        const clientId = await publicClient(as);
        const { verifier, challenge } = pkce();
        const redirect = await as.authorizeRedirect(
          authorizationUrl(as, {
            client_id: clientId,
            resource: JWT_RESOURCE,
            code_challenge: challenge,
            code_challenge_method: "S256",
          }),
        );
        if (scopeWhenOmitted === undefined) {
          expect(redirect.searchParams.get("error")).toBe("access_denied");
          continue;
        }
        const { body } = await tokenRequest(as, {
          grant_type: "authorization_code",
          code: String(redirect.searchParams.get("code")),
          code_verifier: verifier,
          redirect_uri: REDIRECT,
          client_id: clientId,
        });
        expect(body.scope).toBe("mcp:read");
      } finally {
        await as.close();
      }
    }
  });
});

describe("the client credentials grant", () => {
  it("issues a JWT for the resource to a pre-registered confidential client", async () => {
    const secret = randomBytes(24).toString("base64url");
    const as = await startAuthorizationServer({
      resources: [{ uri: JWT_RESOURCE, scopes: ["mcp:read", "mcp:write"] }],
      clients: [
        {
          client_id: "machine",
          client_secret: secret,
          grant_types: ["client_credentials"],
          response_types: [],
          redirect_uris: [],
          token_endpoint_auth_method: "client_secret_basic",
        },
      ],
    });
    try {
      const basic = (password: string) => ({
        authorization: `Basic ${Buffer.from(`machine:${password}`).toString("base64")}`,
      });
      const params = { grant_type: "client_credentials", scope: "mcp:read", resource: JWT_RESOURCE };
      const { status, body } = await tokenRequest(as, params, basic(secret));
      expect(status).toBe(200);
      expect(body.refresh_token).toBeUndefined();
      const { payload } = await jwtVerify(
        String(body.access_token),
        createRemoteJWKSet(new URL(as.jwksUri)),
        {
          issuer: as.issuer,
          audience: JWT_RESOURCE,
        },
      );
      expect(payload).toMatchObject({ client_id: "machine", scope: "mcp:read" });
      expect((await tokenRequest(as, params, basic("wrong"))).body.error).toBe("invalid_client");
      expect(as.errors).toEqual([]);
    } finally {
      await as.close();
    }
  });
});

describe("DPoP-bound tokens", () => {
  it("binds a token to the proof's key (cnf.jkt), and with dpopNonce asks for a nonce first", async () => {
    for (const dpopNonce of [false, true]) {
      const secret = randomBytes(24).toString("base64url");
      const as = await startAuthorizationServer({
        dpopNonce,
        resources: [{ uri: JWT_RESOURCE, scopes: ["mcp:read"] }],
        clients: [
          {
            client_id: "machine",
            client_secret: secret,
            grant_types: ["client_credentials"],
            response_types: [],
            redirect_uris: [],
          },
        ],
      });
      try {
        const { privateKey, publicKey } = await generateKeyPair("ES256");
        const jwk = await exportJWK(publicKey);
        const proof = (nonce?: string) =>
          new SignJWT({ htm: "POST", htu: `${as.issuer}/token`, jti: randomBytes(12).toString("hex"), nonce })
            .setProtectedHeader({ alg: "ES256", typ: "dpop+jwt", jwk })
            .setIssuedAt()
            .sign(privateKey);
        const request = async (nonce?: string) =>
          tokenRequest(
            as,
            { grant_type: "client_credentials", scope: "mcp:read", resource: JWT_RESOURCE },
            {
              authorization: `Basic ${Buffer.from(`machine:${secret}`).toString("base64")}`,
              dpop: await proof(nonce),
            },
          );
        let answer = await request();
        if (dpopNonce) {
          expect(answer.status).toBe(400);
          expect(answer.body.error).toBe("use_dpop_nonce");
          const nonce = answer.headers.get("dpop-nonce");
          expect(nonce).toBeTruthy();
          answer = await request(String(nonce));
        }
        expect(answer.status).toBe(200);
        expect(answer.body.token_type).toBe("DPoP");
        const claims = decodeJwt(String(answer.body.access_token));
        expect(claims.cnf).toEqual({ jkt: await calculateJwkThumbprint(jwk) });
        expect(as.errors).toEqual([]);
      } finally {
        await as.close();
      }
    }
  });
});

describe("the metadata documents", () => {
  it("are served at the RFC 8414 and the OpenID address, or at the one `discovery` names", async () => {
    const oauth = "/.well-known/oauth-authorization-server";
    const openid = "/.well-known/openid-configuration";
    for (const discovery of ["both", "oauth", "openid"] as const) {
      const as = await startAuthorizationServer({ discovery });
      try {
        const status = async (path: string) => (await fetch(`${as.issuer}${path}`)).status;
        expect({ discovery, oauth: await status(oauth), openid: await status(openid) }).toEqual({
          discovery,
          oauth: discovery === "openid" ? 404 : 200,
          openid: discovery === "oauth" ? 404 : 200,
        });
        expect((await as.metadata()).issuer).toBe(as.issuer);
      } finally {
        await as.close();
      }
    }
  });
});

describe("a client's registered scope", () => {
  it("does not limit what it asks for later, unless limitToRegisteredScope says so", async () => {
    for (const limitToRegisteredScope of [false, true]) {
      const as = await startAuthorizationServer({
        limitToRegisteredScope,
        resources: [{ uri: JWT_RESOURCE, scopes: ["mcp:read", "mcp:write"] }],
      });
      try {
        const { status, body } = await register(as, {
          redirect_uris: [REDIRECT],
          token_endpoint_auth_method: "none",
          scope: "mcp:read",
        });
        expect(status).toBe(201);
        const { challenge } = pkce();
        const redirect = await as.authorizeRedirect(
          authorizationUrl(as, {
            client_id: String(body.client_id),
            scope: "mcp:read mcp:write",
            resource: JWT_RESOURCE,
            code_challenge: challenge,
            code_challenge_method: "S256",
          }),
        );
        if (limitToRegisteredScope) expect(redirect.searchParams.get("error")).toBe("invalid_scope");
        else expect(redirect.searchParams.get("code")).toBeTruthy();
      } finally {
        await as.close();
      }
    }
  });
});

describe("refresh tokens only with offline_access, when configured so", () => {
  it("issues a refresh token when offline_access was granted, and none otherwise", async () => {
    const as = await startAuthorizationServer({
      refreshTokens: "offline_access",
      signingAlg: "RS256",
      resources: [{ uri: JWT_RESOURCE, scopes: ["mcp:read"] }],
    });
    try {
      const clientId = await publicClient(as);
      const without = await login(as, clientId, JWT_RESOURCE, "mcp:read");
      expect(without.status).toBe(200);
      expect(without.body.refresh_token).toBeUndefined();
      expect(decodeProtectedHeader(String(without.body.access_token)).alg).toBe("RS256");
      // oidc-provider keeps offline_access only when consent is prompted for, as OpenID Connect says.
      const { verifier, challenge } = pkce();
      const response = await as.authorize(
        authorizationUrl(as, {
          client_id: clientId,
          scope: "mcp:read offline_access",
          prompt: "consent",
          resource: JWT_RESOURCE,
          code_challenge: challenge,
          code_challenge_method: "S256",
        }),
      );
      const withOffline = await tokenRequest(as, {
        grant_type: "authorization_code",
        code: response.code,
        code_verifier: verifier,
        redirect_uri: REDIRECT,
        client_id: clientId,
        resource: JWT_RESOURCE,
      });
      expect(withOffline.status).toBe(200);
      expect(typeof withOffline.body.refresh_token).toBe("string");
      expect(as.errors).toEqual([]);
    } finally {
      await as.close();
    }
  });
});

describe("the SDK v2 client logs in through it to an SDK v2 server protected with requireBearerAuth", () => {
  let as: AuthorizationServer;
  let server: SdkProtectedServer;
  beforeAll(async () => {
    as = await startAuthorizationServer({ scopes: ["mcp:tools", "mcp:admin"] });
    server = await startSdkProtectedServer(as, {
      scopes: ["mcp:tools"],
      adminScope: "mcp:admin",
      accessTokenTtl: 2,
    });
  });
  afterAll(async () => {
    await server?.close();
    expect(as.errors).toEqual([]);
    await as?.close();
  });

  const transportFor = (login: SdkOAuthClient) => () =>
    new StreamableHTTPClientTransport(new URL(server.url), { authProvider: login });
  const whoami = (text: unknown) =>
    JSON.parse(String((text as { content: { text: string }[] }).content[0]?.text));

  it("refuses a request without a token, or with a token for another resource, before the MCP handler", async () => {
    const before = server.requests.count;
    const bare = await fetch(server.url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(bare.status).toBe(401);
    expect(bare.headers.get("www-authenticate")).toContain(
      'resource_metadata="http://127.0.0.1:' +
        new URL(server.url).port +
        '/.well-known/oauth-protected-resource/mcp"',
    );
    as.addResource({ uri: OPAQUE_RESOURCE, scopes: ["mcp:tools"] });
    const elsewhere = await as.signJwt({
      aud: OPAQUE_RESOURCE,
      sub: "alice",
      scope: "mcp:tools",
      client_id: "c",
    });
    const wrongAudience = await fetch(server.url, {
      method: "POST",
      headers: { authorization: `Bearer ${elsewhere}`, "content-type": "application/json" },
      body: "{}",
    });
    expect(wrongAudience.status).toBe(401);
    expect(wrongAudience.headers.get("www-authenticate")).toContain('error="invalid_token"');
    expect(server.requests.count).toBe(before);
  });

  it("discovers, registers, authorizes with PKCE and resource, calls a tool, refreshes after expiry and steps up", async () => {
    const login = new SdkOAuthClient(as, { accountId: "carol" });
    const client = new Client({ name: "sdk-v2-oauth", version: "1.0.0" });
    await connectWithLogin(client, login, transportFor(login));

    const registration = as.log.registrations.at(-1);
    expect(registration?.metadata.redirect_uris).toEqual([login.redirectUrl]);
    expect(registration?.metadata).not.toHaveProperty("registration_access_token");
    expect(login.authorizationUrls).toHaveLength(1);
    expect(login.authorizationUrls[0]?.searchParams.get("resource")).toBe(server.url);
    expect(as.log.authorizations.at(-1)).toMatchObject({
      clientId: registration?.clientId,
      resource: server.url,
      codeChallengeMethod: "S256",
    });
    expect(as.log.grants.at(-1)).toMatchObject({ grantType: "authorization_code", resource: server.url });

    expect(whoami(await client.callTool({ name: "whoami", arguments: {} }))).toEqual({
      sub: "carol",
      clientId: registration?.clientId,
      scopes: ["mcp:tools"],
    });

    // The access token lives 2 s; past it the server answers 401 and the SDK refreshes, with no new login.
    await sleep(3100);
    const grantsBefore = as.log.grants.length;
    expect(whoami(await client.callTool({ name: "whoami", arguments: {} })).sub).toBe("carol");
    expect(as.log.grants.slice(grantsBefore)).toEqual([
      expect.objectContaining({ grantType: "refresh_token", clientId: registration?.clientId }),
    ]);
    expect(login.authorizationUrls).toHaveLength(1);

    // `admin` needs mcp:admin too: 403 insufficient_scope, the SDK asks again with the wider scope.
    const transport = client.transport as StreamableHTTPClientTransport;
    const admin = await afterLogin(login, transport, () => client.callTool({ name: "admin", arguments: {} }));
    expect(whoami(admin)).toMatchObject({
      sub: "carol",
      scopes: expect.arrayContaining(["mcp:tools", "mcp:admin"]),
    });
    expect(login.authorizationUrls).toHaveLength(2);
    expect(login.authorizationUrls[1]?.searchParams.get("scope")?.split(" ")).toEqual(
      expect.arrayContaining(["mcp:tools", "mcp:admin"]),
    );
    await client.close();
  });
});
