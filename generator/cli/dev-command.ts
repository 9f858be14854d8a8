/**
 * `mcp-codegen dev` on the command line: its options and help. The command's code (watchers, the proxy,
 * the type check) is imported only when it runs.
 */

import type { Command } from "commander";
import type { Reporter } from "./report.js";

export function registerDev(program: Command, reporter: () => Reporter): void {
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
    .option(
      "--allow-inspector",
      "HTTP: let the MCP Inspector's web UI (http://localhost:6274, http://127.0.0.1:6274) call the server from the browser (CORS)",
    )
    .addHelpText(
      "after",
      `
Examples:
  $ mcp-codegen dev                  in a server project (its \`npm run dev\`)
  $ mcp-codegen dev --port 8080      HTTP: the address clients keep using
  $ mcp-codegen dev --inspector      stdio: and the MCP Inspector on the server
  $ mcp-codegen dev --allow-inspector   HTTP: the Inspector's web UI may connect to it directly

Over HTTP, dev listens on 127.0.0.1:<port> and forwards to the server, which it runs on an internal port;
a new server starts beside the old one and takes over once it listens, so a client's session ends (404,
and the client opens a new one) but its connection is never refused. Over stdio, dev prints the command
that attaches the MCP Inspector to the server's bundle (dist/dev/server/main.js); restart the server in
the Inspector after an edit. A contract that does not compile or code that does not type-check is
reported as file:line:col and never replaces the running server.

A browser page on another origin may call the server only when the server allows that origin (CORS):
the scaffold's entry allows the origins listed in MCP_CORS_ORIGINS (comma-separated), and
--allow-inspector adds the Inspector's two to what dev passes to the server.`,
    )
    .action(async (opts) => {
      const { runDev } = await import("./dev.js");
      process.exitCode = await runDev(opts, reporter());
    });
}
