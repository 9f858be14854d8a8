import { readFileSync } from "node:fs";
import { isDeepStrictEqual } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { officialSchemaPath } from "../schema/fixtures.js";
import { FORMAT_SAMPLES, FORMAT_VIOLATIONS, formatAccepts } from "./formats.js";
import {
  canBeInvalid,
  definitionNames,
  generateInstances,
  type Instance,
  kindFamily,
  MUTATION_FAMILIES,
} from "./instances.js";
import { createOracle, type Dialect, dialectOf } from "./oracle.js";

const VERSIONS: [string, Dialect][] = [
  ["2024-11-05", "draft-07"],
  ["2025-03-26", "draft-07"],
  ["2025-06-18", "draft-07"],
  ["2025-11-25", "2020-12"],
  ["2026-07-28", "2020-12"],
  ["draft", "2020-12"],
];
const COUNT = 200;
const SEED = 0x5eed;
const MIN_VALID = 0.35;
const MIN_INVALID = 0.25;

const KIND = /^(valid|[a-z-]+:(\/|(\/[^/]*)+|null|array|string|zero|object))$/;
const familiesSeen = new Set<string>();
let versionsRun = 0;

function loadRoot(version: string): object {
  return JSON.parse(readFileSync(officialSchemaPath(version), "utf8")) as object;
}

function percent(part: number, whole: number): string {
  return `${((100 * part) / whole).toFixed(1)}%`;
}

describe.each(VERSIONS)("instance corpus for %s", (version, dialect) => {
  const root = loadRoot(version);

  it("matches the document's $schema", () => {
    expect(dialectOf(root)).toBe(dialect);
  });

  it("is deterministic, mostly balanced by ajv, and valid where built valid", () => {
    const oracle = createOracle(root, dialect);
    const problems: string[] = [];
    const names = definitionNames(root);
    let total = 0;
    let valid = 0;
    for (const name of names) {
      const instances = generateInstances(root, name, { count: COUNT, seed: SEED });
      if (!isDeepStrictEqual(generateInstances(root, name, { count: COUNT, seed: SEED }), instances)) {
        problems.push(`${name}: not deterministic for seed ${SEED}`);
      }
      if (instances.length !== COUNT)
        problems.push(`${name}: ${instances.length} instances, wanted ${COUNT}`);
      const accepts = oracle(name);
      const verdicts = instances.map((i) => accepts(i.value));
      const validCount = verdicts.filter(Boolean).length;
      total += instances.length;
      valid += validCount;
      problems.push(...checkDefinition(name, instances, verdicts, canBeInvalid(root, name)));
    }
    console.log(
      `${version}: ${names.length} definitions, ${total} instances, ` +
        `${valid} valid (${percent(valid, total)}) / ${total - valid} invalid (${percent(total - valid, total)})`,
    );
    versionsRun++;
    expect(problems).toEqual([]);
  });

  it("differs for another seed", () => {
    const name = definitionNames(root)[0]!;
    const a = generateInstances(root, name, { count: COUNT, seed: SEED });
    const b = generateInstances(root, name, { count: COUNT, seed: SEED + 1 });
    expect(isDeepStrictEqual(a, b)).toBe(false);
  });
});

function checkDefinition(
  name: string,
  instances: Instance[],
  verdicts: boolean[],
  invalidPossible: boolean,
): string[] {
  const problems: string[] = [];
  const validShare = verdicts.filter(Boolean).length / instances.length;
  if (validShare < MIN_VALID) problems.push(`${name}: only ${percent(validShare, 1)} ajv-valid`);
  if (invalidPossible && 1 - validShare < MIN_INVALID) {
    problems.push(`${name}: only ${percent(1 - validShare, 1)} ajv-invalid`);
  }
  for (const [i, instance] of instances.entries()) {
    familiesSeen.add(kindFamily(instance.kind));
    if (!KIND.test(instance.kind)) problems.push(`${name}: malformed kind "${instance.kind}"`);
    if (instance.kind === "valid" && !verdicts[i]) {
      problems.push(
        `${name}: ajv rejects a valid-by-construction instance ${JSON.stringify(instance.value)}`,
      );
    }
  }
  return problems;
}

describe("generator and oracle contracts", () => {
  const root = loadRoot("2025-11-25");

  it("refuses keywords outside the supported set", () => {
    const odd = { $defs: { A: { type: "object", not: { type: "null" } } } };
    expect(() => generateInstances(odd, "A", { count: 10, seed: 1 })).toThrow(/unsupported keyword "not"/);
  });

  it("refuses an oracle whose dialect contradicts $schema", () => {
    expect(() => createOracle(root, "draft-07")).toThrow(/declares/);
  });

  it("has format samples on the right side of ajv's fast format checks", () => {
    for (const [format, samples] of Object.entries(FORMAT_SAMPLES)) {
      expect(
        samples.filter((s) => !formatAccepts(format, s)),
        format,
      ).toEqual([]);
    }
    for (const [format, samples] of Object.entries(FORMAT_VIOLATIONS)) {
      expect(
        samples.filter((s) => formatAccepts(format, s)),
        format,
      ).toEqual([]);
    }
  });

  it("keeps depth bounded on recursive definitions", () => {
    const depth = (v: unknown): number =>
      typeof v === "object" && v !== null ? 1 + Math.max(0, ...Object.values(v).map(depth)) : 0;
    const draft = loadRoot("draft");
    const valid = generateInstances(draft, "JSONValue", { count: 200, seed: 3, maxDepth: 3 }).filter(
      (i) => i.kind === "valid",
    );
    expect(Math.max(...valid.map((i) => depth(i.value)))).toBeLessThanOrEqual(3);
  });
});

afterAll(() => {
  // Checked after every version ran: some families (e.g. bad-length) only occur in later versions.
  // A filtered run (-t) covers only part of the corpus, so there is nothing to judge.
  if (versionsRun !== VERSIONS.length) return;
  const missing = MUTATION_FAMILIES.filter((f) => !familiesSeen.has(f));
  expect(missing).toEqual([]);
});
