/**
 * Our OAuth code end to end against a real authorization server (test/auth/oidc-provider.ts:
 * oidc-provider on 127.0.0.1). Our resource server serves a contract with scopes
 * (test/fixtures/scoped-contract: every request needs `mcp`, `write_note` also `notes:write`; the
 * handler asks for `notes:admin` for an "admin/" note) behind `protect()`, verifying JWTs through the
 * provider's JWKS, opaque tokens through its introspection endpoint, or DPoP-bound tokens. Our
 * `OAuthClient` logs in to it in both protocol eras: discovery, DCR, PKCE, resource, refresh after
 * expiry (and after the server's 401), a new login when no refresh is possible, step-up for the
 * contract's and a handler's scopes, DPoP with nonces. Then the official SDK v2 client logs in to our
 * server, and our client to an SDK v2 server behind `requireBearerAuth`.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client as ClientV2, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { decodeJwt, decodeProtectedHeader } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient as createHandshakeClient } from "../../generated/2025-11-25/index.js";
import { createClient, createServer } from "../../generated/2026-07-28/index.js";
import { emitContract } from "../../generator/contract/emit.js";
import { loadContractText } from "../../generator/contract/load.js";
import { DpopConstraint } from "../../runtime/auth/dpop-constraint.js";
import { introspectionVerifier } from "../../runtime/auth/introspect.js";
import { OAuthClient } from "../../runtime/auth/oauth-client.js";
import { type ProtectOptions, protect } from "../../runtime/auth/resource-server.js";
import { MemoryTokenStore } from "../../runtime/auth/token-store.js";
import { jwtVerifier } from "../../runtime/auth/verify-jwt.js";
import { connectHttp } from "../../runtime/http-client/connect.js";
import { type AuthInfo, InsufficientScope, missingScopes } from "../../runtime/mcp/auth-info.js";
import { serveHttp } from "../../runtime/node/http.js";
import { loopbackRedirect } from "../../runtime/node/loopback-redirect.js";
import { FileTokenStore } from "../../runtime/node/token-file-store.js";
import { type AuthorizationServer, startAuthorizationServer } from "../auth/oidc-provider.js";
import { afterLogin, connectWithLogin, SdkOAuthClient } from "../auth/sdk-oauth-client.js";
import { startSdkProtectedServer } from "../auth/sdk-protected-server.js";
import { freePort } from "../fixtures/auth/protected-server.js";

const REPO = fileURLToPath(new URL("../../", import.meta.url));
const OUT = `${REPO}test/.tmp/oauth-e2e/`;
const REDIRECT = "http://127.0.0.1:9/callback";
const SCOPES = ["mcp", "notes:read", "notes:write", "notes:admin"];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const cleanups: (() => Promise<void>)[] = [];
let as: AuthorizationServer;

beforeAll(async () => {
  const yaml = readFileSync(`${REPO}test/fixtures/scoped-contract/contract.yaml`, "utf8");
  const files = await emitContract(await loadContractText(yaml, "contract.yaml"), {
    protocolVersion: "2026-07-28",
    protocolDir: "../../../generated/2026-07-28",
  });
  mkdirSync(OUT, { recursive: true });
  for (const [name, body] of Object.entries(files)) writeFileSync(`${OUT}${name}`, body);
  as = await startAuthorizationServer({ scopes: SCOPES });
  cleanups.push(async () => {
    expect(as.errors).toEqual([]);
    await as.close();
  });
});
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

interface Ours {
  url: string;
  /** `ctx.auth` of each handler call, with the tool's name. */
  calls: { tool: string; auth: AuthInfo }[];
}

/**
 * The scoped contract served by our runtime on 127.0.0.1 behind `protect()`, registered with the
 * provider as a resource (`format`, `accessTokenTtl`); `verifier` defaults to the provider's JWKS.
 */
async function ourServer(
  options: {
    format?: "jwt" | "opaque";
    accessTokenTtl?: number;
    protect?: (resource: string) => Partial<ProtectOptions>;
    /** Another authorization server than the shared one. */
    at?: AuthorizationServer;
    /** Answer a session-era request with JSON unless something streams first (default: SSE at once). */
    jsonResponse?: boolean;
  } = {},
): Promise<Ours> {
  const at = options.at ?? as;
  const port = await freePort();
  const resource = `http://127.0.0.1:${port}/mcp`;
  at.addResource({ uri: resource, format: options.format, accessTokenTtl: options.accessTokenTtl });
  const contract = await import(/* @vite-ignore */ `${OUT}server.js`);
  const calls: Ours["calls"] = [];
  const reports: unknown[] = [];
  // Refusals are answers, not faults: a flow of this file that makes the server report anything is a bug.
  cleanups.push(async () => expect(reports, resource).toEqual([]));
  const whoami = (tool: string, auth: AuthInfo) => {
    calls.push({ tool, auth });
    return JSON.stringify({ tool, sub: auth.subject, clientId: auth.clientId, scopes: auth.scopes });
  };
  const server = createServer({
    info: { name: "oauth-e2e", version: "1.0.0" },
    onError: (error) => reports.push(error),
    handlers: contract.contractHandlers({
      tools: {
        whoami: (_args: unknown, ctx: { auth: AuthInfo }) => whoami("whoami", ctx.auth),
        // A note under "admin/" needs notes:admin, known only once the handler reads the arguments.
        write_note: ({ text }: { text: string }, ctx: { auth: AuthInfo }) => {
          const missing = missingScopes(ctx.auth.scopes, ["notes:admin"]);
          if (text.startsWith("admin/") && missing.length > 0)
            throw new InsufficientScope(["notes:admin"], missing);
          return whoami("write_note", ctx.auth);
        },
      },
      prompts: { summarize: () => "summary" },
      resources: { all: () => "every note" },
      resourceTemplates: { note: ({ name }: { name: string }) => `note ${name}` },
    }),
  });
  expect(server.scopesSupported).toEqual(["mcp", "notes:admin", "notes:read", "notes:write"]);
  const http = await serveHttp(server, {
    port,
    jsonResponse: options.jsonResponse,
    auth: protect({
      resource,
      authorizationServers: [at.issuer],
      verifier: jwtVerifier({
        issuer: at.issuer,
        audience: resource,
        jwksUri: at.jwksUri,
        clockToleranceSec: 0,
      }),
      scopesSupported: contract.scopesSupported,
      requiredScopes: ["mcp"],
      ...options.protect?.(resource),
    }),
  });
  cleanups.push(() => http.close());
  expect(http.url).toBe(resource);
  return { url: resource, calls };
}

/** Our OAuth client whose browser is the provider's automated login as `accountId`. */
function ourLogin(
  serverUrl: string,
  accountId: string,
  extra: {
    store?: MemoryTokenStore;
    dpop?: boolean;
    at?: AuthorizationServer;
    /** `refreshLeewaySeconds` (default 0; "default": the client's); negative: a clock behind the server's. */
    leeway?: number | "default";
  } = {},
) {
  const at = extra.at ?? as;
  const urls: URL[] = [];
  const authorizer = new OAuthClient({
    serverUrl,
    redirectUri: REDIRECT,
    redirectToAuthorization: (url) => {
      urls.push(url);
      return at.authorize(url, { accountId });
    },
    clientMetadata: { client_name: "oauth-e2e" },
    refreshLeewaySeconds: extra.leeway === "default" ? undefined : (extra.leeway ?? 0),
    store: extra.store,
    senderConstraint: extra.dpop ? new DpopConstraint() : undefined,
  });
  return { authorizer, urls };
}

type Result = { content?: unknown };
const answer = (result: Result) =>
  JSON.parse(String((result.content as { type: string; text: string }[])[0]?.text)) as {
    tool: string;
    sub: string;
    clientId: string;
    scopes: string[];
  };
const scopeOf = (url: URL | undefined) => (url?.searchParams.get("scope") ?? "").split(" ");

const ERAS = [
  {
    era: "2026-07-28 (stateless)",
    session: false,
    make: () => createClient({ info: { name: "ours", version: "1" } }),
  },
  {
    era: "2025-11-25 (session)",
    session: true,
    make: () => createHandshakeClient({ info: { name: "ours", version: "1" } }),
  },
] as const;

describe("our client logs in to our server through oidc-provider (JWT, JWKS)", () => {
  for (const { era, session, make } of ERAS) {
    it(`${era}: discovers, registers, authorizes, calls, refreshes after expiry, steps up`, async () => {
      const server = await ourServer({ accessTokenTtl: 2 });
      const account = `bob-${era.slice(0, 4)}`;
      const { authorizer, urls } = ourLogin(server.url, account);
      const registrations = as.log.registrations.length;
      const client = make();
      const transport = await connectHttp(server.url, { authorizer });
      await client.connect(transport);
      try {
        const first = answer(await client.callTool({ name: "whoami", arguments: {} }));
        const sessionId = transport.sessionId;
        expect(sessionId !== undefined).toBe(session);

        // One registration (DCR), one authorization with PKCE S256 and the resource, for the challenged scope.
        expect(as.log.registrations.length).toBe(registrations + 1);
        const clientId = as.log.registrations.at(-1)?.clientId;
        expect(clientId).toEqual(expect.any(String));
        expect(as.log.registrations.at(-1)?.metadata.redirect_uris).toEqual([REDIRECT]);
        expect(urls).toHaveLength(1);
        expect(as.log.authorizations.at(-1)).toMatchObject({
          clientId,
          resource: server.url,
          codeChallengeMethod: "S256",
        });
        expect(scopeOf(urls[0])).toContain("mcp");
        expect(scopeOf(urls[0])).not.toContain("notes:write");
        expect(first).toEqual({ tool: "whoami", sub: account, clientId, scopes: ["mcp"] });
        expect(authorizer.issuer).toBe(as.issuer);
        expect(server.calls.at(-1)?.auth).toMatchObject({ subject: account, issuer: as.issuer });

        // The token lives 2 s and the server allows no skew: past it, one refresh for the calls that find
        // it expired together (the provider rotates refresh tokens and revokes the grant on reuse), no login.
        await sleep(3100);
        const grants = as.log.grants.length;
        const again = await Promise.all(
          [1, 2, 3].map(() => client.callTool({ name: "whoami", arguments: {} })),
        );
        expect(again.map((r) => answer(r).sub)).toEqual([account, account, account]);
        expect(as.log.grants.slice(grants)).toEqual([
          expect.objectContaining({ grantType: "refresh_token", clientId }),
        ]);
        expect(urls).toHaveLength(1);

        // write_note needs notes:write too: 403 insufficient_scope, a login for the union, then the call.
        const before = server.calls.length;
        const note = answer(await client.callTool({ name: "write_note", arguments: { text: "hi" } }));
        expect(urls).toHaveLength(2);
        expect(scopeOf(urls[1])).toEqual(expect.arrayContaining(["mcp", "notes:write"]));
        expect(as.log.authorizations.at(-1)?.scope?.split(" ")).toEqual(
          expect.arrayContaining(["mcp", "notes:write"]),
        );
        expect(note).toMatchObject({ tool: "write_note", sub: account, clientId });
        expect(note.scopes).toEqual(expect.arrayContaining(["mcp", "notes:write"]));
        // The refused attempt never reached the handler: one call since.
        expect(server.calls.slice(before).map((c) => c.tool)).toEqual(["write_note"]);
        expect(as.log.registrations.length).toBe(registrations + 1);
        // The session (bound to its subject) outlived the refresh and the step-up: same subject, same session.
        expect(transport.sessionId).toBe(sessionId);
      } finally {
        await client.close();
      }
    });
  }
});

describe("a CLI: our client with the loopback redirect and the file store, over three runs", () => {
  it("logs in once, reuses the login after a restart (on another port), steps up, refreshes after expiry", async () => {
    const server = await ourServer({ accessTokenTtl: 2 });
    const dir = mkdtempSync(join(tmpdir(), "oauth-e2e-"));
    cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, "config", "tokens.json");
    const redirects: string[] = [];
    /** One run of the CLI: its own store object on the file, its own loopback port. */
    const run = async () => {
      const port = await freePort();
      const authorizer = new OAuthClient({
        serverUrl: server.url,
        redirectUri: `http://127.0.0.1:${port}/callback`,
        redirectToAuthorization: async (url) => {
          const redirect = await loopbackRedirect({ port, timeoutMs: 10_000 });
          const waiting = redirect.wait(String(url.searchParams.get("state")));
          // The browser: through the provider's pages, then to the loopback endpoint.
          const back = await as.authorizeRedirect(url, { accountId: "cli-user" });
          redirects.push(`${back.origin}${back.pathname}`);
          expect((await fetch(back)).status).toBe(200);
          return waiting;
        },
        clientMetadata: { client_name: "oauth-e2e-cli" },
        store: new FileTokenStore(file),
        refreshLeewaySeconds: 0, // the tokens live 2 s: the default 30 s would refresh before each use
      });
      const client = createClient({ info: { name: "cli", version: "1" } });
      await client.connect(await connectHttp(server.url, { authorizer }));
      return { client, port };
    };
    const registrations = as.log.registrations.length;
    const mine = () => as.log.grants.filter((g) => g.resource === server.url).map((g) => g.grantType);

    const first = await run();
    expect(answer(await first.client.callTool({ name: "whoami", arguments: {} })).sub).toBe("cli-user");
    await first.client.close();
    expect(redirects).toEqual([`http://127.0.0.1:${first.port}/callback`]);
    expect(as.log.registrations.length).toBe(registrations + 1);
    expect(as.log.registrations.at(-1)?.metadata).toMatchObject({ application_type: "native" });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, "utf8")).toContain(as.issuer);

    // Restart: the stored token is used as is; a step-up logs in through this run's port, same registration.
    const second = await run();
    expect(answer(await second.client.callTool({ name: "whoami", arguments: {} })).sub).toBe("cli-user");
    expect(redirects).toHaveLength(1);
    const note = answer(await second.client.callTool({ name: "write_note", arguments: { text: "x" } }));
    expect(note.scopes).toEqual(expect.arrayContaining(["mcp", "notes:write"]));
    expect(redirects.at(-1)).toBe(`http://127.0.0.1:${second.port}/callback`);
    expect(second.port).not.toBe(first.port);
    await second.client.close();
    expect(as.log.registrations.length).toBe(registrations + 1);

    // Restart after the access token expired: the stored refresh token, no login.
    await sleep(3100);
    const logins = redirects.length;
    const before = mine().length;
    const third = await run();
    const again = answer(await third.client.callTool({ name: "write_note", arguments: { text: "y" } }));
    expect(again.scopes).toEqual(expect.arrayContaining(["mcp", "notes:write"]));
    const refreshes = mine().slice(before);
    expect(refreshes.length).toBeGreaterThan(0); // one, or more on a machine slow enough to outlive 2 s
    expect(refreshes).toEqual(refreshes.map(() => "refresh_token"));
    expect(redirects).toHaveLength(logins);
    await third.client.close();
  });
});

// Each case has its own authorization server and mostly waits for expiry: run side by side.
describe.concurrent("our client when a refresh is not possible, through the provider", () => {
  const cases = [
    {
      name: "the refresh token expired too: the refused refresh leads to a new login",
      options: { refreshTokenTtl: 1 }, // and the access token 2 s
    },
    {
      // oidc-provider keeps offline_access only when consent is prompted for (OpenID Connect): no refresh token.
      name: "no refresh token was issued (offline_access only): a new login",
      options: { refreshTokens: "offline_access" as const },
    },
  ];
  for (const { era, session, make } of ERAS)
    for (const { name, options } of cases) {
      it(`${era}: ${name}, same subject, same session`, async () => {
        const at = await startAuthorizationServer({ scopes: SCOPES, ...options });
        cleanups.push(async () => {
          expect(at.errors).toEqual([]);
          await at.close();
        });
        const server = await ourServer({ at, accessTokenTtl: 2 });
        const { authorizer, urls } = ourLogin(server.url, "rita", { at });
        const client = make();
        const transport = await connectHttp(server.url, { authorizer });
        await client.connect(transport);
        try {
          expect(answer(await client.callTool({ name: "whoami", arguments: {} })).sub).toBe("rita");
          const sessionId = transport.sessionId;
          expect(sessionId !== undefined).toBe(session);
          expect(at.log.grants[0]?.refreshToken).toBe(options.refreshTokenTtl !== undefined);
          await sleep(3100);
          expect(answer(await client.callTool({ name: "whoami", arguments: {} })).sub).toBe("rita");
          // Every token came from a login (a slow machine may need more than two), none from a refresh.
          expect(urls.length).toBeGreaterThanOrEqual(2);
          expect(at.log.grants.map((g) => g.grantType)).toEqual(urls.map(() => "authorization_code"));
          expect(at.log.registrations).toHaveLength(1);
          expect(transport.sessionId).toBe(sessionId);
        } finally {
          await client.close();
        }
      });
    }
});

/**
 * A 403 must precede the answer's first byte, so a session-era server that opens its SSE answer at once
 * (the default, for priming events) can only pass a handler's refusal on as a JSON-RPC error: such a
 * server sets `jsonResponse` (answer JSON unless something streams first).
 */
describe("a step-up a handler asks for (InsufficientScope), through the provider", () => {
  for (const { era, session, make } of ERAS)
    for (const dpop of [false, true]) {
      it(`${era}${dpop ? ", DPoP" : ""}: the 403 names the handler's scope, the client logs in for it and the call goes through`, async () => {
        const server = await ourServer({ protect: () => ({ dpop }), jsonResponse: session });
        const { authorizer, urls } = ourLogin(server.url, "hana", { dpop });
        const client = make();
        await client.connect(await connectHttp(server.url, { authorizer }));
        try {
          const plain = answer(await client.callTool({ name: "write_note", arguments: { text: "a" } }));
          expect(plain.scopes).not.toContain("notes:admin");
          const before = urls.length;
          const admin = answer(await client.callTool({ name: "write_note", arguments: { text: "admin/a" } }));
          expect(admin.scopes).toEqual(expect.arrayContaining(["mcp", "notes:write", "notes:admin"]));
          expect(urls).toHaveLength(before + 1);
          expect(scopeOf(urls.at(-1))).toEqual(expect.arrayContaining(["mcp", "notes:write", "notes:admin"]));
        } finally {
          await client.close();
        }
      });
    }
});

// Many identity providers publish only OpenID discovery, or only RFC 8414; keys are often RSA.
describe.concurrent("our client and server with a provider of another shape", () => {
  const shapes = [
    { discovery: "openid", signingAlg: "RS256" },
    { discovery: "oauth", signingAlg: "ES256" },
  ] as const;
  for (const shape of shapes)
    it(`${shape.discovery} discovery only, ${shape.signingAlg} tokens: logs in and calls`, async () => {
      const at = await startAuthorizationServer({ scopes: SCOPES, ...shape });
      cleanups.push(async () => {
        expect(at.errors).toEqual([]);
        await at.close();
      });
      const server = await ourServer({ at });
      const store = new MemoryTokenStore();
      const { authorizer, urls } = ourLogin(server.url, "omar", { at, store });
      const client = createClient({ info: { name: "ours", version: "1" } });
      await client.connect(await connectHttp(server.url, { authorizer }));
      try {
        expect(answer(await client.callTool({ name: "whoami", arguments: {} })).sub).toBe("omar");
        expect(authorizer.issuer).toBe(at.issuer);
        const token = (await store.getTokens({ issuer: at.issuer, resource: server.url }))?.access_token;
        expect(decodeProtectedHeader(String(token)).alg).toBe(shape.signingAlg);
        expect(at.log.grants).toEqual([expect.objectContaining({ grantType: "authorization_code" })]);
        expect(urls).toHaveLength(1);
      } finally {
        await client.close();
      }
    });
});

describe("our server verifying opaque tokens through the provider's introspection", () => {
  it("accepts our client's opaque token (introspected), and steps it up", async () => {
    const server = await ourServer({
      format: "opaque",
      protect: (resource) => ({
        verifier: introspectionVerifier({
          endpoint: as.introspectionEndpoint,
          clientId: as.introspector.clientId,
          clientSecret: as.introspector.clientSecret,
          audience: resource,
          issuer: as.issuer,
        }),
      }),
    });
    const store = new MemoryTokenStore();
    const { authorizer, urls } = ourLogin(server.url, "olivia", { store });
    const client = createClient({ info: { name: "ours", version: "1" } });
    await client.connect(await connectHttp(server.url, { authorizer }));
    try {
      const who = answer(await client.callTool({ name: "whoami", arguments: {} }));
      expect(who).toMatchObject({ sub: "olivia", scopes: ["mcp"] });
      const token = (await store.getTokens({ issuer: as.issuer, resource: server.url }))?.access_token;
      // A reference token: not a JWT, so only introspection could have read it.
      expect(typeof token).toBe("string");
      expect(() => decodeJwt(String(token))).toThrow();
      const note = answer(await client.callTool({ name: "write_note", arguments: { text: "x" } }));
      expect(note.scopes).toEqual(expect.arrayContaining(["mcp", "notes:write"]));
      expect(urls).toHaveLength(2);
      // A token the provider never issued is refused by introspection, with nothing reaching a handler.
      const before = server.calls.length;
      const forged = await fetch(server.url, {
        method: "POST",
        headers: {
          authorization: "Bearer not-a-token-the-provider-issued",
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      });
      expect(forged.status).toBe(401);
      expect(forged.headers.get("www-authenticate")).toContain('error="invalid_token"');
      expect(server.calls.length).toBe(before);
    } finally {
      await client.close();
    }
  });
});

describe("our client's refresh leeway against short-lived tokens", () => {
  it("uses a token that lives less than the leeway for half its life instead of refreshing before each request", async () => {
    const server = await ourServer({ accessTokenTtl: 10 });
    const { authorizer } = ourLogin(server.url, "lena", { leeway: "default" });
    const client = createClient({ info: { name: "ours", version: "1" } });
    await client.connect(await connectHttp(server.url, { authorizer }));
    try {
      for (let i = 0; i < 3; i++)
        expect(answer(await client.callTool({ name: "whoami", arguments: {} })).sub).toBe("lena");
      expect(as.log.grants.filter((g) => g.resource === server.url).map((g) => g.grantType)).toEqual([
        "authorization_code",
      ]);
    } finally {
      await client.close();
    }
  });
});

describe("our server refusing a token our client still takes for valid", () => {
  it("an expired JWT (the client's clock runs behind): the 401 is answered by a refresh, no new login", async () => {
    const server = await ourServer({ accessTokenTtl: 2 });
    const { authorizer, urls } = ourLogin(server.url, "rex", { leeway: -60 });
    const client = createClient({ info: { name: "ours", version: "1" } });
    await client.connect(await connectHttp(server.url, { authorizer }));
    try {
      expect(answer(await client.callTool({ name: "whoami", arguments: {} })).sub).toBe("rex");
      await sleep(3100);
      const grants = as.log.grants.length;
      const before = server.calls.length;
      expect(answer(await client.callTool({ name: "whoami", arguments: {} })).sub).toBe("rex");
      expect(as.log.grants.slice(grants)).toEqual([expect.objectContaining({ grantType: "refresh_token" })]);
      expect(urls).toHaveLength(1);
      expect(server.calls.length).toBe(before + 1);
    } finally {
      await client.close();
    }
  });

  it("an opaque token the provider revoked (introspected, no cache): the grant is gone, so a new login", async () => {
    const server = await ourServer({
      format: "opaque",
      protect: (resource) => ({
        verifier: introspectionVerifier({
          endpoint: as.introspectionEndpoint,
          clientId: as.introspector.clientId,
          clientSecret: as.introspector.clientSecret,
          audience: resource,
          issuer: as.issuer,
          cacheTtlSec: 0,
        }),
      }),
    });
    const store = new MemoryTokenStore();
    const { authorizer, urls } = ourLogin(server.url, "rex", { store });
    const client = createClient({ info: { name: "ours", version: "1" } });
    await client.connect(await connectHttp(server.url, { authorizer }));
    try {
      expect(answer(await client.callTool({ name: "whoami", arguments: {} })).sub).toBe("rex");
      const key = { issuer: as.issuer, resource: server.url };
      const revoked = String((await store.getTokens(key))?.access_token);
      const clientId = String((await store.getClient(as.issuer))?.client_id);
      // oidc-provider revokes the whole grant with the access token: the refresh token dies with it.
      const revocation = await fetch(`${as.issuer}/token/revocation`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ token: revoked, token_type_hint: "access_token", client_id: clientId }),
      });
      expect(revocation.status).toBe(200);

      const grants = as.log.grants.length;
      const before = server.calls.length;
      expect(answer(await client.callTool({ name: "whoami", arguments: {} })).sub).toBe("rex");
      expect(as.log.grants.slice(grants)).toEqual([
        expect.objectContaining({ grantType: "authorization_code", clientId }),
      ]);
      expect(urls).toHaveLength(2);
      expect(String((await store.getTokens(key))?.access_token)).not.toBe(revoked);
      expect(server.calls.length).toBe(before + 1);
    } finally {
      await client.close();
    }
  });
});

describe("the official SDK v2 client logs in to our server through the provider", () => {
  it("discovers our PRM, registers, authorizes, calls a tool, refreshes after expiry and steps up", async () => {
    const server = await ourServer({ accessTokenTtl: 2 });
    const login = new SdkOAuthClient(as, { accountId: "sam" });
    const client = new ClientV2({ name: "sdk-v2-oauth", version: "1.0.0" });
    const registrations = as.log.registrations.length;
    await connectWithLogin(
      client,
      login,
      () => new StreamableHTTPClientTransport(new URL(server.url), { authProvider: login }),
    );
    try {
      expect(as.log.registrations.length).toBe(registrations + 1);
      const clientId = as.log.registrations.at(-1)?.clientId;
      expect(login.authorizationUrls).toHaveLength(1);
      // Our PRM, found at the path-aware address our 401 named, pointed it at the provider.
      const discovery = await login.discoveryState();
      expect(discovery?.resourceMetadataUrl).toBe(
        server.url.replace("/mcp", "/.well-known/oauth-protected-resource/mcp"),
      );
      expect(discovery?.resourceMetadata).toMatchObject({
        resource: server.url,
        authorization_servers: [as.issuer],
        scopes_supported: ["mcp", "notes:admin", "notes:read", "notes:write"],
      });
      expect(discovery?.authorizationServerUrl).toBe(as.issuer);
      expect(login.authorizationUrls[0]?.searchParams.get("resource")).toBe(server.url);
      expect(scopeOf(login.authorizationUrls[0])).toContain("mcp");
      expect(answer(await client.callTool({ name: "whoami", arguments: {} }))).toMatchObject({
        sub: "sam",
        clientId,
      });
      // Past the token's 2 s our server answers 401 invalid_token; the SDK refreshes, with no new login.
      await sleep(3100);
      const grants = as.log.grants.length;
      expect(answer(await client.callTool({ name: "whoami", arguments: {} })).sub).toBe("sam");
      expect(as.log.grants.slice(grants)).toEqual([
        expect.objectContaining({ grantType: "refresh_token", clientId }),
      ]);
      expect(login.authorizationUrls).toHaveLength(1);

      const transport = client.transport as StreamableHTTPClientTransport;
      const note = answer(
        await afterLogin(login, transport, () =>
          client.callTool({ name: "write_note", arguments: { text: "x" } }),
        ),
      );
      expect(note).toMatchObject({ tool: "write_note", sub: "sam", clientId });
      expect(note.scopes).toEqual(expect.arrayContaining(["mcp", "notes:write"]));
      expect(login.authorizationUrls).toHaveLength(2);
      expect(scopeOf(login.authorizationUrls[1])).toEqual(expect.arrayContaining(["mcp", "notes:write"]));
    } finally {
      await client.close();
    }
  });
});

describe("our client logs in to an SDK v2 server behind requireBearerAuth through the provider", () => {
  for (const { era, make } of ERAS) {
    it(`${era}: calls whoami, then admin after a step-up`, async () => {
      const sdk = await startSdkProtectedServer(as, { scopes: ["mcp"], adminScope: "notes:admin" });
      cleanups.push(() => sdk.close());
      const { authorizer, urls } = ourLogin(sdk.url, "dana");
      const client = make();
      await client.connect(await connectHttp(sdk.url, { authorizer }));
      try {
        const clientId = as.log.registrations.at(-1)?.clientId;
        const sdkAnswer = (result: Result) =>
          JSON.parse(String((result.content as { text: string }[])[0]?.text)) as Record<string, unknown>;
        expect(sdkAnswer(await client.callTool({ name: "whoami", arguments: {} }))).toEqual({
          sub: "dana",
          clientId,
          scopes: ["mcp"],
        });
        expect(urls).toHaveLength(1);
        expect(urls[0]?.searchParams.get("resource")).toBe(sdk.url);
        const admin = sdkAnswer(await client.callTool({ name: "admin", arguments: {} }));
        expect(admin).toMatchObject({ sub: "dana", clientId });
        expect(admin.scopes).toEqual(expect.arrayContaining(["mcp", "notes:admin"]));
        expect(urls).toHaveLength(2);
        expect(scopeOf(urls[1])).toEqual(expect.arrayContaining(["mcp", "notes:admin"]));
        expect(sdk.requests.count).toBeGreaterThan(0);
      } finally {
        await client.close();
      }
    });
  }
});

describe("our client with DPoP against our server with dpop: true, through the provider", () => {
  const tokenOf = async (store: MemoryTokenStore, at: AuthorizationServer, resource: string) =>
    String((await store.getTokens({ issuer: at.issuer, resource }))?.access_token);

  it("gets DPoP-bound tokens, calls with proofs, refreshes and steps up bound to the same key; the token alone is refused", async () => {
    const server = await ourServer({ accessTokenTtl: 2, protect: () => ({ dpop: true }) });
    const store = new MemoryTokenStore();
    const { authorizer, urls } = ourLogin(server.url, "dora", { store, dpop: true });
    const client = createClient({ info: { name: "ours", version: "1" } });
    await client.connect(await connectHttp(server.url, { authorizer }));
    try {
      expect(answer(await client.callTool({ name: "whoami", arguments: {} })).sub).toBe("dora");
      const grants = () => as.log.grants.filter((g) => g.resource === server.url);
      expect(grants()[0]).toMatchObject({ grantType: "authorization_code", tokenType: "DPoP" });
      const first = decodeJwt(await tokenOf(store, as, server.url));
      expect(first.cnf).toEqual({ jkt: expect.any(String) });

      // The refresh token of a public client is DPoP-bound too: the refresh needs a proof by the same key.
      await sleep(3100);
      expect(answer(await client.callTool({ name: "whoami", arguments: {} })).sub).toBe("dora");
      expect(as.log.grants.at(-1)).toMatchObject({ grantType: "refresh_token", tokenType: "DPoP" });
      expect(decodeJwt(await tokenOf(store, as, server.url)).cnf).toEqual(first.cnf);

      const note = answer(await client.callTool({ name: "write_note", arguments: { text: "x" } }));
      expect(note.scopes).toEqual(expect.arrayContaining(["mcp", "notes:write"]));
      expect(urls).toHaveLength(2);
      expect(as.log.grants.at(-1)).toMatchObject({ grantType: "authorization_code", tokenType: "DPoP" });
      expect(grants().map((g) => g.tokenType)).toEqual(grants().map(() => "DPoP"));

      const stolen = await tokenOf(store, as, server.url);
      expect(decodeJwt(stolen).cnf).toEqual(first.cnf);
      const before = server.calls.length;
      for (const authorization of [`Bearer ${stolen}`, `DPoP ${stolen}`]) {
        const response = await fetch(server.url, {
          method: "POST",
          headers: {
            authorization,
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
            "mcp-protocol-version": "2026-07-28",
            "mcp-method": "tools/call",
            "mcp-name": "whoami",
          },
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "whoami" } }),
        });
        expect(response.status, authorization.split(" ")[0]).toBe(401);
      }
      expect(server.calls.length).toBe(before);
    } finally {
      await client.close();
    }
  });

  it("answers the nonces both servers demand (RFC 9449 §8, §9)", async () => {
    const at = await startAuthorizationServer({ scopes: SCOPES, dpopNonce: true });
    cleanups.push(async () => {
      expect(at.errors).toEqual([]);
      await at.close();
    });
    const server = await ourServer({ at, protect: () => ({ dpop: { nonces: true } }) });
    const { authorizer } = ourLogin(server.url, "nina", { dpop: true, at });
    const client = createClient({ info: { name: "ours", version: "1" } });
    await client.connect(await connectHttp(server.url, { authorizer }));
    try {
      expect(answer(await client.callTool({ name: "whoami", arguments: {} })).sub).toBe("nina");
      expect(at.log.grants).toEqual([
        expect.objectContaining({ grantType: "authorization_code", tokenType: "DPoP" }),
      ]);
      const note = answer(await client.callTool({ name: "write_note", arguments: { text: "x" } }));
      expect(note.scopes).toEqual(expect.arrayContaining(["mcp", "notes:write"]));
    } finally {
      await client.close();
    }
  });
});
