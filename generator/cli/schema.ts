import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import type { Command } from "commander";
import { writeFileAtomic } from "../../schema/fs.js";
import {
  bundledDir,
  cacheDir,
  type LoadOptions,
  loadSchemaSource,
  SchemaSourceError,
} from "../../schema/loader.js";
import { getVersion, knownVersionForSha256, listVersions, type VersionEntry } from "../../schema/registry.js";
import { counted } from "./counted.js";
import { CliError, EXIT } from "./errors.js";
import type { Reporter } from "./report.js";

/**
 * Base URL serving `<version>/schema.json`, used instead of each version's registry URL. Meant for tests
 * and mirrors; the sha256 pins still apply, so a mirror cannot substitute different bytes.
 */
export const UPSTREAM_ENV = "MCP_CODEGEN_UPSTREAM";

export function upstreamFromEnv(env: NodeJS.ProcessEnv): Pick<LoadOptions, "upstream"> {
  const base = env[UPSTREAM_ENV];
  if (base === undefined || base === "") return {};
  if (!/^https?:\/\//i.test(base)) throw new CliError(`${UPSTREAM_ENV} must be an http(s) URL, got ${base}`);
  const trimmed = base.replace(/\/+$/, "");
  return { upstream: (version) => `${trimmed}/${version}/schema.json` };
}

export type CopyOrigin = "env" | "shared" | "bundled" | "cache";

/** A schema file on this machine for a registry version. */
export interface LocalCopy {
  origin: CopyOrigin;
  path: string;
  sha256: string;
  pinned: boolean;
}

export interface ListedVersion {
  version: string;
  protocolVersion: string;
  dialect: VersionEntry["dialect"];
  status: VersionEntry["status"];
  sha256: string;
  url: string;
  /** Where the loader finds it without the network, in the loader's order; empty: not cached. */
  local: LocalCopy[];
}

export interface VerifyLine {
  status: "ok" | "mismatch" | "unknown";
  /** The version the file is (ok), or claims to be by its folder or --protocol (mismatch). */
  version?: string;
  path: string;
  sha256: string;
  /** The pin of `version`, on a mismatch. */
  expected?: string;
  /** On a mismatch: the version whose pin the content does match, if any. */
  actual?: string;
}

interface Where {
  env: NodeJS.ProcessEnv;
  cwd: string;
}

export function registerSchema(program: Command, reporter: () => Reporter): void {
  const where = (): Where => ({ env: process.env, cwd: process.cwd() });
  const schema = program
    .command("schema")
    .description("list, download and verify the official MCP schemas this generator is pinned to")
    .addHelpText(
      "after",
      `
Examples:
  $ mcp-codegen schema list                     versions, hashes and where each is on this machine
  $ mcp-codegen schema pull 2025-11-25          put the pinned schema into the cache
  $ mcp-codegen schema verify                   check every local copy against its pin`,
    );

  schema
    .command("list")
    .description("every protocol version in the registry, with its sha256 pin and local copies")
    .option("--json", "print a JSON array instead of a table")
    .addHelpText(
      "after",
      `
Local copies are looked up like the loader does: $MCP_SCHEMA_DIR/<version>/schema.json, shared/mcp-schema
beside the checkout, the copies bundled in the published package (schema/bundled/), then the cache
($MCP_CODEGEN_CACHE_DIR, else $XDG_CACHE_HOME/mcp-codegen, else ~/.cache/mcp-codegen). Nothing is downloaded.

Examples:
  $ mcp-codegen schema list
  $ mcp-codegen schema list --json | jq '.[] | select(.local == []) | .version'`,
    )
    .action(async (opts: { json?: boolean }) => {
      const listed = await listSchemas(where());
      process.stdout.write(opts.json ? `${JSON.stringify(listed, null, 2)}\n` : renderList(listed));
    });

  schema
    .command("pull")
    .description("make sure the cache holds the pinned schema of a version; prints its path")
    .argument("<version>", "protocol version, e.g. 2025-11-25 (see `mcp-codegen schema list`)")
    .option("--download", "fetch from upstream even when a local or bundled copy exists")
    .option("--allow-unpinned", "accept content whose sha256 differs from the pin (it is not cached)")
    .option("--json", "print what was done as JSON")
    .addHelpText(
      "after",
      `
A copy already in the cache with the pinned sha256 is kept. Otherwise a copy in $MCP_SCHEMA_DIR,
shared/mcp-schema or the package's bundled copies is verified and copied in, else the registry URL is
downloaded and verified.
${UPSTREAM_ENV}=<base url> downloads <base url>/<version>/schema.json instead (tests, mirrors).

Examples:
  $ mcp-codegen schema pull 2025-11-25
  $ mcp-codegen schema pull 2026-07-28 --download
  $ MCP_CODEGEN_CACHE_DIR=.cache mcp-codegen schema pull 2024-11-05 --json`,
    )
    .action(async (version: string, opts: PullOptions) => {
      process.exitCode = await runPull(version, opts, where(), reporter());
    });

  schema
    .command("verify")
    .description("compare the sha256 of schema files with the registry's pins")
    .argument("[file]", "a schema.json to check; default: every local copy of every version")
    .option("-p, --protocol <version>", "the version the file should be (default: its folder name, else any)")
    .option("--json", "print the results as a JSON array")
    .addHelpText(
      "after",
      `
Prints "ok <version> <path>", "mismatch <version> <path> ..." or "unknown <path> ...", one line per file.
Exit 0 when every file is ok, 1 on any mismatch or unknown file, 2 when the file cannot be read.

Examples:
  $ mcp-codegen schema verify
  $ mcp-codegen schema verify ./vendor/mcp/schema.json -p 2025-06-18
  $ mcp-codegen -q schema verify                only mismatches are printed`,
    )
    .action(async (file: string | undefined, opts: VerifyOptions) => {
      const quiet = program.opts<{ quiet?: boolean }>().quiet ?? false;
      process.exitCode = await runVerify(file, { ...opts, quiet }, where(), reporter());
    });
}

// ---- list ----

export async function listSchemas(where: Where): Promise<ListedVersion[]> {
  return Promise.all(
    listVersions().map(async (version) => {
      const entry = getVersion(version)!;
      return {
        version,
        protocolVersion: entry.protocolVersion,
        dialect: entry.dialect,
        status: entry.status,
        sha256: entry.sha256,
        url: entry.url,
        local: await localCopies(version, where),
      };
    }),
  );
}

function renderList(listed: ListedVersion[]): string {
  const rows = listed.map((v) => [
    v.version,
    v.protocolVersion,
    v.dialect,
    v.status,
    v.sha256,
    v.local.length === 0
      ? "not cached"
      : v.local.map((c) => `${c.origin} ${c.path}${c.pinned ? "" : " (sha256 mismatch)"}`).join("; "),
  ]);
  return columns([["VERSION", "PROTOCOL", "DIALECT", "STATUS", "SHA256", "LOCAL"], ...rows]);
}

function columns(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) =>
    r
      .map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]!)))
      .join("  ")
      .trimEnd();
  return `${rows.map(line).join("\n")}\n`;
}

/**
 * Copies of `version` in $MCP_SCHEMA_DIR, shared/mcp-schema, the package's bundled copies and the cache,
 * in the loader's order.
 * The shared folder is found by the loader itself (with the network refused) so the two never disagree.
 */
async function localCopies(version: string, { env, cwd }: Where): Promise<LocalCopy[]> {
  const pin = getVersion(version)!.sha256;
  const copy = (origin: CopyOrigin, path: string, sha256: string): LocalCopy => ({
    origin,
    path,
    sha256,
    pinned: sha256 === pin,
  });
  const copies: LocalCopy[] = [];
  const envDir = env.MCP_SCHEMA_DIR;
  if (envDir) {
    const path = join(resolve(cwd, envDir), version, "schema.json");
    const bytes = await readOptional(path);
    if (bytes) copies.push(copy("env", path, sha256Hex(bytes)));
  }
  const shared = await loadSchemaSource({
    version,
    env: { ...env, MCP_SCHEMA_DIR: undefined },
    cwd,
    allowUnpinned: true,
    bundledDir: false,
    fetch: refuseNetwork,
  }).catch(() => undefined);
  if (shared?.origin === "shared") copies.push(copy("shared", shared.location, shared.sha256));
  const bundledPath = join(bundledDir(env, cwd), version, "schema.json");
  const bundled = await readOptional(bundledPath);
  if (bundled) copies.push(copy("bundled", bundledPath, sha256Hex(bundled)));
  const cachePath = cacheFile(version, { env, cwd });
  const cached = await readOptional(cachePath);
  if (cached) copies.push(copy("cache", cachePath, sha256Hex(cached)));
  return copies;
}

const refuseNetwork: typeof fetch = () => Promise.reject(new Error("offline lookup"));

// ---- pull ----

export interface PullOptions {
  download?: boolean;
  allowUnpinned?: boolean;
  json?: boolean;
}

export interface PullResult {
  version: string;
  /** The cache file, or where the accepted unpinned content came from (it is never cached). */
  path: string;
  cached: boolean;
  origin: "cache" | "env" | "shared" | "bundled" | "download" | "explicit";
  source: string;
  sha256: string;
  pinned: boolean;
}

export async function runPull(
  version: string,
  opts: PullOptions,
  where: Where,
  report: Reporter,
): Promise<number> {
  const entry = requireVersion(version);
  const cachePath = cacheFile(version, where);
  const existing = await readOptional(cachePath);
  if (existing && sha256Hex(existing) === entry.sha256) {
    report.info(`${version} is already in the cache`);
    return printPull(opts, {
      version,
      path: cachePath,
      cached: true,
      origin: "cache",
      source: cachePath,
      sha256: entry.sha256,
      pinned: true,
    });
  }
  const source = await loadSchemaSource({
    version,
    // --download skips the local folders so the upstream copy is the one verified and cached.
    env: opts.download ? { ...where.env, MCP_SCHEMA_DIR: undefined } : where.env,
    cwd: where.cwd,
    allowUnpinned: opts.allowUnpinned ?? false,
    searchShared: !opts.download,
    ...(opts.download ? { bundledDir: false as const } : {}),
    ...upstreamFromEnv(where.env),
  });
  const result: PullResult = {
    version,
    path: cachePath,
    cached: source.pinned,
    origin: source.origin,
    source: source.location,
    sha256: source.sha256,
    pinned: source.pinned,
  };
  if (!source.pinned) {
    // The loader treats anything but the pinned bytes in the cache as corrupt, so caching them is useless.
    report.error(
      `${version} from ${source.location} has sha256 ${source.sha256}, not the pinned ${entry.sha256}; ` +
        "accepted (--allow-unpinned) but not cached",
    );
    return printPull(opts, { ...result, path: source.location });
  }
  // The loader caches downloads itself but ignores write errors; pull exists to fill the cache, so it checks.
  const written = await readOptional(cachePath);
  if (!written || sha256Hex(written) !== entry.sha256) {
    const bytes = Buffer.from(source.text, "utf8");
    // The loader hands over decoded text; pinned content is valid UTF-8, so this re-encoding is exact.
    if (sha256Hex(bytes) !== entry.sha256)
      throw new CliError(`${version}: cannot reproduce the pinned bytes`, EXIT.failure);
    await writeAtomic(cachePath, bytes);
  }
  report.info(
    source.origin === "download"
      ? `${version} downloaded from ${source.location} (sha256 verified)`
      : `${version} copied from ${source.location} (sha256 verified)`,
  );
  return printPull(opts, result);
}

function printPull(opts: PullOptions, result: PullResult): number {
  process.stdout.write(opts.json ? `${JSON.stringify(result, null, 2)}\n` : `${result.path}\n`);
  return EXIT.ok;
}

// ---- verify ----

export interface VerifyOptions {
  protocol?: string;
  json?: boolean;
  /** The global -q: print only the files that fail. */
  quiet?: boolean;
}

export async function runVerify(
  file: string | undefined,
  opts: VerifyOptions,
  where: Where,
  report: Reporter,
): Promise<number> {
  if (opts.protocol !== undefined) requireVersion(opts.protocol);
  const lines = file === undefined ? await verifyLocal(where, report) : [await verifyFile(file, opts, where)];
  if (opts.json) process.stdout.write(`${JSON.stringify(lines, null, 2)}\n`);
  else {
    // Like `sha256sum --quiet`: with -q only the problems are printed.
    const shown = opts.quiet ? lines.filter((l) => l.status !== "ok") : lines;
    for (const l of shown) process.stdout.write(`${verifyText(l)}\n`);
  }
  const bad = lines.filter((l) => l.status !== "ok").length;
  if (bad > 0) {
    report.error(`${bad} of ${counted(lines.length, "schema file")} failed verification`);
    return EXIT.failure;
  }
  report.info(
    `${counted(lines.length, "schema file")} ${lines.length === 1 ? "matches its pin" : "match their pins"}`,
  );
  return EXIT.ok;
}

function verifyText(l: VerifyLine): string {
  if (l.status === "ok") return `ok ${l.version} ${l.path}`;
  if (l.status === "mismatch") {
    const actual = l.actual === undefined ? "" : ` (the pinned schema of ${l.actual})`;
    return `mismatch ${l.version} ${l.path} sha256 ${l.sha256} expected ${l.expected}${actual}`;
  }
  return `unknown ${l.path} sha256 ${l.sha256}`;
}

async function verifyFile(file: string, opts: VerifyOptions, { cwd }: Where): Promise<VerifyLine> {
  const path = resolve(cwd, file);
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (err) {
    throw new CliError(`cannot read schema file ${path}: ${(err as Error).message}`, EXIT.usage);
  }
  // A file in a folder named after a version (the layout of every schema source) claims to be that version.
  const folder = basename(dirname(path));
  const claimed = opts.protocol ?? (getVersion(folder) ? folder : undefined);
  return classify(path, sha256Hex(bytes), claimed);
}

async function verifyLocal(where: Where, report: Reporter): Promise<VerifyLine[]> {
  const lines: VerifyLine[] = [];
  for (const version of listVersions()) {
    const copies = await localCopies(version, where);
    if (copies.length === 0) report.info(`${version}: no local copy (mcp-codegen schema pull ${version})`);
    for (const c of copies) lines.push(classify(c.path, c.sha256, version));
  }
  return lines;
}

function classify(path: string, sha256: string, claimed: string | undefined): VerifyLine {
  const known = knownVersionForSha256(sha256);
  if (claimed !== undefined) {
    const expected = getVersion(claimed)!.sha256;
    if (expected === sha256) return { status: "ok", version: claimed, path, sha256 };
    return {
      status: "mismatch",
      version: claimed,
      path,
      sha256,
      expected,
      ...(known ? { actual: known } : {}),
    };
  }
  return known === undefined
    ? { status: "unknown", path, sha256 }
    : { status: "ok", version: known, path, sha256 };
}

// ---- shared helpers ----

function requireVersion(version: string): VersionEntry {
  const entry = getVersion(version);
  if (!entry) {
    throw new SchemaSourceError(
      "unknown-version",
      `unknown MCP protocol version "${version}"; known versions: ${listVersions().join(", ")}`,
      { version },
    );
  }
  return entry;
}

function cacheFile(version: string, { env, cwd }: Where): string {
  return join(cacheDir(env, cwd), version, "schema.json");
}

/** The file's bytes, or undefined when it does not exist; any other failure is the user's to see. */
async function readOptional(path: string): Promise<Buffer | undefined> {
  try {
    return await readFile(path);
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    if (code === "ENOENT" || code === "ENOTDIR") return undefined;
    throw new CliError(`cannot read ${path}: ${(err as Error).message}`, EXIT.usage);
  }
}

async function writeAtomic(path: string, bytes: Buffer): Promise<void> {
  await writeFileAtomic(path, bytes).catch((err: Error) => {
    throw new CliError(`cannot write the cache file ${path}: ${err.message}`, EXIT.failure);
  });
}

function sha256Hex(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}
