/**
 * Deterministic instance corpus for one definition of an MCP schema document: about half valid by
 * construction, the rest mutations of valid instances plus a few top-level oddities. Used by the
 * zod-vs-ajv differential test; the ajv oracle (./oracle.ts) decides what is actually valid.
 */
import { conforms } from "./local-check.js";
import {
  MUTATION_FAMILIES,
  type Mutation,
  type MutationFamily,
  Mutator,
  type SiteFamily,
  TOP_LEVEL_ODDITIES,
} from "./mutations.js";
import { hashString, Rng } from "./prng.js";
import { acceptsEverything, type Schema, SchemaDoc } from "./schema-doc.js";
import { type Site, ValueGenerator } from "./value-gen.js";

export { MUTATION_FAMILIES, type MutationFamily };

export interface InstanceOptions {
  count: number;
  seed: number;
  maxDepth?: number;
}

/** `kind` is "valid" or "<family>:<JSON pointer>", e.g. "drop-required:/params/name". */
export interface Instance {
  value: unknown;
  kind: string;
}

// Attempts to land a mutation the local checker rejects before settling for one it accepts.
const MUTATION_ATTEMPTS = 64;
// Share of mutations taken as first drawn, whether or not they look invalid.
const KEEP_AS_DRAWN = 0.15;

const docs = new WeakMap<object, SchemaDoc>();

function docFor(root: object): SchemaDoc {
  let doc = docs.get(root);
  if (!doc) {
    doc = new SchemaDoc(root);
    docs.set(root, doc);
  }
  return doc;
}

/** The family part of an instance kind ("valid" for valid-by-construction instances). */
export function kindFamily(kind: string): string {
  const colon = kind.indexOf(":");
  return colon < 0 ? kind : kind.slice(0, colon);
}

export function definitionNames(root: object): string[] {
  return docFor(root).definitionNames();
}

/** False when the definition accepts every JSON value, so no instance can be invalid. */
export function canBeInvalid(root: object, defName: string): boolean {
  const doc = docFor(root);
  let schema = doc.definition(defName);
  // Follow pure aliases (`{ "$ref": ..., "description": ... }`) to what they name.
  for (let hops = 0; typeof schema === "object" && schema.$ref !== undefined && hops < 100; hops++) {
    const { $ref, ...rest } = schema;
    if (!acceptsEverything(rest)) return true;
    schema = doc.resolve($ref);
  }
  return !acceptsEverything(schema);
}

export function generateInstances(root: object, defName: string, opts: InstanceOptions): Instance[] {
  const doc = docFor(root);
  const schema = doc.definition(defName);
  doc.assertSupported(schema, `#/${doc.defsKey}/${defName}`);
  const rng = new Rng((opts.seed ^ hashString(defName)) >>> 0);
  const gen = new ValueGenerator(doc, rng, opts.maxDepth ?? 4);
  const mutator = new Mutator(gen, defName);
  const valid = () => validInstance(gen, schema);

  const oddities = Math.min(TOP_LEVEL_ODDITIES.length, Math.floor(opts.count / 8));
  const out: Instance[] = TOP_LEVEL_ODDITIES.slice(0, oddities).map((m) => ({
    ...m,
    value: structuredClone(m.value),
  }));
  for (let i = 0; out.length < opts.count; i++) {
    out.push(i % 2 === 0 ? { value: valid().value, kind: "valid" } : mutant(gen, mutator, schema, valid));
  }
  return out;
}

function validInstance(gen: ValueGenerator, schema: Schema): { value: unknown; sites: Site[] } {
  let value: unknown;
  // Retry the rare construction the local checker rejects (e.g. an unsatisfiable pattern).
  for (let attempt = 0; attempt < 3; attempt++) {
    value = gen.instance(schema);
    if (conforms(gen.doc, schema, value)) break;
  }
  return { value, sites: gen.sites };
}

function mutant(
  gen: ValueGenerator,
  mutator: Mutator,
  schema: Schema,
  valid: () => { value: unknown; sites: Site[] },
): Instance {
  const base = valid();
  const byFamily = new Map<SiteFamily, Site[]>();
  for (const site of base.sites) {
    for (const family of mutator.applicable(site)) {
      const sites = byFamily.get(family) ?? [];
      sites.push(site);
      byFamily.set(family, sites);
    }
  }
  const families = [...byFamily.keys()];
  if (families.length === 0) return structuredClone(gen.rng.pick(TOP_LEVEL_ODDITIES));
  // Most mutations hunt for one the local checker rejects; a few are kept as drawn, since
  // near-misses that stay valid are interesting to the differential test too.
  const attempts = gen.rng.chance(KEEP_AS_DRAWN) ? 1 : MUTATION_ATTEMPTS;
  let last: Mutation | undefined;
  for (let attempt = 0; attempt < attempts; attempt++) {
    const family = gen.rng.pick(families);
    last = mutator.apply(family, gen.rng.pick(byFamily.get(family)!), base.value);
    if (!conforms(gen.doc, schema, last.value)) return last;
  }
  return last!;
}
