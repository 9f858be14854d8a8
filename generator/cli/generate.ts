/**
 * `mcp-codegen generate`. Outside a project: registry versions into `<out>/<version>/`
 * (`generate-versions.ts`). In a project: `generateProject`, which first compares the project with the
 * stamp its last run left (`../stamp.ts`) and loads the generator only for what changed
 * (`regenerate-project.ts`). This module loads nothing heavy.
 */

import { join, resolve } from "node:path";
import { getVersion } from "../../schema/registry.js";
import {
  fileHash,
  generatorFingerprint,
  inputName,
  inputsUnchanged,
  keyOf,
  outputsUnchanged,
  readStamp,
  type Stamp,
  strayOutputs,
} from "../output/stamp.js";
import { CONFIG_FILE, type ProjectConfig, readConfig } from "../project/project-config.js";
import { CliError, EXIT } from "./errors.js";
import { createReporter, type Reporter } from "./report.js";

export interface GenerateOptions {
  all?: boolean;
  protocol?: string;
  schema?: string;
  out?: string;
  check?: boolean;
  allowUnpinned?: boolean;
}

/** What a project's generation may be asked: a protocol to move to, a schema in place of the registry's. */
export type ProjectOptions = Pick<GenerateOptions, "protocol" | "schema" | "allowUnpinned">;

export interface ProjectGeneration {
  /** Nothing had changed since the last run: nothing was loaded, read beyond hashes, or written. */
  upToDate: boolean;
  /** Absolute paths of the files written or removed: generated files, the handlers file, mcp-codegen.json. */
  changed: string[];
}

/** Which parts of a project are as its stamp recorded them (each implies the ones above it). */
export interface Freshness {
  stamp?: Stamp;
  /** The stamp's key: undefined when the inputs cannot be pinned down (a schema at a URL, --allow-unpinned). */
  key?: string;
  /** The protocol files (everything but contract/) are what this generator, version and schema give. */
  protocol: boolean;
  /** So are the contract's files, and mcp-codegen.json and every contract file are unchanged. */
  contract: boolean;
  /** And the handlers file is as the last run left it, with no stray generated file: nothing to do. */
  all: boolean;
}

export async function runGenerate(opts: GenerateOptions, report: Reporter): Promise<number> {
  if (opts.all && (opts.protocol || opts.schema)) {
    throw new CliError("--all cannot be combined with --protocol or --schema");
  }
  const root = process.cwd();
  const config = opts.all || opts.out ? undefined : await readConfig(root);
  if (!config) {
    const { runVersions } = await import("./generate-versions.js");
    return runVersions(opts, report);
  }
  if (opts.check) {
    const { checkProject } = await import("./regenerate-project.js");
    return checkProject(root, config, opts, report);
  }
  await generateProject(root, opts, report, config);
  return EXIT.ok;
}

/**
 * Regenerates the project in `root` (its `mcp-codegen.json`): the protocol's files and the contract's into
 * its output folder, stubs and marks in its handlers file, and, with `protocol`, the move to that version.
 * When nothing changed since the last run, answers from hashes alone. Bad input throws (CliError,
 * ContractError, ProjectError, SchemaSourceError) and leaves the project as it was.
 */
export async function generateProject(
  root: string,
  opts: ProjectOptions = {},
  report: Reporter = createReporter({ quiet: true }),
  config?: ProjectConfig,
): Promise<ProjectGeneration> {
  const started = performance.now();
  const project = config ?? (await readConfig(root));
  if (!project) throw new CliError(`no ${CONFIG_FILE} in ${root}`);
  const fresh = await freshness(root, project, opts);
  if (fresh.all) {
    for (const warning of fresh.stamp!.warnings) report.notice(warning);
    report.info("nothing to change");
    report.info(`done in ${Math.round(performance.now() - started)} ms`);
    return { upToDate: true, changed: [] };
  }
  const { regenerateProject } = await import("./regenerate-project.js");
  return regenerateProject(root, project, opts, report, fresh, started);
}

/** How much of the project is current, from its stamp and the hashes of what the stamp names. */
export async function freshness(
  root: string,
  config: ProjectConfig,
  opts: ProjectOptions,
): Promise<Freshness> {
  const stale: Freshness = { protocol: false, contract: false, all: false };
  const target = opts.protocol ?? config.protocol;
  const schema = opts.schema ?? config.schema ?? undefined;
  let schemaId: string | undefined;
  if (opts.allowUnpinned) schemaId = undefined;
  else if (schema === undefined) schemaId = getVersion(target)?.sha256;
  else if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(schema)) {
    const hash = await fileHash(resolve(root, schema));
    schemaId = hash && `file:${hash}`;
  }
  if (schemaId === undefined) return stale;
  const key = keyOf(generatorFingerprint(), target, schemaId);
  const outDir = join(root, config.output);
  const stamp = await readStamp(outDir);
  if (!stamp || stamp.key !== key) return { ...stale, key };
  const isContract = (name: string) => name.startsWith("contract/");
  const protocol = await outputsUnchanged(outDir, stamp.outputs, (name) => !isContract(name));
  const handlers = inputName(root, config.handlers);
  const { [handlers]: handlersHash, ...contractInputs } = stamp.inputs;
  const contract =
    protocol &&
    target === config.protocol &&
    (await inputsUnchanged(root, contractInputs)) &&
    (await outputsUnchanged(outDir, stamp.outputs, isContract));
  const all =
    contract &&
    handlersHash !== undefined &&
    (await inputsUnchanged(root, { [handlers]: handlersHash })) &&
    !(await strayOutputs(outDir, stamp.outputs));
  return { stamp, key, protocol, contract, all };
}
