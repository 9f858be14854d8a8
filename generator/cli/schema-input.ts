/**
 * A schema as generation takes it: its text from the loader (registry version or explicit file/URL,
 * `MCP_CODEGEN_UPSTREAM` applied) with what the registry says about its version. Loads no emitter.
 */

import { loadSchemaSource } from "../../schema/loader.js";
import { inputFor, type SchemaInput } from "../protocol/protocol-model.js";
import { upstreamFromEnv } from "./schema.js";

export interface SchemaChoice {
  version?: string;
  schema?: string;
  allowUnpinned?: boolean;
  /** What a relative `schema` path and the search for local copies start from (default: the working folder). */
  cwd?: string;
}

/** Loads a schema with what generate() needs to know about it. */
export async function schemaInput(opts: SchemaChoice): Promise<SchemaInput> {
  // MCP_CODEGEN_UPSTREAM (a mirror) applies here as in `schema pull` and `diff`.
  const upstream = upstreamFromEnv(process.env);
  const source = await loadSchemaSource({
    ...(opts.version === undefined ? {} : { version: opts.version }),
    ...(opts.schema === undefined ? {} : { schema: opts.schema }),
    allowUnpinned: opts.allowUnpinned ?? false,
    ...(opts.cwd === undefined ? {} : { cwd: opts.cwd }),
    ...upstream,
  });
  const cwd = opts.cwd === undefined ? {} : { cwd: opts.cwd };
  return inputFor(source, (version) =>
    loadSchemaSource({ version, allowUnpinned: false, ...cwd, ...upstream }),
  );
}
