/**
 * `mcp-codegen generate` outside a project: one or every registry version into `<out>/<version>/`, and
 * the schema-to-files step `init` shares (`generateVersion`).
 */

import { join, resolve } from "node:path";
import { defaultVersion, listVersions } from "../../schema/registry.js";
import { type Generated, generate, shareLegacy } from "../emit/generate.js";
import { checkDrift, writeOutput } from "../output/write.js";
import { unusedTableEntries } from "../protocol/tables.js";
import { counted } from "./counted.js";
import { CliError, EXIT } from "./errors.js";
import type { GenerateOptions } from "./generate.js";
import type { Reporter } from "./report.js";
import { type SchemaChoice, schemaInput } from "./schema-input.js";

/** Loads a schema (registry version or explicit file/URL) and generates it in memory. */
export async function generateVersion(opts: SchemaChoice): Promise<Generated> {
  return generate(await schemaInput(opts));
}

export async function runVersions(opts: GenerateOptions, report: Reporter): Promise<number> {
  const versions = opts.all ? listVersions() : [opts.protocol ?? (opts.schema ? undefined : defaultVersion)];
  const started = performance.now();
  const results: Generated[] = [];
  // Everything is generated in memory before anything is written: a failure leaves the old output intact.
  for (const version of versions) {
    const step = report.step(`generating ${version ?? opts.schema}`);
    const result = await generateVersion({
      ...(version === undefined ? {} : { version }),
      ...(opts.schema === undefined ? {} : { schema: opts.schema }),
      ...(opts.allowUnpinned ? { allowUnpinned: true } : {}),
    });
    results.push(result);
    step.done(
      `${result.version}: ${counted(result.model.definitions.length, "definition")}, ${counted(result.model.methods.length, "method")}`,
    );
  }
  if (opts.all) {
    const unused = unusedTableEntries(results.flatMap((r) => [...r.usedTableEntries]));
    if (unused.length > 0) {
      throw new CliError(
        `generator/protocol/tables.ts entries match nothing in any version: ${unused.join(", ")}`,
        EXIT.failure,
      );
    }
  }
  const out = resolve(opts.out ?? "generated");
  const outputs = shareLegacy(results);
  if (opts.check)
    return reportDrift(
      outputs.map((r) => [join(out, r.version), r.files]),
      report,
    );
  let written = 0;
  for (const r of outputs) written += (await writeOutput(join(out, r.version), r.files)).length;
  report.info(
    `${counted(written, "file")} written, ${counted(results.length, "version")} in ${Math.round(performance.now() - started)} ms`,
  );
  return EXIT.ok;
}

export async function reportDrift(
  outputs: [string, Record<string, string>][],
  report: Reporter,
): Promise<number> {
  const drift = (await Promise.all(outputs.map(([dir, files]) => checkDrift(dir, files)))).flat();
  for (const d of drift) report.error(`${d.reason}: ${d.path}`);
  if (drift.length > 0) {
    report.error(`${counted(drift.length, "generated file")} out of date; run \`mcp-codegen generate\``);
    return EXIT.failure;
  }
  report.info(`generated output is up to date (${counted(outputs.length, "version")})`);
  return EXIT.ok;
}
