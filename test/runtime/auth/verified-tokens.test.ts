/** VerifiedTokens: bounded in count, each entry gone at the earlier of its TTL and its token's expiry. */
import { describe, expect, it } from "vitest";
import { VerifiedTokens } from "../../../runtime/auth/verified-tokens.js";
import type { AuthInfo } from "../../../runtime/mcp/auth-info.js";

const T0 = 1_800_000_000_000;
const info = (subject: string, expiresAt = T0 / 1000 + 3600): AuthInfo => ({
  subject,
  scopes: [],
  expiresAt,
  claims: {},
});

describe("VerifiedTokens", () => {
  it("holds at most maxEntries, forgetting the oldest first", () => {
    const cache = new VerifiedTokens(60_000, 3);
    for (let i = 0; i < 10; i++) {
      cache.set(`t${i}`, info(`s${i}`), T0);
      expect(cache.size).toBeLessThanOrEqual(3);
    }
    expect(cache.size).toBe(3);
    for (let i = 0; i < 7; i++) expect(cache.get(`t${i}`, T0), `t${i}`).toBeUndefined();
    for (let i = 7; i < 10; i++) expect(cache.get(`t${i}`, T0)?.subject).toBe(`s${i}`);
  });

  it("replaces a token's entry without evicting another", () => {
    const cache = new VerifiedTokens(60_000, 2);
    cache.set("a", info("a"), T0);
    cache.set("b", info("b"), T0);
    cache.set("b", info("b2"), T0);
    expect(cache.size).toBe(2);
    expect(cache.get("a", T0)?.subject).toBe("a");
    expect(cache.get("b", T0)?.subject).toBe("b2");
  });

  it("forgets an entry once its TTL has passed", () => {
    const cache = new VerifiedTokens(60_000, 10);
    cache.set("a", info("a"), T0);
    expect(cache.get("a", T0 + 59_999)?.subject).toBe("a");
    expect(cache.get("a", T0 + 60_000)).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it("forgets an entry at its token's expiry when that comes first", () => {
    const cache = new VerifiedTokens(3_600_000, 10);
    cache.set("a", info("a", T0 / 1000 + 10), T0);
    expect(cache.get("a", T0 + 9_999)?.subject).toBe("a");
    expect(cache.get("a", T0 + 10_000)).toBeUndefined();
  });

  it("keeps nothing already expired, nor anything with a TTL or a bound of 0", () => {
    const expired = new VerifiedTokens(60_000, 10);
    expired.set("a", info("a", T0 / 1000), T0);
    const noTtl = new VerifiedTokens(0, 10);
    noTtl.set("a", info("a"), T0);
    const noRoom = new VerifiedTokens(60_000, 0);
    noRoom.set("a", info("a"), T0);
    expect([expired.size, noTtl.size, noRoom.size]).toEqual([0, 0, 0]);
  });
});
