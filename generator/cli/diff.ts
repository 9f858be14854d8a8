import { loadSchemaSource } from "../../schema/loader.js";
import { getVersion, listVersions } from "../../schema/registry.js";
import { diffModels, renderMarkdown, renderText } from "../protocol/diff.js";
import { parseSchema } from "../protocol/load.js";
import { buildModel, type ProtocolModel } from "../protocol/model.js";
import { registryFacts } from "../protocol/protocol-model.js";
import { GENERATOR_VERSION } from "../util/version.js";
import { counted } from "./counted.js";
import { CliError, EXIT } from "./errors.js";
import { type Reporter, terminal } from "./report.js";
import { upstreamFromEnv } from "./schema.js";

export type DiffFormat = "text" | "markdown" | "json";

export interface DiffOptions {
  format: DiffFormat;
  json?: boolean;
  allowUnpinned?: boolean;
}

export async function runDiff(
  from: string,
  to: string,
  opts: DiffOptions,
  report: Reporter,
): Promise<number> {
  // Both names are checked before anything is loaded, so a typo in <to> fails fast.
  for (const version of [from, to]) {
    if (!getVersion(version)) {
      throw new CliError(
        `unknown MCP protocol version "${version}"; known versions: ${listVersions().join(", ")}`,
      );
    }
  }
  // One after the other, so progress lines come in argument order.
  const before = await loadModel(from, opts, report);
  const after = await loadModel(to, opts, report);
  const diff = diffModels(before, after);
  const rendered =
    opts.format === "json"
      ? `${JSON.stringify(diff, null, 2)}\n`
      : opts.format === "markdown"
        ? renderMarkdown(diff)
        : renderText(diff);
  process.stdout.write(terminal(rendered));
  return EXIT.ok;
}

async function loadModel(version: string, opts: DiffOptions, report: Reporter): Promise<ProtocolModel> {
  const step = report.step(`loading ${version}`);
  const source = await loadSchemaSource({
    version,
    allowUnpinned: opts.allowUnpinned ?? false,
    ...upstreamFromEnv(process.env),
  });
  const facts = registryFacts(source.version);
  const model = buildModel(parseSchema(source.text, source.location), {
    protocolVersion: facts.protocolVersion,
    schemaSha256: source.sha256,
    generatorVersion: GENERATOR_VERSION,
    ...(facts.olderVersions ? { olderVersions: facts.olderVersions } : {}),
    ...(facts.registry ? { registry: facts.registry } : {}),
  });
  step.done(
    `${version}: ${counted(model.definitions.length, "definition")}, ${counted(model.methods.length, "method")} (${source.origin} ${source.location})`,
  );
  return model;
}
