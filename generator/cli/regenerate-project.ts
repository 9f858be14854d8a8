/**
 * A project's generation once its stamp shows something changed: the protocol's files for the project's
 * (or the requested) version, the contract compiled into `<output>/contract/`, stubs added to the handlers
 * file for methods a new version brings and for new contract items, marks on handlers a version removed.
 * A part the stamp shows current (`Freshness`) is read back from disk instead of generated again.
 */

import { readFile } from "node:fs/promises";
import { dirname, join, relative, resolve } from "node:path";
import { getVersion, listVersions } from "../../schema/registry.js";
import type { ContractModel } from "../contract/model.js";
import { compilerVersion } from "../contract/transpile.js";
import { fileHash, folderListing, inputName, type Stamp, sha256, writeStamp } from "../output/stamp.js";
import { writeFileAtomic, writeOutput } from "../output/write.js";
import { updateHandlers } from "../project/handlers-update.js";
import { CONFIG_FILE, configText, handlerMethods, type ProjectConfig } from "../project/project.js";
import { addContractStubs } from "../project/stubs.js";
import type { ProtocolModel } from "../protocol/model.js";
import { protocolModel } from "../protocol/protocol-model.js";
import { counted } from "./counted.js";
import { CliError } from "./errors.js";
import type { Freshness, ProjectGeneration, ProjectOptions } from "./generate.js";
import { compileProjectContract, loadProjectContract } from "./project-contract.js";
import type { Reporter } from "./report.js";
import { type SchemaChoice, schemaInput } from "./schema-input.js";

/** Everything a project's output folder should hold, computed in memory, and what it was computed from. */
interface ProjectOutput {
  target: string;
  outDir: string;
  model: ProtocolModel;
  contract?: ContractModel;
  files: Record<string, string>;
  warnings: string[];
  /** Absolute paths of the contract files read, and of the folders listed (a contract's skills folder). */
  read: Set<string>;
  /** What was compiled, as `Stamp["compiled"]` records it. */
  compiled: Omit<NonNullable<Stamp["compiled"]>, "compiler">;
}

const NOTHING_FRESH: Freshness = { protocol: false, contract: false, all: false };

/** `generate --check` in a project: exit 1 naming each generated file that differs. Always computed in full. */
export async function checkProject(
  root: string,
  config: ProjectConfig,
  opts: ProjectOptions,
  report: Reporter,
): Promise<number> {
  const output = await projectOutput(root, config, opts, report, NOTHING_FRESH);
  const { reportDrift } = await import("./generate-versions.js");
  return reportDrift([[output.outDir, output.files]], report);
}

export async function regenerateProject(
  root: string,
  config: ProjectConfig,
  opts: ProjectOptions,
  report: Reporter,
  fresh: Freshness,
  started = performance.now(),
): Promise<ProjectGeneration> {
  const before = await inputSnapshot(root, config, fresh.stamp);
  const output = await projectOutput(root, config, opts, report, fresh);
  const { target, outDir, model: next, contract, files } = output;

  // Everything is computed before the first write, so bad input (a handlers file that does not parse)
  // leaves the project untouched.
  const handlersPath = join(root, config.handlers);
  const handlersText = await readFile(handlersPath, "utf8").catch((e: NodeJS.ErrnoException) => {
    throw new CliError(`${config.handlers}: cannot read the handlers file (${e.code ?? e.message})`);
  });
  const previous =
    target === config.protocol
      ? next
      : protocolModel(await schemaInput({ version: config.protocol, cwd: root })).model;
  const update = updateHandlers(handlersText, config.handlers, {
    before: handlerMethods(previous, config.kind),
    after: handlerMethods(next, config.kind),
    version: target,
    importFrom: importPath(dirname(handlersPath), join(outDir, "server.js")),
  });

  const stubs = contract ? addContractStubs(update.text, contract) : { text: update.text, added: [] };

  const written = await writeOutput(outDir, files);
  const changed = [...written];
  if (stubs.text !== handlersText) {
    await writeFileAtomic(handlersPath, stubs.text);
    changed.push(handlersPath);
  }
  const configPath = join(root, CONFIG_FILE);
  if (target !== config.protocol) {
    await writeFileAtomic(configPath, configText({ ...config, protocol: target }));
    changed.push(configPath);
  }
  if (fresh.key !== undefined) {
    const stamp = await stampOf(root, config, output, fresh.key, stubs.text);
    // An input edited while this run read it: no stamp, so the next run starts over.
    const steady = Object.entries(before).every(
      ([path, hash]) =>
        !(path in stamp.inputs) || typeof stamp.inputs[path] !== "string" || stamp.inputs[path] === hash,
    );
    if (steady) await writeStamp(outDir, stamp);
  }

  report.info(`${config.output}/: ${counted(written.length, "file")} written`);
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
  if (changed.length === 0) report.info("nothing to change");
  report.info(`done in ${Math.round(performance.now() - started)} ms`);
  return { upToDate: false, changed };
}

/** The output folder's files in memory; the parts `fresh` vouches for are read back from disk. */
async function projectOutput(
  root: string,
  config: ProjectConfig,
  opts: ProjectOptions,
  report: Reporter,
  fresh: Freshness,
): Promise<ProjectOutput> {
  const target = opts.protocol ?? config.protocol;
  if (!getVersion(target) && !opts.schema && !config.schema) {
    throw new CliError(`unknown protocol version "${target}"; known versions: ${listVersions().join(", ")}`);
  }
  const schema = opts.schema ?? config.schema ?? undefined;
  const choice: SchemaChoice = {
    version: target,
    cwd: root,
    ...(schema ? { schema } : {}),
    ...(opts.allowUnpinned ? { allowUnpinned: true } : {}),
  };
  const outDir = join(root, config.output);
  const recorded = Object.keys(fresh.stamp?.outputs ?? {});
  const isContract = (name: string) => name.startsWith("contract/");

  const step = report.step(`generating protocol ${target}`);
  const input = await schemaInput(choice);
  let model: ProtocolModel;
  let files: Record<string, string>;
  if (fresh.protocol) {
    model = protocolModel(input).model;
    files = await readBack(
      outDir,
      recorded.filter((name) => !isContract(name)),
    );
  } else {
    // The protocol's emitters are loaded only when its files are generated.
    const { generate } = await import("../emit/generate.js");
    const next = await generate(input);
    model = next.model;
    files = { ...next.files };
  }
  step.done(`generated protocol ${target}`);

  const read = new Set<string>();
  let warnings: string[] = [];
  const memo = await compiledBefore(outDir, fresh);
  const compiledFrom: Record<string, string> = {};
  const contract = config.contract ? await loadProjectContract(root, config.contract, read) : undefined;
  if (contract && fresh.contract) {
    warnings = fresh.stamp!.warnings;
    Object.assign(compiledFrom, fresh.stamp!.compiled?.outputs);
    Object.assign(files, await readBack(outDir, recorded.filter(isContract)));
  } else if (contract) {
    const compiled = await compileProjectContract(contract, config, target, model.definitions, memo);
    warnings = compiled.warnings.map((w) => `warning: ${w}`);
    for (const [name, text] of Object.entries(compiled.files)) files[`contract/${name}`] = text;
    const sourceOf = new Map([...memo].map(([key, js]) => [js, key]));
    for (const [name, text] of Object.entries(files)) {
      const key = isContract(name) ? sourceOf.get(afterHeader(text)) : undefined;
      if (key !== undefined) compiledFrom[name] = key;
    }
  }
  for (const warning of warnings) report.notice(warning);
  return {
    target,
    outDir,
    model,
    ...(contract ? { contract } : {}),
    files,
    warnings,
    read,
    compiled: { outputs: compiledFrom },
  };
}

/** A compiled file without its header line (what `ContractEmitOptions.compiled` holds). */
const afterHeader = (text: string): string => text.slice(text.indexOf("\n") + 1);

/**
 * The compiled outputs the last run left, still as it wrote them, by the `sourceKey` of their source; none
 * when the stamp is for another generator, schema or compiler. Only output files: nothing a project holds
 * is run here.
 */
async function compiledBefore(outDir: string, fresh: Freshness): Promise<Map<string, string>> {
  const outputs = new Map<string, string>();
  const { stamp } = fresh;
  if (!stamp?.compiled || stamp.key !== fresh.key || stamp.compiled.compiler !== compilerVersion())
    return outputs;
  for (const [name, source] of Object.entries(stamp.compiled.outputs)) {
    const text = await readFile(join(outDir, name), "utf8").catch(() => undefined);
    if (text !== undefined && sha256(text) === stamp.outputs[name]) outputs.set(source, afterHeader(text));
  }
  return outputs;
}

/** Generated files the stamp vouches for, as they are on disk. */
async function readBack(outDir: string, names: string[]): Promise<Record<string, string>> {
  const texts = await Promise.all(names.map((name) => readFile(join(outDir, name), "utf8")));
  return Object.fromEntries(names.map((name, i) => [name, texts[i]!]));
}

/**
 * Hashes, taken before the run reads them, of the contract files known then (the contract's own, and those
 * the last stamp names), so that one edited while the run reads it is noticed.
 */
async function inputSnapshot(
  root: string,
  config: ProjectConfig,
  stamp: Stamp | undefined,
): Promise<Record<string, string | undefined>> {
  const paths = new Set(Object.keys(stamp?.inputs ?? {}).map((p) => resolve(root, p)));
  if (config.contract) {
    const contract = resolve(root, config.contract);
    const listing = await folderListing(contract);
    if (listing) for (const name of listing) paths.add(join(contract, name));
    else paths.add(contract);
  }
  paths.delete(resolve(root, config.handlers));
  paths.delete(resolve(root, CONFIG_FILE));
  const snapshot: Record<string, string | undefined> = {};
  for (const path of paths) snapshot[inputName(root, path)] = await fileHash(path);
  return snapshot;
}

/**
 * What this run read and wrote, for the next run to compare with. The schema is not among the inputs: its
 * bytes are in the key. The handlers file is recorded as this run left it.
 */
async function stampOf(
  root: string,
  config: ProjectConfig,
  output: ProjectOutput,
  key: string,
  handlersText: string,
): Promise<Stamp> {
  const inputs: Stamp["inputs"] = {};
  for (const path of [CONFIG_FILE, ...output.read]) {
    // A folder read (a skills folder and those in it) is recorded by its listing: a file added is noticed.
    const listing = await folderListing(resolve(root, path));
    inputs[inputName(root, path)] = listing ?? sha256(await readFile(resolve(root, path)));
  }
  inputs[inputName(root, config.handlers)] = sha256(handlersText);
  if (config.contract) {
    const listing = await folderListing(resolve(root, config.contract));
    if (listing) inputs[inputName(root, config.contract)] = listing;
  }
  const outputs: Stamp["outputs"] = {};
  for (const name of Object.keys(output.files).sort()) outputs[name] = sha256(output.files[name]!);
  return {
    key,
    inputs,
    outputs,
    warnings: output.warnings,
    compiled: { compiler: compilerVersion(), ...output.compiled },
  };
}

/** A relative ESM specifier from `fromDir` to `file`. */
function importPath(fromDir: string, file: string): string {
  const rel = relative(fromDir, file).replaceAll("\\", "/");
  return rel.startsWith(".") ? rel : `./${rel}`;
}
