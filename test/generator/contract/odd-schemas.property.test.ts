/**
 * No schema crashes the generator: contracts and pulled lists built from random odd-but-JSON schemas
 * (prototype names, lone surrogates, deep nesting, `$ref`s into the schema, wrong-typed keywords and
 * annotations) go through contract loading and emitting, pull's mending of listed entries, lock →
 * client generation and the comparison of two locks (`pull --check`). Each either succeeds or fails with an error the CLI prints as a message
 * (`isInputError`: a ContractError, SchemaLoadError…), never anything else; and a well-formed tool beside
 * the odd ones is never lost from a pulled client.
 *
 * Fixed seed, a few runs by default; run longer with MCP_CODEGEN_PROPERTY_RUNS=2000 (and another
 * seed with MCP_CODEGEN_PROPERTY_SEED=<n>).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { protocol } from "../../../generated/2026-07-28/protocol.js";
import { isInputError } from "../../../generator/cli/input-errors.js";
import { lenientTables } from "../../../generator/cli/pull-lists.js";
import { emitContract } from "../../../generator/contract/emit.js";
import { loadContract } from "../../../generator/contract/load.js";
import { compareLocks, renderComparison } from "../../../generator/lock/compat.js";
import { emitContractClient } from "../../../generator/lock/emit-client.js";
import { contractFromLock } from "../../../generator/lock/from-lock.js";
import { buildLock } from "../../../generator/lock/lock.js";

const RUNS = Number(process.env.MCP_CODEGEN_PROPERTY_RUNS ?? 50);
const SEED = Number(process.env.MCP_CODEGEN_PROPERTY_SEED ?? 21);
const TIMEOUT = Math.max(60_000, RUNS * 5_000);

const dir = mkdtempSync(join(tmpdir(), "mcp-codegen-odd-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const PROTOTYPE_NAMES = [
  "__proto__",
  "constructor",
  "toString",
  "hasOwnProperty",
  "valueOf",
  "isPrototypeOf",
  "propertyIsEnumerable",
  "toLocaleString",
  "__defineGetter__",
];

/** One UTF-16 code unit of any kind, lone surrogates included. */
const codeUnit = fc.oneof(
  fc.string({ unit: "binary", minLength: 1, maxLength: 1 }),
  fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c)),
  fc.constantFrom("/", "~", "#", "%", "*/", "\n", "\u2028", "`", "${", '"'),
);
const oddName = fc.oneof(
  fc.constantFrom(...PROTOTYPE_NAMES),
  fc.string({ unit: codeUnit, maxLength: 6 }),
  fc.constantFrom("a", "b", "get_sum", "x-y"),
);
/** A tool name: mostly one the specification allows, so that what follows the name check runs too. */
const toolName = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...PROTOTYPE_NAMES) },
  { weight: 3, arbitrary: fc.stringMatching(/^[A-Za-z0-9_.-]{1,12}$/) },
  { weight: 1, arbitrary: oddName },
);

/** An object built key by key: `__proto__` stays an own key (as JSON.parse makes it). */
const objectOf = <T>(entries: [string, T][]): Record<string, T> => {
  const out: Record<string, T> = {};
  for (const [k, v] of entries)
    Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
  return out;
};
const dict = <T>(value: fc.Arbitrary<T>) =>
  fc.array(fc.tuple(oddName, value), { maxLength: 4 }).map(objectOf);

/** `levels` nested objects through `properties.a`, or arrays inside a `default`. */
const deepSchema = (levels: number): unknown => {
  let schema: unknown = { type: "string" };
  for (let i = 0; i < levels; i++) schema = { type: "object", properties: { a: schema } };
  return schema;
};
const deepValue = (levels: number): unknown => {
  let value: unknown = 1;
  for (let i = 0; i < levels; i++) value = [value];
  return { default: value };
};

/** Mostly schemas the generator compiles, each run with a few odd ones among them. */
const { schema } = fc.letrec<{ schema: unknown }>((tie) => ({
  schema: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    {
      weight: 12,
      arbitrary: fc.constantFrom(
        true,
        {},
        { type: "string", pattern: "^a+$", maxLength: 9 },
        { type: "integer", minimum: 1 },
        { type: "number", multipleOf: 0.5 },
        { type: ["string", "null"] },
        { type: "boolean", default: { hasOwnProperty: [1], __proto__: null } },
        { enum: ["a", 1, null, { hasOwnProperty: 1 }] },
      ),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        false,
        { $ref: "#" },
        { $ref: "#/properties/a" },
        { $ref: "#/$defs/Missing" },
        { $ref: "#/properties/constructor" },
        { type: 5 },
        { type: "string", minLength: "x" },
        { type: "object", required: "a" },
        { contentSchema: {} },
        { type: "string", format: "made-up" },
      ),
    },
    { weight: 1, arbitrary: fc.record({ const: fc.jsonValue({ maxDepth: 3 }) }) },
    {
      weight: 6,
      arbitrary: fc
        .tuple(dict(tie("schema")), fc.array(oddName, { maxLength: 3 }), fc.option(tie("schema")))
        .map(([properties, required, additional]) => ({
          type: "object",
          properties,
          ...(required.length ? { required } : {}),
          ...(additional === null ? {} : { additionalProperties: additional }),
        })),
    },
    { weight: 2, arbitrary: fc.record({ type: fc.constant("array"), items: tie("schema") }) },
    { weight: 1, arbitrary: fc.record({ anyOf: fc.array(tie("schema"), { minLength: 1, maxLength: 3 }) }) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(tie("schema"), dict(tie("schema")))
        .map(([root, defs]) => ({ ...(typeof root === "object" ? root : {}), $defs: defs })),
    },
  ),
}));

/** An inputSchema: usually an object schema (so the rest of the tool is read), sometimes anything. */
const objectSchema = fc.oneof(
  {
    weight: 30,
    arbitrary: fc.tuple(dict(schema), fc.array(oddName, { maxLength: 2 })).map(([properties, required]) => ({
      type: "object",
      properties,
      ...(required.length ? { required } : {}),
    })),
  },
  { weight: 2, arbitrary: schema },
  { weight: 1, arbitrary: fc.constantFrom(...[70, 200].map(deepSchema), ...[70, 1100].map(deepValue)) },
);
const annotations = fc.oneof(
  fc.record(
    {
      readOnlyHint: fc.oneof(fc.boolean(), fc.jsonValue({ maxDepth: 2 })),
      destructiveHint: fc.jsonValue({ maxDepth: 2 }),
      title: fc.jsonValue({ maxDepth: 2 }),
    },
    { requiredKeys: [] },
  ),
  dict(fc.jsonValue({ maxDepth: 2 })),
);
const tool = fc.record(
  {
    inputSchema: objectSchema,
    outputSchema: objectSchema,
    annotations,
    title: fc.jsonValue({ maxDepth: 1 }),
    description: fc.oneof(fc.string({ unit: codeUnit }), fc.jsonValue({ maxDepth: 1 })),
  },
  { requiredKeys: ["inputSchema"] },
);
const promptArgument = fc.record(
  {
    name: oddName,
    required: fc.oneof(fc.boolean(), fc.jsonValue({ maxDepth: 1 })),
    description: fc.string(),
  },
  { requiredKeys: ["name"] },
);
const prompt = fc.record({ arguments: fc.array(promptArgument, { maxLength: 2 }) }, { requiredKeys: [] });

const tools = fc.array(fc.tuple(toolName, tool), { minLength: 1, maxLength: 3 });
const prompts = fc.array(fc.tuple(oddName, prompt), { maxLength: 2 });

/** Runs `work`; anything it throws must be an error the CLI prints as a message. */
/** How many of `n` samples must succeed (`share` of them), so a generator refusing everything cannot pass. */
const MIN_OK = (n: number, share: number) => Math.ceil(n * share);

/** Runs `work`: true when it succeeded, false when it failed with an input error; anything else throws. */
async function onlyInputErrors(work: () => Promise<unknown>): Promise<boolean> {
  try {
    await work();
    return true;
  } catch (e) {
    if (!isInputError(e)) throw e;
    expect(e.message).not.toBe("");
    return false;
  }
}

describe("no schema crashes the generator", () => {
  it(
    "contract loading and emitting: success, or an input error",
    async () => {
      let n = 0;
      let generated = 0;
      await fc.assert(
        fc.asyncProperty(tools, prompts, async (t, p) => {
          const file = join(dir, `contract-${n++}.json`);
          writeFileSync(file, JSON.stringify({ tools: objectOf(t), prompts: objectOf(p) }));
          const ok = await onlyInputErrors(async () => {
            const contract = await loadContract(file, "contract.json");
            await emitContract(contract, { protocolVersion: "2025-11-25" });
          });
          if (ok) generated++;
        }),
        { seed: SEED, numRuns: RUNS },
      );
      // Not every sample may be refused: generate is strict (a keyword or field it cannot check is
      // refused), so about a quarter of these odd contracts go all the way through.
      expect(generated).toBeGreaterThanOrEqual(MIN_OK(n, 0.1));
    },
    TIMEOUT,
  );

  it(
    "lock → client: success, or an input error; a plain tool beside the odd ones is kept",
    async () => {
      const plain = { name: "plain", inputSchema: { type: "object", properties: { a: { type: "number" } } } };
      let runs = 0;
      let bound = 0;
      await fc.assert(
        fc.asyncProperty(tools, prompts, async (t, p) => {
          const listed = {
            server: { name: "odd", version: "1" },
            protocolVersion: "2025-11-25",
            tools: [plain, ...t.map(([name, def]) => ({ name, ...def }))],
            prompts: p.map(([name, def]) => ({ name, ...def })),
            resources: [],
            resourceTemplates: [],
          };
          // Through JSON, as the lists arrive from a server.
          const { lock } = buildLock(JSON.parse(JSON.stringify(listed)));
          runs++;
          const ok = await onlyInputErrors(async () => {
            const pulled = contractFromLock(lock, "odd.lock.json");
            await emitContractClient({
              lock,
              lockFile: "odd.lock.json",
              model: pulled.model,
              loose: pulled.loose,
            });
            // Names sharing a type-name form are all kept (mangle.ts), so the plain tool always is.
            expect(pulled.model.tools.map((x) => x.name)).toContain("plain");
          });
          if (ok) bound++;
        }),
        { seed: SEED, numRuns: RUNS },
      );
      expect(bound).toBeGreaterThanOrEqual(MIN_OK(runs, 0.5));
    },
    TIMEOUT,
  );

  it("pull's mending of a tools/list page: never throws; what it keeps passes the protocol's check; a plain tool stays", () => {
    const plain = { name: "plain", inputSchema: { type: "object" } };
    const warnings: string[] = [];
    const tables = lenientTables(protocol, warnings);
    const entry = fc.oneof(
      { weight: 4, arbitrary: fc.tuple(toolName, tool).map(([name, def]) => ({ name, ...def })) },
      { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
    );
    fc.assert(
      fc.property(fc.array(entry, { maxLength: 5 }), (tools) => {
        // A page of each era: the stateless one also carries its caching fields and result type.
        for (const [check, base] of [
          [tables.legacy!.clientRequests["tools/list"]!.result, {}],
          [
            tables.clientRequests["tools/list"]!.result,
            { cacheScope: "public", ttlMs: 0, resultType: "complete" },
          ],
        ] as const) {
          const page = JSON.parse(JSON.stringify({ ...base, tools: [...tools, plain] }));
          expect(check(page)).toBeUndefined();
          expect(page.tools.length).toBeLessThanOrEqual(tools.length + 1);
          expect(page.tools.at(-1)).toEqual(plain);
        }
      }),
      { seed: SEED, numRuns: RUNS * 4 },
    );
  });

  it("comparing two locks of odd tools (pull --check) never throws", () => {
    const lockOf = (list: [string, unknown][]) =>
      buildLock(
        JSON.parse(
          JSON.stringify({
            server: { name: "odd", version: "1" },
            protocolVersion: "2025-11-25",
            tools: list.map(([name, def]) => ({ name, ...(def as object) })),
            prompts: [],
            resources: [],
            resourceTemplates: [],
          }),
        ),
      ).lock;
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom("a", "constructor", "__proto__"), tool, tool), { maxLength: 3 }),
        (pairs) => {
          const before = lockOf(pairs.map(([name, a]) => [name, a]));
          const after = lockOf(pairs.map(([name, , b]) => [name, b]));
          const comparison = compareLocks(before, after);
          expect(renderComparison(comparison)).toMatch(/\n$/);
          expect(comparison.breaking + comparison.compatible).toBe(comparison.changes.length);
        },
      ),
      { seed: SEED, numRuns: RUNS * 4 },
    );
  });
});
