import { EmbeddedJWK, exportPKCS8, generateKeyPair, jwtVerify } from "jose";
import { afterEach, describe, expect, it } from "vitest";
import { importClientKey } from "../../../runtime/auth/client-assertion.js";
import {
  clientSecretBasic,
  privateKeyJwt,
  publicClient,
} from "../../../runtime/auth/client-authenticators.js";
import { DpopProver } from "../../../runtime/auth/dpop-proof.js";
import { OAuthError, requestGrant } from "../../../runtime/auth/grant-request.js";
import { clientCredentialsGrant, jwtBearerGrant } from "../../../runtime/auth/grants.js";
import { type HttpPeer, startPeer } from "./http-peer.js";

let peer: HttpPeer | undefined;
afterEach(async () => {
  await peer?.close();
  peer = undefined;
});

const token = { json: { access_token: "at-1", token_type: "Bearer", expires_in: 60, scope: "read" } };

describe("requestGrant against a real token endpoint", () => {
  it("sends client_credentials with client_secret_basic (form-encoded id and secret), resource and scope", async () => {
    peer = await startPeer(() => token);
    const response = await requestGrant({
      tokenEndpoint: `${peer.url}/token`,
      issuer: peer.url,
      grant: clientCredentialsGrant({ scope: "read", resource: "https://rs.example/mcp" }),
      authenticate: clientSecretBasic("id:1", "s€cret"),
    });
    expect(response).toEqual({ access_token: "at-1", token_type: "Bearer", expires_in: 60, scope: "read" });
    const [seen] = peer.seen;
    expect(seen?.method).toBe("POST");
    expect(seen?.headers["content-type"]).toBe("application/x-www-form-urlencoded");
    expect(Object.fromEntries(seen!.form)).toEqual({
      grant_type: "client_credentials",
      scope: "read",
      resource: "https://rs.example/mcp",
    });
    const basic = Buffer.from(seen!.headers.authorization!.replace(/^Basic /, ""), "base64").toString("utf8");
    const [id, secret] = basic.split(":").map(decodeURIComponent);
    expect([id, secret]).toEqual(["id:1", "s€cret"]);
  });

  it("authenticates with private_key_jwt: a fresh assertion per attempt, audience the issuer", async () => {
    const { privateKey, publicKey } = await generateKeyPair("ES256", { extractable: true });
    const key = await importClientKey(await exportPKCS8(privateKey), "ES256");
    peer = await startPeer(() => token);
    await requestGrant({
      tokenEndpoint: `${peer.url}/token`,
      issuer: peer.url,
      grant: clientCredentialsGrant(),
      authenticate: privateKeyJwt("client-1", key, "ES256"),
    });
    const form = peer.seen[0]!.form;
    expect(form.get("client_assertion_type")).toBe("urn:ietf:params:oauth:client-assertion-type:jwt-bearer");
    const { payload } = await jwtVerify(form.get("client_assertion")!, publicKey, { audience: peer.url });
    expect([payload.iss, payload.sub]).toEqual(["client-1", "client-1"]);
  });

  it("sends a DPoP proof, and once more with the server's nonce after use_dpop_nonce (RFC 9449 §8)", async () => {
    const dpop = await DpopProver.generate();
    peer = await startPeer(async (request) => {
      const { payload } = await jwtVerify(String(request.headers.dpop), EmbeddedJWK);
      if (payload.nonce !== "as-nonce")
        return { status: 400, headers: { "DPoP-Nonce": "as-nonce" }, json: { error: "use_dpop_nonce" } };
      return { json: { access_token: "bound", token_type: "DPoP" } };
    });
    const endpoint = `${peer.url}/token`;
    const response = await requestGrant({
      tokenEndpoint: endpoint,
      issuer: peer.url,
      grant: clientCredentialsGrant(),
      authenticate: publicClient("c"),
      dpop,
    });
    expect(response.token_type).toBe("DPoP");
    expect(peer.seen).toHaveLength(2);
    const proofs = await Promise.all(peer.seen.map((r) => jwtVerify(String(r.headers.dpop), EmbeddedJWK)));
    expect(proofs.map((p) => p.payload.htu)).toEqual([endpoint, endpoint]);
    expect(proofs[0]!.payload.jti).not.toBe(proofs[1]!.payload.jti);
  });

  it("does not loop on use_dpop_nonce: the same nonce again ends the request with the error", async () => {
    const dpop = await DpopProver.generate();
    peer = await startPeer(() => ({
      status: 400,
      headers: { "DPoP-Nonce": "same" },
      json: { error: "use_dpop_nonce", error_description: "nonce please" },
    }));
    const failure = requestGrant({
      tokenEndpoint: `${peer.url}/token`,
      issuer: peer.url,
      grant: clientCredentialsGrant(),
      authenticate: publicClient("c"),
      dpop,
    });
    await expect(failure).rejects.toMatchObject({ name: "OAuthError", error: "use_dpop_nonce", status: 400 });
    expect(peer.seen).toHaveLength(2);
  });

  it("surfaces a refusal with the server's code once, never echoing the assertion", async () => {
    peer = await startPeer(() => ({
      status: 400,
      json: { error: "invalid_grant", error_description: "JWT assertion is expired" },
    }));
    const error = await requestGrant({
      tokenEndpoint: `${peer.url}/token`,
      issuer: peer.url,
      grant: jwtBearerGrant({ assertion: "secret.assertion.value" }),
      authenticate: publicClient("w"),
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OAuthError);
    expect(error).toMatchObject({
      error: "invalid_grant",
      description: "JWT assertion is expired",
      status: 400,
    });
    expect(String((error as Error).message)).not.toContain("secret.assertion.value");
    expect(peer.seen).toHaveLength(1);
  });

  it("refuses an answer that is no token response", async () => {
    for (const json of [
      { token_type: "Bearer" },
      { access_token: "x" },
      ["x"],
      { access_token: "x", token_type: "Bearer", expires_in: "1" },
    ]) {
      const local = await startPeer(() => ({ json }));
      await expect(
        requestGrant({
          tokenEndpoint: `${local.url}/token`,
          issuer: local.url,
          grant: clientCredentialsGrant(),
          authenticate: publicClient("c"),
        }),
      ).rejects.toMatchObject({ error: "invalid_response" });
      await local.close();
    }
  });
});
