/**
 * The backtracking check (generator/util/backtracking.ts, recheck): every pattern known to backtrack
 * catastrophically is flagged at the length it runs on, with a `maxLength` that would make it safe; the
 * patterns it calls safe really run fast at the default limit in V8, including the unambiguous
 * repetitions a shape-based check would have flagged.
 */
import { describe, expect, it } from "vitest";
import { backtrackingRisk, DEFAULT_PATTERN_MAX_LENGTH } from "../../../generator/util/backtracking.js";

const LIMIT = DEFAULT_PATTERN_MAX_LENGTH;

describe("backtrackingRisk", () => {
  it.each([
    ["^(a+)+$", "exponential"],
    ["^(a*)*$", "exponential"],
    ["^(a|a)*$", "exponential"],
    ["^(?:a?a?)*$", "exponential"],
    ["^(\\w+\\s?)*$", "exponential"],
    ["^([a-z]+.)+[a-z]{2,}$", "exponential"],
    ["(x+x+)+y", "exponential"],
    ["^(?=(a+)+b)", "exponential"],
    ["^(?<n>a|a)+$", "exponential"],
    ["a*a*b", "polynomial"],
    ["^\\s*.*\\s*x\\s*$", "polynomial"],
  ])("%s is flagged %s without maxLength", async (pattern, kind) => {
    const risk = await backtrackingRisk(pattern, LIMIT);
    expect(risk?.kind).toBe(kind);
    expect(risk?.attack).toMatch(/\S/);
    // The maxLength it proposes is itself within budget.
    expect(await backtrackingRisk(pattern, risk!.safeMaxLength)).toBeUndefined();
  });

  it("a small maxLength makes a flagged pattern acceptable", async () => {
    expect(await backtrackingRisk("^(a+)+$", 16)).toBeUndefined();
    expect((await backtrackingRisk("^(a+)+$", 20))?.kind).toBe("exponential");
    expect((await backtrackingRisk("a*a*b", 4096))?.degree).toBe(3);
    expect(await backtrackingRisk("a*a*b", 400)).toBeUndefined();
  });

  const safe = [
    "^[a-z0-9-]+$",
    "^(a|b)*$",
    "^(?:ab)*$",
    "^\\d{4}-\\d{2}-\\d{2}$",
    "^\\p{L}+$",
    "[\\]+]+x",
    "^(?=.*\\d).{8,}$",
    "^a*a*b",
    "a+b",
    "^(a|ab)+$",
    "^(?:(a)\\1)*$",
    "^([a-z]+-)*[a-z]+$",
    "^[a-zA-Z0-9._%+-]+@[a-zA-Z0-9.-]+\\.[a-zA-Z]{2,}$",
  ];
  it.each(safe)("%s is not flagged at the default limit", async (pattern) => {
    expect(await backtrackingRisk(pattern, LIMIT)).toBeUndefined();
  });

  it("what it calls safe runs in well under 100 ms on a hostile string of the default limit", () => {
    for (const pattern of safe) {
      const re = new RegExp(pattern, "u");
      for (const text of ["a".repeat(LIMIT), `${"a".repeat(LIMIT)}!`, `${"ab".repeat(LIMIT / 2)}!`]) {
        const started = performance.now();
        re.test(text);
        expect(performance.now() - started, `${pattern} on ${text.slice(-3)}`).toBeLessThan(100);
      }
    }
  });
});
