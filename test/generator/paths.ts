import { existsSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { listVersions } from "../../schema/registry.js";
import { officialSchemaPath } from "../schema/fixtures.js";

export const REPO = fileURLToPath(new URL("../../", import.meta.url));
export const VERSIONS = listVersions();

/** The official schema.json of a version, found through the schema loader as users' are. */
export const schemaPath = officialSchemaPath;
/** The specification's examples sit beside its schema.json (in MCP_SCHEMA_DIR or shared/mcp-schema). */
export const examplesDir = (version: string) => join(dirname(officialSchemaPath(version)), "examples");

/** Versions whose official folder ships examples/<DefinitionName>/*.json. */
export const VERSIONS_WITH_EXAMPLES = VERSIONS.filter((v) => existsSync(examplesDir(v)));

export function exampleFiles(version: string): { definition: string; file: string }[] {
  const dir = examplesDir(version);
  return readdirSync(dir)
    .sort()
    .flatMap((definition) =>
      readdirSync(join(dir, definition))
        .filter((f) => f.endsWith(".json"))
        .sort()
        .map((f) => ({ definition, file: join(dir, definition, f) })),
    );
}
