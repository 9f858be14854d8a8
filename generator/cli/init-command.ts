/**
 * `mcp-codegen init` on the command line: its arguments, options and help. The command's code is imported only
 * when it runs, so that `--help`, `--version` and the other commands do not load it.
 */

import type { Command } from "commander";
import { defaultVersion } from "../../schema/registry.js";
import { CONFIG_FILE } from "../project/project-config.js";
import type { InitOptions } from "./init.js";
import type { Reporter } from "./report.js";

export function registerInit(program: Command, reporter: () => Reporter): void {
  program
    .command("init")
    .argument("[dir]", "folder to create the project in", ".")
    .description("scaffold a ready-to-run TypeScript MCP server (or, with --client, a client)")
    .option("-p, --protocol <version>", `protocol version (default: ${defaultVersion})`)
    .option("--transport <kind>", "stdio, http or both", "stdio")
    .option("--name <name>", "package and server name (default: the folder's name)")
    .option("--client", "scaffold a typed client instead of a server")
    .option(
      "--force",
      "write into a folder that is not empty (or holds a project); a file of yours that would change is backed up first",
    )
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
  $ mcp-codegen init my-server --from-tarballs ..    after \`npm pack\` of both packages in a clone

A folder that is not empty is refused, and so is a project (one holding ${CONFIG_FILE}: run
\`mcp-codegen generate\` there instead). With --force, init writes into it but never replaces a file of
yours silently: each one whose content would change is first copied to <file>.bak (<file>.bak.1, … when
that is taken) and each backup is printed, even with -q. A package.json of yours is merged with the
scaffold's rather than replaced: your scripts and dependencies stay, the scaffold's dependencies are added
or set to its ranges, and what changed is printed. Files under generated/ are the generator's and are
rewritten; other files are left alone.`,
    )
    .action(async (dir: string, opts: InitOptions) => {
      const { runInit } = await import("./init.js");
      process.exitCode = await runInit(dir, opts, reporter());
    });
}
