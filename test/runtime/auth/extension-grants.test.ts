/**
 * The extension grants and DPoP through the whole client: OAuthClient as the authorizer of authorizedFetch,
 * discovering a real resource server's metadata and a real authorization server (and identity provider)
 * on 127.0.0.1, each a plain HTTP server that records what it was sent.
 */
import { EmbeddedJWK, jwtVerify } from "jose";
import { afterEach, describe, expect, it } from "vitest";
import { DpopConstraint } from "../../../runtime/auth/dpop-constraint.js";
import { clientCredentials, enterpriseManaged, jwtBearer } from "../../../runtime/auth/grants.js";
import { type Grant, OAuthClient, type OAuthClientOptions } from "../../../runtime/auth/oauth-client.js";
import { authorizedFetch, MAX_AUTHORIZATION_RETRIES } from "../../../runtime/http-client/authorizer.js";
import { type Answer, type HttpPeer, type SeenRequest, startPeer } from "./http-peer.js";

const peers: HttpPeer[] = [];
afterEach(async () => {
  await Promise.all(peers.splice(0).map((p) => p.close()));
});
const peer = async (answer: Parameters<typeof startPeer>[0]) => {
  const started = await startPeer(answer);
  peers.push(started);
  return started;
};

interface World {
  as: HttpPeer;
  rs: HttpPeer;
  /** The token requests the authorization server got. */
  tokenRequests: () => SeenRequest[];
  /** The MCP requests the resource server got. */
  mcpRequests: () => SeenRequest[];
}

/**
 * An authorization server whose token endpoint answers with `token`, and a resource server whose
 * `/mcp` wants `accept(request)` (else 401 with `challenge`) and publishes its metadata.
 */
async function world(
  token: (request: SeenRequest) => Answer | Promise<Answer>,
  accept: (request: SeenRequest) => Answer | undefined | Promise<Answer | undefined>,
  challenge = "Bearer",
): Promise<World> {
  const as = await peer((request, url) => {
    if (request.path === "/.well-known/oauth-authorization-server")
      return {
        json: {
          issuer: url,
          token_endpoint: `${url}/token`,
          grant_types_supported: ["client_credentials", "urn:ietf:params:oauth:grant-type:jwt-bearer"],
          token_endpoint_auth_methods_supported: ["client_secret_basic", "none"],
        },
      };
    if (request.path === "/token") return token(request);
    return { status: 404, json: {} };
  });
  const rs = await peer(async (request, url) => {
    if (request.path === "/.well-known/oauth-protected-resource/mcp")
      return { json: { resource: `${url}/mcp`, authorization_servers: [as.url] } };
    if (request.path !== "/mcp") return { status: 404, json: {} };
    const verdict = request.headers.authorization ? await accept(request) : undefined;
    return (
      verdict ?? {
        status: 401,
        headers: {
          "WWW-Authenticate": `${challenge} resource_metadata="${url}/.well-known/oauth-protected-resource/mcp"`,
        },
        json: {},
      }
    );
  });
  return {
    as,
    rs,
    tokenRequests: () => as.seen.filter((r) => r.path === "/token"),
    mcpRequests: () => rs.seen.filter((r) => r.path === "/mcp"),
  };
}

const client = (w: World, options: Partial<OAuthClientOptions> & { grant: Grant }) =>
  new OAuthClient({
    serverUrl: `${w.rs.url}/mcp`,
    redirectUri: "http://127.0.0.1/callback",
    preRegistered: [{ client_id: "machine", client_secret: "s3cret" }],
    ...options,
  });

const post = (w: World, authorizer: OAuthClient) =>
  authorizedFetch(fetch, authorizer)(`${w.rs.url}/mcp`, { method: "POST", body: "{}" });

describe("extension grants through OAuthClient", () => {
  it("client credentials: discovers, authenticates with the registration, sends resource, presents Bearer", async () => {
    const w = await world(
      () => ({ json: { access_token: "cc-token", token_type: "Bearer", expires_in: 3600 } }),
      (request) => (request.headers.authorization === "Bearer cc-token" ? { json: { ok: true } } : undefined),
    );
    const authorizer = client(w, { grant: clientCredentials() });
    expect((await post(w, authorizer)).status).toBe(200);
    expect((await post(w, authorizer)).status).toBe(200);
    const [request, ...more] = w.tokenRequests();
    expect(more).toEqual([]);
    expect(Object.fromEntries(request!.form)).toEqual({
      grant_type: "client_credentials",
      resource: `${w.rs.url}/mcp`,
    });
    expect(request!.headers.authorization).toBe(`Basic ${btoa("machine:s3cret")}`);
  });

  it("JWT bearer (workload identity): a refused assertion reaches the caller after one request, no other grant", async () => {
    const w = await world(
      () => ({
        status: 400,
        json: { error: "invalid_grant", error_description: "JWT assertion is expired" },
      }),
      () => ({ json: {} }),
    );
    const authorizer = client(w, {
      grant: jwtBearer("workload.jwt.value"),
      preRegistered: [{ client_id: "workload" }],
    });
    const error = await post(w, authorizer).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: "OAuthClientError", code: "invalid_grant", status: 400 });
    expect(String(error)).not.toContain("workload.jwt.value");
    const requests = w.tokenRequests();
    expect(requests).toHaveLength(1);
    expect(Object.fromEntries(requests[0]!.form)).toEqual({
      grant_type: "urn:ietf:params:oauth:grant-type:jwt-bearer",
      assertion: "workload.jwt.value",
      resource: `${w.rs.url}/mcp`,
      client_id: "workload",
    });
  });

  it("enterprise-managed: ID token exchanged at the identity provider for an ID-JAG, then the ID-JAG at the AS", async () => {
    const idp = await peer((request) =>
      request.form.get("subject_token") === "user-id-token"
        ? {
            json: {
              access_token: "the-id-jag",
              issued_token_type: "urn:ietf:params:oauth:token-type:id-jag",
              token_type: "N_A",
            },
          }
        : { status: 400, json: { error: "invalid_grant" } },
    );
    const w = await world(
      (request) =>
        request.form.get("assertion") === "the-id-jag"
          ? { json: { access_token: "ema-token", token_type: "Bearer" } }
          : { status: 400, json: { error: "invalid_grant" } },
      (request) => (request.headers.authorization === "Bearer ema-token" ? { json: {} } : undefined),
    );
    const authorizer = client(w, {
      grant: enterpriseManaged({
        issuer: idp.url,
        tokenEndpoint: `${idp.url}/token`,
        clientId: "idp-client",
        idToken: async () => "user-id-token",
      }),
    });
    expect((await post(w, authorizer)).status).toBe(200);
    expect(Object.fromEntries(idp.seen[0]!.form)).toEqual({
      grant_type: "urn:ietf:params:oauth:grant-type:token-exchange",
      requested_token_type: "urn:ietf:params:oauth:token-type:id-jag",
      audience: w.as.url,
      subject_token: "user-id-token",
      subject_token_type: "urn:ietf:params:oauth:token-type:id_token",
      resource: `${w.rs.url}/mcp`,
      client_id: "idp-client",
    });
    const [atAs] = w.tokenRequests();
    expect(atAs!.form.get("grant_type")).toBe("urn:ietf:params:oauth:grant-type:jwt-bearer");
    expect(atAs!.headers.authorization).toBe(`Basic ${btoa("machine:s3cret")}`);
  });

  it("enterprise-managed: an exchange that issues something other than an ID-JAG stops before the AS", async () => {
    const idp = await peer(() => ({
      json: {
        access_token: "an-access-token",
        issued_token_type: "urn:ietf:params:oauth:token-type:access_token",
        token_type: "Bearer",
      },
    }));
    const w = await world(
      () => ({ json: { access_token: "ema-token", token_type: "Bearer" } }),
      () => ({ json: {} }),
    );
    const authorizer = client(w, {
      grant: enterpriseManaged({
        issuer: idp.url,
        tokenEndpoint: `${idp.url}/token`,
        clientId: "idp-client",
        idToken: "user-id-token",
      }),
    });
    const error = await post(w, authorizer).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: "OAuthClientError", code: "invalid_token_response" });
    expect(String(error)).toContain("not urn:ietf:params:oauth:token-type:id-jag");
    expect(String(error)).not.toContain("an-access-token");
    expect(w.tokenRequests()).toEqual([]);
  });
});

describe("DPoP through OAuthClient", () => {
  it("binds the token at the token endpoint (with the AS nonce), then presents it with the DPoP scheme, a fresh proof per request and the RS nonce", async () => {
    const w = await world(
      async (request) => {
        const { payload } = await jwtVerify(String(request.headers.dpop), EmbeddedJWK);
        if (payload.nonce !== "as-nonce")
          return { status: 400, headers: { "DPoP-Nonce": "as-nonce" }, json: { error: "use_dpop_nonce" } };
        return { json: { access_token: "bound-token", token_type: "DPoP", expires_in: 3600 } };
      },
      async (request) => {
        expect(request.headers.authorization).toBe("DPoP bound-token");
        const { payload } = await jwtVerify(String(request.headers.dpop), EmbeddedJWK, { typ: "dpop+jwt" });
        expect([payload.htm, payload.htu]).toEqual(["POST", `${w.rs.url}/mcp`]);
        expect(typeof payload.ath).toBe("string");
        if (payload.nonce !== "rs-nonce")
          return {
            status: 401,
            headers: { "WWW-Authenticate": 'DPoP error="use_dpop_nonce"', "DPoP-Nonce": "rs-nonce" },
            json: {},
          };
        return { json: { ok: true } };
      },
      "DPoP",
    );
    const authorizer = client(w, { grant: clientCredentials(), senderConstraint: new DpopConstraint() });
    expect((await post(w, authorizer)).status).toBe(200);
    expect((await post(w, authorizer)).status).toBe(200);
    expect(w.tokenRequests()).toHaveLength(2);
    const presented = w.mcpRequests().filter((r) => r.headers.authorization);
    expect(presented).toHaveLength(3);
    const jtis = await Promise.all(
      presented.map(async (r) => (await jwtVerify(String(r.headers.dpop), EmbeddedJWK)).payload.jti),
    );
    expect(new Set(jtis).size).toBe(3);
  });

  it("retries every request refused for a nonce, also when a concurrent one learned that nonce first", async () => {
    let nonce = "n1";
    const w = await world(
      () => ({ json: { access_token: "bound-token", token_type: "DPoP" } }),
      async (request) => {
        const { payload } = await jwtVerify(String(request.headers.dpop), EmbeddedJWK);
        if (payload.nonce === nonce) return { json: {} };
        return {
          status: 401,
          headers: { "WWW-Authenticate": 'DPoP error="use_dpop_nonce"', "DPoP-Nonce": nonce },
          json: {},
        };
      },
      "DPoP",
    );
    const authorizer = client(w, { grant: clientCredentials(), senderConstraint: new DpopConstraint() });
    expect((await post(w, authorizer)).status).toBe(200);
    nonce = "n2";
    const statuses = (await Promise.all([post(w, authorizer), post(w, authorizer)])).map((r) => r.status);
    expect(statuses).toEqual([200, 200]);
  });

  it("gives up on a resource server that asks again for the nonce it was just sent", async () => {
    const w = await world(
      () => ({ json: { access_token: "bound-token", token_type: "DPoP" } }),
      () => ({
        status: 401,
        headers: { "WWW-Authenticate": 'DPoP error="use_dpop_nonce"', "DPoP-Nonce": "same" },
        json: {},
      }),
      "DPoP",
    );
    const response = await post(
      w,
      client(w, { grant: clientCredentials(), senderConstraint: new DpopConstraint() }),
    );
    expect(response.status).toBe(401);
    // The client may log in once more (the refusal names no cause it can fix otherwise), never in a loop:
    // one request is sent at most 1 + MAX_AUTHORIZATION_RETRIES times.
    expect(w.tokenRequests().length).toBeLessThanOrEqual(2);
    expect(w.mcpRequests().length).toBeLessThanOrEqual(1 + MAX_AUTHORIZATION_RETRIES);
  });
});
