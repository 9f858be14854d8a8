/**
 * The generated MCP Apps protocol (generated/ext-apps-2026-01-26/) against ext-apps' own zod schemas,
 * which the package exports (`McpUi…Schema`) and from which its schema.json was made: for every
 * definition ext-apps exports a schema of, our zod schema and our plain check accept or reject each
 * generated instance (valid ones from the schema, then mutations: test/support/instances.ts) as ext-apps'
 * schema does, and as ajv does on the schema read definition by definition.
 */

import { formats } from "@mcp-codegen/runtime/codegen";
import * as extApps from "@modelcontextprotocol/ext-apps";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { describe, expect, it } from "vitest";
import { applyAppsFixes } from "../../generator/protocol/apps-fixes.js";
import { hoistNestedDefinitions } from "../../generator/protocol/definitions-apart.js";
import { loadExtensionSource } from "../../schema/extension-loader.js";
import { definitionNames, generateInstances } from "../support/instances.js";

// ajv-formats is CommonJS with its function on `default`.
const addFormats = addFormatsModule.default;
const PER_DEFINITION = 150;
const SEED = 0x5eed;
const FOLDER = "../../generated/ext-apps-2026-01-26";

type Validator = { safeParse(v: unknown): { success: boolean } };
type Check = (v: unknown) => unknown;

describe("generated Apps checks ≡ ext-apps' zod schemas", () => {
  it("judges every instance of every exported definition alike", async () => {
    const source = await loadExtensionSource({ extension: "io.modelcontextprotocol/ui@2026-01-26" });
    const root = JSON.parse(source.text) as Record<string, unknown>;
    hoistNestedDefinitions(root, source.location);
    // The generator's input is the schema with APPS_SCHEMA_FIXES applied; ajv judges that document.
    expect(applyAppsFixes(root)).toEqual(["base64", "defaults", "open-objects", "optional-undefined"]);
    // ajv with every format ajv-formats has: the schema's date-time must be asserted, as ext-apps' zod does.
    const ajv2020 = new Ajv2020({ strict: false, ownProperties: true });
    addFormats(ajv2020);
    ajv2020.addSchema(root, "apps");
    const ajvOf = (name: string) => ajv2020.compile({ $ref: `apps#/$defs/${name}` });
    const sampled = forInstances(structuredClone(root));
    const ours = (await import(`${FOLDER}/schemas.ts`)) as Record<string, Validator>;
    const checks = (await import(`${FOLDER}/validators.ts`)) as Record<string, Check>;
    const theirs = extApps as unknown as Record<string, Validator | undefined>;
    const names = definitionNames(sampled).filter((n) => theirs[`${n}Schema`] !== undefined);
    const disagreements: string[] = [];
    const differences = new Map<string, number>();
    let tried = 0;
    let valid = 0;
    for (const name of names) {
      const reference = theirs[`${name}Schema`]!;
      const ajv = ajvOf(name);
      const zod = ours[`${name}Schema`];
      const check = checks[`check${name}`];
      expect(zod, `${name}Schema`).toBeDefined();
      expect(check, `check${name}`).toBeDefined();
      for (const { value, kind } of generateInstances(sampled, name, { count: PER_DEFINITION, seed: SEED })) {
        tried++;
        const want = reference.safeParse(value).success;
        if (want) valid++;
        const got = {
          zod: zod!.safeParse(value).success,
          check: check!(value) === undefined,
          ajv: ajv(value) === true,
        };
        if (got.zod !== want || got.check !== want || got.ajv !== want) {
          const known = knownDifference(value, kind, want, got);
          if (known !== undefined) {
            differences.set(known, (differences.get(known) ?? 0) + 1);
            continue;
          }
          disagreements.push(
            `${name} [${kind}] ext-apps=${want} zod=${got.zod} check=${got.check} ajv=${got.ajv}: ${JSON.stringify(value).slice(0, 300)}`,
          );
        }
      }
    }
    console.log(
      `ext-apps 2026-01-26: ${names.length} definitions, ${tried} instances (${valid} valid, ${tried - valid} invalid), ${disagreements.length} disagreements`,
    );
    console.log(`known differences: ${JSON.stringify(Object.fromEntries(differences))}`);
    // Every definition ext-apps exports a schema of (36 in 2.0.4) is compared, with both outcomes.
    expect(names.length).toBeGreaterThanOrEqual(36);
    expect(valid).toBeGreaterThan(tried / 4);
    expect(tried - valid).toBeGreaterThan(tried / 4);
    expect(disagreements.slice(0, 20)).toEqual([]);
  });
});

/**
 * Where ext-apps' zod is laxer than its own schema.json, and we follow the schema, each checked on the
 * very value: `blob` and `data` that the core SDK's check (`atob`) takes but RFC 4648 base64 with padding
 * (JSON Schema `byte`, as the core schema says) does not (`SGVsbG8`); and the
 * `io.modelcontextprotocol/serverInfo` of a result's `_meta`, which the schema types (name and version
 * required) and ext-apps' zod leaves unchecked.
 */
function knownDifference(
  value: unknown,
  kind: string,
  theirs: boolean,
  ours: { zod: boolean; check: boolean; ajv: boolean },
): string | undefined {
  if (!theirs || ours.zod || ours.check || ours.ajv) return undefined;
  const pointer = kind.slice(kind.indexOf(":") + 1);
  if (/\/(blob|data)$/.test(pointer)) {
    const at = valueAt(value, pointer);
    const decodes =
      typeof at === "string" &&
      (() => {
        try {
          atob(at);
          return true;
        } catch {
          return false;
        }
      })();
    return decodes && !formats.byte(at as string) ? "unpadded base64" : undefined;
  }
  if (pointer.startsWith("/params/_meta/io.modelcontextprotocol~1serverInfo")) return "serverInfo in _meta";
  return undefined;
}

function valueAt(value: unknown, pointer: string): unknown {
  let at = value;
  for (const token of pointer.split("/").slice(1)) {
    const key = token.replaceAll("~1", "/").replaceAll("~0", "~");
    at = at !== null && typeof at === "object" ? (at as Record<string, unknown>)[key] : undefined;
  }
  return at;
}

/**
 * The document instances are drawn from (the judges get the real one): without what the instance generator
 * does not take and which draws nothing new here: each definition's `$schema` (one document each),
 * `propertyNames: { type: "string" }` (every JSON key is a string) and a property whose schema is
 * `not: {}` (it must be absent: the generator then leaves it out; a mutation may still add it).
 */
function forInstances(doc: Record<string, unknown>): Record<string, unknown> {
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) node.forEach(walk);
    else if (node !== null && typeof node === "object") {
      const n = node as Record<string, unknown>;
      delete n.$schema;
      if (JSON.stringify(n.propertyNames) === '{"type":"string"}') delete n.propertyNames;
      // Keys limited to a list (the style variables): the same object as properties, so samples use them.
      const names = (n.propertyNames as { anyOf?: { const?: unknown }[] } | undefined)?.anyOf;
      if (names?.every((b) => typeof b.const === "string") && n.properties === undefined) {
        n.properties = Object.fromEntries(
          names.map((b) => [b.const as string, n.additionalProperties ?? {}]),
        );
        n.additionalProperties = false;
        delete n.propertyNames;
      }
      const props = n.properties as Record<string, Record<string, unknown>> | undefined;
      for (const [key, child] of Object.entries(props ?? {}))
        if (JSON.stringify(child) === '{"not":{}}') delete props![key];
      Object.values(n).forEach(walk);
    }
  };
  walk(doc);
  return doc;
}
