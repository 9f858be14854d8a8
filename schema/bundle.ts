/**
 * Writes the pinned official schemas into the package (schema/bundled/<version>/schema.json) so that an
 * installed mcp-codegen works offline. Run when the package is packed (`prepack`); the folder is never
 * committed. Each schema comes through the loader, so from a local copy (MCP_SCHEMA_DIR, shared/mcp-schema,
 * the cache) or the pinned download, and only its pinned bytes are written (atomically). Exits 1 naming
 * the version when one cannot be had.
 */

import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { writeFileAtomic } from "./fs.js";
import { BUNDLED_DIR, loadSchemaSource } from "./loader.js";
import { getVersion, listVersions } from "./registry.js";

export async function bundleSchemas(dir: string = BUNDLED_DIR): Promise<string[]> {
  const written: string[] = [];
  for (const version of listVersions()) {
    const source = await loadSchemaSource({ version, bundledDir: false });
    const bytes = Buffer.from(source.text, "utf8");
    // The loader verified the pin on the bytes it read; pinned content is UTF-8, so this is the same bytes.
    if (!source.pinned || source.sha256 !== getVersion(version)!.sha256)
      throw new Error(`${version}: ${source.location} is not the pinned schema`);
    const path = join(dir, version, "schema.json");
    await writeFileAtomic(path, bytes);
    written.push(`${version} ${source.origin} ${source.location} -> ${path}`);
  }
  return written;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  try {
    for (const line of await bundleSchemas()) process.stderr.write(`bundled ${line}\n`);
  } catch (error) {
    process.stderr.write(`schema bundle: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  }
}
