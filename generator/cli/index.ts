import { realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Command, CommanderError } from "commander";
import { GENERATOR_VERSION } from "../version.js";
import { registerDiff } from "./diff.js";
import { EXIT, isInputError } from "./errors.js";
import { registerGenerate } from "./generate.js";
import { registerInit } from "./init.js";
import { registerPull } from "./pull.js";
import { createReporter, terminal } from "./report.js";
import { registerSchema } from "./schema.js";
import { registerTest } from "./test.js";

export async function main(argv: string[]): Promise<number> {
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
  program
    .command("dev")
    .description(
      "run a server project and keep it current: on each edit regenerate the contract, type-check, rebuild and restart (errors shown, the last good server kept)",
    )
    .option("--entry <file>", "the server's entry", "src/main.ts")
    .option("--port <n>", "HTTP: the public port dev keeps up across restarts (default: PORT or 3000)")
    .option("--transport <kind>", "http or stdio (default: http when the entry calls serveHttp)")
    .option(
      "--inspector",
      "stdio: start the MCP Inspector on the server (npx @modelcontextprotocol/inspector)",
    )
    .addHelpText(
      "after",
      `
Examples:
  $ mcp-codegen dev                  in a server project (its \`npm run dev\`)
  $ mcp-codegen dev --port 8080      HTTP: the address clients keep using
  $ mcp-codegen dev --inspector      stdio: and the MCP Inspector on the server

Over HTTP, dev listens on 127.0.0.1:<port> and forwards to the server, which it runs on an internal port;
a new server starts beside the old one and takes over once it listens, so a client's session ends (404,
and the client opens a new one) but its connection is never refused. Over stdio, dev prints the command
that attaches the MCP Inspector to the server's bundle (dist/dev/server/main.js); restart the server in
the Inspector after an edit. A contract that does not compile or code that does not type-check is
reported as file:line:col and never replaces the running server.`,
    )
    .action(async (opts) => {
      const { runDev } = await import("./dev.js");
      process.exitCode = await runDev(opts, reporter());
    });
  try {
    await program.parseAsync(argv);
    return typeof process.exitCode === "number" ? process.exitCode : EXIT.ok;
  } catch (e) {
    if (e instanceof CommanderError) {
      // --help and --version exit through here with code 0.
      return e.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
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
