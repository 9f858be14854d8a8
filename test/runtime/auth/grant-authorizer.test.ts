import { EmbeddedJWK, jwtVerify } from "jose";
import { afterEach, describe, expect, it } from "vitest";
import { publicClient } from "../../../runtime/auth/client-authenticators.js";
import { accessTokenHash, DpopProver } from "../../../runtime/auth/dpop-proof.js";
import { GrantAuthorizer, type GrantTarget } from "../../../runtime/auth/grant-authorizer.js";
import { clientCredentialsToken, jwtBearerToken } from "../../../runtime/auth/machine-grants.js";
import { authorizedFetch } from "../../../runtime/http-client/authorizer.js";
import { type HttpPeer, startPeer } from "./http-peer.js";

const peers: HttpPeer[] = [];
afterEach(async () => {
  await Promise.all(peers.splice(0).map((p) => p.close()));
});
const peer = async (...args: Parameters<typeof startPeer>) => {
  const started = await startPeer(...args);
  peers.push(started);
  return started;
};

/** The discovery a real client does from the challenge, fixed here: these tests are about the grant. */
const fixedTarget = (as: HttpPeer, resource: string) => async (): Promise<GrantTarget> => ({
  resource,
  issuer: as.url,
  tokenEndpoint: `${as.url}/token`,
});

describe("GrantAuthorizer through authorizedFetch, real servers", () => {
  it("on a 401 runs the grant once and retries with the Bearer token; later requests reuse it", async () => {
    const as = await peer(() => ({
      json: { access_token: "cc-token", token_type: "Bearer", expires_in: 3600 },
    }));
    const rs = await peer((request) =>
      request.headers.authorization === "Bearer cc-token"
        ? { json: { ok: true } }
        : { status: 401, headers: { "WWW-Authenticate": 'Bearer resource_metadata="x"' }, json: {} },
    );
    const authorizer = new GrantAuthorizer({
      discover: fixedTarget(as, `${rs.url}/mcp`),
      obtain: clientCredentialsToken({ authenticate: publicClient("c") }),
    });
    const fetcher = authorizedFetch(fetch, authorizer);
    expect((await fetcher(`${rs.url}/mcp`, { method: "POST", body: "{}" })).status).toBe(200);
    expect((await fetcher(`${rs.url}/mcp`, { method: "POST", body: "{}" })).status).toBe(200);
    expect(as.seen).toHaveLength(1);
    expect(as.seen[0]!.form.get("resource")).toBe(`${rs.url}/mcp`);
    expect(rs.seen.map((r) => r.headers.authorization)).toEqual([
      undefined,
      "Bearer cc-token",
      "Bearer cc-token",
    ]);
  });

  it("presents a DPoP-bound token with the DPoP scheme and a fresh proof, and honours the server's nonce", async () => {
    const dpop = await DpopProver.generate();
    const as = await peer(() => ({
      json: { access_token: "bound-token", token_type: "DPoP", expires_in: 3600 },
    }));
    const rs = await peer(async (request, url) => {
      if (!request.headers.authorization)
        return { status: 401, headers: { "WWW-Authenticate": 'DPoP resource_metadata="x"' }, json: {} };
      const { payload } = await jwtVerify(String(request.headers.dpop), EmbeddedJWK);
      expect(payload.htu).toBe(`${url}/mcp`);
      expect(payload.ath).toBe(await accessTokenHash("bound-token"));
      if (payload.nonce !== "rs-nonce")
        return {
          status: 401,
          headers: { "WWW-Authenticate": 'DPoP error="use_dpop_nonce"', "DPoP-Nonce": "rs-nonce" },
          json: {},
        };
      return { json: { ok: true } };
    });
    const authorizer = new GrantAuthorizer({
      discover: fixedTarget(as, `${rs.url}/mcp`),
      obtain: clientCredentialsToken({ authenticate: publicClient("c") }),
      dpop,
    });
    const fetcher = authorizedFetch(fetch, authorizer);
    expect((await fetcher(`${rs.url}/mcp`, { method: "POST", body: "{}" })).status).toBe(200);
    expect((await fetcher(`${rs.url}/mcp`, { method: "POST", body: "{}" })).status).toBe(200);
    expect(as.seen).toHaveLength(1);
    expect(as.seen[0]!.headers.dpop).toBeDefined();
    expect(rs.seen.map((r) => r.headers.authorization)).toEqual([
      undefined,
      "DPoP bound-token",
      "DPoP bound-token",
      "DPoP bound-token",
    ]);
    const jtis = await Promise.all(
      rs.seen.slice(1).map(async (r) => (await jwtVerify(String(r.headers.dpop), EmbeddedJWK)).payload.jti),
    );
    expect(new Set(jtis).size).toBe(3);
  });

  it("gives a refused grant to the caller once: no second token request, no other grant", async () => {
    const as = await peer(() => ({
      status: 400,
      json: { error: "invalid_grant", error_description: "JWT assertion is expired" },
    }));
    const rs = await peer(() => ({ status: 401, headers: { "WWW-Authenticate": "Bearer" }, json: {} }));
    const authorizer = new GrantAuthorizer({
      discover: fixedTarget(as, `${rs.url}/mcp`),
      obtain: jwtBearerToken({ assertion: "workload.jwt.value", authenticate: publicClient("w") }),
    });
    const fetcher = authorizedFetch(fetch, authorizer);
    await expect(fetcher(`${rs.url}/mcp`, { method: "POST", body: "{}" })).rejects.toMatchObject({
      name: "OAuthError",
      error: "invalid_grant",
    });
    expect(as.seen).toHaveLength(1);
    expect(as.seen[0]!.form.get("grant_type")).toBe("urn:ietf:params:oauth:grant-type:jwt-bearer");
    expect(as.seen[0]!.form.get("assertion")).toBe("workload.jwt.value");
  });

  it("does not loop when the server refuses the token it just issued", async () => {
    const as = await peer(() => ({ json: { access_token: "useless", token_type: "Bearer" } }));
    const rs = await peer(() => ({ status: 401, headers: { "WWW-Authenticate": "Bearer" }, json: {} }));
    const authorizer = new GrantAuthorizer({
      discover: fixedTarget(as, `${rs.url}/mcp`),
      obtain: clientCredentialsToken({ authenticate: publicClient("c") }),
    });
    const response = await authorizedFetch(fetch, authorizer)(`${rs.url}/mcp`, {
      method: "POST",
      body: "{}",
    });
    expect(response.status).toBe(401);
    expect(as.seen).toHaveLength(1);
    expect(rs.seen).toHaveLength(2);
  });

  it("obtains a new token before presenting an expired one", async () => {
    let issued = 0;
    const as = await peer(() => ({
      json: { access_token: `t${++issued}`, token_type: "Bearer", expires_in: 1 },
    }));
    const rs = await peer((request) =>
      request.headers.authorization
        ? { json: {} }
        : { status: 401, headers: { "WWW-Authenticate": "Bearer" } },
    );
    const authorizer = new GrantAuthorizer({
      discover: fixedTarget(as, `${rs.url}/mcp`),
      obtain: clientCredentialsToken({ authenticate: publicClient("c") }),
    });
    const fetcher = authorizedFetch(fetch, authorizer);
    await fetcher(`${rs.url}/mcp`, { method: "POST", body: "{}" });
    await fetcher(`${rs.url}/mcp`, { method: "POST", body: "{}" });
    // One second to live is shorter than the 30 s skew: the token counts for half of it.
    await new Promise((resolve) => setTimeout(resolve, 600));
    await fetcher(`${rs.url}/mcp`, { method: "POST", body: "{}" });
    expect(rs.seen.map((r) => r.headers.authorization)).toEqual([
      undefined,
      "Bearer t1",
      "Bearer t1",
      "Bearer t2",
    ]);
  });
});
