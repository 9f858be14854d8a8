import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { appsFolder } from "../../generator/emit/apps.js";
import { appsModel } from "../../generator/protocol/apps-model.js";
import { parseSchema } from "../../generator/protocol/load.js";
import { loadExtensionSource } from "../../schema/extension-loader.js";
import { typeErrors } from "../support/typecheck.js";
import { REPO, schemaPath, VERSIONS } from "./paths.js";

const TMP = `${REPO}test/.tmp/parity`;
const APPS = "io.modelcontextprotocol/ui@2026-01-26";

/**
 * One file per version stating, for every definition, that the type zod infers from `<Name>Schema` and the
 * emitted `<Name>` are assignable to each other. A mismatch is a compile error on that definition's line.
 */
function parityFile(version: string, names = protocolNames(version)): string {
  const lines = [
    `import type * as z from "zod";`,
    `import type * as S from "../../../generated/${version}/schemas.js";`,
    `import type * as T from "../../../generated/${version}/types.js";`,
    "type Mutual<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;",
    ...names.map((n) => `export const ${n}: Mutual<z.infer<typeof S.${n}Schema>, T.${n}> = true;`),
  ];
  return `${lines.join("\n")}\n`;
}

const protocolNames = (version: string) =>
  Object.keys(parseSchema(readFileSync(schemaPath(version), "utf8"), schemaPath(version)).definitions);

describe("generated TypeScript", () => {
  it("compiles under tsc --strict, and every schema's inferred type is mutually assignable with its emitted type", async () => {
    rmSync(TMP, { recursive: true, force: true });
    mkdirSync(TMP, { recursive: true });
    let definitions = 0;
    for (const v of VERSIONS) {
      const text = parityFile(v);
      definitions += text.split("\n").filter((l) => l.startsWith("export const")).length;
      writeFileSync(`${TMP}/${v}.ts`, text);
    }
    // The MCP Apps protocol's folder, by the names its model gives (definitions read apart, fixed).
    const apps = appsModel({
      extension: APPS,
      publishedBy: "",
      text: (await loadExtensionSource({ extension: APPS })).text,
      sha256: "",
      location: APPS,
    });
    const appsText = parityFile(
      appsFolder(apps),
      apps.definitions.map((d) => d.name),
    );
    definitions += appsText.split("\n").filter((l) => l.startsWith("export const")).length;
    writeFileSync(`${TMP}/${appsFolder(apps)}.ts`, appsText);
    const errors = typeErrors(TMP, ["./*.ts", "../../../generated/**/*.ts"], {
      strict: true,
      skipLibCheck: true,
    });
    console.log(
      `parity checked for ${definitions} definitions across ${VERSIONS.length} versions and the Apps protocol`,
    );
    expect(definitions).toBeGreaterThan(740);
    expect(errors).toEqual([]);
  });
});
