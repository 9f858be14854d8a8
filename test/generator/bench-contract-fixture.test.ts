import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { CONTRACT_DIR, contractFixtureFiles } from "../../bench/contract-fixture.js";

describe("the stdio bench's contract fixture", () => {
  it("bench/fixtures/contract/ holds what generation yields (rewrite: tsx bench/contract-fixture.ts)", async () => {
    const files = await contractFixtureFiles();
    expect(Object.keys(files).sort()).toEqual([
      "server.ts",
      "tables.d.ts",
      "tables.js",
      "types.ts",
      "validators.d.ts",
      "validators.js",
    ]);
    for (const [name, text] of Object.entries(files)) {
      expect(readFileSync(`${CONTRACT_DIR}${name}`, "utf8"), name).toBe(text);
    }
  });
});
