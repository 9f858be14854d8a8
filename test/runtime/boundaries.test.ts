/**
 * The runtime's shape, enforced: `node:` only under node/, imports pointing one way
 * (node → http → auth → http-client; http, http-client → server, client → mcp → check → jsonrpc → util),
 * no runtime dependency but the SSE parser and jose (only in auth/, loaded by no entry but `./auth` and
 * `./node`; zod for the optional zod helpers; the OpenTelemetry API, an optional peer, only in otel/ and
 * loaded by no entry but `./otel`), no module-level mutable state, named exports only in the
 * public entries, no entry but `./node` reaching Node built-ins, and generated code importing
 * only public entries (`./codegen`; `./server`, `./client`, `./zod` from their one file each).
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { Node, Project, type SourceFile, SyntaxKind } from "ts-morph";
import { describe, expect, it } from "vitest";

const REPO = fileURLToPath(new URL("../../", import.meta.url));
const RUNTIME = join(REPO, "runtime");
const pkg = JSON.parse(readFileSync(join(RUNTIME, "package.json"), "utf8")) as {
  exports: Record<string, string | Record<string, string>>;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
};

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith(".ts") && !e.name.endsWith(".d.ts"))
    .map((e) => join(e.parentPath, e.name))
    .filter((f) => !/\/(node_modules|dist)\//.test(f))
    .sort();
}

const project = new Project({ skipAddingFilesFromTsConfig: true, skipFileDependencyResolution: true });
const sources = tsFiles(RUNTIME).map((f) => project.addSourceFileAtPath(f));
const rel = (f: string) => relative(RUNTIME, f);
/** The concern a runtime file belongs to: its top folder, or "entry" for the files at the top. */
const concern = (f: string) => (rel(f).includes("/") ? rel(f).split("/")[0]! : "entry");

/** Every module specifier a file names: static imports and re-exports, dynamic imports, builtin loads. */
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
    if ((callee === "import" || callee.endsWith("getBuiltinModule") || callee === "require") && arg) {
      if (Node.isStringLiteral(arg) || Node.isNoSubstitutionTemplateLiteral(arg))
        out.push(arg.getLiteralValue());
    }
  }
  return out;
}

const local = (from: string, spec: string) => resolve(dirname(from), spec).replace(/\.js$/, ".ts");

/** What each concern may import (besides itself). */
const ALLOWED: Record<string, readonly string[]> = {
  util: [],
  jsonrpc: ["util"],
  check: ["jsonrpc", "util"],
  mcp: ["check", "jsonrpc", "util"],
  server: ["mcp", "check", "jsonrpc", "util"],
  client: ["mcp", "check", "jsonrpc", "util"],
  auth: ["http-client", "mcp", "check", "jsonrpc", "util"],
  http: ["auth", "server", "mcp", "check", "jsonrpc", "util"],
  "http-client": ["mcp", "check", "jsonrpc", "util"],
  otel: ["mcp", "jsonrpc", "util"],
  // The view side of MCP Apps runs in a browser frame on its own: it imports nothing of the rest.
  view: [],
  node: ["auth", "http", "http-client", "server", "client", "mcp", "check", "jsonrpc", "util"],
  entry: ["auth", "http", "http-client", "server", "client", "mcp", "check", "jsonrpc", "util"],
};

describe("runtime boundaries", () => {
  it("knows every folder", () => {
    expect(new Set(sources.map((s) => concern(s.getFilePath())))).toEqual(new Set(Object.keys(ALLOWED)));
  });

  it("imports node: built-ins only under node/", () => {
    const offenders = sources.flatMap((sf) =>
      concern(sf.getFilePath()) === "node"
        ? []
        : specifiers(sf)
            .filter((s) => s.startsWith("node:"))
            .map((s) => `${rel(sf.getFilePath())} → ${s}`),
    );
    expect(offenders).toEqual([]);
  });

  it("uses no Node globals (Buffer, process, require) outside node/: Workers have none", () => {
    const offenders: string[] = [];
    for (const sf of sources) {
      if (concern(sf.getFilePath()) === "node") continue;
      for (const id of sf.getDescendantsOfKind(SyntaxKind.Identifier)) {
        const name = id.getText();
        if (name !== "Buffer" && name !== "process" && name !== "require" && name !== "__dirname") continue;
        const parent = id.getParent();
        // A property named so (`x.process`) or a key is not the global.
        if (Node.isPropertyAccessExpression(parent) && parent.getNameNode() === id) continue;
        if (Node.isPropertyAssignment(parent) || Node.isPropertySignature(parent)) continue;
        offenders.push(`${rel(sf.getFilePath())}:${id.getStartLineNumber()} ${name}`);
      }
    }
    expect(offenders).toEqual([]);
  });

  it("imports point one way: node → http, http-client → server, client → mcp → check → jsonrpc → util", () => {
    const offenders: string[] = [];
    for (const sf of sources) {
      const from = concern(sf.getFilePath());
      for (const spec of specifiers(sf).filter((s) => s.startsWith("."))) {
        const to = concern(local(sf.getFilePath(), spec));
        if (to !== from && !ALLOWED[from]!.includes(to)) offenders.push(`${rel(sf.getFilePath())} → ${spec}`);
      }
    }
    expect(offenders).toEqual([]);
  });

  it("depends on no package but the SSE parser (http-client), jose (auth), zod (the optional zod helpers) and the OpenTelemetry API (otel, an optional peer)", () => {
    expect(Object.keys(pkg.dependencies ?? {})).toEqual(["eventsource-parser", "jose"]);
    expect(pkg.peerDependencies).toEqual({ "@opentelemetry/api": "^1.9.0" });
    expect(pkg.peerDependenciesMeta).toEqual({ "@opentelemetry/api": { optional: true } });
    const offenders: string[] = [];
    for (const sf of sources) {
      for (const spec of specifiers(sf).filter((s) => !s.startsWith(".") && !s.startsWith("node:"))) {
        const ok =
          (spec === "eventsource-parser" && concern(sf.getFilePath()) === "http-client") ||
          (spec === "jose" && concern(sf.getFilePath()) === "auth") ||
          (spec === "zod" && rel(sf.getFilePath()) === "check/zod.ts") ||
          (spec === "@opentelemetry/api" && concern(sf.getFilePath()) === "otel");
        if (!ok) offenders.push(`${rel(sf.getFilePath())} → ${spec}`);
      }
    }
    expect(offenders).toEqual([]);
  });

  it("keeps no module-level mutable state", () => {
    const offenders: string[] = [];
    for (const sf of sources) {
      for (const stmt of sf.getVariableStatements()) {
        const where = `${rel(sf.getFilePath())}:${stmt.getStartLineNumber()}`;
        if (stmt.getDeclarationKind() !== "const") {
          offenders.push(`${where} ${stmt.getDeclarationKind()}`);
          continue;
        }
        for (const decl of stmt.getDeclarations()) {
          const init = decl.getInitializer();
          if (!init) continue;
          const type = decl.getTypeNode()?.getText() ?? "";
          const readonlyType = /^Readonly/.test(type);
          const text = init.getText();
          const frozen = /^Object\.freeze\(/.test(text) || / as const$/.test(text);
          const collection =
            Node.isNewExpression(init) &&
            /^(Map|Set|WeakMap|WeakSet|Array)\b/.test(init.getExpression().getText());
          const literal = Node.isObjectLiteralExpression(init) || Node.isArrayLiteralExpression(init);
          if ((collection || literal) && !readonlyType && !frozen)
            offenders.push(`${where} ${decl.getName()}`);
        }
      }
    }
    expect(offenders).toEqual([]);
  });

  it("public entries list their exports by name", () => {
    const entries = Object.values(pkg.exports)
      .map((e) => (typeof e === "string" ? e : e["mcp-codegen-source"]))
      .filter((e): e is string => !!e && e.endsWith(".ts"));
    expect(entries.length).toBeGreaterThanOrEqual(8);
    for (const entry of entries) {
      const sf = project.getSourceFileOrThrow(join(RUNTIME, entry));
      const star = sf.getExportDeclarations().filter((d) => !d.hasNamedExports());
      expect(
        star.map((d) => d.getText()),
        entry,
      ).toEqual([]);
    }
  });

  it("no entry but ./auth (and ./node, which serves it) loads jose, however indirectly", () => {
    const reach = (file: string, seen = new Set<string>()): boolean => {
      if (seen.has(file)) return false;
      seen.add(file);
      const sf = project.getSourceFileOrThrow(file);
      return specifiers(sf).some((s) => s === "jose" || (s.startsWith(".") && reach(local(file, s), seen)));
    };
    for (const [name, e] of Object.entries(pkg.exports)) {
      if (typeof e === "string" || name === "./auth" || name.startsWith("./node")) continue;
      expect(reach(join(RUNTIME, e["mcp-codegen-source"]!)), name).toBe(false);
    }
  });

  it("no entry but ./otel loads @opentelemetry/api, however indirectly: the runtime runs without it", () => {
    const reach = (file: string, seen = new Set<string>()): boolean => {
      if (seen.has(file)) return false;
      seen.add(file);
      const sf = project.getSourceFileOrThrow(file);
      return specifiers(sf).some(
        (s) => s.startsWith("@opentelemetry/") || (s.startsWith(".") && reach(local(file, s), seen)),
      );
    };
    for (const [name, e] of Object.entries(pkg.exports)) {
      if (typeof e === "string" || name === "./otel") continue;
      expect(reach(join(RUNTIME, e["mcp-codegen-source"]!)), name).toBe(false);
    }
    expect(reach(join(RUNTIME, "otel/index.ts"))).toBe(true);
  });

  it("no entry but ./node and ./node/* reaches a Node built-in, however indirectly", () => {
    const reach = (file: string, seen = new Set<string>()): string[] => {
      if (seen.has(file)) return [];
      seen.add(file);
      const sf = project.getSourceFileOrThrow(file);
      return specifiers(sf).flatMap((s) =>
        s.startsWith("node:")
          ? [`${rel(file)} → ${s}`]
          : s.startsWith(".")
            ? reach(local(file, s), seen)
            : [],
      );
    };
    for (const [name, e] of Object.entries(pkg.exports)) {
      if (typeof e === "string" || name === "./node" || name.startsWith("./node/")) continue;
      expect(reach(join(RUNTIME, e["mcp-codegen-source"]!)), name).toEqual([]);
    }
    expect(reach(join(RUNTIME, "node/index.ts")).length).toBeGreaterThan(0);
  });
});

describe("what imports the runtime", () => {
  it("generated code imports only @mcp-codegen/runtime/codegen, /server from server.ts, /client from client.ts, /zod from schemas.ts", () => {
    const offenders: string[] = [];
    for (const f of tsFiles(join(REPO, "generated"))) {
      const text = readFileSync(f, "utf8");
      for (const [, spec] of text.matchAll(/from "([^"]+)"/g)) {
        const ok =
          spec!.startsWith("./") ||
          spec!.startsWith("../") ||
          spec === "@mcp-codegen/runtime/codegen" ||
          (spec === "@mcp-codegen/runtime/server" && f.endsWith("/server.ts")) ||
          (spec === "@mcp-codegen/runtime/client" && f.endsWith("/client.ts")) ||
          (spec === "zod" && f.endsWith("schemas.ts")) ||
          (spec === "@mcp-codegen/runtime/zod" && f.endsWith("schemas.ts"));
        if (!ok) offenders.push(`${relative(REPO, f)} → ${spec}`);
      }
    }
    expect(offenders).toEqual([]);
  });

  it("templates, examples and docs use public entries, never the old deep paths or runtime files", () => {
    const files = [
      ...readdirSync(join(REPO, "templates"), { recursive: true, withFileTypes: true })
        .filter((e) => e.isFile())
        .map((e) => join(e.parentPath, e.name)),
      ...tsFiles(join(REPO, "examples")),
      ...["README.md", "examples/README.md", "generator/README.md", "runtime/README.md"].map((f) =>
        join(REPO, f),
      ),
      ...readdirSync(join(REPO, "docs"))
        .filter((f) => f.endsWith(".md"))
        .map((f) => join(REPO, "docs", f)),
    ];
    const offenders = files.flatMap((f) => {
      const text = readFileSync(f, "utf8");
      return [
        ...text.matchAll(/((?<!@)mcp-codegen\/runtime\/[\w/-]+|["'](?:\.\.\/)+runtime\/[\w/.-]+["'])/g),
      ].map((m) => `${relative(REPO, f)}: ${m[1]}`);
    });
    expect(offenders).toEqual([]);
  });
});
