/**
 * `mcp-codegen test`: property tests of a server against its contract. The server runs as a real process
 * over stdio; its lists must match the contract (tools/list, prompts/list, resources/templates/list
 * exactly, resources/list holding every declared resource); every tool must take arguments sampled from
 * its inputSchema (answering outputs its outputSchema accepts), every prompt sampled arguments (answering
 * messages), every resource template URIs expanded from sampled variables and every resource its URI
 * (answering contents); and wrong input (a required argument missing or wrong-typed, a value outside an
 * enum, a URI variable its type refuses) must be refused naming the argument or variable. A failure is
 * printed shrunk, with the seed to reproduce. The extensions' part is held to the contract as well: each
 * skill (test/skills.ts) and each tool's view (test/views.ts), also in the stateless era when the server
 * speaks it.
 *
 * For real servers: each item may have its own timeout and run count (`test:` in the contract), items
 * can be chosen (`--only`, `--skip`), a budget bounds the run (items share it; what ran is reported, and
 * running out is not a failure), and `--concurrency` tests that many items at once, each against its own
 * server process. Reports print in the contract's order whatever the order items finish in.
 */

import { SKILLS_EXTENSION } from "@mcp-codegen/runtime";
import type fc from "fast-check";
import { compileChecks } from "../contract/checks.js";
import { ContractError, loadContract } from "../contract/load.js";
import type { ContractModel } from "../contract/model.js";
import { comparePrompts, compareResources, compareTemplates, compareTools } from "../lock/compare.js";
import { CONFIG_FILE, readConfig } from "../project/project.js";
import type { Json, SchemaNode } from "../protocol/load.js";
import { arbitraryOf, SampleError } from "../sampling/arbitrary.js";
import { CliError, EXIT } from "./errors.js";
import { type Reporter, terminal } from "./report.js";
import { progressLine } from "./test/progress.js";
import { testPrompt } from "./test/prompts.js";
import { testResource } from "./test/resources.js";
import type { ItemOutcome, ItemRun } from "./test/run.js";
import { type ItemKind, selection } from "./test/select.js";
import { type ServerCommand, ServerSession } from "./test/session.js";
import { compareSkills, skillPath, speaksSkills, testSkill } from "./test/skills.js";
import { testTemplate } from "./test/templates.js";
import { testTool } from "./test/tools.js";
import { testView } from "./test/views.js";
import { DEFAULT_TIMEOUT_MS } from "./test-command.js";

export interface TestOptions {
  contract?: string;
  runs: string;
  seed?: string;
  timeout: string;
  only?: string[];
  skip?: string[];
  budget?: string;
  concurrency?: string;
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

/** One item to test: its kind and name, its report label, and its run against a session. */
interface Item {
  kind: ItemKind;
  name: string;
  label: string;
  runs: number;
  timeoutMs: number;
  test: (run: ItemRun) => Promise<ItemOutcome>;
}

export async function runTest(server: string[], opts: TestOptions, report: Reporter): Promise<number> {
  const begun = performance.now();
  const runs = count("runs", opts.runs, 1);
  const timeoutMs = count("timeout", opts.timeout, 1);
  const concurrency = count("concurrency", opts.concurrency ?? "1", 1);
  const budgetS = opts.budget === undefined ? undefined : count("budget", opts.budget, 1);
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
    // A contract named by the project's config is in the project at cwd: views may sit anywhere in it.
    contract = await loadContract(
      path,
      path,
      undefined,
      opts.contract === undefined ? process.cwd() : undefined,
    );
  } catch (e) {
    if (e instanceof ContractError) throw new CliError(e.message);
    throw e;
  }
  const declaredSkills = contract.skills?.skills ?? [];
  if (
    contract.tools.length +
      contract.prompts.length +
      contract.resources.length +
      contract.resourceTemplates.length +
      declaredSkills.length ===
    0
  )
    throw new CliError(
      `${path}: the contract declares no tools, prompts or resources to test, and no skills`,
    );
  const only = opts.only ?? [];
  const skip = opts.skip ?? [];
  const chosen = selection(
    [
      ...contract.tools.map((t) => ({ kind: "tool" as const, name: t.name })),
      ...contract.prompts.map((p) => ({ kind: "prompt" as const, name: p.name })),
      ...contract.resourceTemplates.map((t) => ({ kind: "template" as const, name: t.name })),
      ...contract.resources.map((r) => ({ kind: "resource" as const, name: r.name })),
      ...declaredSkills.map((s) => ({ kind: "skill" as const, name: skillPath(s.uri) })),
      ...contract.tools.filter((t) => t.ui).map((t) => ({ kind: "view" as const, name: t.name })),
    ],
    only,
    skip,
  );
  const tools = contract.tools.filter((t) => chosen({ kind: "tool", name: t.name }));
  const prompts = contract.prompts.filter((p) => chosen({ kind: "prompt", name: p.name }));
  const templates = contract.resourceTemplates.filter((t) => chosen({ kind: "template", name: t.name }));
  const resources = contract.resources.filter((r) => chosen({ kind: "resource", name: r.name }));
  const skills = declaredSkills.filter((s) => chosen({ kind: "skill", name: skillPath(s.uri) }));
  const views = contract.tools.filter((t) => t.ui && chosen({ kind: "view", name: t.name }));
  if (
    tools.length + prompts.length + resources.length + templates.length + skills.length + views.length ===
    0
  )
    throw new CliError("--only and --skip leave nothing to test");
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
    ...(only.length > 0 ? [`--only ${quote(only.join(","))}`] : []),
    ...(skip.length > 0 ? [`--skip ${quote(skip.join(","))}`] : []),
    "--",
    ...server.map(quote),
  ].join(" ");

  const sessions = [new ServerSession(command, timeoutMs)];
  const step = report.step(`starting ${server.map(quote).join(" ")}`);
  try {
    await sessions[0]!.connect();
  } catch (e) {
    await sessions[0]!.close();
    throw new CliError(`the server could not be started: ${(e as Error).message}`);
  }
  const session = sessions[0]!;
  /** Sessions outside the items' pool (the stateless one skills and views are also checked on). */
  const others: ServerSession[] = [];
  step.done(`server started (protocol ${session.protocolVersion})`);

  const out = (line: string) => process.stdout.write(`${terminal(line)}\n`);
  const declared = [
    counted(tools.length, "tool"),
    counted(prompts.length, "prompt"),
    counted(templates.length, "resource template"),
    counted(resources.length, "resource"),
    counted(views.length, "view"),
    counted(skills.length, "skill"),
  ].filter((_, i) => [tools, prompts, templates, resources, views, skills][i]!.length > 0);
  out(
    `contract ${path}: ${declared.join(", ")}; ${runs} runs each, seed ${seed}` +
      (only.length + skip.length > 0 ? " (chosen by --only/--skip)" : "") +
      (budgetS === undefined ? "" : `; budget ${budgetS} s`),
  );
  let failed = 0;
  /**
   * One list against the contract: ✓ with `holds`, or ✗ with each difference. The names listed, for
   * the items to test (an item missing is already a failure); undefined when the list itself failed.
   * With --only/--skip, the items left out are left out of the comparison too.
   */
  const compareList = async (
    method: string,
    list: () => Promise<unknown[]>,
    compare: (listed: unknown[]) => string[],
    holds: string,
    kept: (item: unknown) => boolean,
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
    const mismatches = compare(listed.filter(kept));
    for (const line of mismatches) out(`✗ ${line}`);
    if (mismatches.length > 0) failed++;
    else out(`✓ ${method}: ${holds}`);
    return new Set(listed.map((item) => String((item as Record<string, unknown> | null)?.[key] ?? "")));
  };
  /** A listed entry not left out by --only/--skip (so only chosen items are compared). */
  const keptAs =
    (kind: ItemKind) =>
    (item: unknown): boolean => {
      const name = (item as Record<string, unknown> | null)?.name;
      return typeof name !== "string" || chosen({ kind, name });
    };
  const tested = (served: Set<string> | undefined, name: string) => !served || served.has(name);
  const items: Item[] = [];
  const own = (test: { timeoutMs?: number; runs?: number } | undefined) => ({
    runs: test?.runs ?? runs,
    timeoutMs: test?.timeoutMs ?? timeoutMs,
  });
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
        keptAs("tool"),
      );
      for (const [i, tool] of tools.entries())
        if (tested(served, tool.name))
          items.push({
            kind: "tool",
            name: tool.name,
            label: tool.name,
            ...own(tool.test),
            test: (run) => testTool(tool, toolInputs[i]!, run),
          });
    }
    if (prompts.length > 0) {
      const served = await compareList(
        "prompts/list",
        () => session.listPrompts(),
        (listed) => comparePrompts(prompts, listed),
        `the contract's ${counted(prompts.length, "prompt")}, same arguments`,
        keptAs("prompt"),
      );
      for (const [i, prompt] of prompts.entries())
        if (tested(served, prompt.name))
          items.push({
            kind: "prompt",
            name: prompt.name,
            label: `prompt ${prompt.name}`,
            ...own(prompt.test),
            test: (run) => testPrompt(prompt, promptArguments[i]!, run),
          });
    }
    if (templates.length > 0) {
      const served = await compareList(
        "resources/templates/list",
        () => session.listResourceTemplates(),
        (listed) => compareTemplates(templates, listed),
        `the contract's ${counted(templates.length, "resource template")}, same URI templates`,
        keptAs("template"),
      );
      for (const [i, template] of templates.entries())
        if (tested(served, template.name))
          items.push({
            kind: "template",
            name: template.name,
            label: `resource template ${template.name}`,
            ...own(template.test),
            test: (run) => testTemplate(template, templateVariables[i]!, run),
          });
    }
    if (resources.length > 0) {
      const served = await compareList(
        "resources/list",
        () => session.listResources(),
        (listed) => compareResources(resources, listed),
        `holds the contract's ${counted(resources.length, "resource")}`,
        // resources/list may hold more than the contract: only declared resources are compared anyway.
        () => true,
        "uri",
      );
      for (const resource of resources)
        if (tested(served, resource.definition.uri as string))
          items.push({
            kind: "resource",
            name: resource.name,
            label: `resource ${resource.name}`,
            ...own(resource.test),
            test: (run) => testResource(resource, run),
          });
    }
    // Skills and views are checked in the stateless era as well: a session of 2026-07-28's client
    // (falling back to the handshake for an older server), outside the items' pool.
    let stateless: ServerSession | undefined;
    let statelessEra = false;
    if (skills.length + views.length > 0) {
      stateless = new ServerSession(command, timeoutMs, "stateless");
      others.push(stateless);
      try {
        await stateless.connect();
        statelessEra = !/^20(24|25)-/.test(stateless.protocolVersion);
      } catch (e) {
        failed++;
        out(`✗ the server could not be reached with protocol 2026-07-28's client: ${(e as Error).message}`);
      }
    }
    for (const tool of views)
      items.push({
        kind: "view",
        name: tool.name,
        label: `view ${tool.name}`,
        ...own(tool.test),
        test: (run) => testView(tool, contract.ui ?? [], run, statelessEra ? stateless : undefined),
      });
    if (stateless && skills.length > 0) {
      const speaks = speaksSkills(stateless);
      const version = stateless.protocolVersion;
      if (speaks) {
        await compareList(
          "skills/list",
          async () => (await stateless.client()).listSkills(),
          (listed) =>
            compareSkills(skills, listed as never, (uri) => chosen({ kind: "skill", name: skillPath(uri) })),
          `the contract's ${counted(skills.length, "skill")}, same entries (frontmatter, files, digests and sizes)`,
          () => true,
          "uri",
        );
      } else if (statelessEra) {
        failed++;
        out(
          `✗ skills/list: the server speaks ${version} but does not declare the ${SKILLS_EXTENSION} extension the contract's skills need`,
        );
      } else if (version !== "")
        out(
          `– skills/list: not sent: the server speaks ${version} and does not declare the skills extension (skills/* needs 2026-07-28); each skill's files are read as resources`,
        );
      for (const skill of skills)
        items.push({
          kind: "skill",
          name: skillPath(skill.uri),
          label: `skill ${skillPath(skill.uri)}`,
          runs: 1,
          timeoutMs,
          test: (run) => testSkill(skill, contract.skills!, run, speaks ? stateless : undefined),
        });
    }
    const outcome = await runItems(items, {
      sessions,
      make: () => new ServerSession(command, timeoutMs),
      concurrency,
      deadline: budgetS === undefined ? undefined : begun + budgetS * 1000,
      base: { checks, definitions, seed },
    });
    failed += outcome.failed;
    if (failed > 0) {
      out(`\nFAILED (seed ${seed}). Reproduce with:\n  ${reproduce}`);
      return EXIT.failure;
    }
    const kinds = inWords(
      (["tool", "prompt", "resource template", "resource", "view", "skill"] as const).filter(
        (_, i) => [tools, prompts, templates, resources, views, skills][i]!.length > 0,
      ),
    );
    const spent =
      outcome.cut + outcome.notRun > 0
        ? ` (budget of ${budgetS} s spent: ${[
            outcome.cut > 0 ? `${counted(outcome.cut, "item")} cut short` : "",
            outcome.notRun > 0 ? `${counted(outcome.notRun, "item")} not run` : "",
          ]
            .filter(Boolean)
            .join(", ")})`
        : "";
    out(
      `\nOK: every ${kinds} ${only.length + skip.length > 0 ? "chosen " : ""}holds to ${path} (seed ${seed})${spent}`,
    );
    out(`time: ${((performance.now() - begun) / 1000).toFixed(1)} s`);
    return EXIT.ok;
  } finally {
    await Promise.all([...sessions, ...others].map((s) => s.close()));
  }
}

/**
 * Tests `items`, `concurrency` at a time, worker k on session k (made when first needed); each item's
 * report is printed once it and every item before it are done, so the output keeps the contract's order.
 * With a deadline each item, as it starts, gets an even share of the time left between the items not
 * yet started; one started past the deadline is reported as not run.
 */
async function runItems(
  items: Item[],
  pool: {
    sessions: ServerSession[];
    make: () => ServerSession;
    concurrency: number;
    deadline: number | undefined;
    base: Pick<ItemRun, "checks" | "definitions" | "seed">;
  },
): Promise<{ failed: number; cut: number; notRun: number }> {
  const progress = progressLine(items.length);
  const reports: (string[] | undefined)[] = items.map(() => undefined);
  let printed = 0;
  let next = 0;
  const tally = { failed: 0, cut: 0, notRun: 0 };
  const flush = () => {
    while (printed < items.length && reports[printed]) progress.print(reports[printed++]!);
  };
  const worker = async (k: number) => {
    for (let i = next++; i < items.length; i = next++) {
      const item = items[i]!;
      const lines: string[] = [];
      const left = items.length - i;
      const waves = Math.ceil(left / pool.concurrency);
      const remaining = pool.deadline === undefined ? undefined : pool.deadline - performance.now();
      if (remaining !== undefined && remaining <= 0) {
        lines.push(`– ${item.label}: not run (budget spent)`);
        tally.notRun++;
      } else {
        pool.sessions[k] ??= pool.make();
        progress.started(item.label);
        const run: ItemRun = {
          ...pool.base,
          session: pool.sessions[k]!,
          runs: item.runs,
          timeoutMs: item.timeoutMs,
          ...(remaining === undefined
            ? {}
            : { timeLimitMs: Math.max(1, Math.floor(remaining / waves)), deadline: pool.deadline }),
          tick: () => progress.call(item.label),
          out: (line) => lines.push(line),
        };
        const outcome = await item.test(run);
        if (outcome === "failed") tally.failed++;
        else if (outcome === "cut") tally.cut++;
        progress.finished(item.label);
      }
      reports[i] = lines;
      flush();
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(pool.concurrency, items.length) }, (_, k) => worker(k)));
  } finally {
    progress.stop();
  }
  return tally;
}
