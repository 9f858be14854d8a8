import { EmbeddedJWK, exportPKCS8, generateKeyPair, jwtVerify } from "jose";
import { afterEach, describe, expect, it } from "vitest";
import { privateKeyJwt } from "../../../runtime/auth/client-assertion.js";
import { BUILT_IN_CLIENT_AUTHENTICATION } from "../../../runtime/auth/client-auth.js";
import { DpopConstraint } from "../../../runtime/auth/dpop-constraint.js";
import { requestToken } from "../../../runtime/auth/token-request.js";
import { type HttpPeer, startPeer } from "./http-peer.js";

let peer: HttpPeer | undefined;
afterEach(async () => {
  await peer?.close();
  peer = undefined;
});

const contextFor = (url: string) => ({
  client: { client_id: "client-1" },
  issuer: url,
  tokenEndpoint: `${url}/token`,
  server: { issuer: url, token_endpoint: `${url}/token` },
});

describe("requestToken with DPoP and private_key_jwt, against a real token endpoint", () => {
  it("sends a proof, and once more with the nonce after use_dpop_nonce; each attempt a fresh assertion", async () => {
    const { privateKey, publicKey } = await generateKeyPair("ES256", { extractable: true });
    peer = await startPeer(async (request) => {
      const { payload } = await jwtVerify(String(request.headers.dpop), EmbeddedJWK, { typ: "dpop+jwt" });
      if (payload.nonce !== "as-nonce")
        return { status: 400, headers: { "DPoP-Nonce": "as-nonce" }, json: { error: "use_dpop_nonce" } };
      return { json: { access_token: "bound", token_type: "DPoP", expires_in: 60 } };
    });
    const tokens = await requestToken({
      grant: { grant_type: "client_credentials" },
      resource: "https://rs.example/mcp",
      authenticate: privateKeyJwt(await exportPKCS8(privateKey), "ES256"),
      context: contextFor(peer.url),
      constraint: new DpopConstraint(),
    });
    expect(tokens).toMatchObject({ access_token: "bound", token_type: "DPoP" });
    expect(peer.seen).toHaveLength(2);
    const proofs = await Promise.all(peer.seen.map((r) => jwtVerify(String(r.headers.dpop), EmbeddedJWK)));
    expect(proofs.map((p) => [p.payload.htm, p.payload.htu])).toEqual([
      ["POST", `${peer.url}/token`],
      ["POST", `${peer.url}/token`],
    ]);
    expect(proofs[0]!.payload.jti).not.toBe(proofs[1]!.payload.jti);
    const assertions = await Promise.all(
      peer.seen.map((r) => jwtVerify(r.form.get("client_assertion")!, publicKey, { audience: peer!.url })),
    );
    expect(assertions.map((a) => [a.payload.iss, a.payload.sub])).toEqual([
      ["client-1", "client-1"],
      ["client-1", "client-1"],
    ]);
    expect(assertions[0]!.payload.jti).not.toBe(assertions[1]!.payload.jti);
    expect(peer.seen[0]!.form.get("client_assertion_type")).toBe(
      "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
    );
  });

  it("stops after one retry when the server keeps asking for the same nonce", async () => {
    peer = await startPeer(() => ({
      status: 400,
      headers: { "DPoP-Nonce": "always" },
      json: { error: "use_dpop_nonce" },
    }));
    await expect(
      requestToken({
        grant: { grant_type: "client_credentials" },
        authenticate: BUILT_IN_CLIENT_AUTHENTICATION.none!,
        context: contextFor(peer.url),
        constraint: new DpopConstraint(),
      }),
    ).rejects.toMatchObject({ name: "OAuthClientError", code: "use_dpop_nonce", status: 400 });
    expect(peer.seen).toHaveLength(2);
  });

  it("does not retry use_dpop_nonce without a DPoP key, nor when no nonce came with it", async () => {
    peer = await startPeer(() => ({ status: 400, json: { error: "use_dpop_nonce" } }));
    for (const constraint of [undefined, new DpopConstraint()])
      await expect(
        requestToken({
          grant: { grant_type: "client_credentials" },
          authenticate: BUILT_IN_CLIENT_AUTHENTICATION.none!,
          context: contextFor(peer.url),
          ...(constraint && { constraint }),
        }),
      ).rejects.toMatchObject({ code: "use_dpop_nonce" });
    expect(peer.seen).toHaveLength(2);
    expect(peer.seen[0]!.headers.dpop).toBeUndefined();
  });
});
