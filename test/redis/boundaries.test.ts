/**
 * The Redis package's shape, enforced: it imports only the runtime's public entries, `redis` (its peer
 * dependency) and Node built-ins; relative imports stay inside the package; it has no dependency of
 * its own; its entry lists its exports by name; no module-level mutable bindings.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { Project, SyntaxKind } from "ts-morph";
import { describe, expect, it } from "vitest";

const REPO = fileURLToPath(new URL("../../", import.meta.url));
const PACKAGE = join(REPO, "redis");
type Manifest = {
  name: string;
  version: string;
  exports: Record<string, string | Record<string, string>>;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
};
const read = (path: string) => JSON.parse(readFileSync(path, "utf8")) as Manifest;
const pkg = read(join(PACKAGE, "package.json"));
const runtime = read(join(REPO, "runtime", "package.json"));

const files = readdirSync(PACKAGE, { recursive: true, withFileTypes: true })
  .filter((e) => e.isFile() && e.name.endsWith(".ts") && !e.name.endsWith(".d.ts"))
  .map((e) => join(e.parentPath, e.name))
  .filter((f) => !/\/(node_modules|dist)\//.test(f));
const project = new Project({ skipAddingFilesFromTsConfig: true, skipFileDependencyResolution: true });
const sources = files.map((f) => project.addSourceFileAtPath(f));

/** The runtime's public entries, as a user imports them. */
const RUNTIME_ENTRIES = Object.keys(runtime.exports)
  .filter((e) => e !== "./package.json")
  .map((e) => (e === "." ? runtime.name : `${runtime.name}/${e.slice(2)}`));

describe("@mcp-codegen/redis boundaries", () => {
  it("is a workspace package beside the runtime, depending on it and on redis as peers only", () => {
    expect(pkg.name).toBe("@mcp-codegen/redis");
    expect((read(join(REPO, "package.json")) as unknown as { workspaces: string[] }).workspaces).toContain(
      "redis",
    );
    expect(pkg.dependencies ?? {}).toEqual({});
    expect(Object.keys(pkg.peerDependencies ?? {}).sort()).toEqual(["@mcp-codegen/runtime", "redis"]);
    expect(pkg.peerDependencies!["@mcp-codegen/runtime"]).toBe(runtime.version);
  });

  it("imports only public runtime entries, redis and Node built-ins; relative imports stay inside", () => {
    const offenders: string[] = [];
    for (const sf of sources) {
      const specs = [
        ...sf.getImportDeclarations().map((d) => d.getModuleSpecifierValue()),
        ...sf.getExportDeclarations().flatMap((d) => d.getModuleSpecifierValue() ?? []),
      ];
      for (const spec of specs) {
        const inside =
          spec.startsWith(".") &&
          !relative(PACKAGE, resolve(dirname(sf.getFilePath()), spec)).startsWith("..");
        const ok = inside || spec === "redis" || spec.startsWith("node:") || RUNTIME_ENTRIES.includes(spec);
        if (!ok) offenders.push(`${relative(PACKAGE, sf.getFilePath())} → ${spec}`);
      }
    }
    expect(offenders).toEqual([]);
  });

  it("its entry lists its exports by name; its exports' source files exist", () => {
    for (const [name, target] of Object.entries(pkg.exports)) {
      if (name === "./package.json" || typeof target === "string") continue;
      const source = target["mcp-codegen-source"]!;
      const sf = project.getSourceFileOrThrow(join(PACKAGE, source));
      expect(
        sf
          .getExportDeclarations()
          .filter((d) => !d.hasNamedExports())
          .map((d) => d.getText()),
        name,
      ).toEqual([]);
    }
  });

  it("keeps no module-level mutable bindings", () => {
    const offenders = sources.flatMap((sf) =>
      sf
        .getVariableStatements()
        .filter((s) => s.getDeclarationKind() !== "const")
        .map((s) => `${relative(PACKAGE, sf.getFilePath())}:${s.getStartLineNumber()}`),
    );
    expect(offenders).toEqual([]);
    expect(sources.some((sf) => sf.getDescendantsOfKind(SyntaxKind.ImportDeclaration).length > 0)).toBe(true);
  });
});
