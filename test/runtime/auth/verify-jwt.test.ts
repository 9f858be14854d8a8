/** jwtVerifier's options: what it refuses to be configured with (the HTTP behaviour is in test/runtime/http/protected.test.ts). */
import { describe, expect, it } from "vitest";
import { jwtVerifier } from "../../../runtime/auth/verify-jwt.js";

const base = { issuer: "https://as.example", audience: "https://mcp.example/mcp", jwks: { keys: [] } };

describe("jwtVerifier options", () => {
  it.each([["none"], ["HS256"], ["hs512"]])("never admits %s against public keys", (alg) => {
    expect(() => jwtVerifier({ ...base, algorithms: ["RS256", alg] })).toThrow(TypeError);
  });

  it("bounds the clock skew to 60 s", () => {
    expect(() => jwtVerifier({ ...base, clockToleranceSec: 61 })).toThrow(RangeError);
    expect(() => jwtVerifier({ ...base, clockToleranceSec: -1 })).toThrow(RangeError);
    expect(() => jwtVerifier({ ...base, clockToleranceSec: 60 })).not.toThrow();
  });

  it("needs keys", () => {
    expect(() => jwtVerifier({ issuer: base.issuer, audience: base.audience })).toThrow(/jwksUri or jwks/);
  });
});
