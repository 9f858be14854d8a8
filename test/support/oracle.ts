/**
 * ajv 8 as the reference validator for the differential tests. The whole document is registered
 * once under the key "mcp" and each definition compiled on first use by reference, so `$ref`s
 * resolve exactly as in the published file.
 */
import { Ajv, type ValidateFunction } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";

export type Dialect = "draft-07" | "2020-12";

// ajv-formats is CommonJS; under NodeNext its default import is typed as the module object,
// whose `default` is the plugin (and, at run time, the plugin function carries `.default` too).
const addFormats = addFormatsModule.default;

const META_SCHEMAS: Record<Dialect, readonly string[]> = {
  "draft-07": ["http://json-schema.org/draft-07/schema#", "http://json-schema.org/draft-07/schema"],
  "2020-12": [
    "https://json-schema.org/draft/2020-12/schema",
    "https://json-schema.org/draft/2020-12/schema#",
  ],
};

/** The dialect a document declares through `$schema`. */
export function dialectOf(root: object): Dialect {
  const declared = (root as { $schema?: unknown }).$schema;
  for (const [dialect, uris] of Object.entries(META_SCHEMAS) as [Dialect, readonly string[]][]) {
    if (typeof declared === "string" && uris.includes(declared)) return dialect;
  }
  throw new Error(`unsupported $schema ${JSON.stringify(declared)}`);
}

export function createOracle(
  root: object,
  dialect: Dialect,
): (defName: string) => (value: unknown) => boolean {
  // A mismatch would make ajv apply the wrong meta-schema (or fail to find it); fail loudly instead.
  const declared = (root as { $schema?: unknown }).$schema;
  if (declared !== undefined && dialectOf(root) !== dialect) {
    throw new Error(`document declares ${String(declared)} but the oracle was asked for ${dialect}`);
  }
  // ownProperties: without it ajv reads `data.constructor` for a property named "constructor" and finds Object.
  const options = { strict: false, allErrors: false, validateFormats: true, ownProperties: true };
  const ajv = dialect === "2020-12" ? new Ajv2020(options) : new Ajv(options);
  addFormats(ajv, { mode: "fast", formats: ["uri", "uri-template", "byte"] });
  ajv.addSchema(root, "mcp");
  // Refs in the file name the folder the file actually uses; follow the same one.
  const defsKey = "$defs" in root ? "$defs" : "definitions";
  const compiled = new Map<string, ValidateFunction>();

  return (defName) => {
    let validate = compiled.get(defName);
    if (!validate) {
      validate = ajv.getSchema(`mcp#/${defsKey}/${encodeURIComponent(defName)}`);
      if (!validate) throw new Error(`ajv found no definition "${defName}" in the ${dialect} document`);
      compiled.set(defName, validate);
    }
    const fn = validate;
    return (value) => fn(value) === true;
  };
}
