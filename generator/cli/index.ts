/**
 * The `mcp-codegen` command line. Only what every invocation needs is imported here: each command is
 * registered by its light `*-command.ts` (options and help) and imports its own code when it runs, so
 * `--version` and `--help` answer without loading the generator.
 */

import { realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Command, CommanderError } from "commander";
import { GENERATOR_VERSION } from "../util/version.js";
import { registerDev } from "./dev-command.js";
import { registerDiff } from "./diff-command.js";
import { EXIT } from "./errors.js";
import { registerGenerate } from "./generate-command.js";
import { registerInit } from "./init-command.js";
import { registerPull } from "./pull-command.js";
import { createReporter, terminal } from "./report.js";
import { registerSchema } from "./schema.js";
import { registerTest } from "./test-command.js";

/** The whole command line: every command with its options and help, none of their code loaded. */
export function createProgram(): Command {
  const program = new Command("mcp-codegen")
    .description("Generate strongly typed MCP servers and clients from the official MCP JSON Schema")
    .version(GENERATOR_VERSION)
    .option("-q, --quiet", "print errors only")
    .exitOverride()
    .configureOutput({ writeErr: (s) => process.stderr.write(s) });
  const reporter = () => createReporter({ quiet: program.opts<{ quiet?: boolean }>().quiet ?? false });
  registerInit(program, reporter);
  registerGenerate(program, reporter);
  registerDiff(program, reporter);
  registerSchema(program, reporter);
  registerPull(program, reporter);
  registerTest(program, reporter);
  registerDev(program, reporter);
  return program;
}

export async function main(argv: string[]): Promise<number> {
  const program = createProgram();
  try {
    await program.parseAsync(argv);
    return typeof process.exitCode === "number" ? process.exitCode : EXIT.ok;
  } catch (e) {
    if (e instanceof CommanderError) {
      // --help and --version exit through here with code 0.
      return e.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    const { isInputError } = await import("./input-errors.js");
    if (isInputError(e)) {
      process.stderr.write(`error: ${terminal(e.message)}\n`);
      return "exitCode" in e && typeof e.exitCode === "number" ? e.exitCode : EXIT.usage;
    }
    throw e;
  }
}

/** Runs the CLI and sets the exit code; an internal error (a bug, not bad input) is printed with its stack. */
export async function run(argv: string[]): Promise<void> {
  try {
    process.exitCode = await main(argv);
  } catch (e) {
    process.stderr.write(
      `mcp-codegen: internal error: ${terminal(e instanceof Error ? (e.stack ?? e.message) : String(e))}\n`,
    );
    process.exitCode = EXIT.failure;
  }
}

// Run directly (`tsx generator/cli/index.ts`); the published bin calls run() itself.
if (process.argv[1] && fileURLToPath(import.meta.url) === realpathSync(process.argv[1]))
  await run(process.argv);
