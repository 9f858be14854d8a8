/**
 * `init` on folders that already hold something, through the real CLI: a project (mcp-codegen.json) is
 * refused with a pointer to `generate`; a folder that is not empty is refused without --force; with
 * --force every file of the user's that would be replaced is first backed up (`.bak`, `.bak.1`, …) and
 * each backup printed, while files under the output folder (generated/) are ours to rewrite.
 */
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runCli } from "./run.js";

const work = mkdtempSync(join(tmpdir(), "mcp-codegen-init-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Every file under `dir` with its hash, to prove "nothing touched". */
function tree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!e.isFile()) continue;
    const path = join(e.parentPath, e.name);
    out[path.slice(dir.length + 1)] = createHash("sha256").update(readFileSync(path)).digest("hex");
  }
  return out;
}
const backups = (dir: string) =>
  Object.keys(tree(dir))
    .filter((f) => /\.bak(\.\d+)?$/.test(f))
    .sort();
const read = (dir: string, file: string) => readFileSync(join(dir, file), "utf8");

function init(dir: string, ...args: string[]) {
  const r = runCli(["init", ".", ...args], { cwd: dir });
  expect(r.stderr).not.toContain("internal error");
  return r;
}

function newProject(name: string, ...args: string[]): string {
  const dir = join(work, name);
  const r = runCli(["init", dir, "-q", ...args]);
  expect(r.code, r.stderr).toBe(0);
  return dir;
}

describe("mcp-codegen init in a folder that is not empty", () => {
  it("a folder holding mcp-codegen.json is refused, pointing at generate; nothing is written", () => {
    const dir = newProject("project");
    const before = tree(dir);
    const r = init(dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("mcp-codegen.json");
    expect(r.stderr).toContain("mcp-codegen generate");
    expect(r.stderr).toContain("--force");
    expect(tree(dir)).toEqual(before);
  }, 180_000);

  it("a folder that is not empty is refused without --force; nothing is written", () => {
    const dir = join(work, "notes");
    mkdirSync(dir);
    writeFileSync(join(dir, "notes.txt"), "mine\n");
    const r = init(dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/is not empty; choose an empty folder or pass --force/);
    expect(tree(dir)).toEqual({ "notes.txt": createHash("sha256").update("mine\n").digest("hex") });
  }, 180_000);

  it("init . --force in a project backs up each changed file of the user's, prints each, rewrites generated/", () => {
    const dir = newProject("forced", "--name", "fresh-forced");
    const handlers = `${read(dir, "src/handlers.ts")}// my edit\n`;
    writeFileSync(join(dir, "src/handlers.ts"), handlers);
    const pkg = read(dir, "package.json").replace('"private": true', '"private": false');
    writeFileSync(join(dir, "package.json"), pkg);
    const config = read(dir, "mcp-codegen.json").replace('"schema": null', '"schema": "./my-schema.json"');
    writeFileSync(join(dir, "mcp-codegen.json"), config);
    writeFileSync(join(dir, "generated/types.ts"), "// stale\n");
    writeFileSync(join(dir, "mine.ts"), "export {};\n");
    const freshDir = newProject("fresh-forced");
    const fresh = tree(freshDir);

    const r = init(dir, "--force", "--name", "fresh-forced");
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain("backed up mcp-codegen.json to mcp-codegen.json.bak");
    expect(r.stderr).toContain("backed up package.json to package.json.bak");
    expect(r.stderr).toContain("backed up src/handlers.ts to src/handlers.ts.bak");
    // The user's versions are in the backups; generated/ is rewritten without one; unrelated files stay.
    expect(backups(dir)).toEqual(["mcp-codegen.json.bak", "package.json.bak", "src/handlers.ts.bak"]);
    expect(read(dir, "src/handlers.ts.bak")).toBe(handlers);
    expect(read(dir, "package.json.bak")).toBe(pkg);
    expect(read(dir, "mcp-codegen.json.bak")).toBe(config);
    expect(read(dir, "mine.ts")).toBe("export {};\n");
    const after = tree(dir);
    for (const [file, hash] of Object.entries(fresh))
      if (file !== "package.json") expect(after[file], file).toBe(hash);
    // package.json is the scaffold's merged into the user's: their edit stays, nothing else differs.
    expect(JSON.parse(read(dir, "package.json"))).toEqual({
      ...JSON.parse(read(freshDir, "package.json")),
      private: false,
    });

    // Again, with the handlers edited again: a new backup beside the first, printed even with -q.
    writeFileSync(join(dir, "src/handlers.ts"), `${handlers}// edited again\n`);
    const again = runCli(["-q", "init", ".", "--force", "--name", "fresh-forced"], { cwd: dir });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr.trim()).toBe("backed up src/handlers.ts to src/handlers.ts.bak.1");
    expect(read(dir, "src/handlers.ts.bak")).toBe(handlers);
    expect(read(dir, "src/handlers.ts.bak.1")).toBe(`${handlers}// edited again\n`);
    // Nothing differs any more: no backup at all.
    const third = init(dir, "--force", "--name", "fresh-forced");
    expect(third.code).toBe(0);
    expect(third.stderr).not.toContain("backed up");
    expect(backups(dir)).toEqual([
      "mcp-codegen.json.bak",
      "package.json.bak",
      "src/handlers.ts.bak",
      "src/handlers.ts.bak.1",
    ]);
  }, 300_000);

  it("--force into a folder that is not a project: a colliding file is backed up, others are left alone", () => {
    const dir = join(work, "docs");
    mkdirSync(dir);
    writeFileSync(join(dir, "README.md"), "# my notes\n");
    writeFileSync(join(dir, "notes.txt"), "mine\n");
    const r = init(dir, "--force");
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain("backed up README.md to README.md.bak");
    expect(backups(dir)).toEqual(["README.md.bak"]);
    expect(read(dir, "README.md.bak")).toBe("# my notes\n");
    expect(read(dir, "notes.txt")).toBe("mine\n");
    expect(read(dir, "mcp-codegen.json")).toContain('"protocol"');
  }, 180_000);

  it("--force merges the scaffold's package.json into the user's, keeping their scripts and dependencies, and prints each change", () => {
    const dir = join(work, "has-package");
    mkdirSync(dir);
    const theirs = {
      name: "their-app",
      version: "3.1.4",
      type: "commonjs",
      scripts: { build: "make all", lint: "eslint ." },
      dependencies: { lodash: "^4.17.21" },
      devDependencies: { typescript: "^4.0.0", vitest: "^3.0.0" },
    };
    const text = `${JSON.stringify(theirs, null, 2)}\n`;
    writeFileSync(join(dir, "package.json"), text);
    const ours = JSON.parse(read(newProject("package-ours", "--name", "their-app"), "package.json"));
    const r = init(dir, "--force", "--name", "their-app");
    expect(r.code, r.stderr).toBe(0);
    expect(read(dir, "package.json.bak")).toBe(text);
    const merged = JSON.parse(read(dir, "package.json"));
    // Theirs stays: identity, scripts, dependencies; a script of theirs by one of our names is kept.
    expect(merged).toMatchObject({ name: "their-app", version: "3.1.4", type: "module" });
    expect(merged.scripts).toEqual({ ...ours.scripts, build: "make all", lint: "eslint ." });
    expect(merged.dependencies).toEqual({ ...ours.dependencies, lodash: "^4.17.21" });
    expect(merged.devDependencies).toEqual({ ...ours.devDependencies, vitest: "^3.0.0" });
    expect(merged.allowScripts).toEqual(ours.allowScripts);
    expect(merged.engines).toEqual(ours.engines);
    expect(Object.keys(merged.devDependencies)).toEqual(Object.keys(merged.devDependencies).sort());
    const line = r.stderr.split("\n").find((l) => l.includes("merged the scaffold's package.json"));
    expect(line).toBeDefined();
    for (const change of [
      'type: "commonjs" → "module"',
      `devDependencies.typescript: ^4.0.0 → ${ours.devDependencies.typescript}`,
      `added devDependencies.tsx ${ours.devDependencies.tsx}`,
      `added dependencies.@mcp-codegen/runtime ${ours.dependencies["@mcp-codegen/runtime"]}`,
      "added scripts.start",
      `kept your scripts.build (the scaffold's: ${JSON.stringify(ours.scripts.build)})`,
      "added allowScripts.esbuild",
    ])
      expect(line).toContain(change);
    // Run again: nothing to merge, nothing printed about package.json, no second backup.
    const again = init(dir, "--force", "--name", "their-app");
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).not.toContain("package.json");
    expect(backups(dir)).toEqual(["package.json.bak"]);
  }, 180_000);

  it("--force where a folder stands in a file's place: exit 2 naming it, nothing written", () => {
    const dir = join(work, "blocked");
    mkdirSync(join(dir, "src/main.ts"), { recursive: true });
    writeFileSync(join(dir, "package.json"), "{}\n");
    const before = tree(dir);
    const r = init(dir, "--force");
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/src\/main\.ts.*not a file/);
    expect(tree(dir)).toEqual(before);
  }, 180_000);

  it("--help says what --force does with existing files", () => {
    const r = runCli(["init", "--help"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/--force\s+write into a folder that is not empty/);
    expect(r.stdout).toContain(".bak");
    expect(r.stdout).toContain("mcp-codegen generate");
  });
});
