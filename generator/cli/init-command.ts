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
    .description(
      "scaffold a ready-to-run TypeScript MCP server (with --app, one whose tool has an interactive UI; with --client, a client)",
    )
    .option("-p, --protocol <version>", `protocol version (default: ${defaultVersion})`)
    .option("--transport <kind>", "stdio, http or both", "stdio")
    .option("--name <name>", "package and server name (default: the folder's name)")
    .option("--client", "scaffold a typed client instead of a server")
    .option(
      "--app",
      "scaffold a server whose tool has an interactive UI (MCP Apps): an HTML view, typed by the contract, built into the file the contract's ui: names",
    )
    .option(
      "--auth",
      "scaffold an OAuth 2.1 protected HTTP server (needs --transport http or both): JWT access tokens checked against the issuer's keys, scopes in the contract",
    )
    .option(
      "--issuer <url>",
      "with --auth: the authorization server's issuer (else MCP_AUTH_ISSUER at run time)",
    )
    .option(
      "--resource <url>",
      "with --auth: the server's URL as clients reach it, the audience its tokens name (else MCP_AUTH_RESOURCE)",
    )
    .option("--audience <url>", "the same as --resource")
    .option(
      "--jwks-uri <url>",
      "with --auth: where the issuer publishes its keys (else MCP_AUTH_JWKS_URI, else its metadata's jwks_uri)",
    )
    .option(
      "--force",
      "write into a folder that is not empty (or holds a project); a file of yours that would change is backed up first",
    )
    .option(
      "--from-tarballs <dir>",
      "depend on the packed mcp-codegen-<version>.tgz and mcp-codegen-runtime-<version>.tgz in <dir> (and mcp-codegen-redis-<version>.tgz when there) (file: specs) instead of the registry: to try a clone before the packages are published",
    )
    .addHelpText(
      "after",
      `
Examples:
  $ mcp-codegen init my-server                       a stdio server for ${defaultVersion}
  $ mcp-codegen init my-server --protocol 2025-06-18
  $ mcp-codegen init my-client --client
  $ mcp-codegen init dashboard --app --transport http   a tool with an interactive UI (MCP Apps)
  $ mcp-codegen init my-server --transport http --auth --issuer https://auth.example.com \\
      --resource https://mcp.example.com/mcp     a server that needs OAuth access tokens
  $ mcp-codegen init my-server --from-tarballs ..    after \`npm pack\` of the packages in a clone

A folder that is not empty is refused, and so is a project (one holding ${CONFIG_FILE}: run
\`mcp-codegen generate\` there instead). With --force, init writes into it but never replaces a file of
yours silently: each one whose content would change is first copied to <file>.bak (<file>.bak.1, … when
that is taken) and each backup is printed, even with -q. A package.json of yours is merged with the
scaffold's rather than replaced: your scripts and dependencies stay, the scaffold's dependencies are added
or set to its ranges, and what changed is printed. Files under generated/ are the generator's and are
rewritten; other files are left alone.

An HTTP server (--transport http or both) keeps its sessions and state in memory, or in Redis when
MCP_REDIS_URL is set, so that several instances can run behind a load balancer: its build puts
@mcp-codegen/redis and redis in a chunk loaded only then, and its README has a "Deployment" section.

With --app the server's show_counter tool has a view (MCP Apps, io.modelcontextprotocol/ui): the page
src/ui/counter.html and its script src/ui/counter.ts, written on the contract's generated binding
(generated/contract/app.ts). \`npm run build\` first bundles them with esbuild into ui/counter.html, one
file with the script inline, which contract.yaml names as the tool's ui:; then generates, type-checks
and builds the server, which serves it as the resource ui://show_counter. Its README says how to open it.

With --auth the server is an OAuth 2.1 resource server: it answers 401 with its Protected Resource
Metadata to a request without a valid token and 403 insufficient_scope to one lacking a scope the
contract asks for. --issuer, --resource and --jwks-uri are written in as defaults; MCP_AUTH_ISSUER,
MCP_AUTH_RESOURCE and MCP_AUTH_JWKS_URI override them when it runs, and without an issuer and a resource
it refuses to start. Its README says how to point it at your authorization server; \`npm test\` runs it
against a local one.`,
    )
    .action(async (dir: string, opts: InitOptions) => {
      const { runInit } = await import("./init.js");
      process.exitCode = await runInit(dir, opts, reporter());
    });
}
