/**
 * `mcp-codegen test` on the command line: its arguments, options and help. The command's code is imported only
 * when it runs, so that `--help`, `--version` and the other commands do not load it.
 */

import type { Command } from "commander";
import { CONFIG_FILE } from "../project/project-config.js";
import type { Reporter } from "./report.js";
import { collect } from "./test/select.js";
import type { TestOptions } from "./test.js";

/** How long the server may take to start or to answer one call, unless --timeout says otherwise. */
export const DEFAULT_TIMEOUT_MS = 10_000;

export function registerTest(program: Command, reporter: () => Reporter): void {
  program
    .command("test")
    .description(
      "property-test a server against its contract: tools, prompts and resource templates with sampled input, refusals; skills and views",
    )
    .argument("[server...]", "the command that starts the server over stdio (after --)")
    .option("--contract <path>", `the contract file or folder (default: "contract" in ${CONFIG_FILE})`)
    .option("--runs <n>", "inputs sampled per tool, prompt and resource template", "100")
    .option("--seed <n>", "the random seed (printed on every run; pass it again to reproduce)")
    .option(
      "--timeout <ms>",
      "how long the server may take to start or to answer one call (an item's test.timeoutMs in the contract wins)",
      String(DEFAULT_TIMEOUT_MS),
    )
    .option(
      "--only <items>",
      "test only these items: add, tool:add, prompt:review, template:*, … (repeatable)",
      collect,
    )
    .option("--skip <items>", "leave these items out, named as for --only (repeatable)", collect)
    .option(
      "--budget <s>",
      "stop sampling after this many seconds in all, shared between items; not a failure",
    )
    .option("--concurrency <n>", "items tested at once, each against its own server process", "1")
    .addHelpText(
      "after",
      `
Each input is first checked by the contract's own validator, then sent:
- tools: arguments sampled from the inputSchema, sent with tools/call. No JSON-RPC error, and a tool
  with an outputSchema must answer structuredContent that passes it (an isError result is allowed).
  Each required argument missing and wrong-typed must be refused: an isError result, or a -32602
  error, naming the argument.
- prompts: arguments sampled from the declared ones (strings; enum values where declared; required
  ones always, optional ones sometimes), sent with prompts/get: a result with messages. Each required
  argument missing and each enum argument outside its enum must be refused with -32602 naming it.
- resource templates: variables sampled from their types and enums, expanded into a URI and sent with
  resources/read: contents with at least one item, each with a uri and a text or blob. A URI whose
  variable has a value its type or enum refuses (abc for an integer) must be refused with -32602
  naming the variable. Each fixed resource's URI must read the same way.
tools/list, prompts/list and resources/templates/list must list exactly the contract's items (tools
with the same schemas, prompts with the same arguments, templates with the same uriTemplate);
resources/list must hold every declared resource. --runs applies to each tool, prompt and template.
- skills (skills: in the contract), each named by its path (skill:acme/refunds): what the contract's
  folder holds now (frontmatter, every file's digest and size) must be what the server serves. skills/list
  lists exactly the contract's skills with equal entries, and skills/get answers each (when the server
  speaks the extension: 2026-07-28, reached with a second, stateless session); in both eras resources/list
  holds each SKILL.md (text/markdown, the frontmatter's name and description), and the runtime client's
  loadSkill and readFile read and verify every file (size, digest, frontmatter); with directoryRead,
  resources/directory/read of the skill's root and each folder in it lists the contract's children. A
  server generated before a skill changed fails, naming the skill and the file.
- views (a tool's ui:), each named by its tool (view:show_counter): the tool's tools/list entry links
  the contract's ui:// view (_meta.ui.resourceUri, and the flat ui/resourceUri when given) with its
  visibility; an app-only tool is left out of modelTools; readUi reads the view (the exact mime type,
  _meta.ui checked) and it must be the contract's HTML with the declared csp, permissions, prefersBorder.

Inputs the contract suggests come first: a tool's inputSchema \`examples\` (whole inputs), then each
property's, a prompt argument's or a template variable's \`examples\`, then their \`default\`s. A URI
sampled for a template may be answered "not found" (-32002): the server holds data, not every id; a URI
made from the variables' \`examples\` must be found.
Per item, in the contract (for \`mcp-codegen test\` only; not on the wire):
  tools:
    export_report:
      test: { timeoutMs: 30000, runs: 10 }   # this tool's own --timeout and --runs
A call with no answer within its timeout (the whole call's, progress included) fails the item as
slow, and is not shrunk: each step would wait out the timeout again.
--budget <s> shares that many seconds between the items left; an item whose share is spent stops
sampling and says how many runs it made; the run still passes if nothing failed.

Exit 0 when everything holds, 1 on a failure (printed with the shrunk input, the seed and the command
to reproduce), 2 when there is no contract or the server cannot start.

Examples:
  $ mcp-codegen test --contract contract.yaml -- node dist/server.js
  $ mcp-codegen test --runs 1000 -- npx tsx src/server.ts     # contract from mcp-codegen.json
  $ mcp-codegen test --contract contract/ --seed 1234 -- ./server --stdio
  $ mcp-codegen test --only tool:search,template:task --budget 30 --concurrency 2 -- node dist/server.js
  $ mcp-codegen test --skip export_report --timeout 2000 -- node dist/server.js
  $ mcp-codegen test --only 'skill:*,view:*' -- node dist/server.js`,
    )
    .action(async (server: string[], opts: TestOptions) => {
      const { runTest } = await import("./test.js");
      process.exitCode = await runTest(server, opts, reporter());
    });
}
