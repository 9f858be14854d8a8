import { existsSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { basename, join, resolve } from "node:path";
import type { Command } from "commander";
import { PACKAGE_ROOT, PACKAGE_VERSION } from "../../schema/package.js";
import { defaultVersion, getVersion, listVersions } from "../../schema/registry.js";
import { emitContract } from "../contract/emit.js";
import { loadContractText } from "../contract/load.js";
import { type ProjectConfig, scaffold } from "../project.js";
import { writeFileAtomic } from "../write.js";
import { CliError, EXIT } from "./errors.js";
import { generateVersion, protocolErrorVersions } from "./generate.js";
import type { Reporter } from "./report.js";

export interface InitOptions {
  protocol?: string;
  transport: string;
  name?: string;
  client?: boolean;
  force?: boolean;
  fromTarballs?: string;
}

export function registerInit(program: Command, reporter: () => Reporter): void {
  program
    .command("init")
    .argument("[dir]", "folder to create the project in", ".")
    .description("scaffold a ready-to-run TypeScript MCP server (or, with --client, a client)")
    .option("-p, --protocol <version>", `protocol version (default: ${defaultVersion})`)
    .option("--transport <kind>", "stdio, http or both", "stdio")
    .option("--name <name>", "package and server name (default: the folder's name)")
    .option("--client", "scaffold a typed client instead of a server")
    .option("--force", "write into a folder that is not empty")
    .option(
      "--from-tarballs <dir>",
      "depend on the packed mcp-codegen-<version>.tgz and mcp-codegen-runtime-<version>.tgz in <dir> (file: specs) instead of the registry: to try a clone before the packages are published",
    )
    .addHelpText(
      "after",
      `
Examples:
  $ mcp-codegen init my-server                       a stdio server for ${defaultVersion}
  $ mcp-codegen init my-server --protocol 2025-06-18
  $ mcp-codegen init my-client --client
  $ mcp-codegen init my-server --from-tarballs ..    after \`npm pack\` of both packages in a clone`,
    )
    .action(async (dir: string, opts: InitOptions) => {
      process.exitCode = await runInit(dir, opts, reporter());
    });
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
  step.done(`generated ${Object.keys(generated.files).length} files for protocol ${protocol}`);
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
    const emitted = await emitContract(contract, {
      protocolVersion: protocol,
      protocolErrorVersions: protocolErrorVersions(),
    });
    for (const [file, text] of Object.entries(emitted)) files[join(config.output, "contract", file)] = text;
  }
  for (const [file, text] of Object.entries(files).sort()) await writeFileAtomic(join(dir, file), text);
  report.info(
    `created ${config.kind} project ${name} in ${dir} (${Object.keys(files).length} files, ${Math.round(performance.now() - started)} ms)`,
  );
  report.info(
    config.kind === "server"
      ? `next: cd ${dirArg} && npm install && npm run build && npm start`
      : `next: cd ${dirArg} && npm install && npm run build && npm start -- <server command>`,
  );
  return EXIT.ok;
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
  };
}
