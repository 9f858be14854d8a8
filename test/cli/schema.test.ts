import { execFile } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import registry from "../../schema/versions.json" with { type: "json" };
import {
  officialBytes,
  placeSchema,
  removeTempDirs,
  startServer,
  type TestServer,
  tamper,
  tempDir,
} from "../schema/fixtures.js";
import { REPO, runCli } from "./run.js";

const VERSIONS = Object.keys(registry.versions) as (keyof typeof registry.versions)[];
const pin = (v: string) => registry.versions[v as keyof typeof registry.versions].sha256;

afterAll(removeTempDirs);

/**
 * Every run gets its own empty cache, no bundled copies (a packed checkout has some) and no MCP_SCHEMA_DIR
 * / upstream unless the test sets them.
 */
async function isolatedEnv(extra: NodeJS.ProcessEnv = {}): Promise<NodeJS.ProcessEnv> {
  const dir = await tempDir();
  return {
    MCP_CODEGEN_CACHE_DIR: join(dir, "cache"),
    MCP_CODEGEN_BUNDLED_DIR: join(dir, "no-bundled-copies"),
    MCP_SCHEMA_DIR: "",
    MCP_CODEGEN_UPSTREAM: "",
    ...extra,
  };
}

/**
 * A shared/mcp-schema folder of these tests' own (copies of the official files) and a working folder
 * below it: the loader looks above cwd first, so runs from SHARED_CWD find these copies wherever the
 * checkout sits.
 */
let sharedBase = "";
let SHARED_CWD = "";
const sharedSchemaPath = (v: string) => join(sharedBase, "shared", "mcp-schema", v, "schema.json");
beforeAll(async () => {
  sharedBase = await tempDir();
  for (const v of VERSIONS)
    await placeSchema(join(sharedBase, "shared", "mcp-schema"), v, await officialBytes(v));
  SHARED_CWD = join(sharedBase, "project");
  await mkdir(SHARED_CWD);
});

/**
 * runCli blocks this process (spawnSync), which would starve a loopback server living here; runs that
 * download use this asynchronous twin instead.
 */
function runCliAsync(args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((done) => {
    execFile(
      `${REPO}node_modules/.bin/tsx`,
      ["--conditions=mcp-codegen-source", `${REPO}generator/cli/index.ts`, ...args],
      { cwd: opts.cwd ?? REPO, env: { ...process.env, ...opts.env }, encoding: "utf8", timeout: 60_000 },
      (err, stdout, stderr) => {
        const code = err === null ? 0 : typeof err.code === "number" ? err.code : null;
        done({ code, stdout, stderr });
      },
    );
  });
}

const files = (dir: string): string[] =>
  existsSync(dir)
    ? readdirSync(dir, { recursive: true, withFileTypes: true })
        .filter((e) => e.isFile())
        .map((e) => e.name)
    : [];

describe("mcp-codegen schema list", () => {
  it("lists every registry version with protocol version, dialect, status, sha256 and local copies", async () => {
    const env = await isolatedEnv();
    const run = runCli(["schema", "list"], { env, cwd: SHARED_CWD });
    expect(run.code).toBe(0);
    const lines = run.stdout.trim().split("\n");
    expect(lines[0]).toMatch(/^VERSION\s+PROTOCOL\s+DIALECT\s+STATUS\s+SHA256\s+LOCAL$/);
    for (const v of VERSIONS) {
      const e = registry.versions[v];
      const line = lines.find((l) => l.startsWith(`${v} `));
      expect(line, v).toBeDefined();
      for (const fact of [e.protocolVersion, e.dialect, e.status, e.sha256]) expect(line).toContain(fact);
      expect(line).toContain(`shared ${sharedSchemaPath(v)}`);
    }
  });

  it("--json: one object per version, with MCP_SCHEMA_DIR and cache copies in the loader's order", async () => {
    const envDir = await tempDir();
    const env = await isolatedEnv({ MCP_SCHEMA_DIR: envDir });
    const envCopy = await placeSchema(envDir, "2025-06-18", tamper(await officialBytes("2025-06-18")));
    const cached = await placeSchema(
      env.MCP_CODEGEN_CACHE_DIR!,
      "2025-06-18",
      await officialBytes("2025-06-18"),
    );
    const run = runCli(["schema", "list", "--json"], { env, cwd: SHARED_CWD });
    expect(run.code).toBe(0);
    const listed = JSON.parse(run.stdout) as {
      version: string;
      protocolVersion: string;
      sha256: string;
      local: { origin: string; path: string; pinned: boolean }[];
    }[];
    expect(listed.map((l) => l.version).sort()).toEqual([...VERSIONS].sort());
    for (const l of listed) expect(l.sha256).toBe(pin(l.version));
    const v = listed.find((l) => l.version === "2025-06-18")!;
    expect(v.local).toEqual([
      expect.objectContaining({ origin: "env", path: envCopy, pinned: false }),
      expect.objectContaining({ origin: "shared", path: sharedSchemaPath("2025-06-18"), pinned: true }),
      expect.objectContaining({ origin: "cache", path: cached, pinned: true }),
    ]);
  });

  it("--help shows examples", () => {
    for (const cmd of [["schema"], ["schema", "list"], ["schema", "pull"], ["schema", "verify"]]) {
      const run = runCli([...cmd, "--help"]);
      expect(run.code, cmd.join(" ")).toBe(0);
      expect(run.stdout).toContain("Examples:");
    }
  });
});

describe("mcp-codegen schema pull", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server.close());

  it("copies the shared folder's file into the cache, verified, and prints the cache path", async () => {
    const cwd = SHARED_CWD;
    const env = await isolatedEnv();
    const cachePath = join(env.MCP_CODEGEN_CACHE_DIR!, "2025-03-26", "schema.json");
    const run = runCli(["schema", "pull", "2025-03-26"], { cwd, env });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(`${cachePath}\n`);
    expect(run.stderr).toContain(`copied from ${sharedSchemaPath("2025-03-26")}`);
    expect(await readFile(cachePath)).toEqual(await officialBytes("2025-03-26"));

    const again = runCli(["schema", "pull", "2025-03-26", "--json"], { cwd, env });
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({
      version: "2025-03-26",
      path: cachePath,
      origin: "cache",
    });
    expect(again.stderr).toContain("already in the cache");

    const quiet = runCli(["-q", "schema", "pull", "2025-03-26"], { cwd, env });
    expect(quiet).toMatchObject({ code: 0, stdout: `${cachePath}\n`, stderr: "" });
  });

  it("prefers MCP_SCHEMA_DIR, and refuses a tampered copy there without caching it", async () => {
    const envDir = await tempDir();
    const env = await isolatedEnv({ MCP_SCHEMA_DIR: envDir });
    const good = await placeSchema(envDir, "2024-11-05", await officialBytes("2024-11-05"));
    const ok = runCli(["schema", "pull", "2024-11-05", "--json"], { env });
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({
      origin: "env",
      source: good,
      cached: true,
      sha256: pin("2024-11-05"),
    });

    const bad = await placeSchema(envDir, "2025-11-25", tamper(await officialBytes("2025-11-25")));
    const refused = runCli(["schema", "pull", "2025-11-25"], { env });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(bad);
    expect(refused.stderr).toContain("2025-11-25");
    expect(files(join(env.MCP_CODEGEN_CACHE_DIR!, "2025-11-25"))).toEqual([]);
  });

  it("--download fetches <MCP_CODEGEN_UPSTREAM>/<version>/schema.json, verifies and caches it", async () => {
    const version = "2025-06-18";
    server.routes.set(`/mirror/${version}/schema.json`, { status: 200, body: await officialBytes(version) });
    const env = await isolatedEnv({ MCP_CODEGEN_UPSTREAM: `${server.url}/mirror/` });
    const cachePath = join(env.MCP_CODEGEN_CACHE_DIR!, version, "schema.json");
    const run = await runCliAsync(["schema", "pull", version, "--download", "--json"], { env });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({
      origin: "download",
      source: `${server.url}/mirror/${version}/schema.json`,
      path: cachePath,
      cached: true,
    });
    expect(await readFile(cachePath)).toEqual(await officialBytes(version));
    expect(server.hits.get(`/mirror/${version}/schema.json`)).toBe(1);
    // Cached now: no second request.
    expect((await runCliAsync(["schema", "pull", version, "--download"], { env })).code).toBe(0);
    expect(server.hits.get(`/mirror/${version}/schema.json`)).toBe(1);
  });

  it("a tampered download exits 2 naming version and URL, and nothing is cached", async () => {
    const version = "2026-07-28";
    server.routes.set(`/evil/${version}/schema.json`, {
      status: 200,
      body: tamper(await officialBytes(version)),
    });
    const env = await isolatedEnv({ MCP_CODEGEN_UPSTREAM: `${server.url}/evil` });
    const url = `${server.url}/evil/${version}/schema.json`;
    const run = await runCliAsync(["schema", "pull", version, "--download"], { env });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(url);
    expect(run.stderr).toContain(version);
    expect(run.stdout).toBe("");
    expect(files(env.MCP_CODEGEN_CACHE_DIR!)).toEqual([]);

    // --allow-unpinned accepts it for what it is, yet the cache still only ever holds pinned bytes.
    const allowed = await runCliAsync(
      ["schema", "pull", version, "--download", "--allow-unpinned", "--json"],
      { env },
    );
    expect(allowed.code).toBe(0);
    expect(JSON.parse(allowed.stdout)).toMatchObject({ cached: false, pinned: false, path: url });
    expect(allowed.stderr).toContain("not cached");
    expect(files(env.MCP_CODEGEN_CACHE_DIR!)).toEqual([]);
  });

  it("an unreachable or missing upstream exits 2 naming the URL", async () => {
    const env = await isolatedEnv({ MCP_CODEGEN_UPSTREAM: `${server.url}/nothing` });
    const run = await runCliAsync(["schema", "pull", "2024-11-05", "--download"], { env });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`${server.url}/nothing/2024-11-05/schema.json`);
    expect(run.stderr).toContain("HTTP 404");
  });

  it("an unknown version exits 2 naming it and the known versions", async () => {
    const run = runCli(["schema", "pull", "1999-01-01"], { env: await isolatedEnv() });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('"1999-01-01"');
    for (const v of VERSIONS) expect(run.stderr).toContain(v);
  });
});

describe("mcp-codegen schema verify", () => {
  it("with no file checks every local copy: ok lines, exit 0", async () => {
    const run = runCli(["schema", "verify"], { env: await isolatedEnv(), cwd: SHARED_CWD });
    expect(run.code).toBe(0);
    for (const v of VERSIONS) expect(run.stdout).toContain(`ok ${v} ${sharedSchemaPath(v)}\n`);
  });

  it("a tampered copy in MCP_SCHEMA_DIR or the cache is a mismatch: exit 1; -q prints only the problems", async () => {
    const envDir = await tempDir();
    const env = await isolatedEnv({ MCP_SCHEMA_DIR: envDir });
    const bad = await placeSchema(envDir, "2025-03-26", tamper(await officialBytes("2025-03-26")));
    const badCache = await placeSchema(env.MCP_CODEGEN_CACHE_DIR!, "draft", "{}");
    const run = runCli(["schema", "verify"], { env, cwd: SHARED_CWD });
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(
      new RegExp(`^mismatch 2025-03-26 ${bad} sha256 [0-9a-f]{64} expected ${pin("2025-03-26")}$`, "m"),
    );
    expect(run.stdout).toContain(`mismatch draft ${badCache} `);
    expect(run.stdout).toContain(`ok 2025-03-26 ${sharedSchemaPath("2025-03-26")}`);

    const quiet = runCli(["-q", "schema", "verify"], { env, cwd: SHARED_CWD });
    expect(quiet.code).toBe(1);
    expect(
      quiet.stdout
        .trim()
        .split("\n")
        .map((l) => l.split(" ")[0]),
    ).toEqual(["mismatch", "mismatch"]);

    const json = runCli(["schema", "verify", "--json"], { env, cwd: SHARED_CWD });
    expect(json.code).toBe(1);
    const results = JSON.parse(json.stdout) as { status: string; path: string; expected?: string }[];
    expect(results.find((r) => r.path === bad)).toMatchObject({
      status: "mismatch",
      expected: pin("2025-03-26"),
    });
  });

  it("one file: ok by its hash or folder, mismatch when its folder or -p says otherwise, unknown when no pin matches", async () => {
    const dir = await tempDir();
    const env = await isolatedEnv();
    const loose = join(dir, "schema.json");
    await writeFile(loose, await officialBytes("2025-11-25"));
    expect(runCli(["schema", "verify", loose], { env }).stdout).toBe(`ok 2025-11-25 ${loose}\n`);

    const wrongFolder = await placeSchema(dir, "2025-06-18", await officialBytes("2025-11-25"));
    const mismatch = runCli(["schema", "verify", wrongFolder], { env });
    expect(mismatch.code).toBe(1);
    expect(mismatch.stdout).toMatch(/^mismatch 2025-06-18 .*\(the pinned schema of 2025-11-25\)\n$/);
    expect(runCli(["schema", "verify", loose, "-p", "2024-11-05"], { env }).code).toBe(1);

    const tampered = join(dir, "tampered.json");
    await writeFile(tampered, tamper(await officialBytes("2025-11-25")));
    const unknown = runCli(["schema", "verify", tampered], { env });
    expect(unknown.code).toBe(1);
    expect(unknown.stdout).toMatch(new RegExp(`^unknown ${tampered} sha256 [0-9a-f]{64}\\n$`));
  });

  it("an unreadable file exits 2", async () => {
    const dir = await tempDir();
    await mkdir(join(dir, "a-directory"));
    for (const target of [join(dir, "missing.json"), join(dir, "a-directory")]) {
      const run = runCli(["schema", "verify", target], { env: await isolatedEnv() });
      expect(run.code, target).toBe(2);
      expect(run.stderr).toContain(target);
    }
    expect(runCli(["schema", "verify", join(dir, "x"), "-p", "nope"]).code).toBe(2);
  });
});
