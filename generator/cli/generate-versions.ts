/**
 * `mcp-codegen generate` outside a project: one or every registry version into `<out>/<version>/`, and
 * the schema-to-files step `init` shares (`generateVersion`).
 */

import { join, resolve } from "node:path";
import { loadExtensionSource } from "../../schema/extension-loader.js";
import {
  defaultVersion,
  getExtension,
  listExtensions,
  listVersions,
  splitExtensionKey,
} from "../../schema/registry.js";
import { appsFolder, emitApps } from "../emit/apps.js";
import { type Generated, generate, shareLegacy } from "../emit/generate.js";
import { checkDrift, writeOutput } from "../output/write.js";
import { appsModel } from "../protocol/apps-model.js";
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
  const outputs: [string, Record<string, string>][] = shareLegacy(results).map((r) => [
    join(out, r.version),
    r.files,
  ]);
  // Every registry version comes with the extensions' protocols (their own folders), unless a schema was named.
  const extensions = opts.all && opts.schema === undefined ? listExtensions() : [];
  for (const extension of extensions) {
    const step = report.step(`generating ${extension}`);
    const [folder, files] = await generateExtension(extension);
    outputs.push([join(out, folder), files]);
    step.done(`${extension}: ${counted(Object.keys(files).length, "file")}`);
  }
  const what = [counted(results.length, "version")];
  if (extensions.length > 0) what.push(counted(extensions.length, "extension"));
  if (opts.check) return reportDrift(outputs, report, what.join(", "));
  let written = 0;
  for (const [dir, files] of outputs) written += (await writeOutput(dir, files)).length;
  report.info(
    `${counted(written, "file")} written, ${what.join(", ")} in ${Math.round(performance.now() - started)} ms`,
  );
  return EXIT.ok;
}

export async function reportDrift(
  outputs: [string, Record<string, string>][],
  report: Reporter,
  what: string = counted(outputs.length, "version"),
): Promise<number> {
  const drift = (await Promise.all(outputs.map(([dir, files]) => checkDrift(dir, files)))).flat();
  for (const d of drift) report.error(`${d.reason}: ${d.path}`);
  if (drift.length > 0) {
    report.error(`${counted(drift.length, "generated file")} out of date; run \`mcp-codegen generate\``);
    return EXIT.failure;
  }
  report.info(`generated output is up to date (${what})`);
  return EXIT.ok;
}

/** An extension's protocol files and the folder of generated/ they go to (MCP Apps is the one pinned). */
export async function generateExtension(extension: string): Promise<[string, Record<string, string>]> {
  const entry = getExtension(extension)!;
  if (splitExtensionKey(extension).id !== "io.modelcontextprotocol/ui")
    throw new CliError(`schema/versions.json pins ${extension}, which no generator reads yet`, EXIT.failure);
  const source = await loadExtensionSource({ extension });
  const model = appsModel({
    extension,
    publishedBy: `${entry.package} ${entry.export}`,
    text: source.text,
    sha256: source.sha256,
    location: source.location,
  });
  return [appsFolder(model), await emitApps(model)];
}
