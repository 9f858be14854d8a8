import { join, resolve } from "node:path";
import type { Command } from "commander";
import { loadSchemaSource } from "../../schema/loader.js";
import { listVersions } from "../../schema/registry.js";
import { type Generated, generate, registryFacts } from "../generate.js";
import { unusedTableEntries } from "../tables.js";
import { checkDrift, writeOutput } from "../write.js";
import { CliError, EXIT } from "./errors.js";
import type { Reporter } from "./report.js";

export interface GenerateOptions {
  all?: boolean;
  protocol?: string;
  schema?: string;
  out: string;
  check?: boolean;
  allowUnpinned?: boolean;
}

export function registerGenerate(program: Command, reporter: () => Reporter): void {
  program
    .command("generate")
    .description("generate types, zod validators and method tables from an MCP schema")
    .option("--all", "every protocol version in the registry, each into <out>/<version>/")
    .option("-p, --protocol <version>", "protocol version to generate (see `mcp-codegen schema list`)")
    .option("--schema <file|url>", "read the schema from this file or URL instead of the registry's")
    .option("-o, --out <dir>", "output folder; each version goes to <out>/<version>/", "generated")
    .option("--check", "write nothing; exit 1 and name the files that differ from what generation yields")
    .option("--allow-unpinned", "accept a schema whose sha256 differs from the pinned one")
    .addHelpText(
      "after",
      `
Examples:
  $ mcp-codegen generate --all                 regenerate every version into generated/
  $ mcp-codegen generate --all --check         CI: fail when generated/ is stale
  $ mcp-codegen generate -p 2025-11-25 -o src/mcp
  $ mcp-codegen generate --schema ./schema.json -p 2025-11-25 --allow-unpinned`,
    )
    .action(async (opts: GenerateOptions) => {
      process.exitCode = await runGenerate(opts, reporter());
    });
}

export async function runGenerate(opts: GenerateOptions, report: Reporter): Promise<number> {
  if (opts.all && (opts.protocol || opts.schema)) {
    throw new CliError("--all cannot be combined with --protocol or --schema");
  }
  const versions = opts.all ? listVersions() : [opts.protocol ?? (opts.schema ? undefined : "2025-11-25")];
  const started = performance.now();
  const results: Generated[] = [];
  // Everything is generated in memory before anything is written: a failure leaves the old output intact.
  for (const version of versions) {
    const step = report.step(`generating ${version ?? opts.schema}`);
    const source = await loadSchemaSource({
      ...(version === undefined ? {} : { version }),
      ...(opts.schema === undefined ? {} : { schema: opts.schema }),
      allowUnpinned: opts.allowUnpinned ?? false,
    });
    const result = await generate({
      version: source.version,
      ...registryFacts(source.version),
      text: source.text,
      sha256: source.sha256,
      location: source.location,
    });
    results.push(result);
    step.done(
      `${source.version}: ${result.model.definitions.length} definitions, ${result.model.methods.length} methods (${source.origin} ${source.location})`,
    );
  }
  if (opts.all) {
    const unused = unusedTableEntries(results.flatMap((r) => [...r.usedTableEntries]));
    if (unused.length > 0) {
      throw new CliError(
        `generator/tables.ts entries match nothing in any version: ${unused.join(", ")}`,
        EXIT.failure,
      );
    }
  }
  const out = resolve(opts.out);
  if (opts.check) {
    const drift = (await Promise.all(results.map((r) => checkDrift(join(out, r.version), r.files)))).flat();
    for (const d of drift) report.error(`${d.reason}: ${d.path}`);
    if (drift.length > 0) {
      report.error(`${drift.length} generated file(s) out of date; run \`npm run generate\``);
      return EXIT.failure;
    }
    report.info(`generated output is up to date (${results.length} version(s))`);
    return EXIT.ok;
  }
  let written = 0;
  for (const r of results) written += (await writeOutput(join(out, r.version), r.files)).length;
  report.info(
    `${written} file(s) written, ${results.length} version(s) in ${Math.round(performance.now() - started)} ms`,
  );
  return EXIT.ok;
}
