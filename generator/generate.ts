/**
 * schema source → parsed schema → protocol model → emitted files, all in memory. Nothing is written here,
 * so a failure at any step leaves the previous output untouched.
 */

import { getVersion, listVersions } from "../schema/registry.js";
import { emitIndex } from "./emit/index.js";
import { emitPeers } from "./emit/peers.js";
import { emitProtocol } from "./emit/protocol.js";
import { emitTypes } from "./emit/types.js";
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
}

export interface Generated {
  version: string;
  model: ProtocolModel;
  /** File name → final text (header included, formatted). */
  files: Record<string, string>;
  /** Table entries consulted, `<TABLE>:<key>`. */
  usedTableEntries: Set<string>;
}

/** What the registry knows about `version`: its claims and the older released versions it can talk to. */
export function registryFacts(
  version: string,
): Pick<SchemaInput, "olderVersions" | "registry" | "protocolVersion"> {
  const entry = getVersion(version);
  if (!entry) return { protocolVersion: version };
  const older = listVersions()
    .filter(
      (v) =>
        v < version && getVersion(v)!.status === "released" && getVersion(v)!.lifecycle === entry.lifecycle,
    )
    .reverse()
    .map((v) => ({ version: getVersion(v)!.protocolVersion, batches: getVersion(v)!.batches }));
  return {
    protocolVersion: entry.protocolVersion,
    olderVersions: entry.status === "released" ? older : [],
    registry: { lifecycle: entry.lifecycle, batches: entry.batches },
  };
}

export async function generate(input: SchemaInput): Promise<Generated> {
  const parsed = parseSchema(input.text, input.location);
  const used = new Set<string>();
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
  const raw = {
    ...(await emitTypes(model)),
    ...emitZod(model),
    ...emitProtocol(model),
    ...emitPeers(model),
    ...emitIndex(model),
  };
  const files: Record<string, string> = {};
  for (const name of Object.keys(raw).sort()) {
    files[name] = withHeader(raw[name]!, model);
  }
  return { version: input.version, model, files, usedTableEntries: used };
}
