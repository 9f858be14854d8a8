/**
 * schema source → parsed schema → protocol model → emitted files, all in memory. Nothing is written here,
 * so a failure at any step leaves the previous output untouched.
 */

import { withHeader } from "../output/write.js";
import type { ProtocolModel } from "../protocol/model.js";
import { protocolModel, type SchemaInput } from "../protocol/protocol-model.js";
import { emitIndex } from "./index.js";
import { emitPeers } from "./peers.js";
import { emitProtocol } from "./protocol.js";
import { emitTypes } from "./types.js";
import { emitValidators } from "./validators.js";
import { emitZod } from "./zod.js";

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

/** Files of the embedded legacy era: its types, validators and method tables, under legacy/. */
const LEGACY_FILES = ["types.ts", "schemas.ts", "validators.ts", "protocol.ts"];

export async function generate(input: SchemaInput): Promise<Generated> {
  const legacy = input.legacy ? await generate(input.legacy) : undefined;
  const { model, used } = protocolModel(
    input,
    legacy && { model: legacy.model, used: legacy.usedTableEntries },
  );
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
