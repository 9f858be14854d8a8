/**
 * `mcp-codegen generate` on the command line: its arguments, options and help. The command's code is imported only
 * when it runs, so that `--help`, `--version` and the other commands do not load it.
 */

import type { Command } from "commander";
import { CONFIG_FILE } from "../project/project-config.js";
import type { GenerateOptions } from "./generate.js";
import type { Reporter } from "./report.js";

export function registerGenerate(program: Command, reporter: () => Reporter): void {
  program
    .command("generate")
    .description(
      `generate types, validators, method tables and typed peers from an MCP schema; in a project (${CONFIG_FILE} present) regenerate it, compile its contract into <output>/contract/ and update its handlers file`,
    )
    .option(
      "--all",
      "every protocol version in the registry, each into <out>/<version>/, and the pinned extension protocols (MCP Apps: <out>/ext-apps-<version>/, its schema from the installed @modelcontextprotocol/ext-apps) (this repository's generated/)",
    )
    .option("-p, --protocol <version>", "protocol version to generate (see `mcp-codegen schema list`)")
    .option("--schema <file|url>", "read the schema from this file or URL instead of the registry's")
    .option(
      "-o, --out <dir>",
      "output folder outside a project; each version goes to <out>/<version>/ (default: generated)",
    )
    .option("--check", "write nothing; exit 1 and name the files that differ from what generation yields")
    .option("--allow-unpinned", "accept a schema whose sha256 differs from the pinned one")
    .addHelpText(
      "after",
      `
Examples:
  $ mcp-codegen generate                        in a project: regenerate for its protocol, and its contract
                                                (tools, prompts, resources in JSON Schema, "contract" in
                                                ${CONFIG_FILE}); stubs for what the contract adds
  $ mcp-codegen generate --protocol 2025-11-25  in a project: move to 2025-11-25, keeping your handlers
  $ mcp-codegen generate --check                CI: exit 1 when generated code is stale
  $ mcp-codegen generate --all                  every version into generated/<version>/, MCP Apps too
  $ mcp-codegen generate -p 2025-06-18 -o out   one version into out/2025-06-18/`,
    )
    .action(async (opts: GenerateOptions) => {
      const { runGenerate } = await import("./generate.js");
      process.exitCode = await runGenerate(opts, reporter());
    });
}
