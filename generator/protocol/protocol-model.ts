/**
 * A schema's protocol model without emitting anything: what `generate()` starts from, and what a project
 * whose protocol files are current needs (its handler names, the definitions a contract is checked
 * against) without loading the emitters.
 */

import { getVersion, listVersions } from "../../schema/registry.js";
import { GENERATOR_VERSION } from "../util/version.js";
import { parseSchema } from "./load.js";
import { buildModel, type ProtocolModel } from "./model.js";

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

/** The model of `input` and the table entries it consulted; `legacy` when its legacy era is already built. */
export function protocolModel(
  input: SchemaInput,
  built?: { model: ProtocolModel; used: Set<string> },
): { model: ProtocolModel; used: Set<string> } {
  const parsed = parseSchema(input.text, input.location);
  const used = new Set<string>();
  const legacy = built ?? (input.legacy ? protocolModel(input.legacy) : undefined);
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
    for (const key of legacy.used) used.add(key);
  }
  return { model, used };
}
