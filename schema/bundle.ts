/**
 * Writes the pinned official schemas into the package (schema/bundled/<version>/schema.json) so that an
 * installed mcp-codegen works offline. Run when the package is packed (`prepack`); the folder is never
 * committed. Each schema comes through the loader, so from a local copy (MCP_SCHEMA_DIR, shared/mcp-schema,
 * the cache) or the pinned download, and only its pinned bytes are written (atomically). Exits 1 naming
 * the version when one cannot be had.
 */

import { createHash } from "node:crypto";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { writeFileAtomic } from "./fs.js";
import { BUNDLED_DIR, loadSchemaSource } from "./loader.js";
import { getVersion, listVersions } from "./registry.js";

export async function bundleSchemas(dir: string = BUNDLED_DIR): Promise<string[]> {
  const written: string[] = [];
  for (const version of listVersions()) {
    // The loader refuses anything but the pinned bytes; it hands over their text, so what is written is
    // that text encoded again, checked against the pin once more.
    const source = await loadSchemaSource({ version, bundledDir: false });
    const bytes = Buffer.from(source.text, "utf8");
    if (createHash("sha256").update(bytes).digest("hex") !== getVersion(version)!.sha256)
      throw new Error(`${version}: cannot reproduce the pinned bytes from ${source.location}`);
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
