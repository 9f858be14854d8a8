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
import { CONFIG_FILE, type ProjectConfig, type ScaffoldAuth, scaffold } from "../project/project.js";
import { counted } from "./counted.js";
import { CliError, EXIT } from "./errors.js";
import { generateVersion } from "./generate-versions.js";
import type { Reporter } from "./report.js";

export interface InitOptions {
  protocol?: string;
  transport: string;
  name?: string;
  client?: boolean;
  /** Scaffold a server whose tool has an interactive UI (MCP Apps). */
  app?: boolean;
  force?: boolean;
  fromTarballs?: string;
  /** Scaffold an OAuth-protected HTTP server; the other auth options are its defaults. */
  auth?: boolean;
  issuer?: string;
  resource?: string;
  /** The same as `resource`: tokens' audience is the server's resource URL. */
  audience?: string;
  jwksUri?: string;
}

/**
 * `jose` for a protected scaffold's test: the range the runtime depends on (the runtime's package.json
 * is not in this package; test/cli/init-auth.test.ts checks the two agree).
 */
export const JOSE_RANGE = "^6.2.18";

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
  if (opts.app && opts.client)
    throw new CliError(
      "--app scaffolds a server whose tool has an interactive UI; a client does not take it (a host renders a server's UI with the runtime client's toolUi and readUi: see the README)",
    );
  const auth = authOptions(opts);
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
      auth,
      opts.app === true,
    ),
  };
  for (const [file, text] of Object.entries(generated.files)) files[join(config.output, file)] = text;
  if (config.contract) {
    // The scaffold's own contract, compiled as `generate` will compile it, beside the files it names
    // (an app's ui/ view).
    const beside = Object.entries(files).filter(([file]) => !file.startsWith(`${config.output}/`));
    const contract = await loadContractText(
      files[config.contract]!,
      config.contract,
      Object.fromEntries(beside),
    );
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
    config.kind === "client"
      ? `next: cd ${dirArg} && npm install && npm run build && npm start -- <server command>`
      : auth
        ? `next: cd ${dirArg} && npm install && npm run build && ${authNext(auth, opts.transport)}`
        : `next: cd ${dirArg} && npm install && npm run build && npm start`,
  );
  return EXIT.ok;
}

/** The start command of a protected scaffold, with the settings init was not given. */
function authNext(auth: ScaffoldAuth, transport: string): string {
  const env = [
    ...(auth.issuer ? [] : ["MCP_AUTH_ISSUER=<issuer URL>"]),
    ...(auth.resource ? [] : ["MCP_AUTH_RESOURCE=<this server's URL, e.g. http://127.0.0.1:3000/mcp>"]),
  ];
  return [...env, transport === "both" ? "npm start -- --http" : "npm start"].join(" ");
}

/** What `--auth` and its flags ask for, checked: undefined without --auth; usage errors for misuse. */
function authOptions(opts: InitOptions): ScaffoldAuth | undefined {
  const given = (
    [
      ["--issuer", opts.issuer],
      ["--resource", opts.resource],
      ["--audience", opts.audience],
      ["--jwks-uri", opts.jwksUri],
    ] as const
  ).filter(([, value]) => value !== undefined);
  if (!opts.auth) {
    if (given.length > 0)
      throw new CliError(
        `${given.map(([flag]) => flag).join(", ")} ${given.length === 1 ? "applies" : "apply"} only with --auth`,
      );
    return undefined;
  }
  if (opts.client) throw new CliError("--auth protects a server; a client does not take it");
  if (opts.transport === "stdio") {
    throw new CliError(
      "--auth protects an HTTP server (OAuth is for HTTP; a stdio server takes its credentials from the environment): add --transport http, or --transport both",
    );
  }
  if (opts.resource !== undefined && opts.audience !== undefined && opts.resource !== opts.audience) {
    throw new CliError(
      "--resource and --audience name the same thing (the server's URL, the audience its tokens must name): give one",
    );
  }
  for (const [flag, value] of given) checkAuthUrl(flag, value!);
  const resource = opts.resource ?? opts.audience;
  return {
    ...(opts.issuer === undefined ? {} : { issuer: opts.issuer }),
    ...(resource === undefined ? {} : { resource }),
    ...(opts.jwksUri === undefined ? {} : { jwksUri: opts.jwksUri }),
  };
}

/** A usage error unless `value` is an https URL (http only on a loopback host), without a fragment. */
function checkAuthUrl(flag: string, value: string): void {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new CliError(`${flag} must be a URL (got ${JSON.stringify(value)})`);
  }
  const loopback = ["127.0.0.1", "[::1]", "localhost"].includes(url.hostname);
  if (url.protocol !== "https:" && !(url.protocol === "http:" && loopback))
    throw new CliError(
      `${flag} must be an https URL (http only on 127.0.0.1, [::1] or localhost; got ${JSON.stringify(value)})`,
    );
  if (url.hash !== "") throw new CliError(`${flag} must not have a #fragment (got ${JSON.stringify(value)})`);
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
 * `file:` specs of the packed tarballs in `dir` (`npm pack` of this package and of the runtime; of the
 * Redis package when there, else its registry range), or a usage error naming what is missing.
 */
function tarballSpecs(dir: string): { codegen: string; runtime: string; redis?: string } {
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
  const redis = `mcp-codegen-redis-${PACKAGE_VERSION}.tgz`;
  return {
    codegen: `file:${join(folder, want.codegen)}`,
    runtime: `file:${join(folder, want.runtime)}`,
    ...(existsSync(join(folder, redis)) ? { redis: `file:${join(folder, redis)}` } : {}),
  };
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
    joseRange: JOSE_RANGE,
    redisPackageRange: local?.redis ?? PACKAGE_VERSION,
    redisRange: pkg.devDependencies.redis ?? "^6.3",
  };
}
