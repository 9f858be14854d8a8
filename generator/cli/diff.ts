import { type Command, Option } from "commander";
import { loadSchemaSource } from "../../schema/loader.js";
import { getVersion, listVersions } from "../../schema/registry.js";
import { diffModels, renderMarkdown, renderText } from "../diff.js";
import { registryFacts } from "../generate.js";
import { parseSchema } from "../load.js";
import { buildModel, type ProtocolModel } from "../model.js";
import { GENERATOR_VERSION } from "../version.js";
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

export function registerDiff(program: Command, reporter: () => Reporter): void {
  program
    .command("diff")
    .description(
      "what changed between two protocol versions: methods, definitions, properties, capabilities, error codes",
    )
    .argument("<from>", "the older protocol version, e.g. 2025-06-18")
    .argument("<to>", "the newer protocol version, e.g. 2025-11-25")
    .addOption(
      new Option("--format <format>", "output format").choices(["text", "markdown", "json"]).default("text"),
    )
    .option("--json", "same as --format json")
    .option("--allow-unpinned", "accept a schema whose sha256 differs from the pinned one")
    .addHelpText(
      "after",
      `
Lines start with + (added), - (removed) or ~ (changed). Properties are followed through inline objects;
a $ref is compared by name. Schemas come from the loader (MCP_SCHEMA_DIR, shared/mcp-schema, cache,
download), exactly as for generate.

Examples:
  $ mcp-codegen diff 2025-06-18 2025-11-25
  $ mcp-codegen diff 2025-11-25 2026-07-28 --format markdown > CHANGES.md
  $ mcp-codegen diff 2024-11-05 2025-03-26 --json | jq .summary`,
    )
    .action(async function (this: Command, from: string, to: string, opts: DiffOptions) {
      if (opts.json && this.getOptionValueSource("format") === "cli" && opts.format !== "json") {
        throw new CliError(`--json contradicts --format ${opts.format}`);
      }
      process.exitCode = await runDiff(
        from,
        to,
        { ...opts, format: opts.json ? "json" : opts.format },
        reporter(),
      );
    });
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
