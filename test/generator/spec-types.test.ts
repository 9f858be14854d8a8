/**
 * generated/<version>/types.ts means what the specification's own schema.ts means: for every type both
 * export, one `Eq<Spec.X, Ours.X>` (mutual assignability), type-checked by the project's tsc. The
 * schema.ts is the one beside the schema.json the loader found; without it the test fails.
 *
 * Where schema.ts and schema.json disagree, types.ts follows schema.json (the validators do), and the
 * disagreement is an entry of DISAGREEMENTS. Each entry is proven rather than trusted: a second check
 * compares against a copy of schema.ts with the entry's declaration replaced by what schema.json says,
 * and there every common type must be equal, so the table explains every difference and nothing else.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { REPO, schemaPath, VERSIONS } from "./paths.js";

interface Disagreement {
  versions: string[];
  /** The type schema.ts declares differently. */
  type: string;
  reason: string;
  /** Its declaration's body in schema.ts, and the same type as schema.json states it. */
  spec: string;
  schema: string;
}

/**
 * None today: schema.json's JSONValue, which lost schema.ts's `null` and `number`, is corrected by the
 * generator's SCHEMA_FIXES (generator/protocol/tables.ts), so types, validators and zod schemas say what schema.ts says.
 */
const DISAGREEMENTS: Disagreement[] = [];

/** Pairs checked per version: every type both files export. */
const PAIRS: Record<string, number> = {
  "2024-11-05": 79,
  "2025-03-26": 83,
  "2025-06-18": 91,
  "2025-11-25": 145,
  "2026-07-28": 155,
  draft: 155,
};

const TSC = `${REPO}node_modules/.bin/tsc`;
const TMP = mkdtempSync(join(tmpdir(), "mcp-codegen-spec-types-"));
afterAll(() => rmSync(TMP, { recursive: true, force: true }));

/** The specification's schema.ts beside the loaded schema.json. */
function specTypesPath(version: string): string {
  const path = join(dirname(schemaPath(version)), "schema.ts");
  if (!existsSync(path))
    throw new Error(
      `${version}: no schema.ts beside the loaded ${schemaPath(version)}; the specification's types are needed to compare with (set MCP_SCHEMA_DIR to a folder holding both)`,
    );
  return path;
}

const exported = (text: string) =>
  new Set([...text.matchAll(/^export (?:interface|type) (\w+)/gm)].map((m) => m[1]!));

/** One `Eq` line per name; returns the file's text, its first Eq line being line 4. */
function eqFile(spec: string, ours: string, names: string[]): string {
  return `${[
    `import type * as Spec from ${JSON.stringify(spec)};`,
    `import type * as Ours from ${JSON.stringify(ours)};`,
    "type Eq<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;",
    ...names.map((n) => `export const ${n}: Eq<Spec.${n}, Ours.${n}> = true;`),
  ].join("\n")}\n`;
}

/** schema.ts with each disagreement's declaration as schema.json states it. */
function asSchemaJsonSays(version: string, text: string): string {
  let out = text;
  for (const d of DISAGREEMENTS.filter((e) => e.versions.includes(version))) {
    const declaration = new RegExp(`export type ${d.type} =\\s*${escapeRegExp(d.spec)};`, "g");
    const found = out.match(declaration) ?? [];
    if (found.length !== 1)
      throw new Error(
        `${version}: DISAGREEMENTS entry ${d.type} is stale: schema.ts no longer declares it as "${d.spec}"`,
      );
    out = out.replace(declaration, `export type ${d.type} = ${d.schema};`);
  }
  return out;
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

interface Plan {
  names: string[];
  /** The two Eq files: against schema.ts as it is, and with DISAGREEMENTS applied. */
  files: { asIs: string; explained: string };
}

function plan(version: string): Plan {
  const specPath = specTypesPath(version);
  const ours = `${REPO}generated/${version}/types.ts`;
  const specText = readFileSync(specPath, "utf8");
  const mine = exported(readFileSync(ours, "utf8"));
  const names = [...exported(specText)].filter((n) => mine.has(n)).sort();
  for (const d of DISAGREEMENTS.filter((e) => e.versions.includes(version)))
    if (!names.includes(d.type))
      throw new Error(`${version}: DISAGREEMENTS entry ${d.type} is stale: not a type both files export`);
  const asIs = `${version}.as-is.ts`;
  const explained = `${version}.explained.ts`;
  const patched = `${version}.schema.ts`;
  writeFileSync(join(TMP, asIs), eqFile(specPath, ours, names));
  writeFileSync(join(TMP, patched), asSchemaJsonSays(version, specText));
  writeFileSync(join(TMP, explained), eqFile(`./${patched}`, ours, names));
  return { names, files: { asIs, explained } };
}

/** Type-checks every file in TMP; error lines by file name. */
function typeCheck(): Map<string, string[]> {
  writeFileSync(
    join(TMP, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        noEmit: true,
        skipLibCheck: true,
        allowImportingTsExtensions: true,
        module: "NodeNext",
        moduleResolution: "NodeNext",
        target: "ES2023",
        lib: ["ES2023"],
        types: [],
      },
      include: ["./*.ts"],
    }),
  );
  writeFileSync(join(TMP, "canary.ts"), "export const canary: string = 1;\n");
  let output = "";
  try {
    execFileSync(TSC, ["-p", join(TMP, "tsconfig.json")], { encoding: "utf8", cwd: TMP });
  } catch (e) {
    output = String((e as { stdout?: string }).stdout ?? e);
  }
  const errors = new Map<string, string[]>();
  for (const line of output.split("\n").filter((l) => l.includes("error TS"))) {
    const file = line.slice(0, line.indexOf("("));
    errors.set(file, [...(errors.get(file) ?? []), line]);
  }
  return errors;
}

/** The names whose Eq line has an error; any other error is returned as is. */
function unequal(names: string[], lines: string[]): { names: string[]; other: string[] } {
  const out = { names: [] as string[], other: [] as string[] };
  for (const line of lines) {
    const at = /^[^(]+\((\d+),\d+\): error TS2322: Type 'true' is not assignable to type 'false'\./.exec(
      line,
    );
    const name = at ? names[Number(at[1]) - 4] : undefined;
    if (name) out.names.push(name);
    else out.other.push(line);
  }
  return out;
}

describe("types.ts against the specification's schema.ts", () => {
  it("every type both export is mutually assignable, but for the disagreements in the table", () => {
    expect(Object.keys(PAIRS).sort()).toEqual([...VERSIONS].sort());
    const plans = new Map(VERSIONS.map((v) => [v, plan(v)]));
    const errors = typeCheck();
    // The canary proves tsc checked this folder.
    expect(errors.get("canary.ts")).toHaveLength(1);
    expect([...errors.keys()].filter((f) => !/^(canary|.+\.(as-is|explained))\.ts$/.test(f))).toEqual([]);

    for (const [version, { names, files }] of plans) {
      const asIs = unequal(names, errors.get(files.asIs) ?? []);
      const explained = unequal(names, errors.get(files.explained) ?? []);
      const entries = DISAGREEMENTS.filter((d) => d.versions.includes(version));
      const applied = entries.map((d) => d.type).join(", ");
      console.log(
        `${version}: ${names.length} pairs checked, ${names.length - asIs.names.length} equal as they stand` +
          (entries.length > 0
            ? `, all ${names.length} once ${applied} is as schema.json says (it explains ${asIs.names.join(", ")})`
            : ""),
      );
      expect(names.length, version).toBe(PAIRS[version]);
      expect(asIs.other, version).toEqual([]);
      expect(explained.other, version).toEqual([]);
      // Zero errors once the table's disagreements are applied: the table explains every difference.
      expect(explained.names, version).toEqual([]);
      // An entry that has become equal is stale.
      for (const d of entries)
        expect(asIs.names, `${version}: ${d.type} is now equal; remove it`).toContain(d.type);
    }
  });
});
