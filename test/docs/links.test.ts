/**
 * The design notes stay true to the tree: every relative link in docs/ and the READMEs resolves, every
 * repository path a note names in backticks exists, and the README points at docs/ rather than at a
 * folder a clone does not have.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const REPO = fileURLToPath(new URL("../../", import.meta.url));
const DOCS = join(REPO, "docs");
const NOTES = readdirSync(DOCS)
  .filter((f) => f.endsWith(".md"))
  .sort()
  .map((f) => join(DOCS, f));
const READMES = [
  "README.md",
  "generator/README.md",
  "runtime/README.md",
  "bench/README.md",
  "examples/README.md",
].map((f) => join(REPO, f));

/** Relative Markdown link targets of `file` (`[text](target)`), without their `#fragment`. */
function relativeLinks(file: string): string[] {
  const text = readFileSync(file, "utf8");
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((m) => m[1]!)
    .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target) && !target.startsWith("#"))
    .map((target) => target.split("#")[0]!);
}

const TOP_FOLDERS = /^(schema|generator|templates|generated|runtime|test|bench|examples|docs)\//;

/** Repository paths a note names in backticks (`runtime/server/session.ts`), placeholders left out. */
function namedPaths(file: string): string[] {
  const text = readFileSync(file, "utf8");
  return [...text.matchAll(/`([^`\s]+)`/g)]
    .map((m) => m[1]!)
    .filter((p) => TOP_FOLDERS.test(p) && !/[<>*{}]/.test(p));
}

describe("design notes", () => {
  it("exist, each listed in docs/README.md", () => {
    const notes = NOTES.map((f) => relative(DOCS, f)).filter((f) => f !== "README.md");
    expect(notes.length).toBeGreaterThanOrEqual(4);
    const index = readFileSync(join(DOCS, "README.md"), "utf8");
    for (const note of notes) expect(index, note).toContain(`](${note})`);
  });

  it("link only to files that exist", () => {
    const broken = [...NOTES, ...READMES].flatMap((file) =>
      relativeLinks(file)
        .filter((target) => !existsSync(resolve(dirname(file), target)))
        .map((target) => `${relative(REPO, file)} → ${target}`),
    );
    expect(broken).toEqual([]);
  });

  it("name only repository paths that exist", () => {
    const named = NOTES.flatMap((file) => namedPaths(file).map((p) => [file, p] as const));
    expect(named.length).toBeGreaterThan(50);
    const missing = named
      .filter(([, p]) => !existsSync(join(REPO, p)))
      .map(([file, p]) => `${relative(REPO, file)}: ${p}`);
    expect(missing).toEqual([]);
  });

  it("are what the README points contributors to, not a folder outside the clone", () => {
    const readme = readFileSync(join(REPO, "README.md"), "utf8");
    expect(readme).toContain("](docs/README.md)");
    expect(readme).not.toMatch(/\.\.\/shared\/docs/);
    const generator = readFileSync(join(REPO, "generator/README.md"), "utf8");
    expect(generator).not.toContain("DESIGN.md");
  });
});
