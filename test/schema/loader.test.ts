import { mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type LoadOptions, loadSchemaSource, SchemaSourceError } from "../../schema/loader.js";
import { getVersion, listVersions } from "../../schema/registry.js";
import {
  officialBytes,
  placeSchema,
  removeTempDirs,
  startServer,
  type TestServer,
  tamper,
  tempDir,
} from "./fixtures.js";

const V = "2024-11-05";
const PIN = getVersion(V)!.sha256;

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.close());
afterEach(removeTempDirs);

const upstream = (version: string) => `${server.url}/schema/${version}/schema.json`;
const routePath = (version: string) => `/schema/${version}/schema.json`;
const hitsOf = (version: string) => server.hits.get(routePath(version)) ?? 0;

async function serve(version: string, status: number, body: Buffer | string): Promise<void> {
  server.routes.set(routePath(version), { status, body });
}

/** Options that can reach nothing outside the temp dirs and the loopback server. */
async function isolated(extra: LoadOptions = {}): Promise<LoadOptions & { cache: string }> {
  const cache = await tempDir();
  return {
    version: V,
    env: { MCP_CODEGEN_CACHE_DIR: cache },
    cwd: await tempDir(),
    searchShared: false,
    bundledDir: false,
    upstream,
    ...extra,
    cache,
  };
}

async function rejection(promise: Promise<unknown>): Promise<SchemaSourceError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(SchemaSourceError);
  return err as SchemaSourceError;
}

describe("resolution order", () => {
  it("explicit beats env beats shared beats bundled beats cache beats download", async () => {
    const bytes = await officialBytes(V);
    const base = await tempDir();
    const explicit = await placeSchema(join(base, "explicit"), V, bytes);
    const envDir = join(base, "env");
    const envFile = await placeSchema(envDir, V, bytes);
    const sharedFile = await placeSchema(join(base, "shared", "mcp-schema"), V, bytes);
    const bundledDir = join(base, "bundled");
    const bundledFile = await placeSchema(bundledDir, V, bytes);
    const cwd = join(base, "project", "sub");
    await mkdir(cwd, { recursive: true });
    const cache = join(base, "cache");
    const cacheFile = await placeSchema(cache, V, bytes);
    await serve(V, 200, bytes);
    const hitsBefore = hitsOf(V);

    const opts: LoadOptions = {
      version: V,
      env: { MCP_SCHEMA_DIR: envDir, MCP_CODEGEN_CACHE_DIR: cache },
      cwd,
      upstream,
      bundledDir,
    };
    const noEnv = { ...opts, env: { MCP_CODEGEN_CACHE_DIR: cache } };
    const steps: Array<[LoadOptions, string, string]> = [
      [{ ...opts, schema: explicit }, "explicit", explicit],
      [opts, "env", envFile],
      [noEnv, "shared", sharedFile],
      [{ ...noEnv, searchShared: false }, "bundled", bundledFile],
      [{ ...noEnv, searchShared: false, bundledDir: false }, "cache", cacheFile],
    ];
    for (const [o, origin, location] of steps) {
      const got = await loadSchemaSource(o);
      expect({ origin: got.origin, location: got.location }).toEqual({ origin, location });
      expect(got).toMatchObject({ version: V, sha256: PIN, pinned: true, dialect: "draft-07" });
      expect(got.text).toBe(bytes.toString("utf8"));
    }
    expect(hitsOf(V)).toBe(hitsBefore);

    await rm(cacheFile);
    const got = await loadSchemaSource({ ...noEnv, searchShared: false, bundledDir: false });
    expect(got).toMatchObject({ origin: "download", location: upstream(V), pinned: true });
    expect(hitsOf(V)).toBe(hitsBefore + 1);
  });

  it("uses the default version when none is given", async () => {
    const envDir = await tempDir();
    const version = "2025-11-25";
    await placeSchema(envDir, version, await officialBytes(version));
    const opts = await isolated({ version: undefined });
    const got = await loadSchemaSource({ ...opts, env: { ...opts.env, MCP_SCHEMA_DIR: envDir } });
    expect(got).toMatchObject({ version, origin: "env", dialect: "2020-12", pinned: true });
  });

  it("falls through an MCP_SCHEMA_DIR that lacks the version", async () => {
    const opts = await isolated();
    await placeSchema(opts.cache, V, await officialBytes(V));
    const got = await loadSchemaSource({ ...opts, env: { ...opts.env, MCP_SCHEMA_DIR: await tempDir() } });
    expect(got.origin).toBe("cache");
  });

  it("resolves a relative MCP_SCHEMA_DIR against cwd", async () => {
    const opts = await isolated();
    const file = await placeSchema(join(opts.cwd!, "schemas"), V, await officialBytes(V));
    const got = await loadSchemaSource({ ...opts, env: { ...opts.env, MCP_SCHEMA_DIR: "schemas" } });
    expect(got).toMatchObject({ origin: "env", location: file });
  });
});

describe("shared/mcp-schema lookup", () => {
  it("walks up from cwd, nearest shared/ first", async () => {
    const bytes = await officialBytes(V);
    const base = await tempDir();
    await placeSchema(join(base, "shared", "mcp-schema"), V, bytes);
    const nearer = await placeSchema(join(base, "repo", "shared", "mcp-schema"), V, bytes);
    const cwd = join(base, "repo", "a", "b");
    await mkdir(cwd, { recursive: true });
    const opts = await isolated({ cwd, searchShared: true });
    expect((await loadSchemaSource(opts)).location).toBe(nearer);
  });

  it("finds ../shared/mcp-schema beside a checkout from a sibling dir of cwd", async () => {
    const base = await tempDir();
    const file = await placeSchema(join(base, "shared", "mcp-schema"), V, await officialBytes(V));
    const cwd = join(base, "main");
    await mkdir(cwd);
    const got = await loadSchemaSource(await isolated({ cwd, searchShared: true }));
    expect(got).toMatchObject({ origin: "shared", location: file, pinned: true });
  });

  it("finds the shared folder beside the package when cwd has none", async () => {
    const base = await tempDir();
    const file = await placeSchema(join(base, "shared", "mcp-schema"), V, await officialBytes(V));
    const packageRoot = join(base, "checkout");
    await mkdir(packageRoot);
    const got = await loadSchemaSource(await isolated({ searchShared: true, packageRoot }));
    expect(got).toMatchObject({ origin: "shared", location: file, pinned: true });
  });

  it("refuses a shared file that does not match the pin", async () => {
    const base = await tempDir();
    const file = await placeSchema(join(base, "shared", "mcp-schema"), V, tamper(await officialBytes(V)));
    const err = await rejection(loadSchemaSource(await isolated({ cwd: base, searchShared: true })));
    expect(err).toMatchObject({ code: "sha-mismatch", location: file, version: V });
  });
});

describe("the copies bundled in the package", () => {
  it("are used when no local copy exists, before the cache and the download", async () => {
    const bundledDir = await tempDir();
    const file = await placeSchema(bundledDir, V, await officialBytes(V));
    const opts = await isolated({ bundledDir });
    await placeSchema(opts.cache, V, await officialBytes(V));
    const hits = hitsOf(V);
    expect(await loadSchemaSource(opts)).toMatchObject({ origin: "bundled", location: file, pinned: true });
    expect(hitsOf(V)).toBe(hits);
  });

  it("are verified like any copy: a damaged one is refused, naming the file", async () => {
    const bundledDir = await tempDir();
    const file = await placeSchema(bundledDir, V, tamper(await officialBytes(V)));
    const err = await rejection(loadSchemaSource(await isolated({ bundledDir })));
    expect(err).toMatchObject({ code: "sha-mismatch", location: file, version: V });
  });

  it("with no copy anywhere and no download, the error names every place looked and the ways to provide one", async () => {
    const version = "2025-06-18";
    server.routes.delete(routePath(version));
    const bundledDir = await tempDir();
    const opts = await isolated({ version, bundledDir, searchShared: true, packageRoot: await tempDir() });
    const envDir = await tempDir();
    const err = await rejection(loadSchemaSource({ ...opts, env: { ...opts.env, MCP_SCHEMA_DIR: envDir } }));
    expect(err).toMatchObject({ code: "download-failed", version, location: upstream(version) });
    const cachePath = join(opts.cache, version, "schema.json");
    for (const part of [
      `no MCP schema ${version} found`,
      `${upstream(version)}: HTTP 404`,
      `$MCP_SCHEMA_DIR: ${join(envDir, version, "schema.json")}`,
      `shared/mcp-schema/${version}/schema.json in ${opts.cwd}, ${opts.packageRoot}`,
      `bundled with mcp-codegen: ${join(bundledDir, version, "schema.json")}`,
      `the cache: ${cachePath}`,
      `set MCP_SCHEMA_DIR to a folder holding ${version}/schema.json`,
      "pass --schema <file|url>",
      `put the file at ${cachePath}`,
    ])
      expect(err.message).toContain(part);
    const unset = await rejection(loadSchemaSource(await isolated({ version })));
    expect(unset.message).toContain("$MCP_SCHEMA_DIR: not set");
  });
});

describe("pin checks on local copies", () => {
  it("refuses an MCP_SCHEMA_DIR file that differs from the pin, naming file, hashes and the way out", async () => {
    const envDir = await tempDir();
    const file = await placeSchema(envDir, V, tamper(await officialBytes(V)));
    const opts = await isolated();
    const err = await rejection(loadSchemaSource({ ...opts, env: { ...opts.env, MCP_SCHEMA_DIR: envDir } }));
    expect(err).toMatchObject({ code: "sha-mismatch", location: file, version: V });
    expect(err.message).toContain(file);
    expect(err.message).toContain(V);
    expect(err.message).toContain(PIN);
    expect(err.message).toContain("--allow-unpinned");
  });

  it("accepts it with allowUnpinned, marked unpinned", async () => {
    const envDir = await tempDir();
    const tampered = tamper(await officialBytes(V));
    await placeSchema(envDir, V, tampered);
    const opts = await isolated({ allowUnpinned: true });
    const got = await loadSchemaSource({ ...opts, env: { ...opts.env, MCP_SCHEMA_DIR: envDir } });
    expect(got).toMatchObject({ origin: "env", pinned: false, version: V, dialect: "draft-07" });
    expect(got.sha256).not.toBe(PIN);
    expect(got.text).toBe(tampered.toString("utf8"));
  });
});

describe("download", () => {
  it("downloads, verifies and caches; the second call is served from the cache", async () => {
    const version = "2025-03-26";
    const bytes = await officialBytes(version);
    await serve(version, 200, bytes);
    const opts = await isolated({ version });
    const before = hitsOf(version);

    const first = await loadSchemaSource(opts);
    expect(first).toMatchObject({ version, origin: "download", location: upstream(version), pinned: true });
    expect(first.sha256).toBe(getVersion(version)!.sha256);
    expect(hitsOf(version)).toBe(before + 1);
    const cached = join(opts.cache, version, "schema.json");
    expect((await readFile(cached)).equals(bytes)).toBe(true);
    expect(await readdir(join(opts.cache, version))).toEqual(["schema.json"]);

    const second = await loadSchemaSource(opts);
    expect(second).toMatchObject({ origin: "cache", location: cached, pinned: true });
    expect(second.text).toBe(first.text);
    expect(hitsOf(version)).toBe(before + 1);
  });

  it("refuses tampered bytes and caches nothing", async () => {
    const version = "2025-06-18";
    await serve(version, 200, tamper(await officialBytes(version)));
    const opts = await isolated({ version });
    const err = await rejection(loadSchemaSource(opts));
    expect(err).toMatchObject({ code: "sha-mismatch", location: upstream(version), version });
    expect(err.message).toContain(upstream(version));
    expect(err.message).toContain(getVersion(version)!.sha256);
    expect(await readdir(opts.cache)).toEqual([]);
  });

  it("returns tampered bytes with allowUnpinned, unpinned and still not cached", async () => {
    const version = "2025-06-18";
    await serve(version, 200, tamper(await officialBytes(version)));
    const opts = await isolated({ version, allowUnpinned: true });
    const got = await loadSchemaSource(opts);
    expect(got).toMatchObject({ origin: "download", pinned: false, version });
    expect(await readdir(opts.cache)).toEqual([]);
  });

  it("reports a 404 as download-failed with URL and status", async () => {
    const version = "2025-11-25";
    server.routes.delete(routePath(version));
    const err = await rejection(loadSchemaSource(await isolated({ version })));
    expect(err).toMatchObject({ code: "download-failed", location: upstream(version), version });
    expect(err.message).toContain(upstream(version));
    expect(err.message).toContain("404");
    expect(err.message).toContain(version);
  });

  it("reports a refused connection as download-failed", async () => {
    const closed = await startServer();
    const url = `${closed.url}/schema.json`;
    await closed.close();
    const err = await rejection(loadSchemaSource(await isolated({ upstream: () => url })));
    expect(err).toMatchObject({ code: "download-failed", location: url });
    expect(err.message).toContain(url);
  });

  it("replaces a corrupt cache entry with a fresh download", async () => {
    const version = "2026-07-28";
    const bytes = await officialBytes(version);
    await serve(version, 200, bytes);
    const opts = await isolated({ version });
    const cached = await placeSchema(opts.cache, version, '{"corrupt": true}');
    const before = hitsOf(version);

    const got = await loadSchemaSource(opts);
    expect(got).toMatchObject({ origin: "download", pinned: true });
    expect(hitsOf(version)).toBe(before + 1);
    expect((await readFile(cached)).equals(bytes)).toBe(true);
  });

  it("uses the fetch it is given", async () => {
    const bytes = await officialBytes(V);
    await serve(V, 200, bytes);
    const seen: string[] = [];
    const counting: typeof fetch = (input, init) => {
      seen.push(String(input));
      return fetch(input, init);
    };
    const got = await loadSchemaSource(await isolated({ fetch: counting }));
    expect(got.origin).toBe("download");
    expect(seen).toEqual([upstream(V)]);
  });
});

describe("explicit schema", () => {
  it("takes the version from a file matching a pin", async () => {
    const file = await placeSchema(await tempDir(), "x", await officialBytes("2025-06-18"));
    const got = await loadSchemaSource(await isolated({ version: undefined, schema: file }));
    expect(got).toMatchObject({
      version: "2025-06-18",
      origin: "explicit",
      location: file,
      pinned: true,
      dialect: "draft-07",
    });
  });

  it("accepts a matching version and refuses a different one", async () => {
    const file = await placeSchema(await tempDir(), "x", await officialBytes("2025-06-18"));
    const ok = await loadSchemaSource(await isolated({ version: "2025-06-18", schema: file }));
    expect(ok.pinned).toBe(true);
    for (const allowUnpinned of [false, true]) {
      const err = await rejection(
        loadSchemaSource(await isolated({ version: "2025-11-25", schema: file, allowUnpinned })),
      );
      expect(err).toMatchObject({ code: "sha-mismatch", location: file, version: "2025-11-25" });
      expect(err.message).toContain("2025-06-18");
      expect(err.message).toContain(file);
    }
  });

  it("tells draft from the release that shares its file only by the version given", async () => {
    const file = await placeSchema(await tempDir(), "x", await officialBytes("draft"));
    expect((await loadSchemaSource(await isolated({ version: undefined, schema: file }))).version).toBe(
      "2026-07-28",
    );
    const draft = await loadSchemaSource(await isolated({ version: "draft", schema: file }));
    expect(draft).toMatchObject({ version: "draft", pinned: true });
  });

  it("resolves a relative path against cwd and accepts file: URLs", async () => {
    const opts = await isolated({ version: undefined });
    const file = await placeSchema(join(opts.cwd!, "in"), V, await officialBytes(V));
    const rel = relative(opts.cwd!, file);
    expect((await loadSchemaSource({ ...opts, schema: rel })).location).toBe(file);
    expect((await loadSchemaSource({ ...opts, schema: pathToFileURL(file).href })).location).toBe(file);
  });

  it("asks for a version when a custom file matches no pin", async () => {
    const file = join(await tempDir(), "custom.json");
    await writeFile(
      file,
      JSON.stringify({ $schema: "https://json-schema.org/draft/2020-12/schema", $defs: {} }),
    );
    const err = await rejection(loadSchemaSource(await isolated({ version: undefined, schema: file })));
    expect(err).toMatchObject({ code: "need-version", location: file });
    expect(err.message).toContain(`cannot tell which protocol version ${file} is; pass --protocol`);
  });

  it("takes a custom file under a version the registry does not know, detecting its dialect", async () => {
    const dir = await tempDir();
    const cases: Array<[unknown, string]> = [
      [{ $schema: "https://json-schema.org/draft/2020-12/schema", $defs: {} }, "2020-12"],
      [{ $schema: "http://json-schema.org/draft-07/schema#", definitions: {} }, "draft-07"],
      [{ $defs: {} }, "2020-12"],
      [{ definitions: {} }, "draft-07"],
    ];
    for (const [i, [doc, dialect]] of cases.entries()) {
      const file = join(dir, `custom-${i}.json`);
      await writeFile(file, JSON.stringify(doc));
      const got = await loadSchemaSource(await isolated({ version: "2099-01-01", schema: file }));
      expect(got).toMatchObject({ version: "2099-01-01", origin: "explicit", pinned: false, dialect });
    }
  });

  it("leaves unparsable custom text to the generator", async () => {
    const file = join(await tempDir(), "broken.json");
    await writeFile(file, "{ not json");
    const got = await loadSchemaSource(await isolated({ version: "my-proto", schema: file }));
    expect(got).toMatchObject({ version: "my-proto", text: "{ not json", pinned: false });
  });

  it("needs allowUnpinned for a modified copy of a registry version", async () => {
    const tampered = tamper(await officialBytes(V));
    const file = await placeSchema(await tempDir(), "x", tampered);
    const err = await rejection(loadSchemaSource(await isolated({ schema: file })));
    expect(err).toMatchObject({ code: "sha-mismatch", location: file, version: V });
    expect(err.message).toContain("--allow-unpinned");
    const got = await loadSchemaSource(await isolated({ schema: file, allowUnpinned: true }));
    expect(got).toMatchObject({ version: V, pinned: false, origin: "explicit", dialect: "draft-07" });
  });

  it("reports a missing file as not-found", async () => {
    const file = join(await tempDir(), "nope.json");
    const err = await rejection(loadSchemaSource(await isolated({ schema: file })));
    expect(err).toMatchObject({ code: "not-found", location: file });
    expect(err.message).toContain(file);
    expect(err.message).toContain(V);
  });

  it("loads an explicit URL and never caches it", async () => {
    const bytes = await officialBytes("2025-11-25");
    server.routes.set("/custom/location.json", { status: 200, body: bytes });
    const url = `${server.url}/custom/location.json`;
    const opts = await isolated({ version: undefined, schema: url });
    const got = await loadSchemaSource(opts);
    expect(got).toMatchObject({ version: "2025-11-25", origin: "explicit", location: url, pinned: true });
    expect(await readdir(opts.cache)).toEqual([]);
  });

  it("reports a failing explicit URL as download-failed", async () => {
    const url = `${server.url}/custom/missing.json`;
    const err = await rejection(loadSchemaSource(await isolated({ version: undefined, schema: url })));
    expect(err).toMatchObject({ code: "download-failed", location: url });
    expect(err.message).toContain("404");
  });
});

describe("unknown version", () => {
  it("lists the known versions", async () => {
    const err = await rejection(loadSchemaSource(await isolated({ version: "2099-01-01" })));
    expect(err.code).toBe("unknown-version");
    expect(err.version).toBe("2099-01-01");
    expect(err.message).toContain("2099-01-01");
    for (const v of listVersions()) expect(err.message).toContain(v);
  });
});
