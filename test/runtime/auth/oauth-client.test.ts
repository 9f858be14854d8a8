/**
 * The OAuth client end to end over real sockets on 127.0.0.1: the generated 2026-07-28 client through
 * `connectHttp(url, { authorizer })` (the stateless path) against our server whose `authenticate` hook
 * accepts only tokens a small authorization server (node:http, below) issued for it. The client
 * discovers, registers, authorizes with PKCE, refreshes an expired token, and steps up for a tool that
 * needs a wider scope. The suite's scenarios (test/conformance/run.ts) check each rule in isolation.
 */
import { createHash, randomUUID } from "node:crypto";
import { createServer as createNodeServer, type IncomingMessage, type Server as NodeServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { handlers, info } from "../../../examples/everything-server/handlers.js";
import { createClient, createServer } from "../../../generated/2026-07-28/index.js";
import { OAuthClient, type OAuthClientOptions } from "../../../runtime/auth/oauth-client.js";
import type { SenderConstraint } from "../../../runtime/auth/sender-constraint.js";
import { MemoryTokenStore } from "../../../runtime/auth/token-store.js";
import { HttpError } from "../../../runtime/http/http-error.js";
import { connectHttp } from "../../../runtime/http-client/connect.js";
import { serveHttp } from "../../../runtime/node/http.js";

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

interface Issued {
  scopes: string[];
  resource: string;
  expiresAt: number;
}

const body = (request: IncomingMessage) =>
  new Promise<string>((resolve) => {
    let text = "";
    request.on("data", (chunk) => {
      text += chunk;
    });
    request.on("end", () => resolve(text));
  });

/** An authorization server that does what a real one must check: PKCE, redirect URI, resource, refresh. */
async function authorizationServer(options: { accessTtl: number; proofNonce?: string; known?: string[] }) {
  const log: Array<{ path: string; params: Record<string, string> }> = [];
  const codes = new Map<
    string,
    { challenge: string; scopes: string[]; resource: string; redirect: string }
  >();
  const tokens = new Map<string, Issued>();
  const refreshTokens = new Map<string, { scopes: string[]; resource: string }>();
  const clients = new Set<string>(options.known);
  let base = "";
  let prm: Record<string, unknown> = {};
  const issue = (scopes: string[], resource: string) => {
    const access = randomUUID();
    const refresh = randomUUID();
    tokens.set(access, { scopes, resource, expiresAt: Date.now() + options.accessTtl * 1000 });
    refreshTokens.set(refresh, { scopes, resource });
    return {
      access_token: access,
      token_type: "Bearer",
      expires_in: options.accessTtl,
      refresh_token: refresh,
      scope: scopes.join(" "),
    };
  };
  const http: NodeServer = createNodeServer(async (request, response) => {
    const url = new URL(request.url!, base);
    const json = (status: number, doc: unknown) => {
      response.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(doc));
    };
    const text = request.method === "POST" ? await body(request) : "";
    const params = Object.fromEntries(
      request.headers["content-type"]?.includes("json")
        ? Object.entries(JSON.parse(text))
        : new URLSearchParams(text || url.search),
    ) as Record<string, string>;
    log.push({ path: url.pathname, params });
    switch (url.pathname) {
      case "/.well-known/oauth-protected-resource/mcp":
        return json(200, prm);
      case "/.well-known/oauth-authorization-server/as":
        return json(200, {
          issuer: `${base}/as`,
          authorization_endpoint: `${base}/as/authorize`,
          token_endpoint: `${base}/as/token`,
          registration_endpoint: `${base}/as/register`,
          response_types_supported: ["code"],
          code_challenge_methods_supported: ["S256"],
          token_endpoint_auth_methods_supported: ["none"],
          authorization_response_iss_parameter_supported: true,
          scopes_supported: ["mcp:read", "mcp:write", "offline_access"],
        });
      case "/as/register": {
        const id = `client-${randomUUID()}`;
        clients.add(id);
        return json(201, {
          client_id: id,
          token_endpoint_auth_method: "none",
          redirect_uris: params.redirect_uris,
        });
      }
      case "/as/authorize": {
        if (!clients.has(params.client_id!) || params.code_challenge_method !== "S256") return json(400, {});
        const code = randomUUID();
        codes.set(code, {
          challenge: params.code_challenge!,
          scopes: (params.scope ?? "").split(" ").filter(Boolean),
          resource: params.resource!,
          redirect: params.redirect_uri!,
        });
        const back = new URL(params.redirect_uri!);
        back.searchParams.set("code", code);
        back.searchParams.set("state", params.state!);
        back.searchParams.set("iss", `${base}/as`);
        response.writeHead(302, { location: back.href }).end();
        return;
      }
      case "/as/token": {
        if (options.proofNonce !== undefined && request.headers.dpop !== `proof ${options.proofNonce}`) {
          response.writeHead(400, { "content-type": "application/json", "dpop-nonce": options.proofNonce });
          response.end(JSON.stringify({ error: "use_dpop_nonce" }));
          return;
        }
        if (params.grant_type === "authorization_code") {
          const grant = codes.get(params.code!);
          codes.delete(params.code!);
          const verifier = createHash("sha256")
            .update(params.code_verifier ?? "")
            .digest("base64url");
          if (!grant || grant.challenge !== verifier || grant.redirect !== params.redirect_uri)
            return json(400, { error: "invalid_grant" });
          if (params.resource !== grant.resource) return json(400, { error: "invalid_target" });
          return json(200, issue(grant.scopes, grant.resource));
        }
        if (params.grant_type === "refresh_token") {
          const grant = refreshTokens.get(params.refresh_token!);
          if (!grant || params.resource !== grant.resource) return json(400, { error: "invalid_grant" });
          refreshTokens.delete(params.refresh_token!);
          return json(200, issue(grant.scopes, grant.resource));
        }
        return json(400, { error: "unsupported_grant_type" });
      }
      default:
        return json(404, {});
    }
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  cleanups.push(() => new Promise((resolve) => http.close(() => resolve())));
  return {
    base,
    log,
    tokens,
    setResource(resource: string) {
      prm = { resource, authorization_servers: [`${base}/as`], scopes_supported: ["mcp:read"] };
    },
  };
}

/** A 2026-07-28 server that takes only live tokens issued for it, and wants mcp:write for one tool. */
type As = Awaited<ReturnType<typeof authorizationServer>>;

/**
 * A 2026-07-28 server that takes only live tokens issued for it by `as.current` (which a test may switch:
 * a migration), and wants mcp:write for one tool; `refuseAll` refuses every token.
 */
async function protectedServer(first: As, options: { refuseAll?: boolean } = {}) {
  const as = { current: first };
  let resource = "";
  const challenge = (extra: string) =>
    `Bearer resource_metadata="${as.current.base}/.well-known/oauth-protected-resource/mcp"${extra}`;
  const seen: string[] = [];
  const server = createServer({ info, handlers, capabilities: { tools: {} }, onError: () => {} });
  const http = await serveHttp(server, {
    port: 0,
    authenticate: (request) => {
      const [, scheme, token] = /^(Bearer|DPoP) (.+)$/.exec(request.headers.get("authorization") ?? "") ?? [];
      const issued = token === undefined ? undefined : as.current.tokens.get(token);
      seen.push(
        `${request.headers.get("mcp-method")} ${issued ? `${scheme} ${issued.scopes.join("+")}` : "-"}`,
      );
      if (options.refuseAll || !issued || issued.expiresAt <= Date.now() || issued.resource !== resource)
        throw new HttpError(401, "token required", { "www-authenticate": challenge(', scope="mcp:read"') });
      if (request.headers.get("mcp-name") === "test_simple_text" && !issued.scopes.includes("mcp:write"))
        throw new HttpError(403, "insufficient scope", {
          "www-authenticate": challenge(', error="insufficient_scope", scope="mcp:write"'),
        });
      return { subject: "user" };
    },
  });
  cleanups.push(() => http.close());
  resource = http.url;
  first.setResource(resource);
  return {
    url: http.url,
    seen,
    moveTo(next: As) {
      next.setResource(resource);
      as.current = next;
    },
  };
}

function oauthClient(
  serverUrl: string,
  store = new MemoryTokenStore(),
  extra: Partial<OAuthClientOptions> = {},
) {
  return new OAuthClient({
    ...extra,
    serverUrl,
    refreshLeewaySeconds: 0,
    redirectUri: "http://127.0.0.1:9/callback",
    redirectToAuthorization: async (url) => {
      const response = await fetch(url, { redirect: "manual" });
      return new URL(response.headers.get("location")!);
    },
    clientMetadata: { client_name: "oauth-client-test" },
    store,
  });
}

describe("OAuthClient through connectHttp (2026-07-28, stateless)", () => {
  it("logs in on the first 401, refreshes an expired token, steps up for a wider scope", async () => {
    const as = await authorizationServer({ accessTtl: 2 });
    const mcp = await protectedServer(as);
    const store = new MemoryTokenStore();
    const client = createClient({ info: { name: "oauth-test", version: "1" } });
    await client.connect(await connectHttp(mcp.url, { authorizer: oauthClient(mcp.url, store) }));

    const { tools } = await client.listTools();
    expect(tools.length).toBeGreaterThan(0);
    const paths = as.log.map((l) => l.path);
    expect(paths.filter((p) => p === "/as/register")).toHaveLength(1);
    // DCR states a native app (loopback redirect) that wants refresh tokens.
    expect(as.log.find((l) => l.path === "/as/register")?.params).toMatchObject({
      application_type: "native",
      grant_types: ["authorization_code", "refresh_token"],
      redirect_uris: ["http://127.0.0.1:9/callback"],
    });
    const authorize = as.log.find((l) => l.path === "/as/authorize")!.params;
    // Scope from the challenge, offline_access because the AS lists it, resource as the PRM names it.
    expect(authorize.scope).toBe("mcp:read offline_access");
    expect(authorize.resource).toBe(mcp.url);

    expect(as.log.filter((l) => l.path === "/as/token").map((l) => l.params.grant_type)).toEqual([
      "authorization_code",
    ]);
    // The access token lives 2 s (1 to 2 s to the client, which counts whole seconds): once it has
    // expired, one refresh for the two requests that find it so together, and no new login.
    await new Promise((resolve) => setTimeout(resolve, 2100));
    await Promise.all([client.listTools(), client.listTools()]);
    const grants = as.log.filter((l) => l.path === "/as/token").map((l) => l.params.grant_type);
    expect(grants).toEqual(["authorization_code", "refresh_token"]);
    expect(as.log.filter((l) => l.path === "/as/authorize")).toHaveLength(1);

    // test_simple_text needs mcp:write: a 403, then a login for the union of the scopes, then the call.
    const result = await client.callTool({ name: "test_simple_text", arguments: {} });
    expect(result.content).toEqual([{ type: "text", text: "This is a simple text response for testing." }]);
    const logins = as.log.filter((l) => l.path === "/as/authorize").map((l) => l.params.scope);
    expect(logins).toEqual(["mcp:read offline_access", "mcp:read offline_access mcp:write"]);
    // The first request went without a token; none was ever sent that the server had not issued.
    expect(mcp.seen[0]).toBe("server/discover -");
    expect(mcp.seen.filter((s) => s.endsWith(" -"))).toHaveLength(1);
    expect(await store.getTokens({ issuer: `${as.base}/as`, resource: mcp.url })).toMatchObject({
      scope: "mcp:read offline_access mcp:write",
    });

    // The server stops taking the access token before it expires: the 401 is answered by a refresh.
    as.tokens.clear();
    await client.listTools();
    expect(as.log.filter((l) => l.path === "/as/token").map((l) => l.params.grant_type)).toEqual([
      "authorization_code",
      "refresh_token",
      "authorization_code",
      "refresh_token",
    ]);
    expect(as.log.filter((l) => l.path === "/as/authorize")).toHaveLength(2);
    await client.close();
  });

  it("refuses metadata for another resource before any authorization request", async () => {
    const as = await authorizationServer({ accessTtl: 3600 });
    const mcp = await protectedServer(as);
    as.setResource("https://evil.example.com/mcp");
    const client = createClient({ info: { name: "oauth-test", version: "1" }, requestTimeoutMs: 5000 });
    await expect(
      client.connect(await connectHttp(mcp.url, { authorizer: oauthClient(mcp.url) })),
    ).rejects.toThrow(/is for "https:\/\/evil.example.com\/mcp"/);
    expect(as.log.map((l) => l.path)).not.toContain("/as/authorize");
  });

  it("takes a sender constraint: proofs on token requests (one retry with a nonce), its own token presentation", async () => {
    const as = await authorizationServer({ accessTtl: 3600, proofNonce: "n1" });
    const mcp = await protectedServer(as);
    let nonce = "";
    const constraint: SenderConstraint = {
      tokenRequest: async ({ headers, url, method }) => {
        expect([url, method]).toEqual([`${as.base}/as/token`, "POST"]);
        headers.set("dpop", `proof ${nonce}`);
      },
      tokenRefused: (response) => {
        nonce = response.headers.get("dpop-nonce") ?? "";
        return nonce !== "";
      },
      present: async (tokens) => ({ authorization: `DPoP ${tokens.access_token}` }),
    };
    const client = createClient({ info: { name: "oauth-test", version: "1" } });
    await client.connect(
      await connectHttp(mcp.url, {
        authorizer: oauthClient(mcp.url, undefined, { senderConstraint: constraint }),
      }),
    );
    await client.listTools();
    expect(as.log.filter((l) => l.path === "/as/token")).toHaveLength(2);
    expect(mcp.seen.slice(1)).toEqual([
      "server/discover DPoP mcp:read+offline_access",
      "tools/list DPoP mcp:read+offline_access",
    ]);
    await client.close();
  });

  it("gets one token for a request the server keeps refusing, then gives the 401 to the caller", async () => {
    const as = await authorizationServer({ accessTtl: 3600 });
    const mcp = await protectedServer(as, { refuseAll: true });
    const client = createClient({ info: { name: "oauth-test", version: "1" }, requestTimeoutMs: 5000 });
    await expect(
      client.connect(await connectHttp(mcp.url, { authorizer: oauthClient(mcp.url) })),
    ).rejects.toThrow(/401/);
    expect(as.log.filter((l) => l.path === "/as/authorize")).toHaveLength(1);
    // One new token per request: the server/discover probe got a login, the initialize it falls back to a
    // refresh; each was sent once more with its token and its second 401 went to the caller.
    expect(as.log.filter((l) => l.path === "/as/token").map((l) => l.params.grant_type)).toEqual([
      "authorization_code",
      "refresh_token",
    ]);
    expect(mcp.seen).toHaveLength(4);
  });

  it("never offers a pre-registered client to a second authorization server: it registers there", async () => {
    const as1 = await authorizationServer({ accessTtl: 3600, known: ["pre-1"] });
    const as2 = await authorizationServer({ accessTtl: 3600 });
    const mcp = await protectedServer(as1);
    const client = createClient({ info: { name: "oauth-test", version: "1" } });
    const authorizer = oauthClient(mcp.url, undefined, { preRegistered: [{ client_id: "pre-1" }] });
    await client.connect(await connectHttp(mcp.url, { authorizer }));
    expect(as1.log.filter((l) => l.path === "/as/register")).toHaveLength(0);
    expect(as1.log.find((l) => l.path === "/as/authorize")?.params.client_id).toBe("pre-1");

    mcp.moveTo(as2);
    await client.listTools();
    expect(authorizer.issuer).toBe(`${as2.base}/as`);
    expect(as2.log.filter((l) => l.path === "/as/register")).toHaveLength(1);
    const ids = as2.log.map((l) => l.params.client_id).filter((id) => id !== undefined);
    expect(ids.length).toBeGreaterThan(0);
    expect(ids).not.toContain("pre-1");
    await client.close();
  });
});
