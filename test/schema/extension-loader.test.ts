import { realpathSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { extensionRelativePath, loadExtensionSource } from "../../schema/extension-loader.js";
import { SchemaSourceError } from "../../schema/loader.js";
import { PACKAGE_ROOT } from "../../schema/package.js";
import { getExtension } from "../../schema/registry.js";

const KEY = "io.modelcontextprotocol/ui@2026-01-26";
const PIN = getExtension(KEY)!.sha256;
// node_modules may be a link: Node resolves packages to their real path.
const INSTALLED = realpathSync(
  join(PACKAGE_ROOT, "node_modules/@modelcontextprotocol/ext-apps/dist/src/generated/schema.json"),
);

const made: string[] = [];
afterEach(async () => {
  await Promise.all(made.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});
async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "mcp-codegen-ext-"));
  made.push(dir);
  return dir;
}
async function put(path: string, bytes: Buffer | string): Promise<string> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, bytes);
  return path;
}
/** A project with its own copy of the package, of `version`, holding `bytes` as its schema export. */
async function projectWith(version: string, bytes: Buffer): Promise<string> {
  const root = await tempDir();
  const pkg = join(root, "node_modules/@modelcontextprotocol/ext-apps");
  await put(
    join(pkg, "package.json"),
    JSON.stringify({
      name: "@modelcontextprotocol/ext-apps",
      version,
      exports: { "./schema.json": "./dist/schema.json" },
    }),
  );
  await put(join(pkg, "dist/schema.json"), bytes);
  return root;
}
/** Options that see only `dir` (no installed package, no shared/, an empty cache). */
const only = async (dir: string, env: NodeJS.ProcessEnv = {}) => ({
  extension: KEY,
  cwd: dir,
  packageRoot: dir,
  env: { MCP_CODEGEN_CACHE_DIR: join(dir, "cache"), ...env },
});

describe("extension schemas through the loader", () => {
  it("finds the pinned ext-apps schema in the package installed in the project", async () => {
    const source = await loadExtensionSource({ extension: KEY, cwd: PACKAGE_ROOT });
    expect(source).toMatchObject({ origin: "package", location: INSTALLED, sha256: PIN, pinned: true });
    expect(JSON.parse(source.text).$id).toBe("https://modelcontextprotocol.io/ext-apps/schema.json");
  });

  it("refuses an installed package of another version, naming both", async () => {
    const root = await projectWith("2.0.3", await readFile(INSTALLED));
    const error = await loadExtensionSource(await only(root)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SchemaSourceError);
    expect((error as Error).message).toMatch(/pinned to @modelcontextprotocol\/ext-apps@2\.0\.4/);
    expect((error as Error).message).toMatch(/ext-apps 2\.0\.3 is installed/);
  });

  it("refuses other bytes in the installed package, naming both hashes", async () => {
    const root = await projectWith("2.0.4", Buffer.concat([await readFile(INSTALLED), Buffer.from("\n")]));
    const error = (await loadExtensionSource(await only(root)).catch((e: unknown) => e)) as SchemaSourceError;
    expect(error.code).toBe("sha-mismatch");
    expect(error.message).toContain(`expected sha256 ${PIN}`);
    expect(error.message).toMatch(/got [0-9a-f]{64}/);
  });

  it("finds it under MCP_SCHEMA_DIR/extensions/ui/2026-01-26 and checks the bytes there", async () => {
    expect(extensionRelativePath(KEY)).toBe(join("extensions", "ui", "2026-01-26", "schema.json"));
    const dir = await tempDir();
    const path = await put(join(dir, "schemas", extensionRelativePath(KEY)), await readFile(INSTALLED));
    const source = await loadExtensionSource(await only(dir, { MCP_SCHEMA_DIR: join(dir, "schemas") }));
    expect(source).toMatchObject({ origin: "env", location: path, pinned: true });
    await writeFile(path, "{}");
    await expect(
      loadExtensionSource(await only(dir, { MCP_SCHEMA_DIR: join(dir, "schemas") })),
    ).rejects.toThrow(/does not match its pin/);
  });

  it("finds it in shared/mcp-schema above the project and in the cache", async () => {
    const dir = await tempDir();
    const project = join(dir, "work", "project");
    await mkdir(project, { recursive: true });
    const shared = await put(
      join(dir, "shared/mcp-schema", extensionRelativePath(KEY)),
      await readFile(INSTALLED),
    );
    expect(await loadExtensionSource(await only(project))).toMatchObject({
      origin: "shared",
      location: shared,
    });
    await rm(shared);
    const cached = await put(join(project, "cache", extensionRelativePath(KEY)), await readFile(INSTALLED));
    expect(await loadExtensionSource(await only(project))).toMatchObject({
      origin: "cache",
      location: cached,
    });
  });

  it("takes an explicit file first, pinned or with allowUnpinned", async () => {
    const dir = await tempDir();
    const path = await put(join(dir, "apps.json"), await readFile(INSTALLED));
    expect(await loadExtensionSource({ extension: KEY, schema: path })).toMatchObject({
      origin: "explicit",
      pinned: true,
    });
    await writeFile(path, "{}");
    await expect(loadExtensionSource({ extension: KEY, schema: path })).rejects.toThrow(/does not match/);
    expect(await loadExtensionSource({ extension: KEY, schema: path, allowUnpinned: true })).toMatchObject({
      pinned: false,
    });
  });

  it("names every place looked in and how to install it when nothing is found", async () => {
    const dir = await tempDir();
    const error = (await loadExtensionSource(await only(dir)).catch((e: unknown) => e)) as SchemaSourceError;
    expect(error.code).toBe("not-found");
    expect(error.message).toContain("npm install --save-dev @modelcontextprotocol/ext-apps@2.0.4");
    expect(error.message).toContain("$MCP_SCHEMA_DIR: not set");
    expect(error.message).toContain("the cache:");
  });

  it("refuses an unknown extension key", async () => {
    await expect(loadExtensionSource({ extension: "io.example/none@1" })).rejects.toThrow(
      /unknown extension schema "io\.example\/none@1"; known: io\.modelcontextprotocol\/ui@2026-01-26/,
    );
  });
});
