import { existsSync, readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { listVersions } from "../../schema/registry.js";

export const REPO = fileURLToPath(new URL("../../", import.meta.url));
export const SHARED =
  process.env.MCP_SCHEMA_DIR ?? fileURLToPath(new URL("../../../shared/mcp-schema/", import.meta.url));
export const VERSIONS = listVersions();

export const schemaPath = (version: string) => `${SHARED}/${version}/schema.json`;
export const examplesDir = (version: string) => `${SHARED}/${version}/examples`;

/** Versions whose official folder ships examples/<DefinitionName>/*.json. */
export const VERSIONS_WITH_EXAMPLES = VERSIONS.filter((v) => existsSync(examplesDir(v)));

export function exampleFiles(version: string): { definition: string; file: string }[] {
  const dir = examplesDir(version);
  return readdirSync(dir)
    .sort()
    .flatMap((definition) =>
      readdirSync(`${dir}/${definition}`)
        .filter((f) => f.endsWith(".json"))
        .sort()
        .map((f) => ({ definition, file: `${dir}/${definition}/${f}` })),
    );
}
