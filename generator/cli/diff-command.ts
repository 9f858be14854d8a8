/**
 * `mcp-codegen diff` on the command line: its arguments, options and help. The command's code is imported only
 * when it runs, so that `--help`, `--version` and the other commands do not load it.
 */

import { type Command, Option } from "commander";
import type { DiffOptions } from "./diff.js";
import { CliError } from "./errors.js";
import type { Reporter } from "./report.js";

export function registerDiff(program: Command, reporter: () => Reporter): void {
  program
    .command("diff")
    .description(
      "what changed between two protocol versions: methods, definitions, properties, capabilities, error codes",
    )
    .argument("<from>", "the older protocol version, e.g. 2025-06-18")
    .argument("<to>", "the newer protocol version, e.g. 2025-11-25")
    .addOption(
      new Option("--format <format>", "output format").choices(["text", "markdown", "json"]).default("text"),
    )
    .option("--json", "same as --format json")
    .option("--allow-unpinned", "accept a schema whose sha256 differs from the pinned one")
    .addHelpText(
      "after",
      `
Lines start with + (added), - (removed) or ~ (changed). Properties are followed through inline objects;
a $ref is compared by name. Schemas come from the loader (MCP_SCHEMA_DIR, shared/mcp-schema, cache,
download), exactly as for generate.

Examples:
  $ mcp-codegen diff 2025-06-18 2025-11-25
  $ mcp-codegen diff 2025-11-25 2026-07-28 --format markdown > CHANGES.md
  $ mcp-codegen diff 2024-11-05 2025-03-26 --json | jq .summary`,
    )
    .action(async function (this: Command, from: string, to: string, opts: DiffOptions) {
      if (opts.json && this.getOptionValueSource("format") === "cli" && opts.format !== "json") {
        throw new CliError(`--json contradicts --format ${opts.format}`);
      }
      const { runDiff } = await import("./diff.js");
      process.exitCode = await runDiff(
        from,
        to,
        { ...opts, format: opts.json ? "json" : opts.format },
        reporter(),
      );
    });
}
