/**
 * The generator's shape, enforced: one job a folder, imports pointing one way
 * (cli → dev, lock, project, sampling → contract → emit → output → protocol → util), no file loose at the
 * top, generated code reached only from cli/, and every folder saying what it is for in a README.md.
 */
import { existsSync, readdirSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { Node, Project, type SourceFile, SyntaxKind } from "ts-morph";
import { describe, expect, it } from "vitest";

const REPO = fileURLToPath(new URL("../../", import.meta.url));
const GENERATOR = join(REPO, "generator");

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith(".ts") && !e.name.endsWith(".d.ts"))
    .map((e) => join(e.parentPath, e.name))
    .sort();
}

const project = new Project({ skipAddingFilesFromTsConfig: true, skipFileDependencyResolution: true });
const sources = tsFiles(GENERATOR).map((f) => project.addSourceFileAtPath(f));
const rel = (f: string) => relative(GENERATOR, f);
/** The job a generator file belongs to: its top folder, or "top" for a file loose at the top. */
const concern = (f: string) => (rel(f).includes("/") ? rel(f).split("/")[0]! : "top");

/** Every module specifier a file names: static imports and re-exports, dynamic imports, requires. */
function specifiers(sf: SourceFile): string[] {
  const out: string[] = [];
  for (const d of sf.getImportDeclarations()) out.push(d.getModuleSpecifierValue());
  for (const d of sf.getExportDeclarations()) {
    const s = d.getModuleSpecifierValue();
    if (s) out.push(s);
  }
  for (const call of sf.getDescendantsOfKind(SyntaxKind.CallExpression)) {
    const callee = call.getExpression().getText();
    const [arg] = call.getArguments();
    if ((callee === "import" || callee === "require") && arg) {
      if (Node.isStringLiteral(arg) || Node.isNoSubstitutionTemplateLiteral(arg))
        out.push(arg.getLiteralValue());
    }
  }
  return out;
}

const local = (from: string, spec: string) => resolve(dirname(from), spec).replace(/\.js$/, ".ts");

/** What each job may import (besides itself). */
const ALLOWED: Record<string, readonly string[]> = {
  util: [],
  protocol: ["util"],
  output: ["protocol", "util"],
  emit: ["output", "protocol", "util"],
  contract: ["emit", "output", "protocol", "util"],
  lock: ["contract", "emit", "output", "protocol", "util"],
  sampling: ["contract", "emit", "output", "protocol", "util"],
  project: ["contract", "emit", "output", "protocol", "util"],
  dev: ["util"],
  cli: ["dev", "lock", "sampling", "project", "contract", "emit", "output", "protocol", "util"],
};

describe("generator boundaries", () => {
  it("knows every folder, and leaves no file loose at the top", () => {
    expect(new Set(sources.map((s) => concern(s.getFilePath())))).toEqual(new Set(Object.keys(ALLOWED)));
  });

  it("imports point one way: cli → dev, lock, project, sampling → contract → emit → output → protocol → util", () => {
    const offenders: string[] = [];
    for (const sf of sources) {
      const from = concern(sf.getFilePath());
      for (const spec of specifiers(sf).filter((s) => s.startsWith("."))) {
        const target = local(sf.getFilePath(), spec);
        if (relative(GENERATOR, target).startsWith("..")) continue;
        const to = concern(target);
        if (to !== from && !ALLOWED[from]!.includes(to)) offenders.push(`${rel(sf.getFilePath())} → ${spec}`);
      }
    }
    expect(offenders).toEqual([]);
  });

  it("reaches generated code only from cli/ (the client pull and test run with)", () => {
    const offenders = sources.flatMap((sf) =>
      concern(sf.getFilePath()) === "cli"
        ? []
        : specifiers(sf)
            .filter(
              (s) => s.startsWith(".") && relative(REPO, local(sf.getFilePath(), s)).startsWith("generated/"),
            )
            .map((s) => `${rel(sf.getFilePath())} → ${s}`),
    );
    expect(offenders).toEqual([]);
  });

  it("says in each folder's README.md what the folder is for", () => {
    const missing = Object.keys(ALLOWED).filter((f) => !existsSync(join(GENERATOR, f, "README.md")));
    expect(missing).toEqual([]);
  });
});
