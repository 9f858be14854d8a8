import { decodeProtectedHeader, exportPKCS8, generateKeyPair, jwtVerify } from "jose";
import { describe, expect, it } from "vitest";
import { importClientKey, signClientAssertion } from "../../../runtime/auth/client-assertion.js";

describe("client assertions (private_key_jwt)", () => {
  it("signs iss = sub = client id, aud = the issuer, a fresh jti, and a short lifetime", async () => {
    const { privateKey, publicKey } = await generateKeyPair("ES256", { extractable: true });
    const key = await importClientKey(await exportPKCS8(privateKey), "ES256");
    const options = {
      clientId: "client-1",
      audience: "https://as.example",
      privateKey: key,
      algorithm: "ES256",
    };
    const [one, two] = [await signClientAssertion(options), await signClientAssertion(options)];
    const { payload } = await jwtVerify(one, publicKey, {
      issuer: "client-1",
      audience: "https://as.example",
    });
    expect(payload.sub).toBe("client-1");
    expect(payload.exp! - payload.iat!).toBe(60);
    expect(payload.jti).not.toBe((await jwtVerify(two, publicKey)).payload.jti);
    expect(decodeProtectedHeader(one).alg).toBe("ES256");
  });

  it("refuses a symmetric algorithm: a client key must be asymmetric", async () => {
    await expect(
      importClientKey("-----BEGIN PRIVATE KEY-----\n-----END PRIVATE KEY-----", "HS256"),
    ).rejects.toThrow(/unsupported client assertion algorithm "HS256"/);
    const { privateKey } = await generateKeyPair("ES256");
    await expect(
      signClientAssertion({ clientId: "c", audience: "https://as.example", privateKey, algorithm: "none" }),
    ).rejects.toThrow(/unsupported client assertion algorithm "none"/);
  });
});
