/**
 * `mcp-codegen pull` on the command line: its arguments, options and help. The command's code is imported only
 * when it runs, so that `--help`, `--version` and the other commands do not load it.
 */

import { type Command, Option } from "commander";
import type { PullOptions } from "./pull.js";
import type { Reporter } from "./report.js";

const collect = (value: string, previous: string[]) => [...previous, value];

export function registerPull(program: Command, reporter: () => Reporter): void {
  program
    .command("pull")
    .description("lock a live server's tools, prompts and resources, and generate a typed client for them")
    .argument(
      "[target...]",
      "the server's URL (Streamable HTTP, or legacy SSE), or after -- the command that starts it (stdio)",
    )
    .option(
      "--name <name>",
      "file name of the lock and the client folder (default: the server's name, file-safe)",
    )
    .option("-o, --out <dir>", "where to write <name>.lock.json and <name>/", ".")
    .option(
      "-H, --header <header>",
      'an HTTP header sent with every request, "Name: value" (repeatable)',
      collect,
      [],
    )
    .option("--bearer <token>", "HTTP: Authorization: Bearer <token> (default: $MCP_BEARER_TOKEN)")
    .option(
      "--token-store <file>",
      "HTTP: the file keeping OAuth logins, mode 0600 (default: $MCP_CODEGEN_TOKEN_FILE, else mcp-codegen/tokens.json in $XDG_CONFIG_HOME or ~/.config)",
    )
    .option("--login-timeout <seconds>", "HTTP: how long to wait for the browser to finish a login", "300")
    .option("--open", "HTTP: also open the login URL in a browser (it is always printed)")
    .option(
      "--no-login",
      "HTTP: fail instead of starting a login (a stored token is still used and refreshed)",
    )
    .option(
      "--no-resources",
      "leave the fixed resources out of the lock and the client (for a server whose resources are its changing data; templates stay)",
    )
    .option("--check", "compare the live server with the lock; write nothing; exit 1 on a breaking change")
    .option("--lock <file>", "the lock --check compares with (default: <out>/<name>.lock.json)")
    .addOption(new Option("--format <format>", "output of --check").choices(["text", "json"]).default("text"))
    .option("--timeout <ms>", "how long each request may take", "30000")
    .addHelpText(
      "after",
      `
Connects as a client (protocol 2026-07-28; older servers get the initialize handshake, negotiated
down to what they speak), lists tools, prompts,
resources and resource templates following every page, and writes
  <out>/<name>.lock.json   each definition in canonical form with its sha256, and an overall sha256
  <out>/<name>/            types.ts, validators.ts, client.ts: bindClient(client) gives a typed method
                           per tool, prompt, resource and resource template
A schema using a keyword the generator cannot check is typed loosely for that tool, with a warning.
With --no-resources the lock records it ("without": ["resources"]) and --check leaves resources out too.
Tokens (--bearer, -H, a login's) are sent, never printed, never put in the lock or the client.

A server that answers 401 (OAuth 2.1, when no --bearer or Authorization header is given) gets a login:
pull registers as "mcp-codegen" (Dynamic Client Registration), prints "Open this URL to log in: …" on
stderr and waits (--login-timeout) for the browser to come back to http://127.0.0.1:<random port>/callback.
The registration and the tokens go to the token store (created 0600), never to the lock, the client,
stdout or a message; the next pull and pull --check reuse them, refreshing an expired token. --check,
--no-login and CI (the CI environment variable) never start a login: they fail, exit 2, saying to run pull
in a terminal first. A login that times out, or a redirect with another login's state, exits 2.

--check exits 0 when nothing breaking changed (compatible changes are listed), 1 when something did
(a removed tool, a new required argument, a narrowed type, an incompatible output), 2 when the server
cannot be reached, needs a login, or the lock cannot be read.

Examples:
  $ mcp-codegen pull http://127.0.0.1:3000/mcp --out src/servers
  $ MCP_BEARER_TOKEN=… mcp-codegen pull https://example.com/mcp --name weather
  $ mcp-codegen pull https://mcp.example.com/mcp --open        # logs in when the server asks
  $ mcp-codegen pull --check https://mcp.example.com/mcp       # reuses that login
  $ mcp-codegen pull --name memory -- npx -y @modelcontextprotocol/server-memory
  $ mcp-codegen pull --check --out src/servers -- node dist/server.js --stdio
  $ mcp-codegen pull --check --format json http://127.0.0.1:3000/mcp`,
    )
    .action(async (target: string[], opts: PullOptions) => {
      const { runPull } = await import("./pull.js");
      process.exitCode = await runPull(target, opts, reporter());
    });
}
