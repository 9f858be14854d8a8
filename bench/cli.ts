/**
 * How long the CLI takes, run as a user runs it (`node bin/mcp-codegen.js`, which runs dist/, built first):
 * `--version`, `--help`, and `generate` in an `init` project holding a 20-tool contract, unchanged (the
 * stamp answers), with the contract changed (one tool's description, so the contract is compiled again
 * and the protocol files are read back), with only the handlers file edited, and with no stamp (a
 * whole generation). Wall time of the process, spawn to exit, median of RUNS runs. Source rows run the
 * TypeScript through tsx (`npm run generate`'s way), for reference. Targets: --version and --help
 * ≤ 150 ms, generate unchanged ≤ 300 ms, a changed 20-tool contract ≤ 1 s. Prints a table, or with
 * --json one report.
 */

import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildRuntime, type Goal, jsonOf, markdownOf, median, type Row, startWatchdog } from "./lib.js";
import { benchContract } from "./types-projects.js";

const JSON_OUTPUT = process.argv.includes("--json");
const QUICK = process.argv.includes("--quick");
const RUNS = QUICK ? 3 : 15;
const TOOLS = 20;
const REPO = fileURLToPath(new URL("../", import.meta.url));
/** What `npx mcp-codegen` runs: the package's bin, which runs dist/. */
const CLI = join(REPO, "bin/mcp-codegen.js");
const TSX = join(REPO, "node_modules/.bin/tsx");
const SOURCE_CLI = join(REPO, "generator/cli/index.ts");

const log = (text: string) => {
  if (!JSON_OUTPUT || process.stderr.isTTY) process.stderr.write(`${text}\n`);
};

/** One CLI process, spawn to exit, in ms; a non-zero exit fails the bench. */
function timed(argv: string[], cwd: string): number {
  const t0 = performance.now();
  const result = spawnSync(argv[0]!, argv.slice(1), { cwd, encoding: "utf8", timeout: 120_000 });
  const ms = performance.now() - t0;
  if (result.status !== 0)
    throw new Error(`${argv.join(" ")} in ${cwd} exited ${result.status}: ${result.stderr}`.slice(0, 4000));
  return ms;
}

/** `RUNS` runs of `argv` (after one uncounted run), `before` run ahead of each, untimed. */
function sample(label: string, argv: string[], cwd: string, before: () => void = () => {}): number {
  before();
  timed(argv, cwd);
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    before();
    times.push(timed(argv, cwd));
  }
  const m = median(times);
  log(`  ${label}: median ${m.toFixed(0)} ms (${times.map((t) => t.toFixed(0)).join(" ")})`);
  return m;
}

const row = (figure: string, ms: number): Row => ({
  figure,
  ours: ms,
  sdkV1: Number.NaN,
  sdkV2: Number.NaN,
  floor: Number.NaN,
  unit: "ms",
});

function main(): { rows: Row[]; goals: Goal[] } {
  // dist/ from scratch: a module left from an older build would be measured (and fingerprinted) too.
  buildRuntime();
  rmSync(join(REPO, "dist"), { recursive: true, force: true });
  execFileSync(join(REPO, "node_modules/.bin/tsc"), ["-p", join(REPO, "tsconfig.build.json")], {
    stdio: "inherit",
  });
  const root = mkdtempSync(join(tmpdir(), "mcp-bench-cli-"));
  try {
    const node = process.execPath;
    const cli = (...args: string[]) => [node, CLI, ...args];
    timed(cli("-q", "init", "proj"), root);
    const project = join(root, "proj");
    const contractFile = join(project, "contract.yaml");
    const contract = benchContract(TOOLS);
    const texts = [0, 1].map((n) => {
      const first = Object.values(contract.tools)[0]!;
      first.description = `Updates the first record (edit ${n})`;
      return `${JSON.stringify(contract, null, 2)}\n`;
    });
    writeFileSync(contractFile, texts[0]!);
    timed(cli("-q", "generate"), project);
    const handlers = join(project, "src/handlers.ts");
    const handlersText = readFileSync(handlers, "utf8");
    let flip = 0;

    const rows = [
      row("--version", sample("--version", cli("--version"), root)),
      row("--help", sample("--help", cli("--help"), root)),
      row("generate --help", sample("generate --help", cli("generate", "--help"), root)),
      row(
        `generate, ${TOOLS}-tool contract unchanged`,
        sample("generate unchanged", cli("-q", "generate"), project),
      ),
      row(
        `generate, ${TOOLS}-tool contract changed`,
        sample("generate, contract changed", cli("-q", "generate"), project, () => {
          flip = 1 - flip;
          writeFileSync(contractFile, texts[flip]!);
        }),
      ),
      row(
        "generate, handlers file edited",
        sample("generate, handlers edited", cli("-q", "generate"), project, () => {
          flip = 1 - flip;
          writeFileSync(handlers, `${handlersText}${flip ? "// edited\n" : ""}`);
        }),
      ),
      row(
        "generate, no stamp (everything generated)",
        sample("generate, no stamp", cli("-q", "generate"), project, () =>
          rmSync(join(project, "generated/.mcp-codegen-stamp.json"), { force: true }),
        ),
      ),
      row(
        "source (tsx): --version",
        sample("tsx --version", [TSX, "--conditions=mcp-codegen-source", SOURCE_CLI, "--version"], root),
      ),
      row(
        `source (tsx): generate, ${TOOLS}-tool contract unchanged`,
        sample(
          "tsx generate unchanged",
          [TSX, "--conditions=mcp-codegen-source", SOURCE_CLI, "-q", "generate"],
          project,
        ),
      ),
    ];
    const goals: Goal[] = [
      { figure: "--version", against: "value", bound: 150, text: "≤ 150 ms" },
      { figure: "--help", against: "value", bound: 150, text: "≤ 150 ms" },
      {
        figure: `generate, ${TOOLS}-tool contract unchanged`,
        against: "value",
        bound: 300,
        text: "≤ 300 ms",
      },
      { figure: `generate, ${TOOLS}-tool contract changed`, against: "value", bound: 1000, text: "≤ 1 s" },
    ];
    return { rows, goals };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

startWatchdog("bench/cli.ts", 10 * 60_000);
const loadBefore = loadavg()[0]!;
const { rows, goals } = main();
// Wall times follow what else the machine runs: the load average is printed with them.
const load = `load average ${loadBefore.toFixed(1)} before, ${loadavg()[0]!.toFixed(1)} after`;
const report = {
  name: "cli",
  header: [
    `## CLI (node ${process.version}, ${cpus().length} cores, ${load}; ${RUNS} runs each, median wall time spawn to exit, dist/ unless marked source)`,
    "",
    "Before lazy loading and the stamp (measured by the issue): --version 1.3 s, generate unchanged 4.9 s, changed 4–7 s.",
  ],
  rows,
  goals,
};
process.stdout.write(
  JSON_OUTPUT ? `${JSON.stringify(jsonOf(report), null, 2)}\n` : `${markdownOf(report)}\n`,
);
process.exit(0);
