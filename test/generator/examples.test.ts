import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { exampleFiles, VERSIONS_WITH_EXAMPLES } from "./paths.js";

describe("official examples", () => {
  it("ships examples for 2026-07-28 and draft", () => {
    expect(VERSIONS_WITH_EXAMPLES).toEqual(["2026-07-28", "draft"]);
  });

  it.each(VERSIONS_WITH_EXAMPLES)(
    "every %s example passes its definition's zod schema and plain check",
    async (version) => {
      const schemas = (await import(`../../generated/${version}/schemas.ts`)) as Record<
        string,
        { safeParse(v: unknown): { success: boolean; error?: unknown } }
      >;
      const checks = (await import(`../../generated/${version}/validators.ts`)) as Record<
        string,
        (v: unknown) => unknown
      >;
      const files = exampleFiles(version);
      const failures: string[] = [];
      for (const { definition, file } of files) {
        const validator = schemas[`${definition}Schema`];
        if (!validator) {
          failures.push(`${file}: no ${definition}Schema`);
          continue;
        }
        const value: unknown = JSON.parse(readFileSync(file, "utf8"));
        const result = validator.safeParse(value);
        if (!result.success) failures.push(`${file}: ${String(result.error)}`);
        const check = checks[`check${definition}`];
        const failure = check ? check(value) : "missing";
        if (failure !== undefined) failures.push(`${file}: check${definition}: ${JSON.stringify(failure)}`);
      }
      console.log(`${version}: ${files.length} official examples, ${failures.length} failures`);
      expect(files.length).toBeGreaterThan(100);
      expect(failures).toEqual([]);
    },
  );
});
