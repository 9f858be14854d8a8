import { base64url, calculateJwkThumbprint, decodeProtectedHeader, EmbeddedJWK, jwtVerify } from "jose";
import { describe, expect, it } from "vitest";
import { accessTokenHash } from "../../../runtime/auth/access-token-hash.js";
import { DpopProver, dpopTarget } from "../../../runtime/auth/dpop-proof.js";

const nonceResponse = (nonce: string) =>
  new Response(null, { status: 401, headers: { "DPoP-Nonce": nonce } });

describe("DpopProver", () => {
  it("signs a proof that verifies with the key in its own header: typ, htm, htu without query, jti, iat", async () => {
    const prover = new DpopProver();
    const proof = await prover.proof({ method: "post", url: "https://as.example/token?x=1#frag" });
    const { payload, protectedHeader } = await jwtVerify(proof, EmbeddedJWK, { typ: "dpop+jwt" });
    expect(protectedHeader.alg).toBe("ES256");
    expect(protectedHeader.jwk).toEqual({
      kty: "EC",
      crv: "P-256",
      x: expect.any(String),
      y: expect.any(String),
    });
    expect(payload.htm).toBe("POST");
    expect(payload.htu).toBe("https://as.example/token");
    expect(typeof payload.jti).toBe("string");
    expect(Math.abs((payload.iat ?? 0) - Date.now() / 1000)).toBeLessThan(5);
    expect(payload.ath).toBeUndefined();
    expect(payload.nonce).toBeUndefined();
    expect(await prover.thumbprint()).toBe(await calculateJwkThumbprint(protectedHeader.jwk!, "sha256"));
  });

  it("makes every proof fresh (its own jti) and binds it to the access token by ath", async () => {
    const prover = new DpopProver();
    const request = { method: "POST", url: "https://rs.example/mcp", accessToken: "token-value" };
    const [a, b] = await Promise.all([prover.proof(request), prover.proof(request)]);
    const one = (await jwtVerify(a!, EmbeddedJWK)).payload;
    const two = (await jwtVerify(b!, EmbeddedJWK)).payload;
    expect(one.jti).not.toBe(two.jti);
    const digest = new Uint8Array(
      await crypto.subtle.digest("SHA-256", new TextEncoder().encode("token-value")),
    );
    expect(one.ath).toBe(base64url.encode(digest));
    expect(await accessTokenHash("token-value")).toBe(one.ath);
  });

  it("keeps the last nonce each origin gave and puts it in that origin's proofs only", async () => {
    const prover = new DpopProver();
    expect(prover.learnNonce("https://as.example/token", nonceResponse("n-1"))).toBe("n-1");
    expect(prover.nonce("https://as.example/other")).toBe("n-1");
    expect(prover.nonce("https://rs.example/mcp")).toBeUndefined();
    expect(
      prover.learnNonce("https://as.example/token", new Response(null, { status: 401 })),
    ).toBeUndefined();
    expect(prover.nonce("https://as.example/token")).toBe("n-1");
    const atAs = (
      await jwtVerify(await prover.proof({ method: "POST", url: "https://as.example/token" }), EmbeddedJWK)
    ).payload;
    const atRs = (
      await jwtVerify(await prover.proof({ method: "POST", url: "https://rs.example/mcp" }), EmbeddedJWK)
    ).payload;
    expect(atAs.nonce).toBe("n-1");
    expect(atRs.nonce).toBeUndefined();
    expect(prover.learnNonce("https://as.example/token", nonceResponse("n-2"))).toBe("n-2");
    expect(
      (await jwtVerify(await prover.proof({ method: "POST", url: "https://as.example/token" }), EmbeddedJWK))
        .payload.nonce,
    ).toBe("n-2");
  });

  it("refuses a nonce with characters RFC 9449 does not allow (a quote could break the proof's use)", async () => {
    const prover = new DpopProver();
    expect(prover.learnNonce("https://as.example/", nonceResponse('bad"nonce'))).toBeUndefined();
    expect(prover.learnNonce("https://as.example/", nonceResponse("bad nonce"))).toBeUndefined();
    const proof = await prover.proof({ method: "GET", url: "https://as.example/" });
    expect((await jwtVerify(proof, EmbeddedJWK)).payload.nonce).toBeUndefined();
  });

  it("signs with another algorithm and refuses an unknown one", async () => {
    const prover = new DpopProver("ES384");
    expect(decodeProtectedHeader(await prover.proof({ method: "GET", url: "https://x.example/" })).alg).toBe(
      "ES384",
    );
    expect(() => new DpopProver("HS256" as never)).toThrow(/unsupported DPoP algorithm/);
  });

  it("htu keeps scheme, host, port and path", () => {
    expect(dpopTarget("http://127.0.0.1:8080/mcp?session=1")).toBe("http://127.0.0.1:8080/mcp");
  });
});
