/**
 * `mcp-codegen dev`: how long after a contract edit is saved the restarted server lists the new tool,
 * through dev's own endpoint, as a client opening a new session sees it. A scaffolded HTTP project in a
 * temp folder (node_modules linked to the repo's, the runtime read from source as in test/cli/dev.test.ts);
 * each edit adds one tool (dev writes its stub); a probe opens a session and lists tools every 10 ms.
 * Target: ≤ 1000 ms. Prints a table, or JSON rows with --json.
 */

import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { jsonOf, markdownOf, median, type Report, startWatchdog, track } from "./lib.js";

const EDITS = Number(process.env.BENCH_RUNS ?? (process.argv.includes("--quick") ? 2 : 8));
const REPO = fileURLToPath(new URL("../", import.meta.url));
const CLI = join(REPO, "generator/cli/index.ts");
const TARGET_MS = 1000;

startWatchdog("bench/dev.ts", 300_000);
const work = mkdtempSync(join(tmpdir(), "mcp-codegen-bench-dev-"));
const dir = join(work, "project");
let dev: ChildProcess | undefined;
process.on("exit", () => {
  // dev leads its own process group: a failed run takes its server children down with it.
  try {
    if (dev?.pid !== undefined) process.kill(-dev.pid, "SIGKILL");
  } catch {
    // the group has already ended
  }
  rmSync(work, { recursive: true, force: true });
});

const init = spawnSync(
  process.execPath,
  ["--import", "tsx", "--conditions=mcp-codegen-source", CLI, "init", dir, "--transport", "http", "-q"],
  { cwd: REPO, encoding: "utf8" },
);
if (init.status !== 0) throw new Error(`init failed:\n${init.stderr}`);
symlinkSync(join(REPO, "node_modules"), join(dir, "node_modules"));
const tsconfig = JSON.parse(readFileSync(join(dir, "tsconfig.json"), "utf8"));
tsconfig.compilerOptions.customConditions = ["mcp-codegen-source"];
tsconfig.compilerOptions.lib = ["ES2023", "DOM"];
writeFileSync(join(dir, "tsconfig.json"), JSON.stringify(tsconfig, null, 2));

let output = "";
dev = spawn(
  process.execPath,
  ["--import", "tsx", "--conditions=mcp-codegen-source", CLI, "dev", "--port", "0"],
  { cwd: dir, stdio: ["ignore", "pipe", "pipe"], detached: true },
);
track(dev.pid);
dev.stderr!.setEncoding("utf8").on("data", (s: string) => {
  output += s;
});
dev.stdout!.resume();

async function printed(pattern: RegExp, from = 0, ms = 60_000): Promise<RegExpExecArray> {
  const deadline = Date.now() + ms;
  for (;;) {
    const m = pattern.exec(output.slice(from));
    if (m) return m;
    if (Date.now() > deadline) throw new Error(`dev never printed ${pattern}:\n${output}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

const url = (await printed(/at (http:\/\/127\.0\.0\.1:\d+\/mcp) \(kept/))[1]!;
await printed(/dev: started the server/);

const post = (body: unknown, session?: string) =>
  fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...(session ? { "mcp-session-id": session } : {}),
    },
    body: JSON.stringify(body),
  });

/** A new session's tools/list, as the tool names; undefined while there is no answer. */
async function listed(): Promise<string[] | undefined> {
  const init = await post({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "bench", version: "1" } },
  });
  const session = init.headers.get("mcp-session-id") ?? undefined;
  await init.text();
  if (!init.ok || !session) return undefined;
  await (await post({ jsonrpc: "2.0", method: "notifications/initialized" }, session)).text();
  const text = await (await post({ jsonrpc: "2.0", id: 2, method: "tools/list" }, session)).text();
  // JSON, or SSE events (the first one may be an empty priming event).
  const events = text.startsWith("{") ? [text] : [...text.matchAll(/^data: (.+)$/gm)].map((m) => m[1]!);
  for (const event of events) {
    const reply = JSON.parse(event) as { id?: number; result?: { tools: { name: string }[] } };
    if (reply.id === 2) return reply.result?.tools.map((t) => t.name);
  }
  return undefined;
}

const contractPath = join(dir, "contract.yaml");
const samples: number[] = [];
const reported: number[] = [];
const phases = { generate: [] as number[], check: [] as number[], start: [] as number[] };
for (let i = 0; i < EDITS; i++) {
  const name = `bench${i}`;
  const mark = output.length;
  const saved = performance.now();
  writeFileSync(
    contractPath,
    readFileSync(contractPath, "utf8").replace(
      "\nprompts:\n",
      `\n  ${name}:\n    description: Tool ${i}\n    inputSchema: { type: object, properties: { n: { type: integer } } }\n\nprompts:\n`,
    ),
  );
  for (;;) {
    const tools = await listed().catch(() => undefined);
    if (tools?.includes(name)) break;
    if (performance.now() - saved > 30_000) throw new Error(`${name} not listed after 30 s:\n${output}`);
    await new Promise((r) => setTimeout(r, 10));
  }
  samples.push(performance.now() - saved);
  const line = await printed(
    /restarted the server in (\d+) ms \(generate (\d+) ms, type check (\d+) ms, bundle and start (\d+) ms/,
    mark,
  );
  reported.push(Number(line[1]));
  phases.generate.push(Number(line[2]));
  phases.check.push(Number(line[3]));
  phases.start.push(Number(line[4]));
  // Let dev settle (its previous server stopping) before the next edit.
  await new Promise((r) => setTimeout(r, 300));
}
dev.kill("SIGTERM");
await new Promise((r) => dev?.once("exit", r));

const NaNs = { sdkV1: Number.NaN, sdkV2: Number.NaN, floor: Number.NaN };
const report: Report = {
  name: "dev",
  header: [
    `mcp-codegen dev, an HTTP scaffold: ${EDITS} contract edits, each adding a tool; median and slowest`,
    "save → listed: from writing contract.yaml to a new session listing the tool through dev's endpoint",
    "dev's pass: regenerate, then type-check beside bundle + start the new server, as dev prints it",
  ],
  rows: [
    { figure: "save → listed (median)", ours: median(samples), ...NaNs, unit: "ms" },
    { figure: "save → listed (slowest)", ours: Math.max(...samples), ...NaNs, unit: "ms" },
    { figure: "dev's pass (median)", ours: median(reported), ...NaNs, unit: "ms" },
    { figure: "  generate (median)", ours: median(phases.generate), ...NaNs, unit: "ms" },
    { figure: "  type check, from generated (median)", ours: median(phases.check), ...NaNs, unit: "ms" },
    { figure: "  bundle and start, beside it (median)", ours: median(phases.start), ...NaNs, unit: "ms" },
  ],
  goals: [
    { figure: "save → listed (median)", against: "value", bound: TARGET_MS, text: `≤ ${TARGET_MS} ms` },
  ],
};
console.log(process.argv.includes("--json") ? JSON.stringify(jsonOf(report), null, 2) : markdownOf(report));
