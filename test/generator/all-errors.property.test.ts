/**
 * The plain checks report every failure (up to MAX_FAILURES) where ajv with `allErrors: true` does:
 * fast-check (fixed seed, bounded runs) samples a valid value of each tool input of the repository's
 * contracts, breaks it in a few places (a member replaced by any JSON value, a key removed or added), and
 * the set of failing places the emitted check names must be ajv's.
 *
 * Documented differences, which the comparison allows and nothing else:
 * - inside an `anyOf`/`oneOf`, a check names the failures of the one branch that got furthest into the
 *   value; ajv names every branch's (and the union itself). So below a place where ajv reports a union,
 *   ours must be a subset of ajv's, and must name something there;
 * - ajv reports a failed `if`/`then` and `propertyNames` twice (the keyword, and the subschema's own
 *   failures): only the latter count;
 * - ajv's `uniqueItems` passes over items of a type `items` does not allow (it reports them there), so
 *   equal wrong-typed items (`[null, null]` for integers) are not duplicates to ajv: ours names both;
 * - past MAX_FAILURES a check stops: then ours is only held to be a subset.
 *
 * And the other side of collecting: on a valid value a check builds no failure at all (the runtime's
 * `fail`, `add`, `at`, `propertyName` are never called), so a valid call costs what it did.
 */
import { fileURLToPath } from "node:url";
import * as codegen from "@mcp-codegen/runtime/codegen";
import { Ajv } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import fc from "fast-check";
import { ts } from "ts-morph";
import { describe, expect, it } from "vitest";
import { compileChecks } from "../../generator/contract/checks.js";
import { loadContract } from "../../generator/contract/load.js";
import { emitValidators } from "../../generator/emit/validators.js";
import type { Json } from "../../generator/protocol/load.js";
import { checkName } from "../../generator/protocol/naming.js";
import { arbitraryOf } from "../../generator/sampling/arbitrary.js";
import { failuresOf, MAX_FAILURES } from "../../runtime/check/check.js";
import { ajvFormat } from "../support/format-samples.js";

const REPO = fileURLToPath(new URL("../../", import.meta.url));
const CONTRACTS = [
  "test/fixtures/contract/contract.yaml",
  "test/fixtures/serve-contract/contract.yaml",
  "test/fixtures/contract-test/contract.yaml",
  "examples/everything-server/contract.yaml",
  "test/fixtures/all-errors/contract.yaml",
];
const RUNS = Number(process.env.MCP_CODEGEN_PROPERTY_RUNS ?? 200);
const SEED = Number(process.env.MCP_CODEGEN_PROPERTY_SEED ?? 22);

const segment = (step: string | number): string =>
  `/${String(step).replaceAll("~", "~0").replaceAll("/", "~1")}`;

/** Whether pointer `p` is `at` or below it. */
const within = (p: string, at: string): boolean => p === at || p.startsWith(`${at}/`);

interface AjvError {
  keyword: string;
  instancePath: string;
  params: Record<string, unknown>;
  propertyName?: string;
}

/** Where ajv places each failure, as the checks do: a missing or unexpected key at the key itself. */
function ajvPlaces(errors: readonly AjvError[]): { places: Set<string>; unions: Set<string> } {
  const places = new Set<string>();
  const unions = new Set<string>();
  for (const e of errors) {
    if (e.keyword === "anyOf" || e.keyword === "oneOf") unions.add(e.instancePath);
    // Both report again what their subschemas' own failures name.
    else if (e.keyword === "if" || e.keyword === "propertyNames") continue;
    else if (e.propertyName !== undefined) places.add(e.instancePath + segment(e.propertyName));
    else if (typeof e.params.missingProperty === "string")
      places.add(e.instancePath + segment(e.params.missingProperty));
    else if (typeof e.params.additionalProperty === "string")
      places.add(e.instancePath + segment(e.params.additionalProperty));
    else places.add(e.instancePath);
  }
  return { places, unions };
}

/** Every place in a JSON value, as a path. */
function placesIn(value: Json, path: (string | number)[] = [], out: (string | number)[][] = []) {
  out.push(path);
  if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) placesIn(v, [...path, i], out);
  } else if (value !== null && typeof value === "object")
    for (const [k, v] of Object.entries(value)) placesIn(v, [...path, k], out);
  return out;
}

type Mutation = { at: number; kind: "replace" | "remove" | "add"; value: Json };

/** `value` broken by each mutation in turn (at a place picked by index among those left). */
function broken(value: Json, mutations: readonly Mutation[]): Json {
  let root = structuredClone(value);
  for (const m of mutations) {
    const places = placesIn(root);
    const path = places[m.at % places.length]!;
    // A copy: fast-check replays and shrinks its own values, which must stay as generated.
    const inserted = structuredClone(m.value);
    if (path.length === 0) {
      if (m.kind === "replace") root = inserted;
      continue;
    }
    let parent = root as Record<string | number, Json>;
    for (const step of path.slice(0, -1)) parent = parent[step] as Record<string | number, Json>;
    const last = path[path.length - 1]!;
    if (m.kind === "replace") parent[last] = inserted;
    else if (m.kind === "remove" && !Array.isArray(parent)) delete parent[last];
    else if (m.kind === "add" && !Array.isArray(parent)) parent[`extra${m.at % 3}`] = inserted;
  }
  return root;
}

const mutations = fc.array(
  fc.record({
    at: fc.nat(),
    kind: fc.constantFrom("replace", "remove", "add") as fc.Arbitrary<Mutation["kind"]>,
    value: fc.jsonValue({ maxDepth: 1 }) as fc.Arbitrary<Json>,
  }),
  { minLength: 1, maxLength: 4 },
);

describe("all errors: the checks fail where ajv allErrors does", () => {
  for (const file of CONTRACTS) {
    it(file, async () => {
      const contract = await loadContract(`${REPO}${file}`, file);
      const checks = compileChecks(contract.definitions);
      const definitions = Object.fromEntries(contract.definitions.map((d) => [d.name, d.schema]));
      let compared = 0;
      let several = 0;
      for (const tool of contract.tools) {
        const schema = tool.definition.inputSchema as { $schema?: string };
        const ajv = schema.$schema?.includes("draft-07")
          ? new Ajv({ allErrors: true, strict: false, ownProperties: true })
          : new Ajv2020({ allErrors: true, strict: false, ownProperties: true });
        ajv.addFormat("uri", ajvFormat("uri"));
        const validate = ajv.compile(structuredClone(schema));
        const check = checks.get(tool.input)!;
        const sample = arbitraryOf(definitions[tool.input]!, definitions);
        fc.assert(
          fc.property(sample, mutations, (valid, changes) => {
            const value = broken(valid, changes);
            const failure = check(value);
            const all = failure ? failuresOf(failure) : [];
            const ours = new Set(all.map((f) => f.path.map(segment).join("")));
            const { places, unions } = validate(value)
              ? { places: new Set<string>(), unions: new Set<string>() }
              : ajvPlaces(validate.errors as AjvError[]);
            const inUnion = (p: string) => [...unions].some((u) => within(p, u));
            const where = `${tool.name} ${JSON.stringify(value)}: ours ${[...ours]}, ajv ${[...places]} (unions ${[...unions]})`;
            const excused = (p: string) =>
              all.some(
                (f) => f.message.startsWith("Expected unique items") && f.path.map(segment).join("") === p,
              ) && [...places].some((q) => q !== p && within(q, p));
            // Ours is always among ajv's places (a union's own failure sits at the union).
            for (const p of ours) expect(places.has(p) || unions.has(p) || excused(p), where).toBe(true);
            for (const u of unions)
              expect(
                [...ours].some((p) => within(p, u)),
                where,
              ).toBe(true);
            if (all.length >= MAX_FAILURES) return;
            // Outside unions, ajv's places are exactly ours.
            for (const p of places) if (!inUnion(p)) expect(ours.has(p), where).toBe(true);
            compared++;
            if (ours.size > 1) several++;
          }),
          { numRuns: RUNS, seed: SEED },
        );
      }
      // The property saw what it is about: instances that fail in several places at once.
      expect(compared).toBeGreaterThan(RUNS / 2);
      expect(several).toBeGreaterThan(RUNS / 10);
    });
  }
});

describe("a valid value builds no failure", () => {
  it("the checks of union-free tool inputs call none of fail, add, at, propertyName on valid values", async () => {
    const file = "test/fixtures/all-errors/contract.yaml";
    const contract = await loadContract(`${REPO}${file}`, file);
    const source = emitValidators({ definitions: contract.definitions, methods: [] })["validators.ts"]!;
    const js = ts.transpileModule(source, {
      compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 },
    }).outputText;
    let built = 0;
    const counted = new Set(["fail", "add", "at", "propertyName"]);
    const helpers = Object.fromEntries(
      Object.entries(codegen).map(([name, value]) => [
        name,
        counted.has(name)
          ? (...args: unknown[]) => {
              built++;
              return (value as (...a: unknown[]) => unknown)(...args);
            }
          : value,
      ]),
    );
    const exports: Record<string, (v: unknown) => unknown> = {};
    new Function("require", "exports", js)(() => helpers, exports);
    const definitions = Object.fromEntries(contract.definitions.map((d) => [d.name, d.schema]));
    let valid = 0;
    for (const name of ["strings", "numbers", "objects"]) {
      const tool = contract.tools.find((t) => t.name === name)!;
      const check = exports[checkName(tool.input)]!;
      fc.assert(
        fc.property(arbitraryOf(definitions[tool.input]!, definitions), (value) => {
          built = 0;
          if (check(value) !== undefined) return; // the sampler does not follow propertyNames
          valid++;
          expect(built, JSON.stringify(value)).toBe(0);
        }),
        { numRuns: RUNS, seed: SEED },
      );
      // The counting sees a failure being built.
      built = 0;
      expect(check(null)).toBeDefined();
      expect(built).toBeGreaterThan(0);
    }
    expect(valid).toBeGreaterThan(RUNS);
  });
});
