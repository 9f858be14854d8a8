import { readdir, readFile } from "node:fs/promises";
import { basename, join, resolve } from "node:path";
import type { Command } from "commander";
import { PACKAGE_ROOT, PACKAGE_VERSION } from "../../schema/package.js";
import { defaultVersion, getVersion, listVersions } from "../../schema/registry.js";
import { type ProjectConfig, scaffold } from "../project.js";
import { writeFileAtomic } from "../write.js";
import { CliError, EXIT } from "./errors.js";
import { generateVersion } from "./generate.js";
import type { Reporter } from "./report.js";

export interface InitOptions {
  protocol?: string;
  transport: string;
  name?: string;
  client?: boolean;
  force?: boolean;
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
    .addHelpText(
      "after",
      `
Examples:
  $ mcp-codegen init my-server                       a stdio server for ${defaultVersion}
  $ mcp-codegen init my-server --protocol 2025-06-18
  $ mcp-codegen init my-client --client`,
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
  };
  const step = report.step(`generating protocol ${protocol}`);
  const generated = await generateVersion({ version: protocol });
  step.done(`generated ${Object.keys(generated.files).length} files for protocol ${protocol}`);
  const files = {
    ...scaffold(config, name, await dependencyRanges(), opts.transport as "stdio" | "http" | "both"),
  };
  for (const [file, text] of Object.entries(generated.files)) files[join(config.output, file)] = text;
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

/** The dependency ranges this package was built with, so a new project gets what was tested. */
async function dependencyRanges() {
  const pkg = JSON.parse(await readFile(join(PACKAGE_ROOT, "package.json"), "utf8")) as {
    dependencies: Record<string, string>;
    devDependencies: Record<string, string>;
  };
  return {
    codegenRange: `^${PACKAGE_VERSION}`,
    zodRange: pkg.dependencies.zod ?? "^4",
    typescriptRange: pkg.devDependencies.typescript ?? "^5.9",
    typesNodeRange: pkg.devDependencies["@types/node"] ?? "^22",
    esbuildRange: pkg.devDependencies.esbuild ?? "^0.28",
  };
}
