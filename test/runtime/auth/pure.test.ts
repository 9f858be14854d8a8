/**
 * The OAuth client's pure decisions: which metadata addresses in which order, which scopes to ask for,
 * the RFC 9207 issuer table, PKCE S256, the WWW-Authenticate parser, resource identity, and the token
 * endpoint authentication method. The conformance suite (test/conformance/run.ts) is the peer that
 * checks them over the wire.
 */
import { describe, expect, it } from "vitest";
import { authorizationUrl } from "../../../runtime/auth/authorization-request.js";
import {
  acceptAuthorizationResponse,
  authorizationResponseFrom,
  issuerProblem,
} from "../../../runtime/auth/authorization-response.js";
import { bearerChallenge, parseWwwAuthenticate } from "../../../runtime/auth/challenge-parse.js";
import {
  BUILT_IN_CLIENT_AUTHENTICATION,
  chooseClientAuthentication,
} from "../../../runtime/auth/client-auth.js";
import type { AuthorizationServerMetadata } from "../../../runtime/auth/metadata.js";
import { assertS256, createPkce, s256 } from "../../../runtime/auth/pkce.js";
import { applicationTypeOf } from "../../../runtime/auth/registration.js";
import { canonicalResource, resourceCovers } from "../../../runtime/auth/resource.js";
import { selectScopes, stepUpScopes } from "../../../runtime/auth/scope.js";
import { tokenRequestBody, tokensFrom } from "../../../runtime/auth/token-request.js";
import {
  authorizationServerMetadataUrls,
  protectedResourceMetadataUrls,
} from "../../../runtime/auth/well-known.js";

const hrefs = (urls: URL[]) => urls.map((u) => u.href);

describe("well-known addresses", () => {
  it("tries the path-aware PRM address before the root one", () => {
    expect(hrefs(protectedResourceMetadataUrls("https://mcp.example.com/public/mcp?x=1"))).toEqual([
      "https://mcp.example.com/.well-known/oauth-protected-resource/public/mcp",
      "https://mcp.example.com/.well-known/oauth-protected-resource",
    ]);
    expect(hrefs(protectedResourceMetadataUrls("https://mcp.example.com/"))).toEqual([
      "https://mcp.example.com/.well-known/oauth-protected-resource",
    ]);
  });

  it("orders AS metadata as the spec does: OAuth then OpenID, path-inserted then path-appended", () => {
    expect(hrefs(authorizationServerMetadataUrls("https://auth.example.com/tenant1"))).toEqual([
      "https://auth.example.com/.well-known/oauth-authorization-server/tenant1",
      "https://auth.example.com/.well-known/openid-configuration/tenant1",
      "https://auth.example.com/tenant1/.well-known/openid-configuration",
    ]);
    expect(hrefs(authorizationServerMetadataUrls("https://auth.example.com"))).toEqual([
      "https://auth.example.com/.well-known/oauth-authorization-server",
      "https://auth.example.com/.well-known/openid-configuration",
    ]);
  });
});

describe("scope selection", () => {
  it("takes the challenge's scope first, ignoring scopes_supported", () => {
    expect(selectScopes({ challenged: "mcp:basic", resourceScopes: ["mcp:read", "mcp:write"] })).toEqual([
      "mcp:basic",
    ]);
  });
  it("else every scope of the resource metadata", () => {
    expect(selectScopes({ resourceScopes: ["mcp:basic", "mcp:read"] })).toEqual(["mcp:basic", "mcp:read"]);
  });
  it("else none (the request omits scope)", () => {
    expect(selectScopes({})).toEqual([]);
    expect(selectScopes({ serverScopes: ["offline_access"], offlineAccess: true })).toEqual([]);
  });
  it("adds offline_access only when the authorization server lists it", () => {
    const base = { resourceScopes: ["mcp:basic"], offlineAccess: true };
    expect(selectScopes({ ...base, serverScopes: ["mcp:basic", "offline_access"] })).toEqual([
      "mcp:basic",
      "offline_access",
    ]);
    expect(selectScopes({ ...base, serverScopes: ["mcp:basic"] })).toEqual(["mcp:basic"]);
    expect(selectScopes({ ...base, offlineAccess: false, serverScopes: ["offline_access"] })).toEqual([
      "mcp:basic",
    ]);
  });
  it("steps up to the union of the granted and challenged scopes, and not when nothing is missing", () => {
    expect(stepUpScopes(["mcp:basic"], "mcp:write")).toEqual(["mcp:basic", "mcp:write"]);
    expect(stepUpScopes(["mcp:admin"], "mcp:admin")).toBeUndefined();
    expect(stepUpScopes(["mcp:basic"], undefined)).toBeUndefined();
  });
});

describe("authorization response issuer (RFC 9207)", () => {
  const issuer = "http://localhost:4000";
  it.each([
    // [iss in the response, advertised, verdict]
    ["http://localhost:4000", true, undefined], // iss-supported
    [undefined, false, undefined], // iss-not-advertised
    [undefined, true, "iss_missing"], // iss-supported-missing
    ["https://evil.example.com", true, "iss_mismatch"], // iss-wrong-issuer
    ["https://evil.example.com", false, "iss_mismatch"], // iss-unexpected
    ["http://localhost:4000/", true, "iss_mismatch"], // iss-normalized: no normalization
    ["HTTP://LOCALHOST:4000", true, "iss_mismatch"],
  ] as const)("iss %s, advertised %s → %s", (iss, issSupported, verdict) => {
    expect(issuerProblem(iss, { issuer, issSupported })?.code).toBe(verdict);
  });

  it("checks the issuer before showing an error response, then state, then gives the code", () => {
    const expected = { state: "s1", issuer, issSupported: true };
    expect(() =>
      acceptAuthorizationResponse(
        { error: "access_denied", state: "s1", iss: "https://evil.example.com" },
        expected,
      ),
    ).toThrow(/names issuer "https:\/\/evil.example.com"/);
    expect(() => acceptAuthorizationResponse({ code: "c", state: "other", iss: issuer }, expected)).toThrow(
      /state is not the one sent/,
    );
    expect(() =>
      acceptAuthorizationResponse({ error: "access_denied", state: "s1", iss: issuer }, expected),
    ).toThrow(/access_denied/);
    const back = authorizationResponseFrom(
      new URL(`http://localhost:3000/cb?code=c1&state=s1&iss=${issuer}`),
    );
    expect(acceptAuthorizationResponse(back, expected)).toBe("c1");
  });
});

describe("PKCE", () => {
  it("makes an S256 challenge of a 43-character verifier (RFC 7636 appendix B vector)", async () => {
    expect(await s256("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")).toBe(
      "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
    );
    const pkce = await createPkce();
    expect(pkce.verifier).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(pkce.challenge).toBe(await s256(pkce.verifier));
    expect(pkce.method).toBe("S256");
  });
  it("refuses a server that lists code challenge methods without S256, accepts one that lists none", () => {
    expect(() => assertS256({ code_challenge_methods_supported: ["plain"] }, "https://as")).toThrow(/S256/);
    expect(() =>
      assertS256({ code_challenge_methods_supported: ["S256", "plain"] }, "https://as"),
    ).not.toThrow();
    expect(() => assertS256({}, "https://as")).not.toThrow();
  });
});

describe("WWW-Authenticate", () => {
  it("reads the Bearer challenge's parameters, quoted or not, among other schemes", () => {
    const header =
      'Basic realm="x", Bearer error="insufficient_scope", scope="mcp:write files:read", resource_metadata="https://m.example.com/.well-known/oauth-protected-resource/mcp", error_description="a \\"quoted\\" word"';
    expect(parseWwwAuthenticate(header).map((c) => c.scheme)).toEqual(["basic", "bearer"]);
    const response = new Response(null, { status: 403, headers: { "www-authenticate": header } });
    expect(bearerChallenge(response)).toEqual({
      scheme: "bearer",
      error: "insufficient_scope",
      errorDescription: 'a "quoted" word',
      scope: "mcp:write files:read",
      resourceMetadata: "https://m.example.com/.well-known/oauth-protected-resource/mcp",
    });
  });
  it("takes token68 and bare schemes, and survives a broken header", () => {
    expect(parseWwwAuthenticate("Negotiate abc==, Bearer")).toEqual([
      { scheme: "negotiate", params: {}, token68: "abc==" },
      { scheme: "bearer", params: {} },
    ]);
    expect(parseWwwAuthenticate('Bearer scope="unterminated')).toEqual([{ scheme: "bearer", params: {} }]);
    expect(bearerChallenge(new Response(null, { status: 401 }))).toBeUndefined();
  });
});

describe("resource identity", () => {
  it("accepts the server's URL or an ancestor on the same origin, nothing else", () => {
    const server = "http://localhost:3000/mcp";
    expect(resourceCovers("http://localhost:3000/mcp", server)).toBe(true);
    expect(resourceCovers("http://localhost:3000", server)).toBe(true);
    expect(resourceCovers("https://evil.example.com/mcp", server)).toBe(false);
    expect(resourceCovers("http://localhost:3000/mc", server)).toBe(false);
    expect(resourceCovers("http://localhost:3001/mcp", server)).toBe(false);
    expect(resourceCovers("not a url", server)).toBe(false);
  });
  it("canonicalizes without a fragment or trailing slash", () => {
    expect(canonicalResource("HTTPS://MCP.Example.com/mcp/#frag")).toBe("https://mcp.example.com/mcp");
    expect(canonicalResource("https://mcp.example.com/")).toBe("https://mcp.example.com");
  });
});

describe("token endpoint", () => {
  const server = (methods?: string[]): AuthorizationServerMetadata => ({
    issuer: "https://as",
    token_endpoint: "https://as/token",
    ...(methods && { token_endpoint_auth_methods_supported: methods }),
  });
  const all = BUILT_IN_CLIENT_AUTHENTICATION;
  it("uses the registered method when the server takes it, else one the server lists that the client can do", () => {
    const secret = { client_id: "c", client_secret: "s" };
    expect(chooseClientAuthentication(secret, server(["client_secret_post"]), all)).toBe(
      "client_secret_post",
    );
    expect(chooseClientAuthentication(secret, server(["client_secret_basic"]), all)).toBe(
      "client_secret_basic",
    );
    expect(chooseClientAuthentication({ client_id: "c" }, server(["client_secret_basic", "none"]), all)).toBe(
      "none",
    );
    expect(
      chooseClientAuthentication(
        { ...secret, token_endpoint_auth_method: "client_secret_post" },
        server(),
        all,
      ),
    ).toBe("client_secret_post");
    expect(
      chooseClientAuthentication(secret, server(["private_key_jwt"]), { ...all, private_key_jwt: () => {} }),
    ).toBe("private_key_jwt");
  });
  it("form-encodes client_secret_basic credentials (RFC 6749 §2.3.1)", async () => {
    const headers = new Headers();
    await all.client_secret_basic!(
      { headers, body: new URLSearchParams() },
      {
        client: { client_id: "a:b", client_secret: "p w" },
        issuer: "i",
        tokenEndpoint: "t",
        server: server(),
      },
    );
    expect(atob(headers.get("authorization")!.slice(6))).toBe("a%3Ab:p+w");
  });
  it("sends resource and scope with the grant, and keeps expiry as a time", () => {
    const body = tokenRequestBody({
      grant: { grant_type: "refresh_token", refresh_token: "r" },
      resource: "https://m/mcp",
    });
    expect(body.toString()).toBe("grant_type=refresh_token&refresh_token=r&resource=https%3A%2F%2Fm%2Fmcp");
    expect(tokensFrom({ access_token: "a", token_type: "Bearer", expires_in: 60 }, "x y", 1_000_000)).toEqual(
      {
        access_token: "a",
        token_type: "Bearer",
        expires_at: 1060,
        scope: "x y",
      },
    );
    expect(() => tokensFrom({ token_type: "Bearer" }, undefined)).toThrow(/no access_token/);
  });
});

describe("authorization request", () => {
  const request = {
    clientId: "c",
    redirectUri: "http://127.0.0.1:9/cb",
    pkce: { verifier: "v", challenge: "ch", method: "S256" as const },
    state: "st",
  };
  it("carries PKCE, state, resource, and scope only when there is one", () => {
    const url = authorizationUrl({
      ...request,
      authorizationEndpoint: "https://as/authorize?x=1",
      resource: "https://m/mcp",
    });
    expect([...url.searchParams.keys()]).toEqual([
      "x",
      "response_type",
      "client_id",
      "redirect_uri",
      "code_challenge",
      "code_challenge_method",
      "state",
      "resource",
    ]);
  });
  it("refuses an endpoint that is not http(s): it is about to be opened", () => {
    for (const endpoint of ["javascript:alert(1)", "file:///etc/passwd", "calc:", "not a url"])
      expect(() => authorizationUrl({ ...request, authorizationEndpoint: endpoint })).toThrow(
        /authorization endpoint/,
      );
  });
});

describe("registration", () => {
  it("states the application type from the redirect URI: loopback or custom scheme native, https web", () => {
    expect(applicationTypeOf("http://127.0.0.1:8765/callback")).toBe("native");
    expect(applicationTypeOf("http://localhost/cb")).toBe("native");
    expect(applicationTypeOf("com.example.app:/oauth")).toBe("native");
    expect(applicationTypeOf("https://app.example.com/oauth/callback")).toBe("web");
  });
});
