import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cacheDir, loadSchemaSource } from "../../schema/loader.js";
import { listVersions } from "../../schema/registry.js";

/**
 * Where each official schema is, found the way a user's are: through the loader ($MCP_SCHEMA_DIR,
 * shared/mcp-schema beside the checkout, the package's bundled copies, the cache, the pinned download),
 * so that a clone anywhere runs the tests. The files are never committed here.
 */
const OFFICIAL = new Map<string, string>();
for (const version of listVersions()) {
  const source = await loadSchemaSource({ version });
  // A download is cached by the loader (pinned bytes only): read it from there.
  OFFICIAL.set(
    version,
    source.origin === "download" ? join(cacheDir(), version, "schema.json") : source.location,
  );
}

/** The official schema.json of `version`, wherever the loader found it. */
export function officialSchemaPath(version: string): string {
  const path = OFFICIAL.get(version);
  if (path === undefined) throw new Error(`no official schema for ${version}`);
  return path;
}

export function officialBytes(version: string): Promise<Buffer> {
  return readFile(officialSchemaPath(version));
}

/** Same JSON, different bytes: what a proxy or a hand edit would produce. */
export function tamper(bytes: Buffer): Buffer {
  return Buffer.concat([bytes, Buffer.from("\n")]);
}

const made: string[] = [];

export async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "mcp-codegen-schema-"));
  made.push(dir);
  return dir;
}

export async function removeTempDirs(): Promise<void> {
  await Promise.all(made.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
}

/** Writes <root>/<version>/schema.json, the layout of MCP_SCHEMA_DIR, shared/mcp-schema and the cache. */
export async function placeSchema(root: string, version: string, bytes: Buffer | string): Promise<string> {
  const path = join(root, version, "schema.json");
  await mkdir(join(root, version), { recursive: true });
  await writeFile(path, bytes);
  return path;
}

export interface Route {
  status: number;
  body: Buffer | string;
}

export interface TestServer {
  /** Base URL without trailing slash, e.g. http://127.0.0.1:41234 */
  url: string;
  routes: Map<string, Route>;
  hits: Map<string, number>;
  close(): Promise<void>;
}

/** A real HTTP server on loopback; unknown paths answer 404. */
export async function startServer(): Promise<TestServer> {
  const routes = new Map<string, Route>();
  const hits = new Map<string, number>();
  const server = createServer((req, res) => {
    const path = req.url ?? "/";
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const route = routes.get(path) ?? { status: 404, body: "not found" };
    res.writeHead(route.status, { "content-type": "application/json" });
    res.end(route.body);
  });
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    routes,
    hits,
    close: () =>
      new Promise<void>((ok, fail) => {
        server.closeAllConnections();
        server.close((err) => (err ? fail(err) : ok()));
      }),
  };
}
