/**
 * Finds a pinned extension schema (schema/versions.json `extensions`) and checks it against its pin.
 * Order: an explicit file → the publishing npm package as installed in the project (resolved from cwd,
 * then from this package) → $MCP_SCHEMA_DIR/extensions/<name>/<version>/schema.json → the same path under
 * shared/mcp-schema near cwd or the package → the cache. Nothing is downloaded: the package is a
 * dependency the project installs. A copy with other bytes, or an installed package of another version,
 * is an error naming both; nothing found is an error naming every place looked in.
 */

import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import {
  cacheDir,
  describe,
  isMissing,
  nonEmpty,
  SchemaSourceError,
  sha256Hex,
  sharedPaths,
} from "./loader.js";
import { PACKAGE_ROOT } from "./package.js";
import { type Dialect, getExtension, listExtensions, splitExtensionKey } from "./registry.js";

export interface ExtensionLoadOptions {
  /** The registry key, e.g. `io.modelcontextprotocol/ui@2026-01-26`. */
  extension: string;
  /** An explicit file (highest priority). */
  schema?: string;
  /** Accept an explicit file whose sha256 differs from the pin. */
  allowUnpinned?: boolean;
  /** Defaults to process.env (MCP_SCHEMA_DIR, MCP_CODEGEN_CACHE_DIR, XDG_CACHE_HOME, HOME). */
  env?: NodeJS.ProcessEnv;
  /** The project: where the package is resolved from first; defaults to process.cwd(). */
  cwd?: string;
  /** Default true: look for the installed package. */
  searchPackage?: boolean;
  /** Default true: look for ../shared/mcp-schema beside the checkout. */
  searchShared?: boolean;
  /** Where the package and shared/ searches go after cwd; defaults to PACKAGE_ROOT. */
  packageRoot?: string;
}

export type ExtensionOrigin = "explicit" | "package" | "env" | "shared" | "cache";

export interface LoadedExtensionSource {
  extension: string;
  text: string;
  sha256: string;
  dialect: Dialect;
  origin: ExtensionOrigin;
  /** Absolute path the text came from. */
  location: string;
  pinned: boolean;
}

/** `<dir>/extensions/<last segment of the id>/<version>/schema.json`: `extensions/ui/2026-01-26/schema.json`. */
export function extensionRelativePath(key: string): string {
  const { id, version } = splitExtensionKey(key);
  return join("extensions", id.slice(id.lastIndexOf("/") + 1), version, "schema.json");
}

export async function loadExtensionSource(opts: ExtensionLoadOptions): Promise<LoadedExtensionSource> {
  const key = opts.extension;
  const entry = getExtension(key);
  if (entry === undefined) {
    throw new SchemaSourceError(
      "unknown-version",
      `unknown extension schema "${key}"; known: ${listExtensions().join(", ")}`,
      { version: key },
    );
  }
  const env = opts.env ?? process.env;
  const cwd = resolve(opts.cwd ?? process.cwd());
  const packageRoot = opts.packageRoot ?? PACKAGE_ROOT;
  const accept = (origin: ExtensionOrigin, location: string, bytes: Buffer, allowUnpinned = false) => {
    const sha256 = sha256Hex(bytes);
    const pinned = sha256 === entry.sha256;
    if (!pinned && !allowUnpinned) {
      throw new SchemaSourceError(
        "sha-mismatch",
        `extension schema ${key} at ${location} does not match its pin: expected sha256 ${entry.sha256} ` +
          `(${entry.package} ${entry.export}), got ${sha256}`,
        { location, version: key },
      );
    }
    const text = bytes.toString("utf8");
    return { extension: key, text, sha256, dialect: entry.dialect, origin, location, pinned };
  };

  if (opts.schema !== undefined) {
    const path = opts.schema.startsWith("file:") ? fileURLToPath(opts.schema) : resolve(cwd, opts.schema);
    const bytes = await readFile(path).catch((err: unknown) => {
      throw new SchemaSourceError(
        "not-found",
        isMissing(err)
          ? `schema file not found: ${path}`
          : `cannot read schema file ${path}: ${describe(err)}`,
        { location: path, version: key, cause: err },
      );
    });
    return accept("explicit", path, bytes, opts.allowUnpinned === true);
  }

  const { name, version } = packageSpec(entry.package);
  const relative = extensionRelativePath(key);
  const looked: string[] = [];

  if (opts.searchPackage !== false) {
    for (const from of [...new Set([cwd, packageRoot])]) {
      looked.push(`${name}${entry.export.slice(1)} resolved from ${from}`);
      const found = resolveExport(from, name, entry.export);
      if (found === undefined) continue;
      const installed = await installedVersion(found, name);
      if (installed !== version) {
        throw new SchemaSourceError(
          "sha-mismatch",
          `extension schema ${key} is pinned to ${entry.package} (sha256 ${entry.sha256}), but ${name} ` +
            `${installed ?? "of an unknown version"} is installed (${found}); install ${entry.package}`,
          { location: found, version: key },
        );
      }
      return accept("package", found, await readFile(found));
    }
  }

  const envDir = nonEmpty(env.MCP_SCHEMA_DIR);
  if (envDir !== undefined) {
    const path = join(resolve(cwd, envDir), relative);
    looked.push(`$MCP_SCHEMA_DIR: ${path}`);
    const bytes = await readFile(path).catch(() => undefined);
    if (bytes !== undefined) return accept("env", path, bytes);
  } else looked.push("$MCP_SCHEMA_DIR: not set");

  if (opts.searchShared !== false) {
    looked.push(`shared/mcp-schema/${relative} in ${cwd}, ${packageRoot} and the folders above them`);
    for (const path of sharedPaths(relative, cwd, packageRoot)) {
      const bytes = await readFile(path).catch(() => undefined);
      if (bytes !== undefined) return accept("shared", path, bytes);
    }
  }

  const cachePath = join(cacheDir(env, cwd), relative);
  looked.push(`the cache: ${cachePath}`);
  const cached = await readFile(cachePath).catch(() => undefined);
  if (cached !== undefined && sha256Hex(cached) === entry.sha256) return accept("cache", cachePath, cached);

  throw new SchemaSourceError(
    "not-found",
    [
      `no extension schema ${key} found`,
      "looked in:",
      ...looked.map((place) => `  - ${place}`),
      "provide it in one of these ways:",
      `  - install it: npm install --save-dev ${entry.package}`,
      `  - set MCP_SCHEMA_DIR to a folder holding ${relative}`,
    ].join("\n"),
    { version: key },
  );
}

/** `@scope/name@1.2.3` → name and exact version. */
function packageSpec(spec: string): { name: string; version: string } {
  const at = spec.lastIndexOf("@");
  return { name: spec.slice(0, at), version: spec.slice(at + 1) };
}

/** The file a package export names, resolved as Node would from `from`; undefined when not installed there. */
function resolveExport(from: string, name: string, exported: string): string | undefined {
  try {
    return createRequire(join(from, "package.json")).resolve(`${name}${exported.slice(1)}`);
  } catch {
    return undefined;
  }
}

/** The version in the package.json of `name` above `file` (its exports need not list package.json). */
async function installedVersion(file: string, name: string): Promise<string | undefined> {
  for (let dir = dirname(file); ; dir = dirname(dir)) {
    const pkg = await readFile(join(dir, "package.json"), "utf8")
      .then((t) => JSON.parse(t) as { name?: unknown; version?: unknown })
      .catch(() => undefined);
    if (pkg?.name === name) return typeof pkg.version === "string" ? pkg.version : undefined;
    if (dirname(dir) === dir) return undefined;
  }
}
