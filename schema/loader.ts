import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { homedir } from "node:os";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { writeFileAtomic } from "./fs.js";
import { PACKAGE_NAME, PACKAGE_ROOT } from "./package.js";
import { type Dialect, defaultVersion, getVersion, knownVersionForSha256, listVersions } from "./registry.js";

export interface LoadOptions {
  /** Protocol version, e.g. "2025-11-25"; defaults to the registry default. */
  version?: string;
  /** Explicit file path or http(s) URL (highest priority). */
  schema?: string;
  /** Accept content whose sha256 differs from the pin. */
  allowUnpinned?: boolean;
  /** Defaults to process.env (MCP_SCHEMA_DIR, MCP_CODEGEN_CACHE_DIR, XDG_CACHE_HOME, HOME). */
  env?: NodeJS.ProcessEnv;
  /** Defaults to process.cwd(); relative paths resolve against it. */
  cwd?: string;
  /** Defaults to the global fetch. */
  fetch?: typeof fetch;
  /** Overrides the registry URL of a version. */
  upstream?: (version: string) => string;
  /** Default true: look for ../shared/mcp-schema beside the checkout. */
  searchShared?: boolean;
  /** Where the shared/ search starts after cwd; defaults to this package's root (PACKAGE_ROOT). */
  packageRoot?: string;
  /**
   * The folder of pinned schemas this package carries (`<dir>/<version>/schema.json`, written when the
   * package is packed); defaults to bundledDir(env), `false` skips it.
   */
  bundledDir?: string | false;
}

export type SchemaOrigin = "explicit" | "env" | "shared" | "bundled" | "cache" | "download";

/**
 * The pinned official schemas inside the published package: fetched (or copied from a local copy) and
 * sha256-verified when the package is packed (schema/bundle.ts), never committed. A clone has none until
 * it is packed.
 */
export const BUNDLED_DIR = join(PACKAGE_ROOT, "schema", "bundled");

/** MCP_CODEGEN_BUNDLED_DIR (tests, repackaging), else BUNDLED_DIR. */
export function bundledDir(env: NodeJS.ProcessEnv = process.env, cwd: string = process.cwd()): string {
  const own = nonEmpty(env.MCP_CODEGEN_BUNDLED_DIR);
  return own === undefined ? BUNDLED_DIR : resolve(cwd, own);
}

export interface LoadedSchemaSource {
  version: string;
  text: string;
  sha256: string;
  dialect: Dialect;
  origin: SchemaOrigin;
  /** Absolute path or URL the text came from. */
  location: string;
  /** True when sha256 equals the registry pin of `version`. */
  pinned: boolean;
}

export type SchemaSourceErrorCode =
  | "unknown-version"
  | "not-found"
  | "sha-mismatch"
  | "download-failed"
  | "need-version";

export class SchemaSourceError extends Error {
  override readonly name = "SchemaSourceError";
  readonly code: SchemaSourceErrorCode;
  readonly location?: string;
  readonly version?: string;

  constructor(
    code: SchemaSourceErrorCode,
    message: string,
    details: { location?: string; version?: string; cause?: unknown } = {},
  ) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.code = code;
    if (details.location !== undefined) this.location = details.location;
    if (details.version !== undefined) this.version = details.version;
  }
}

const DOWNLOAD_TIMEOUT_MS = 60_000;

/** MCP_CODEGEN_CACHE_DIR, else $XDG_CACHE_HOME/mcp-codegen, else ~/.cache/mcp-codegen. */
export function cacheDir(env: NodeJS.ProcessEnv = process.env, cwd: string = process.cwd()): string {
  const own = nonEmpty(env.MCP_CODEGEN_CACHE_DIR);
  if (own !== undefined) return resolve(cwd, own);
  // The XDG spec says a relative XDG_CACHE_HOME is invalid and must be ignored.
  const xdg = nonEmpty(env.XDG_CACHE_HOME);
  if (xdg !== undefined && isAbsolute(xdg)) return join(xdg, PACKAGE_NAME);
  return join(nonEmpty(env.HOME) ?? homedir(), ".cache", PACKAGE_NAME);
}

/**
 * Finds the schema text for a protocol version and checks it against the registry pin.
 * Order: explicit `schema` → $MCP_SCHEMA_DIR → shared/mcp-schema near cwd or the package → the package's
 * bundled copy → cache → download. When none is found and the download fails, the error names every
 * place looked in and the ways to provide one.
 */
export async function loadSchemaSource(opts: LoadOptions = {}): Promise<LoadedSchemaSource> {
  const env = opts.env ?? process.env;
  const cwd = resolve(opts.cwd ?? process.cwd());
  // Not `?? fetch`: reading the global loads undici (about 30 ms), which most runs never use.
  const doFetch: typeof fetch = opts.fetch ?? ((input, init) => fetch(input, init));
  const allowUnpinned = opts.allowUnpinned === true;

  if (opts.schema !== undefined) return loadExplicit(opts.schema, opts.version, allowUnpinned, cwd, doFetch);

  const version = opts.version ?? defaultVersion;
  const entry = getVersion(version);
  if (entry === undefined) {
    throw new SchemaSourceError(
      "unknown-version",
      `unknown MCP protocol version "${version}"; known versions: ${listVersions().join(", ")} ` +
        "(pass --schema <file|url> to use a custom schema)",
      { version },
    );
  }

  const accept = (origin: SchemaOrigin, location: string, bytes: Buffer): LoadedSchemaSource => {
    const sha256 = sha256Hex(bytes);
    const pinned = sha256 === entry.sha256;
    if (!pinned && !allowUnpinned) throw pinMismatch(version, location, entry.sha256, sha256);
    return {
      version,
      text: bytes.toString("utf8"),
      sha256,
      dialect: entry.dialect,
      origin,
      location,
      pinned,
    };
  };

  /** Where this lookup looked, for the error when nothing is found. */
  const looked: string[] = [];
  const envDir = nonEmpty(env.MCP_SCHEMA_DIR);
  if (envDir !== undefined) {
    const path = join(resolve(cwd, envDir), version, "schema.json");
    looked.push(`$MCP_SCHEMA_DIR: ${path}`);
    const bytes = await readIfPresent(path, version);
    if (bytes !== undefined) return accept("env", path, bytes);
  } else looked.push("$MCP_SCHEMA_DIR: not set");

  if (opts.searchShared !== false) {
    const packageRoot = opts.packageRoot ?? PACKAGE_ROOT;
    looked.push(
      `shared/mcp-schema/${version}/schema.json in ${cwd}, ${packageRoot} and the folders above them`,
    );
    for (const path of sharedCandidates(version, cwd, packageRoot)) {
      // Unreadable spots on the way up are not the user's doing; keep walking.
      const bytes = await readFile(path).catch(() => undefined);
      if (bytes !== undefined) return accept("shared", path, bytes);
    }
  }

  const bundled = opts.bundledDir ?? bundledDir(env, cwd);
  if (bundled !== false) {
    const path = join(bundled, version, "schema.json");
    looked.push(`the copies bundled with ${PACKAGE_NAME}: ${path}`);
    const bytes = await readFile(path).catch(() => undefined);
    // Verified like any other copy: a damaged package is reported, not trusted.
    if (bytes !== undefined) return accept("bundled", path, bytes);
  }

  const cachePath = join(cacheDir(env, cwd), version, "schema.json");
  looked.push(`the cache: ${cachePath}`);
  const cached = await readFile(cachePath).catch(() => undefined);
  // The cache only ever holds pinned bytes, so anything else there is corrupt and gets replaced.
  if (cached !== undefined && sha256Hex(cached) === entry.sha256) return accept("cache", cachePath, cached);

  const url = opts.upstream?.(version) ?? entry.url;
  let bytes: Buffer;
  try {
    bytes = await download(url, version, doFetch);
  } catch (error) {
    if (!(error instanceof SchemaSourceError)) throw error;
    throw new SchemaSourceError(
      "download-failed",
      notFoundMessage(version, error.message, looked, cachePath),
      {
        location: url,
        version,
        cause: error,
      },
    );
  }
  const result = accept("download", url, bytes);
  if (result.pinned) await writeAtomic(cachePath, bytes);
  return result;
}

/** No copy anywhere and no download: what was tried, and the three ways to provide the schema. */
function notFoundMessage(
  version: string,
  downloadError: string,
  looked: string[],
  cachePath: string,
): string {
  return [
    `no MCP schema ${version} found, and ${downloadError}`,
    "looked in:",
    ...looked.map((place) => `  - ${place}`),
    "provide it in one of these ways:",
    `  - set MCP_SCHEMA_DIR to a folder holding ${version}/schema.json`,
    "  - pass --schema <file|url>",
    `  - put the file at ${cachePath} (\`mcp-codegen schema pull ${version}\` does that where the download works)`,
  ].join("\n");
}

async function loadExplicit(
  schema: string,
  version: string | undefined,
  allowUnpinned: boolean,
  cwd: string,
  doFetch: typeof fetch,
): Promise<LoadedSchemaSource> {
  let location: string;
  let bytes: Buffer;
  if (/^https?:\/\//i.test(schema)) {
    location = schema;
    bytes = await download(schema, version, doFetch);
  } else {
    location = schema.startsWith("file:") ? fileURLToPath(schema) : resolve(cwd, schema);
    bytes = await readExplicitFile(location, version);
  }
  const sha256 = sha256Hex(bytes);
  const text = bytes.toString("utf8");
  const result = (v: string, dialect: Dialect, pinned: boolean): LoadedSchemaSource => ({
    version: v,
    text,
    sha256,
    dialect,
    origin: "explicit",
    location,
    pinned,
  });

  const entry = version === undefined ? undefined : getVersion(version);
  // Checked before the hash lookup because draft and the newest release can share a file.
  if (version !== undefined && entry?.sha256 === sha256) return result(version, entry.dialect, true);

  const known = knownVersionForSha256(sha256);
  if (known !== undefined) {
    if (version !== undefined) {
      throw new SchemaSourceError(
        "sha-mismatch",
        `${location} is the pinned MCP schema of protocol version ${known} (sha256 ${sha256}), ` +
          `not of ${version}; pass --protocol ${known} or leave --protocol out`,
        { location, version },
      );
    }
    return result(known, getVersion(known)!.dialect, true);
  }

  if (version === undefined) {
    throw new SchemaSourceError(
      "need-version",
      `cannot tell which protocol version ${location} is; pass --protocol ` +
        `(its sha256 ${sha256} matches no pinned version)`,
      { location },
    );
  }
  if (entry !== undefined) {
    if (!allowUnpinned) throw pinMismatch(version, location, entry.sha256, sha256);
    return result(version, entry.dialect, false);
  }
  // A version the registry does not know: a custom schema, taken as given.
  return result(version, detectDialect(text), false);
}

function pinMismatch(version: string, location: string, expected: string, actual: string): SchemaSourceError {
  return new SchemaSourceError(
    "sha-mismatch",
    `MCP schema ${version} at ${location} does not match its pin: expected sha256 ${expected}, ` +
      `got ${actual}; pass --allow-unpinned to use it anyway`,
    { location, version },
  );
}

async function readExplicitFile(path: string, version: string | undefined): Promise<Buffer> {
  const forVersion = version === undefined ? "" : ` (protocol version ${version})`;
  try {
    return await readFile(path);
  } catch (err) {
    const message = isMissing(err)
      ? `schema file not found: ${path}${forVersion}`
      : `cannot read schema file ${path}${forVersion}: ${describe(err)}`;
    throw new SchemaSourceError("not-found", message, { location: path, version, cause: err });
  }
}

async function readIfPresent(path: string, version: string): Promise<Buffer | undefined> {
  try {
    return await readFile(path);
  } catch (err) {
    if (isMissing(err)) return undefined;
    throw new SchemaSourceError(
      "not-found",
      `cannot read MCP schema ${version} at ${path}: ${describe(err)}`,
      { location: path, version, cause: err },
    );
  }
}

async function download(url: string, version: string | undefined, doFetch: typeof fetch): Promise<Buffer> {
  const what = version === undefined ? "MCP schema" : `MCP schema ${version}`;
  const fail = (reason: string, cause?: unknown) =>
    new SchemaSourceError("download-failed", `cannot download ${what} from ${url}: ${reason}`, {
      location: url,
      version,
      cause,
    });
  let res: Response;
  try {
    res = await doFetch(url, { signal: AbortSignal.timeout(DOWNLOAD_TIMEOUT_MS) });
  } catch (err) {
    throw fail(describe(err), err);
  }
  if (!res.ok) {
    await res.body?.cancel().catch(() => {});
    throw fail(`HTTP ${res.status}${res.statusText ? ` ${res.statusText}` : ""}`);
  }
  try {
    return Buffer.from(await res.arrayBuffer());
  } catch (err) {
    throw fail(describe(err), err);
  }
}

function sharedCandidates(version: string, cwd: string, packageRoot: string): string[] {
  return sharedPaths(join(version, "schema.json"), cwd, packageRoot);
}

/**
 * `shared/mcp-schema/<relative>` in every folder from cwd and from packageRoot up. Every ancestor's shared/
 * covers both "<dir>/shared" and "<dir>/../shared"; cwd first so the user's own layout beats the one
 * around the installed package, nearest directory first.
 */
export function sharedPaths(relative: string, cwd: string, packageRoot: string): string[] {
  const paths = new Set<string>();
  for (const start of [cwd, packageRoot]) {
    for (const dir of ancestors(start)) paths.add(join(dir, "shared", "mcp-schema", relative));
  }
  return [...paths];
}

function ancestors(start: string): string[] {
  const dirs: string[] = [];
  let dir = resolve(start);
  for (;;) {
    dirs.push(dir);
    const parent = dirname(dir);
    if (parent === dir) return dirs;
    dir = parent;
  }
}

// The cache is an optimisation: a read-only or full disk must not fail a verified download.
async function writeAtomic(path: string, bytes: Buffer): Promise<void> {
  await writeFileAtomic(path, bytes).catch(() => {});
}

// Only for custom schemas; real parsing and its errors belong to the generator.
function detectDialect(text: string): Dialect {
  const fallback = getVersion(defaultVersion)!.dialect;
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return fallback;
  }
  if (doc === null || typeof doc !== "object" || Array.isArray(doc)) return fallback;
  const record = doc as Record<string, unknown>;
  const declared = typeof record.$schema === "string" ? record.$schema : "";
  if (/draft-0[4-7]/.test(declared)) return "draft-07";
  if (/2019-09|2020-12/.test(declared)) return "2020-12";
  if ("$defs" in record) return "2020-12";
  if ("definitions" in record) return "draft-07";
  return fallback;
}

export function sha256Hex(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

export function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === "" ? undefined : value;
}

export function isMissing(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === "ENOENT" || code === "ENOTDIR";
}

export function describe(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  // undici reports "fetch failed" and keeps the useful part (ECONNREFUSED, …) in cause.
  const cause = err.cause instanceof Error ? `: ${err.cause.message}` : "";
  return `${err.message}${cause}`;
}
