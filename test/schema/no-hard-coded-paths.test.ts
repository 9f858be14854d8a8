/**
 * Tests find the official schemas the way users do, through the loader (test/schema/fixtures.ts), so a
 * clone anywhere runs them: no test may reach for ../shared beside the checkout by a path of its own.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
/**
 * A path that climbs out to a `shared` folder, at the start of a string literal or right after an
 * interpolation: "../shared…", '../../../shared…', `${REPO}../shared…`.
 */
const CLIMB_TO_SHARED = /["'`}](?:\.\.\/)+shared\b/;
const SELF = fileURLToPath(import.meta.url);

function sources(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && /\.(ts|mts|js|mjs)$/.test(e.name))
    .map((e) => join(e.parentPath, e.name))
    .filter((path) => !/\/(\.tmp|node_modules)\//.test(path));
}

describe("the official schemas are found through the loader", () => {
  it("no test, bench or example names a path to ../shared", () => {
    const files = ["test", "bench", "examples"].flatMap((d) => sources(join(ROOT, d)));
    expect(files.length).toBeGreaterThan(100);
    const offenders = files.filter(
      (path) => path !== SELF && CLIMB_TO_SHARED.test(readFileSync(path, "utf8")),
    );
    expect(offenders.map((path) => relative(ROOT, path))).toEqual([]);
  });

  it("the check itself catches the forms it forbids", () => {
    const interpolated = ["`$", "{REPO}../shared/mcp-schema`"].join("");
    for (const text of ['new URL("../../../shared/mcp-schema/", u)', interpolated, "'../shared'"])
      expect(CLIMB_TO_SHARED.test(text), text).toBe(true);
    expect(CLIMB_TO_SHARED.test('it("finds ../shared/mcp-schema beside a checkout")')).toBe(false);
  });
});
