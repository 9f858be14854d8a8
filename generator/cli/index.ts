#!/usr/bin/env node
import { Command, CommanderError } from "commander";
import { GENERATOR_VERSION } from "../version.js";
import { EXIT, isInputError } from "./errors.js";
import { registerGenerate } from "./generate.js";
import { createReporter } from "./report.js";

export async function main(argv: string[]): Promise<number> {
  const program = new Command("mcp-codegen")
    .description("Generate strongly typed MCP servers and clients from the official MCP JSON Schema")
    .version(GENERATOR_VERSION)
    .option("-q, --quiet", "print errors only")
    .exitOverride()
    .configureOutput({ writeErr: (s) => process.stderr.write(s) });
  const reporter = () => createReporter({ quiet: program.opts<{ quiet?: boolean }>().quiet ?? false });
  registerGenerate(program, reporter);
  try {
    await program.parseAsync(argv);
    return typeof process.exitCode === "number" ? process.exitCode : EXIT.ok;
  } catch (e) {
    if (e instanceof CommanderError) {
      // --help and --version exit through here with code 0.
      return e.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    if (isInputError(e)) {
      process.stderr.write(`error: ${e.message}\n`);
      return "exitCode" in e && typeof e.exitCode === "number" ? e.exitCode : EXIT.usage;
    }
    throw e;
  }
}

const invoked =
  process.argv[1] &&
  import.meta.url.endsWith(process.argv[1].replace(/\\/g, "/").split("/").slice(-3).join("/"));
if (invoked) {
  main(process.argv).then(
    (code) => {
      process.exitCode = code;
    },
    (e: unknown) => {
      process.stderr.write(
        `mcp-codegen: internal error: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`,
      );
      process.exitCode = EXIT.failure;
    },
  );
}
