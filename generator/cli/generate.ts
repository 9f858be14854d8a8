import { readFile } from "node:fs/promises";
import { dirname, join, relative, resolve } from "node:path";
import { loadSchemaSource } from "../../schema/loader.js";
import { defaultVersion, getVersion, listVersions } from "../../schema/registry.js";
import { emitContract } from "../contract/emit.js";
import { ContractError, loadContract } from "../contract/load.js";
import { patternWarnings } from "../contract/pattern-warnings.js";
import { checkProtocolFit } from "../contract/protocol-fit.js";
import { addContractStubs } from "../contract/stubs.js";
import { type Generated, generate, inputFor, shareLegacy } from "../generate.js";
import { updateHandlers } from "../handlers-update.js";
import { CONFIG_FILE, configText, handlerMethods, type ProjectConfig, readConfig } from "../project.js";
import { unusedTableEntries } from "../tables.js";
import { checkDrift, writeFileAtomic, writeOutput } from "../write.js";
import { CliError, EXIT } from "./errors.js";
import type { Reporter } from "./report.js";
import { upstreamFromEnv } from "./schema.js";

export interface GenerateOptions {
  all?: boolean;
  protocol?: string;
  schema?: string;
  out?: string;
  check?: boolean;
  allowUnpinned?: boolean;
}

/** Loads a schema (registry version or explicit file/URL) and generates it in memory. */
export async function generateVersion(opts: {
  version?: string;
  schema?: string;
  allowUnpinned?: boolean;
}): Promise<Generated> {
  // MCP_CODEGEN_UPSTREAM (a mirror) applies here as in `schema pull` and `diff`.
  const upstream = upstreamFromEnv(process.env);
  const source = await loadSchemaSource({
    ...(opts.version === undefined ? {} : { version: opts.version }),
    ...(opts.schema === undefined ? {} : { schema: opts.schema }),
    allowUnpinned: opts.allowUnpinned ?? false,
    ...upstream,
  });
  return generate(
    await inputFor(source, (version) => loadSchemaSource({ version, allowUnpinned: false, ...upstream })),
  );
}

export async function runGenerate(opts: GenerateOptions, report: Reporter): Promise<number> {
  if (opts.all && (opts.protocol || opts.schema)) {
    throw new CliError("--all cannot be combined with --protocol or --schema");
  }
  const config = opts.all || opts.out ? undefined : await readConfig(process.cwd());
  if (config) return runProject(config, opts, report);

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
      `${result.version}: ${result.model.definitions.length} definitions, ${result.model.methods.length} methods`,
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
    `${written} file(s) written, ${results.length} version(s) in ${Math.round(performance.now() - started)} ms`,
  );
  return EXIT.ok;
}

async function reportDrift(outputs: [string, Record<string, string>][], report: Reporter): Promise<number> {
  const drift = (await Promise.all(outputs.map(([dir, files]) => checkDrift(dir, files)))).flat();
  for (const d of drift) report.error(`${d.reason}: ${d.path}`);
  if (drift.length > 0) {
    report.error(`${drift.length} generated file(s) out of date; run \`mcp-codegen generate\``);
    return EXIT.failure;
  }
  report.info(`generated output is up to date (${outputs.length} version(s))`);
  return EXIT.ok;
}

/**
 * Project mode: regenerate `config.output` for the project's (or the requested) protocol, then add
 * stubs to the handlers file for methods the new version brings and mark handlers it removed.
 */
async function runProject(config: ProjectConfig, opts: GenerateOptions, report: Reporter): Promise<number> {
  const started = performance.now();
  const root = process.cwd();
  const target = opts.protocol ?? config.protocol;
  const entry = getVersion(target);
  if (!entry && !opts.schema && !config.schema) {
    throw new CliError(`unknown protocol version "${target}"; known versions: ${listVersions().join(", ")}`);
  }
  const schema = opts.schema ?? config.schema ?? undefined;
  const step = report.step(`generating protocol ${target}`);
  const next = await generateVersion({
    version: target,
    ...(schema ? { schema } : {}),
    ...(opts.allowUnpinned ? { allowUnpinned: true } : {}),
  });
  step.done(`generated protocol ${target}`);
  const outDir = join(root, config.output);
  const contract = config.contract ? await loadProjectContract(root, config.contract) : undefined;
  // A ContractError is an input error (cli/errors.ts): printed as its message, exit 2.
  if (contract) checkProtocolFit(contract, next.model.definitions);
  const files = { ...next.files };
  if (contract) {
    for (const w of await patternWarnings(contract, config.patternMaxLength))
      report.notice(`warning: ${config.contract}: ${w}`);
    const emitted = await emitContract(contract, {
      protocolVersion: target,
      ...(config.patternMaxLength === undefined ? {} : { patternMaxLength: config.patternMaxLength }),
    });
    for (const [name, text] of Object.entries(emitted)) files[`contract/${name}`] = text;
  }
  if (opts.check) return reportDrift([[outDir, files]], report);

  // Everything is computed before the first write, so bad input (a handlers file that does not parse)
  // leaves the project untouched.
  const handlersPath = join(root, config.handlers);
  const handlersText = await readFile(handlersPath, "utf8").catch((e: NodeJS.ErrnoException) => {
    throw new CliError(`${config.handlers}: cannot read the handlers file (${e.code ?? e.message})`);
  });
  const previous = target === config.protocol ? next : await generateVersion({ version: config.protocol });
  const update = updateHandlers(handlersText, config.handlers, {
    before: handlerMethods(previous.model, config.kind),
    after: handlerMethods(next.model, config.kind),
    version: target,
    importFrom: importPath(dirname(handlersPath), join(outDir, "server.js")),
  });

  const stubs = contract ? addContractStubs(update.text, contract) : { text: update.text, added: [] };

  const written = await writeOutput(outDir, files);
  if (stubs.text !== handlersText) await writeFileAtomic(handlersPath, stubs.text);
  if (target !== config.protocol)
    await writeFileAtomic(join(root, CONFIG_FILE), configText({ ...config, protocol: target }));

  report.info(`${config.output}/: ${written.length} file(s) written`);
  if (target !== config.protocol) report.info(`${CONFIG_FILE}: protocol ${config.protocol} → ${target}`);
  if (update.added.length > 0) report.info(`${config.handlers}: stubs added for ${update.added.join(", ")}`);
  if (stubs.added.length > 0)
    report.info(`${config.handlers}: stubs added for ${stubs.added.join(", ")} (new in ${config.contract})`);
  if (update.markedRemoved.length > 0) {
    report.info(`${config.handlers}: marked as not in ${target}: ${update.markedRemoved.join(", ")}`);
  }
  if (update.unmarked.length > 0) {
    report.info(`${config.handlers}: in ${target} again, mark removed: ${update.unmarked.join(", ")}`);
  }
  if (written.length === 0 && stubs.text === handlersText && target === config.protocol)
    report.info("nothing to change");
  report.info(`done in ${Math.round(performance.now() - started)} ms`);
  return EXIT.ok;
}

/** The project's contract, with a failure to read or compile it as bad input (exit 2). */
export async function loadProjectContract(root: string, path: string) {
  try {
    return await loadContract(join(root, path), path);
  } catch (e) {
    if (e instanceof ContractError) throw new CliError(e.message);
    throw e;
  }
}

/** A relative ESM specifier from `fromDir` to `file`. */
function importPath(fromDir: string, file: string): string {
  const rel = relative(fromDir, file).replaceAll("\\", "/");
  return rel.startsWith(".") ? rel : `./${rel}`;
}
