/**
 * `mcp-codegen test`: property tests of a server against its contract. The server runs as a real process
 * over stdio; its `tools/list` must match the contract, every tool must take arguments sampled from its
 * inputSchema (and answer outputs its outputSchema accepts), and must refuse arguments with a required
 * one missing or of the wrong type, naming it. A failure is printed shrunk, with the seed to reproduce.
 */

import type { Command } from "commander";
import fc from "fast-check";
import { arbitraryOf, SampleError } from "../contract/arbitrary.js";
import { type CheckFn, compileChecks } from "../contract/checks.js";
import { compareTools } from "../contract/compare.js";
import { ContractError, loadContract } from "../contract/load.js";
import type { ContractModel, ContractTool } from "../contract/model.js";
import { requiredArguments, wrongArguments } from "../contract/wrong-values.js";
import type { Json, SchemaNode } from "../load.js";
import { CONFIG_FILE, readConfig } from "../project.js";
import { CliError, EXIT } from "./errors.js";
import type { Reporter } from "./report.js";
import { type ServerCommand, ServerSession } from "./test-session.js";
import { answerProblem, refusalProblem, show, where } from "./test-verdicts.js";

const DEFAULT_TIMEOUT_MS = 10_000;

export interface TestOptions {
  contract?: string;
  runs: string;
  seed?: string;
  timeout: string;
}

export function registerTest(program: Command, reporter: () => Reporter): void {
  program
    .command("test")
    .description("property-test a server against its contract: sampled arguments, outputs, refusals")
    .argument("[server...]", "the command that starts the server over stdio (after --)")
    .option("--contract <path>", `the contract file or folder (default: "contract" in ${CONFIG_FILE})`)
    .option("--runs <n>", "argument objects sampled per tool", "100")
    .option("--seed <n>", "the random seed (printed on every run; pass it again to reproduce)")
    .option(
      "--timeout <ms>",
      "how long the server may take to start or to answer one call",
      String(DEFAULT_TIMEOUT_MS),
    )
    .addHelpText(
      "after",
      `
For each tool of the contract, arguments are sampled from its inputSchema (each checked by the
contract's own validator first) and sent with tools/call: the call must not end in a JSON-RPC error,
and a tool with an outputSchema must answer structuredContent that passes it (an isError result is
allowed). Then, for each required argument, the call without it and with a wrong-typed value must be
refused: an isError result, or a -32602 error, naming the argument. tools/list must list exactly the
contract's tools with the same schemas. Exit 0 when everything holds, 1 on a failure (printed with
shrunk arguments, the seed and the command to reproduce), 2 when there is no contract or the server
cannot start.

Examples:
  $ mcp-codegen test --contract contract.yaml -- node dist/server.js
  $ mcp-codegen test --runs 1000 -- npx tsx src/server.ts     # contract from mcp-codegen.json
  $ mcp-codegen test --contract contract/ --seed 1234 -- ./server --stdio`,
    )
    .action(async (server: string[], opts: TestOptions) => {
      process.exitCode = await runTest(server, opts, reporter());
    });
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

/** A failed probe of one call: what was wrong with the server's answer. */
class Violation extends Error {
  override name = "Violation";
}

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
  if (contract.tools.length === 0) throw new CliError(`${path}: the contract declares no tools to test`);
  const definitions: Record<string, SchemaNode> = Object.fromEntries(
    contract.definitions.map((d) => [d.name, d.schema]),
  );
  const checks = compileChecks(contract.definitions);
  // A tool whose inputSchema no value satisfies is a contract to fix: said before the server starts.
  const arbitraries = new Map<string, fc.Arbitrary<Json>>();
  for (const tool of contract.tools) {
    try {
      arbitraries.set(tool.name, arbitraryOf(definitions[tool.input]!, definitions));
    } catch (e) {
      if (e instanceof SampleError)
        throw new CliError(
          `${path}: tools.${tool.name}.inputSchema accepts no value to sample (${e.message})`,
        );
      throw e;
    }
  }
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

  const out = (line: string) => process.stdout.write(`${line}\n`);
  out(`contract ${path}: ${contract.tools.length} tools, ${runs} runs each, seed ${seed}`);
  let failed = 0;
  try {
    let listed: unknown[] | undefined;
    try {
      listed = await session.listTools();
    } catch (e) {
      failed++;
      out(`✗ tools/list failed: ${(e as Error).message}`);
    }
    const served = new Set<string>();
    if (listed) {
      const mismatches = compareTools(
        contract.tools.map((t) => t.definition),
        listed,
      );
      for (const line of mismatches) out(`✗ ${line}`);
      if (mismatches.length > 0) failed++;
      else out(`✓ tools/list: the contract's ${contract.tools.length} tools, same schemas`);
      for (const t of listed) served.add((t as { name?: string })?.name ?? "");
    }
    for (const tool of contract.tools) {
      if (listed && !served.has(tool.name)) continue;
      if (!(await testTool(tool, { session, checks, arbitraries, definitions, runs, seed, out }))) failed++;
    }
  } finally {
    await session.close();
  }
  if (failed > 0) {
    out(`\nFAILED (seed ${seed}). Reproduce with:\n  ${reproduce}`);
    return EXIT.failure;
  }
  out(`\nOK: every tool holds to ${path} (seed ${seed})`);
  return EXIT.ok;
}

interface ToolRun {
  session: ServerSession;
  checks: Map<string, CheckFn>;
  arbitraries: Map<string, fc.Arbitrary<Json>>;
  definitions: Record<string, SchemaNode>;
  runs: number;
  seed: number;
  out: (line: string) => void;
}

/** One tool's property run, then its refusals; prints its summary or its failures. Passed or not. */
async function testTool(tool: ContractTool, run: ToolRun): Promise<boolean> {
  const { session, checks, definitions, out } = run;
  const input = checks.get(tool.input)!;
  const output = tool.output ? checks.get(tool.output)! : undefined;
  const arbitrary = run.arbitraries.get(tool.name)!;
  let refusedWithIsError = 0;
  const probe = async (args: Json): Promise<void> => {
    const invalid = input(args);
    if (invalid)
      throw new Violation(
        `mcp-codegen sampled arguments the contract's own check refuses (${where(invalid)}): a bug in mcp-codegen, please report it`,
      );
    const outcome = await session.callTool(tool.name, args as Record<string, unknown>);
    const problem = answerProblem(outcome, output);
    if (problem !== undefined) throw new Violation(problem);
    if (outcome.kind === "result" && outcome.result.isError === true) refusedWithIsError++;
  };
  const details = await fc.check(fc.asyncProperty(arbitrary, probe), { numRuns: run.runs, seed: run.seed });
  const problems: string[] = [];
  let summary: string;
  if (details.failed) {
    summary = `run ${details.numRuns} of ${run.runs} failed (shrunk ${details.numShrinks} times)`;
    const error = details.errorInstance;
    problems.push(
      "  sampled arguments",
      `    arguments: ${show(details.counterexample?.[0])}`,
      `    problem:   ${error instanceof Error ? error.message : show(error)}`,
    );
  } else {
    const note = refusedWithIsError > 0 ? ` (${refusedWithIsError} answered isError)` : "";
    summary = `${details.numRuns} runs, ${details.numRuns} passed${note}`;
  }

  // Refusals: from a small valid sample, each required argument missing, then wrong-typed.
  const valid = smallest(fc.sample(arbitrary, { numRuns: 20, seed: run.seed }));
  const mistakes =
    typeof valid === "object" && valid !== null && !Array.isArray(valid)
      ? wrongArguments(valid, requiredArguments(definitions[tool.input]!, definitions), input)
      : [];
  let refused = 0;
  for (const mistake of mistakes) {
    const outcome = await session.callTool(tool.name, mistake.args);
    const problem = refusalProblem(outcome, mistake.field);
    if (problem === undefined) {
      refused++;
      continue;
    }
    problems.push(
      `  required argument ${mistake.field}, ${mistake.mistake}: not refused as it must be`,
      `    arguments: ${show(mistake.args)}`,
      `    problem:   ${problem}`,
    );
  }
  if (mistakes.length > 0) summary += `; ${refused} of ${mistakes.length} wrong arguments refused`;
  const ok = problems.length === 0;
  out(`${ok ? "✓" : "✗"} ${tool.name}: ${summary}`);
  for (const line of problems) out(line);
  return ok;
}

/** The sample with the shortest JSON: the one a reader takes in at a glance. */
function smallest(samples: Json[]): Json | undefined {
  return samples.reduce<Json | undefined>(
    (best, s) => (best === undefined || JSON.stringify(s).length < JSON.stringify(best).length ? s : best),
    undefined,
  );
}
