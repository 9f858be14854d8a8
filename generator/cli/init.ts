import { existsSync } from "node:fs";
import { readdir, readFile, stat } from "node:fs/promises";
import { basename, join, relative, resolve, sep } from "node:path";
import { PACKAGE_ROOT, PACKAGE_VERSION } from "../../schema/package.js";
import { defaultVersion, getVersion, listVersions } from "../../schema/registry.js";
import { emitContract } from "../contract/emit.js";
import { loadContractText } from "../contract/load.js";
import { writeFileAtomic } from "../output/write.js";
import { backupFile } from "../project/backup.js";
import { mergePackageJson, type PackageMerge } from "../project/package-merge.js";
import { CONFIG_FILE, type ProjectConfig, scaffold } from "../project/project.js";
import { counted } from "./counted.js";
import { CliError, EXIT } from "./errors.js";
import { generateVersion } from "./generate-versions.js";
import type { Reporter } from "./report.js";

export interface InitOptions {
  protocol?: string;
  transport: string;
  name?: string;
  client?: boolean;
  force?: boolean;
  fromTarballs?: string;
}

export async function runInit(dirArg: string, opts: InitOptions, report: Reporter): Promise<number> {
  const started = performance.now();
  const dir = resolve(dirArg);
  const protocol = opts.protocol ?? defaultVersion;
  const entry = getVersion(protocol);
  if (!entry)
    throw new CliError(
      `unknown protocol version "${protocol}"; known versions: ${listVersions().join(", ")}`,
    );
  if (!["stdio", "http", "both"].includes(opts.transport)) {
    throw new CliError(`--transport must be stdio, http or both (got "${opts.transport}")`);
  }
  if (opts.client && opts.transport !== "stdio") {
    throw new CliError("--client scaffolds a stdio client; --transport applies to servers");
  }
  const existing = await readdir(dir).catch((e: NodeJS.ErrnoException) => {
    if (e.code === "ENOENT") return [] as string[];
    throw new CliError(`${dir}: cannot read the folder (${e.code})`);
  });
  if (existing.includes(CONFIG_FILE) && !opts.force) {
    throw new CliError(
      `${dir} already holds an mcp-codegen project (${CONFIG_FILE}): run \`mcp-codegen generate\` there to regenerate it, or \`mcp-codegen generate --protocol <version>\` to move it to another version; --force scaffolds over it, backing up each file of yours it would change`,
    );
  }
  if (existing.length > 0 && !opts.force) {
    throw new CliError(`${dir} is not empty; choose an empty folder or pass --force`);
  }
  const name = opts.name ?? basename(dir);
  if (!/^(?:@[a-z0-9-~][a-z0-9-._~]*\/)?[a-z0-9-~][a-z0-9-._~]*$/.test(name)) {
    throw new CliError(`"${name}" is not a valid npm package name; pass --name`);
  }
  const config: ProjectConfig = {
    kind: opts.client ? "client" : "server",
    protocol,
    output: "generated",
    handlers: "src/handlers.ts",
    schema: null,
    ...(opts.client ? {} : { contract: "contract.yaml" }),
  };
  const step = report.step(`generating protocol ${protocol}`);
  const generated = await generateVersion({ version: protocol });
  step.done(`generated ${counted(Object.keys(generated.files).length, "file")} for protocol ${protocol}`);
  const files = {
    ...scaffold(
      config,
      name,
      await dependencyRanges(opts.fromTarballs),
      opts.transport as "stdio" | "http" | "both",
    ),
  };
  for (const [file, text] of Object.entries(generated.files)) files[join(config.output, file)] = text;
  if (config.contract) {
    // The scaffold's own contract, compiled as `generate` will compile it.
    const contract = await loadContractText(files[config.contract]!, config.contract);
    const emitted = await emitContract(contract, { protocolVersion: protocol });
    for (const [file, text] of Object.entries(emitted)) files[join(config.output, "contract", file)] = text;
  }
  // A package.json of the user's gets ours merged in: their scripts and dependencies stay.
  const merge = await mergeUserPackage(join(dir, "package.json"), files["package.json"]!);
  if (merge) files["package.json"] = merge.text;
  // Every path is checked before the first write: a folder where a file goes leaves everything as it was.
  const plan = await planWrites(dir, files, config.output);
  let backedUp = 0;
  for (const { file, action } of plan) {
    if (action === "same") continue;
    if (action === "backup") {
      const backup = await backupFile(join(dir, file));
      report.notice(`backed up ${file} to ${relative(dir, backup).split(sep).join("/")}`);
      backedUp++;
    }
    await writeFileAtomic(join(dir, file), files[file]!);
    if (file === "package.json" && merge)
      report.notice(`merged the scaffold's package.json into yours: ${merge.changes.join("; ")}`);
  }
  report.info(
    `created ${config.kind} project ${name} in ${dir} (${counted(plan.length, "file")}${backedUp > 0 ? `, ${backedUp} backed up` : ""}, ${Math.round(performance.now() - started)} ms)`,
  );
  report.info(
    config.kind === "server"
      ? `next: cd ${dirArg} && npm install && npm run build && npm start`
      : `next: cd ${dirArg} && npm install && npm run build && npm start -- <server command>`,
  );
  return EXIT.ok;
}

/** The user's package.json at `path` with `ours` merged in, or undefined where there is none to merge into. */
async function mergeUserPackage(path: string, ours: string): Promise<PackageMerge | undefined> {
  const theirs = await readFile(path, "utf8").catch(() => undefined);
  return theirs === undefined ? undefined : mergePackageJson(theirs, ours);
}

interface PlannedWrite {
  file: string;
  /** `write`: new; `same`: already this content; `overwrite`: ours (under the output folder); `backup`: the user's. */
  action: "write" | "same" | "overwrite" | "backup";
}

/**
 * What writing `files` into `dir` does to each path, sorted by path; a usage error naming every path
 * where something other than a file stands (a folder, or a file where a folder must go).
 */
async function planWrites(
  dir: string,
  files: Record<string, string>,
  output: string,
): Promise<PlannedWrite[]> {
  const plan: PlannedWrite[] = [];
  const blocked: string[] = [];
  for (const file of Object.keys(files).sort()) {
    const path = join(dir, file);
    const info = await stat(path).catch((e: NodeJS.ErrnoException) => {
      if (e.code === "ENOENT") return undefined;
      if (e.code === "ENOTDIR") return "not a folder" as const;
      throw new CliError(`${path}: cannot read (${e.code ?? e.message})`);
    });
    if (info === undefined) plan.push({ file, action: "write" });
    else if (info === "not a folder") blocked.push(`${file} (a file stands where a folder must go)`);
    else if (!info.isFile()) blocked.push(`${file} (exists and is not a file)`);
    else if ((await readFile(path, "utf8")) === files[file]) plan.push({ file, action: "same" });
    else
      plan.push({
        file,
        action: file.replaceAll("\\", "/").startsWith(`${output}/`) ? "overwrite" : "backup",
      });
  }
  if (blocked.length > 0)
    throw new CliError(`cannot write the project into ${dir}: ${blocked.join(", ")}; move these away first`);
  return plan;
}

/**
 * `file:` specs of the packed tarballs in `dir` (`npm pack` of this package and of the runtime), or a
 * usage error naming what is missing.
 */
function tarballSpecs(dir: string): { codegen: string; runtime: string } {
  const folder = resolve(dir);
  const want = {
    codegen: `mcp-codegen-${PACKAGE_VERSION}.tgz`,
    runtime: `mcp-codegen-runtime-${PACKAGE_VERSION}.tgz`,
  };
  const missing = Object.values(want).filter((f) => !existsSync(join(folder, f)));
  if (missing.length > 0)
    throw new CliError(
      `--from-tarballs ${dir}: ${missing.join(" and ")} not found there; run \`npm pack\` and \`npm pack -w @mcp-codegen/runtime\` in a clone of mcp-codegen first`,
    );
  return { codegen: `file:${join(folder, want.codegen)}`, runtime: `file:${join(folder, want.runtime)}` };
}

/** The dependency ranges this package was built with, so a new project gets what was tested. */
async function dependencyRanges(fromTarballs?: string) {
  const local = fromTarballs === undefined ? undefined : tarballSpecs(fromTarballs);
  const pkg = JSON.parse(await readFile(join(PACKAGE_ROOT, "package.json"), "utf8")) as {
    dependencies: Record<string, string>;
    devDependencies: Record<string, string>;
  };
  return {
    codegenRange: local?.codegen ?? `^${PACKAGE_VERSION}`,
    runtimeRange: local?.runtime ?? pkg.dependencies["@mcp-codegen/runtime"] ?? `^${PACKAGE_VERSION}`,
    zodRange: pkg.devDependencies.zod ?? "^4",
    typescriptRange: pkg.devDependencies.typescript ?? "^5.9",
    typesNodeRange: pkg.devDependencies["@types/node"] ?? "^22",
    esbuildRange: pkg.devDependencies.esbuild ?? "^0.28",
    tsxRange: pkg.devDependencies.tsx ?? "^4",
  };
}
