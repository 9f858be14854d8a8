/**
 * `mcp-codegen test`: property tests of a server against its contract. The server runs as a real process
 * over stdio; its lists must match the contract (tools/list, prompts/list, resources/templates/list
 * exactly, resources/list holding every declared resource); every tool must take arguments sampled from
 * its inputSchema (answering outputs its outputSchema accepts), every prompt sampled arguments (answering
 * messages), every resource template URIs expanded from sampled variables and every resource its URI
 * (answering contents); and wrong input (a required argument missing or wrong-typed, a value outside an
 * enum, a URI variable its type refuses) must be refused naming the argument or variable. A failure is
 * printed shrunk, with the seed to reproduce.
 */

import type fc from "fast-check";
import { arbitraryOf, SampleError } from "../contract/arbitrary.js";
import { compileChecks } from "../contract/checks.js";
import { comparePrompts, compareResources, compareTemplates, compareTools } from "../contract/compare.js";
import { ContractError, loadContract } from "../contract/load.js";
import type { ContractModel } from "../contract/model.js";
import type { Json, SchemaNode } from "../load.js";
import { CONFIG_FILE, readConfig } from "../project.js";
import { CliError, EXIT } from "./errors.js";
import { type Reporter, terminal } from "./report.js";
import { DEFAULT_TIMEOUT_MS } from "./test-command.js";
import { testPrompt } from "./test-prompts.js";
import { testResource } from "./test-resources.js";
import type { ItemRun } from "./test-run.js";
import { type ServerCommand, ServerSession } from "./test-session.js";
import { testTemplate } from "./test-templates.js";
import { testTool } from "./test-tools.js";

export interface TestOptions {
  contract?: string;
  runs: string;
  seed?: string;
  timeout: string;
}

/** A positive integer option, or a usage error naming it. */
function count(name: string, text: string, min: number): number {
  const n = Number(text);
  if (!/^-?\d+$/.test(text.trim()) || !Number.isSafeInteger(n) || n < min)
    throw new CliError(`--${name} must be an integer of at least ${min}, not ${JSON.stringify(text)}`);
  return n;
}

/** `--contract`, else `contract` in the project's mcp-codegen.json (read and checked as `generate` reads it). */
async function contractPath(flag: string | undefined): Promise<string> {
  if (flag !== undefined) return flag;
  const contract = (await readConfig(process.cwd()))?.contract;
  if (contract !== undefined) return contract;
  throw new CliError(`no contract: pass --contract <file|dir>, or set "contract" in ${CONFIG_FILE}`);
}

/** An argument as a POSIX shell reads it back. */
const quote = (arg: string): string =>
  /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", `'\\''`)}'`;

/** `1 tool`, `4 tools`. */
const counted = (n: number, noun: string): string => `${n} ${noun}${n === 1 ? "" : "s"}`;

/** `tool`, `tool and prompt`, `tool, prompt and resource`. */
const inWords = (nouns: string[]): string =>
  nouns.length <= 1 ? (nouns[0] ?? "") : `${nouns.slice(0, -1).join(", ")} and ${nouns.at(-1)}`;

export async function runTest(server: string[], opts: TestOptions, report: Reporter): Promise<number> {
  const runs = count("runs", opts.runs, 1);
  const timeoutMs = count("timeout", opts.timeout, 1);
  const seed =
    opts.seed === undefined
      ? (Date.now() ^ Math.floor(Math.random() * 2 ** 31)) | 0
      : count("seed", opts.seed, -(2 ** 31));
  if (seed > 2 ** 31 - 1) throw new CliError("--seed must fit in 32 bits");
  if (server.length === 0)
    throw new CliError("no server command: give it after --, e.g. mcp-codegen test -- node server.js");
  const path = await contractPath(opts.contract);
  let contract: ContractModel;
  try {
    contract = await loadContract(path);
  } catch (e) {
    if (e instanceof ContractError) throw new CliError(e.message);
    throw e;
  }
  const { tools, prompts, resources, resourceTemplates: templates } = contract;
  if (tools.length + prompts.length + resources.length + templates.length === 0)
    throw new CliError(`${path}: the contract declares no tools, prompts or resources to test`);
  const definitions: Record<string, SchemaNode> = Object.fromEntries(
    contract.definitions.map((d) => [d.name, d.schema]),
  );
  const checks = compileChecks(contract.definitions);
  // A schema no value satisfies is a contract to fix: said before the server starts.
  const sampler = (definition: string, where: string): fc.Arbitrary<Json> => {
    try {
      return arbitraryOf(definitions[definition]!, definitions);
    } catch (e) {
      if (e instanceof SampleError)
        throw new CliError(`${path}: ${where} accepts no value to sample (${e.message})`);
      throw e;
    }
  };
  const toolInputs = tools.map((t) => sampler(t.input, `tools.${t.name}.inputSchema`));
  const promptArguments = prompts.map((p) => sampler(p.args, `prompts.${p.name}.arguments`));
  const templateVariables = templates.map((t) => sampler(t.vars, `resourceTemplates.${t.name}.variables`));
  const command: ServerCommand = { command: server[0]!, args: server.slice(1) };
  const reproduce = [
    "mcp-codegen test",
    `--contract ${quote(path)}`,
    `--runs ${runs}`,
    `--seed ${seed}`,
    ...(timeoutMs === DEFAULT_TIMEOUT_MS ? [] : [`--timeout ${timeoutMs}`]),
    "--",
    ...server.map(quote),
  ].join(" ");

  const session = new ServerSession(command, timeoutMs);
  const step = report.step(`starting ${server.map(quote).join(" ")}`);
  try {
    await session.connect();
  } catch (e) {
    await session.close();
    throw new CliError(`the server could not be started: ${(e as Error).message}`);
  }
  step.done(`server started (protocol ${session.protocolVersion})`);

  const out = (line: string) => process.stdout.write(`${terminal(line)}\n`);
  const declared = [
    counted(tools.length, "tool"),
    counted(prompts.length, "prompt"),
    counted(templates.length, "resource template"),
    counted(resources.length, "resource"),
  ].filter((_, i) => [tools, prompts, templates, resources][i]!.length > 0);
  out(`contract ${path}: ${declared.join(", ")}; ${runs} runs each, seed ${seed}`);
  const run: ItemRun = { session, checks, definitions, runs, seed, out };
  let failed = 0;
  /**
   * One list against the contract: ✓ with `holds`, or ✗ with each difference. The names listed, for
   * the items to test (an item missing is already a failure); undefined when the list itself failed.
   */
  const compareList = async (
    method: string,
    list: () => Promise<unknown[]>,
    compare: (listed: unknown[]) => string[],
    holds: string,
    key = "name",
  ): Promise<Set<string> | undefined> => {
    let listed: unknown[];
    try {
      listed = await list();
    } catch (e) {
      failed++;
      out(`✗ ${method} failed: ${(e as Error).message}`);
      return undefined;
    }
    const mismatches = compare(listed);
    for (const line of mismatches) out(`✗ ${line}`);
    if (mismatches.length > 0) failed++;
    else out(`✓ ${method}: ${holds}`);
    return new Set(listed.map((item) => String((item as Record<string, unknown> | null)?.[key] ?? "")));
  };
  const tested = (served: Set<string> | undefined, name: string) => !served || served.has(name);
  try {
    if (tools.length > 0) {
      const served = await compareList(
        "tools/list",
        () => session.listTools(),
        (listed) =>
          compareTools(
            tools.map((t) => t.definition),
            listed,
          ),
        `the contract's ${counted(tools.length, "tool")}, same schemas`,
      );
      for (const [i, tool] of tools.entries())
        if (tested(served, tool.name) && !(await testTool(tool, toolInputs[i]!, run))) failed++;
    }
    if (prompts.length > 0) {
      const served = await compareList(
        "prompts/list",
        () => session.listPrompts(),
        (listed) => comparePrompts(prompts, listed),
        `the contract's ${counted(prompts.length, "prompt")}, same arguments`,
      );
      for (const [i, prompt] of prompts.entries())
        if (tested(served, prompt.name) && !(await testPrompt(prompt, promptArguments[i]!, run))) failed++;
    }
    if (templates.length > 0) {
      const served = await compareList(
        "resources/templates/list",
        () => session.listResourceTemplates(),
        (listed) => compareTemplates(templates, listed),
        `the contract's ${counted(templates.length, "resource template")}, same URI templates`,
      );
      for (const [i, template] of templates.entries())
        if (tested(served, template.name) && !(await testTemplate(template, templateVariables[i]!, run)))
          failed++;
    }
    if (resources.length > 0) {
      const served = await compareList(
        "resources/list",
        () => session.listResources(),
        (listed) => compareResources(resources, listed),
        `holds the contract's ${counted(resources.length, "resource")}`,
        "uri",
      );
      for (const resource of resources)
        if (tested(served, resource.definition.uri as string) && !(await testResource(resource, run)))
          failed++;
    }
  } finally {
    await session.close();
  }
  if (failed > 0) {
    out(`\nFAILED (seed ${seed}). Reproduce with:\n  ${reproduce}`);
    return EXIT.failure;
  }
  const kinds = inWords(
    (["tool", "prompt", "resource template", "resource"] as const).filter(
      (_, i) => [tools, prompts, templates, resources][i]!.length > 0,
    ),
  );
  out(`\nOK: every ${kinds} holds to ${path} (seed ${seed})`);
  return EXIT.ok;
}
