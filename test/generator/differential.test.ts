/**
 * zod ≡ ajv and checks ≡ ajv: for every definition of every version, both generated validators (the zod
 * schema in schemas.ts and the plain check in validators.ts) accept or reject each instance exactly as
 * ajv judges it against the official schema. Instances: valid ones generated from the
 * schema, then mutations (test/support/instances.ts).
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { applySchemaFixes } from "../../generator/protocol/tables.js";
import { definitionNames, generateInstances } from "../support/instances.js";
import { createOracle, dialectOf } from "../support/oracle.js";
import { schemaPath, VERSIONS } from "./paths.js";

const PER_DEFINITION = 200;
const SEED = 0x5eed;

type Validator = { safeParse(v: unknown): { success: boolean } };
type Check = (v: unknown) => unknown;

describe("zod ≡ ajv and checks ≡ ajv on the official schemas", () => {
  it.each(VERSIONS)("%s: every instance judged alike", async (version) => {
    // The generator's input is schema.json with tables.SCHEMA_FIXES applied; ajv judges that document.
    const root = JSON.parse(readFileSync(schemaPath(version), "utf8")) as Record<string, unknown>;
    applySchemaFixes(root);
    const oracle = createOracle(root, dialectOf(root));
    const schemas = (await import(`../../generated/${version}/schemas.ts`)) as Record<string, Validator>;
    const checks = (await import(`../../generated/${version}/validators.ts`)) as Record<string, Check>;
    const disagreements: string[] = [];
    let tried = 0;
    let valid = 0;
    const names = definitionNames(root);
    for (const name of names) {
      const ajv = oracle(name);
      const zod = schemas[`${name}Schema`];
      const check = checks[`check${name}`];
      expect(zod, `${name}Schema`).toBeDefined();
      expect(check, `check${name}`).toBeDefined();
      for (const { value, kind } of generateInstances(root, name, { count: PER_DEFINITION, seed: SEED })) {
        tried++;
        const want = ajv(value);
        if (want) valid++;
        const got = zod!.safeParse(value).success;
        const checked = check!(value) === undefined;
        if (got !== want || checked !== want) {
          disagreements.push(
            `${name} [${kind}] ajv=${want} zod=${got} check=${checked}: ${JSON.stringify(value).slice(0, 300)}`,
          );
        }
      }
    }
    console.log(
      `${version}: ${names.length} definitions, ${tried} instances (${valid} valid, ${tried - valid} invalid), ${disagreements.length} disagreements`,
    );
    expect(tried).toBeGreaterThanOrEqual(names.length * PER_DEFINITION);
    expect(disagreements.slice(0, 20)).toEqual([]);
  });
});
