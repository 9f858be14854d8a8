/**
 * schema source → parsed schema → protocol model → emitted files, all in memory. Nothing is written here,
 * so a failure at any step leaves the previous output untouched.
 */

import { emitIndex } from "./emit/index.js";
import { emitProtocol } from "./emit/protocol.js";
import { emitTypes } from "./emit/types.js";
import { emitZod } from "./emit/zod.js";
import { parseSchema } from "./load.js";
import { buildModel, type ProtocolModel } from "./model.js";
import { GENERATOR_VERSION } from "./version.js";
import { withHeader } from "./write.js";

export interface SchemaInput {
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

export async function generate(input: SchemaInput): Promise<Generated> {
  const parsed = parseSchema(input.text, input.location);
  const used = new Set<string>();
  const model = buildModel(
    parsed,
    {
      protocolVersion: input.protocolVersion,
      schemaSha256: input.sha256,
      generatorVersion: GENERATOR_VERSION,
    },
    used,
  );
  const raw = {
    ...(await emitTypes(model)),
    ...emitZod(model),
    ...emitProtocol(model),
    ...emitIndex(model),
  };
  const files: Record<string, string> = {};
  for (const name of Object.keys(raw).sort()) {
    files[name] = withHeader(raw[name]!, model);
  }
  return { version: input.version, model, files, usedTableEntries: used };
}
