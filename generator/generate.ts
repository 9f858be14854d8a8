/**
 * schema source → parsed schema → protocol model → emitted files, all in memory. Nothing is written here,
 * so a failure at any step leaves the previous output untouched.
 */

import { getVersion, listVersions } from "../schema/registry.js";
import { emitIndex } from "./emit/index.js";
import { emitPeers } from "./emit/peers.js";
import { emitProtocol } from "./emit/protocol.js";
import { emitTypes } from "./emit/types.js";
import { emitValidators } from "./emit/validators.js";
import { emitZod } from "./emit/zod.js";
import { parseSchema } from "./load.js";
import { buildModel, type ProtocolModel } from "./model.js";
import { GENERATOR_VERSION } from "./version.js";
import { withHeader } from "./write.js";

export interface SchemaInput {
  /** Older versions this code also negotiates (registry versions with the same lifecycle), newest first. */
  olderVersions?: { version: string; batches: boolean }[];
  /** The registry's claims about this version, checked against the schema. */
  registry?: { lifecycle: "initialize" | "discover"; batches: boolean };
  /** Folder name and registry key, e.g. `2025-11-25` or `draft`. */
  version: string;
  /** The version string spoken on the wire. */
  protocolVersion: string;
  text: string;
  sha256: string;
  /** Path or URL, for error messages. */
  location: string;
  /** For a `discover` lifecycle: the newest `initialize`-lifecycle schema, embedded under legacy/. */
  legacy?: SchemaInput;
}

export interface Generated {
  version: string;
  model: ProtocolModel;
  /** File name → final text (header included, formatted). */
  files: Record<string, string>;
  /** Table entries consulted, `<TABLE>:<key>`. */
  usedTableEntries: Set<string>;
  /** The embedded handshake-era version whose files are under legacy/, if any. */
  legacy?: Generated;
}

/** What the registry knows about `version`: its claims and the older released versions it can talk to. */
export function registryFacts(
  version: string,
): Pick<SchemaInput, "olderVersions" | "registry" | "protocolVersion"> & { legacyVersion?: string } {
  const entry = getVersion(version);
  if (!entry) return { protocolVersion: version };
  const older = listVersions()
    .filter(
      (v) =>
        v < version && getVersion(v)!.status === "released" && getVersion(v)!.lifecycle === entry.lifecycle,
    )
    .reverse()
    .map((v) => ({ version: getVersion(v)!.protocolVersion, batches: getVersion(v)!.batches }));
  // A stateless-era version also serves the handshake era: the newest released initialize version.
  const legacyVersion =
    entry.lifecycle === "discover"
      ? listVersions()
          .filter((v) => getVersion(v)!.status === "released" && getVersion(v)!.lifecycle === "initialize")
          .at(-1)
      : undefined;
  return {
    protocolVersion: entry.protocolVersion,
    olderVersions: entry.status === "released" ? older : [],
    registry: { lifecycle: entry.lifecycle, batches: entry.batches },
    ...(legacyVersion ? { legacyVersion } : {}),
  };
}

/** A schema's text and where it came from. */
export interface SchemaSource {
  version: string;
  text: string;
  sha256: string;
  location: string;
}

/**
 * generate()'s input for a schema: the registry's facts about its version and, for a stateless-era
 * version, the handshake-era schema it embeds, got from `load`.
 */
export async function inputFor(
  source: SchemaSource,
  load: (version: string) => SchemaSource | Promise<SchemaSource>,
): Promise<SchemaInput> {
  const { legacyVersion, ...facts } = registryFacts(source.version);
  const { version, text, sha256, location } = source;
  return {
    version,
    ...facts,
    text,
    sha256,
    location,
    ...(legacyVersion ? { legacy: await inputFor(await load(legacyVersion), load) } : {}),
  };
}

/** Files of the embedded legacy era: its types, validators and method tables, under legacy/. */
const LEGACY_FILES = ["types.ts", "schemas.ts", "validators.ts", "protocol.ts"];

export async function generate(input: SchemaInput): Promise<Generated> {
  const parsed = parseSchema(input.text, input.location);
  const used = new Set<string>();
  const legacy = input.legacy ? await generate(input.legacy) : undefined;
  if (legacy && legacy.model.lifecycle !== "initialize") {
    throw new Error(
      `${input.legacy!.location}: the legacy era of ${input.version} must use the initialize lifecycle`,
    );
  }
  const model = buildModel(
    parsed,
    {
      protocolVersion: input.protocolVersion,
      schemaSha256: input.sha256,
      generatorVersion: GENERATOR_VERSION,
      ...(input.olderVersions ? { olderVersions: input.olderVersions } : {}),
      ...(input.registry ? { registry: input.registry } : {}),
    },
    used,
  );
  if (legacy) {
    if (model.lifecycle !== "discover")
      throw new Error(`${input.location}: only a discover lifecycle embeds a legacy era`);
    model.legacy = legacy.model;
    for (const key of legacy.usedTableEntries) used.add(key);
  }
  const raw = {
    ...(await emitTypes(model)),
    ...emitZod(model),
    ...emitValidators(model),
    ...emitProtocol(model),
    ...emitPeers(model),
    ...emitIndex(model),
  };
  const files: Record<string, string> = {};
  for (const name of Object.keys(raw).sort()) {
    files[name] = withHeader(raw[name]!, model);
  }
  if (legacy) for (const name of LEGACY_FILES) files[`legacy/${name}`] = legacy.files[name]!;
  return { version: input.version, model, files, usedTableEntries: used, ...(legacy ? { legacy } : {}) };
}

/**
 * For versions generated side by side (`generated/<version>/`): a legacy/ file whose version is also in
 * `results` becomes a re-export of that version's folder instead of a second copy. A project that holds
 * one version keeps its legacy/ files whole.
 */
export function shareLegacy(results: readonly Generated[]): Generated[] {
  const present = new Set(results.map((r) => r.version));
  return results.map((r) => {
    if (!r.legacy || !present.has(r.legacy.version)) return r;
    const files = { ...r.files };
    for (const name of LEGACY_FILES) {
      const target = `../../${r.legacy.version}/${name.replace(/\.ts$/, ".js")}`;
      // types.ts holds only types; the others hold values too.
      const body = name === "types.ts" ? `export type * from "${target}";\n` : `export * from "${target}";\n`;
      files[`legacy/${name}`] = withHeader(body, r.legacy.model);
    }
    return { ...r, files };
  });
}
