/**
 * jwtVerifier's options (what it refuses to be configured with) and its cache of accepted tokens; the
 * HTTP behaviour is in test/runtime/http/protected.test.ts.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { InvalidToken } from "../../../runtime/auth/verifier.js";
import { type JwtVerifierOptions, jwtVerifier } from "../../../runtime/auth/verify-jwt.js";
import { startIssuer, type TestIssuer } from "../../fixtures/auth/issuer.js";

const REQUEST = { method: "POST", url: "/mcp", header: () => null };
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

/**
 * Accepted tokens taken on trust: against a real JWKS over HTTP (fetched again on every use, so that a
 * withdrawn key is noticed at once by a real check), a token is shown to be served from the cache by its
 * key being withdrawn after it was accepted.
 */
describe("jwtVerifier's accepted tokens", () => {
  const resource = "https://mcp.example/mcp";
  let as: TestIssuer;
  let clock = 0;
  beforeEach(async () => {
    as = await startIssuer();
    clock = Date.now();
  });
  afterEach(() => as.close());

  const verifier = (options: Partial<JwtVerifierOptions> = {}) =>
    jwtVerifier({
      issuer: as.issuer,
      audience: resource,
      jwksUri: as.jwksUri,
      jwksCacheMaxAgeMs: 1,
      jwksCooldownMs: 0,
      now: () => clock,
      ...options,
    });
  const token = (claims: Record<string, unknown> = {}, kid?: string) =>
    as.sign({ sub: "alice", aud: resource, scope: "mcp:read", ...claims }, kid ? { kid } : {});
  /** The key withdrawn and the JWKS cache stale: only a cached acceptance still accepts. */
  const withdraw = async () => {
    as.withdraw("rsa-1");
    await new Promise((resolve) => setTimeout(resolve, 5));
  };
  const start = () => clock;

  it("are taken on trust for cacheTtlSec, then checked again", async () => {
    const verify = verifier({ cacheTtlSec: 60 });
    const t = await token();
    const t0 = start();
    expect((await verify(t, REQUEST)).subject).toBe("alice");
    await withdraw();
    clock = t0 + 59_000;
    expect((await verify(t, REQUEST)).subject).toBe("alice");
    clock = t0 + 61_000;
    await expect(verify(t, REQUEST)).rejects.toThrow(InvalidToken);
  });

  it("are never taken on trust past their expiry, whatever the TTL", async () => {
    const verify = verifier({ cacheTtlSec: 3600 });
    const exp = Math.floor(start() / 1000) + 100;
    const t = await token({ exp });
    expect((await verify(t, REQUEST)).expiresAt).toBe(exp);
    await withdraw();
    clock = exp * 1000 - 1000;
    expect((await verify(t, REQUEST)).subject).toBe("alice");
    // Within the 30 s clock skew a real check would still accept it: refused only because it was checked.
    clock = exp * 1000 + 1000;
    await expect(verify(t, REQUEST)).rejects.toThrow(/no key of the issuer matches/);
  });

  it("are at most maxEntries, the oldest forgotten first", async () => {
    const verify = verifier({ maxEntries: 2 });
    const tokens = [await token({ sub: "a" }), await token({ sub: "b" }), await token({ sub: "c" })];
    for (const t of tokens) await verify(t, REQUEST);
    await withdraw();
    await expect(verify(tokens[0]!, REQUEST)).rejects.toThrow(InvalidToken);
    expect((await verify(tokens[1]!, REQUEST)).subject).toBe("b");
    expect((await verify(tokens[2]!, REQUEST)).subject).toBe("c");
  });

  it("are not remembered with cacheTtlSec 0", async () => {
    const verify = verifier({ cacheTtlSec: 0 });
    const t = await token();
    await verify(t, REQUEST);
    await withdraw();
    await expect(verify(t, REQUEST)).rejects.toThrow(InvalidToken);
  });

  it("do not include refused ones: a token refused for an unknown key is accepted once the key is published", async () => {
    const verify = verifier();
    const t = await token({}, "hidden");
    await expect(verify(t, REQUEST)).rejects.toThrow(/no key of the issuer matches/);
    as.publishHidden();
    expect((await verify(t, REQUEST)).subject).toBe("alice");
  });

  it("grant what a handler cannot change for the next request with the same token", async () => {
    const verify = verifier();
    const t = await token({ cnf: { jkt: "thumbprint" } });
    const info = await verify(t, REQUEST);
    expect(() => (info.scopes as string[]).push("mcp:admin")).toThrow(TypeError);
    expect(() => Object.assign(info, { subject: "mallory" })).toThrow(TypeError);
    expect(() => Object.assign(info.claims.cnf as object, { jkt: "other" })).toThrow(TypeError);
    const again = await verify(t, REQUEST);
    expect(again.scopes).toEqual(["mcp:read"]);
    expect(again.subject).toBe("alice");
    expect(again.claims.cnf).toEqual({ jkt: "thumbprint" });
  });
});
