/**
 * stdio throughput, CPU per call and cold start: a server written as generated handlers ("ours") against
 * the official SDK's McpServer ("sdk") and a raw newline-JSON responder ("floor"), all driven by the same
 * raw pipelined client; then our generated client against the SDK Client, both calling the raw server.
 * Prints a markdown table with targets, or with --json only the rows. --quick divides the call counts by 10.
 * See bench/README.md for what each figure means and how it is measured.
 */

import { cpus } from "node:os";
import { fileURLToPath } from "node:url";
import { StdioClientTransport } from "@mcp-codegen/runtime/node";
import { Client as SdkClient } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport as SdkStdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { createClient } from "../generated/2025-11-25/index.js";
import {
  bundled,
  coldStart,
  type Goal,
  killAll,
  MODE,
  median,
  nodeArgs,
  prepareBuild,
  type Row,
  type RunResult,
  runConcurrent,
  ServerChild,
  type SpawnOptions,
  startWatchdog,
  tableLines,
  track,
  untrack,
  within,
} from "./lib.js";

const JSON_OUTPUT = process.argv.includes("--json");
const QUICK = process.argv.includes("--quick");
const SCALE = QUICK ? 10 : 1;

/** At 64 in flight a run takes well under a second for ours and the floor; 100,000 calls average more. */
const CALLS_PIPELINED = 100_000 / SCALE;
/** At 1 in flight a run of 4,000 calls (0.2 s) moved by a third with where the scheduler put the processes. */
const CALLS_SEQUENTIAL = 20_000 / SCALE;
/**
 * Enough for every server to reach steady state before the first measured run: JIT-optimized, and the
 * young generation grown to its working size (ours kept speeding up for some 100,000 calls at 64 in
 * flight). The 1-in-flight runs use the same, already warm processes.
 */
const WARMUP_CALLS = { 64: 100_000 / SCALE, 1: 5_000 / SCALE } as const;
const RUNS = 3;
const SPAWNS = QUICK ? 3 : 10;
const RUN_TIMEOUT_MS = 60_000;
const BENCH_TIMEOUT_MS = 10 * 60_000;

const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));
const KINDS = ["ours", "sdk", "floor"] as const;
type Kind = (typeof KINDS)[number];
const SERVER_FILES: Record<Kind, string> = {
  ours: fixture("ours-server.ts"),
  sdk: fixture("sdk-server.ts"),
  floor: fixture("raw-server.ts"),
};
/** What a deployed server runs with; for ours it means no result validation unless asked for. */
const SERVER_ENV = { ...process.env, NODE_ENV: "production" };

const log = (text: string) => {
  if (!JSON_OUTPUT || process.stderr.isTTY) process.stderr.write(`${text}\n`);
};

// Drivers: something that makes `count` echo calls at `inflight` and reports time and CPU.

interface Driver {
  run(count: number, inflight: number): Promise<RunResult>;
  close(): Promise<void>;
}

async function rawDriver(file: string): Promise<Driver> {
  const server = new ServerChild(file, { env: SERVER_ENV });
  await server.initialize();
  return {
    run: (count, inflight) => server.run(count, inflight, RUN_TIMEOUT_MS),
    close: () => server.close(),
  };
}

const echoText = (result: unknown): unknown =>
  (result as { content?: { text?: unknown }[] }).content?.[0]?.text;

function check(i: number, result: unknown): void {
  if (echoText(result) !== `c${i}`) throw new Error(`wrong echo for call ${i}: ${JSON.stringify(result)}`);
}

const clientOf =
  (call: (i: number) => Promise<void>) =>
  async (count: number, inflight: number): Promise<RunResult> => {
    const { ms, clientCpuMs } = await runConcurrent(call, count, inflight, RUN_TIMEOUT_MS);
    return { calls: count, ms, clientCpuMs, serverCpuMs: Number.NaN };
  };

/**
 * Awaits a client's connect with a deadline. Its server child is tracked at once (both transports spawn
 * synchronously inside connect()) and closed on failure. Resolves with the child's pid.
 */
async function connected(
  connecting: Promise<unknown>,
  pidOf: () => number | undefined,
  close: () => Promise<void>,
  who: string,
): Promise<number | undefined> {
  const pid = pidOf();
  track(pid);
  try {
    await within(connecting, 30_000, `${who}'s connect`);
    return pid;
  } catch (error) {
    await within(close(), 10_000, `${who}'s close`).catch(() => {});
    throw error;
  }
}

async function closed(closing: Promise<void>, pid: number | undefined, who: string): Promise<void> {
  await within(closing, 10_000, `${who}'s close`);
  untrack(pid);
}

async function oursClientDriver(): Promise<Driver> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: nodeArgs(SERVER_FILES.floor),
    env: SERVER_ENV,
  });
  const client = createClient({ info: { name: "bench-ours-client", version: "1.0.0" } });
  const pid = await connected(
    client.connect(transport),
    () => transport.pid,
    () => transport.close(),
    "our client",
  );
  return {
    run: clientOf(async (i) => {
      check(i, await client.callTool({ name: "echo", arguments: { text: `c${i}` } }));
    }),
    close: () => closed(client.close(), pid, "our client"),
  };
}

async function sdkClientDriver(): Promise<Driver> {
  const transport = new SdkStdioClientTransport({
    command: process.execPath,
    args: nodeArgs(SERVER_FILES.floor),
    env: SERVER_ENV as Record<string, string>,
  });
  const client = new SdkClient({ name: "bench-sdk-client", version: "1.0.0" });
  const pid = await connected(
    client.connect(transport),
    () => transport.pid ?? undefined,
    () => transport.close(),
    "the SDK client",
  );
  return {
    run: clientOf(async (i) => {
      check(i, await client.callTool({ name: "echo", arguments: { text: `c${i}` } }));
    }),
    close: () => closed(client.close(), pid, "the SDK client"),
  };
}

// Measurements

interface Series {
  callsPerSec: number;
  serverCpuUs: number;
  clientCpuUs: number;
}

/**
 * Warms every driver up, then RUNS rounds in which each driver runs once, interleaved so that drift of
 * the machine (thermal, other load) spreads over all three; medians per driver.
 */
async function measure(
  drivers: Record<Kind, Driver>,
  count: number,
  inflight: 64 | 1,
  label: string,
): Promise<Record<Kind, Series>> {
  for (const kind of KINDS) await drivers[kind].run(WARMUP_CALLS[inflight], inflight);
  const samples: Record<Kind, RunResult[]> = { ours: [], sdk: [], floor: [] };
  for (let round = 0; round < RUNS; round++) {
    for (const kind of KINDS) samples[kind].push(await drivers[kind].run(count, inflight));
  }
  const out = {} as Record<Kind, Series>;
  for (const kind of KINDS) {
    const runs = samples[kind];
    const rates = runs.map((r) => (r.calls / r.ms) * 1000);
    out[kind] = {
      callsPerSec: median(rates),
      serverCpuUs: median(runs.map((r) => (r.serverCpuMs / r.calls) * 1000)),
      clientCpuUs: median(runs.map((r) => (r.clientCpuMs / r.calls) * 1000)),
    };
    log(
      `  ${label} ${kind.padEnd(5)} ${rates.map((r) => Math.round(r)).join(" / ")} calls/s` +
        ` (server CPU ${out[kind].serverCpuUs.toFixed(1)} µs/call, client CPU ${out[kind].clientCpuUs.toFixed(1)} µs/call)`,
    );
  }
  return out;
}

async function closeAll(drivers: Partial<Record<Kind, Driver>>): Promise<void> {
  await Promise.allSettled(Object.values(drivers).map((d) => d.close()));
}

type Form = "bundled" | "unbundled";

/**
 * Spawn → initialize result, for every server as tsc compiled it and, in compiled mode, bundled into one
 * file as an `init` project's build bundles its main.js. Interleaved; medians per server and form.
 */
async function coldStarts(): Promise<Record<Form, Record<Kind, number>>> {
  const forms: [Form, Kind, SpawnOptions][] = [];
  for (const kind of KINDS) {
    forms.push(["unbundled", kind, { env: SERVER_ENV }]);
    if (MODE === "compiled")
      forms.push(["bundled", kind, { env: SERVER_ENV, script: bundled(SERVER_FILES[kind]) }]);
  }
  // One spawn each first, not counted: tsx's transform cache and the OS file cache start warm for all.
  for (const [, kind, options] of forms) await coldStart(SERVER_FILES[kind], options);
  const samples = new Map(forms.map(([form, kind]) => [`${form} ${kind}`, [] as number[]]));
  for (let i = 0; i < SPAWNS; i++) {
    for (const [form, kind, options] of forms) {
      samples.get(`${form} ${kind}`)!.push(await coldStart(SERVER_FILES[kind], options));
    }
  }
  for (const [key, ms] of samples)
    log(`  cold start ${key.padEnd(15)} ${ms.map((t) => t.toFixed(0)).join(" ")} ms`);
  const pick = (form: Form) =>
    Object.fromEntries(KINDS.map((k) => [k, median(samples.get(`${form} ${k}`) ?? [])])) as Record<
      Kind,
      number
    >;
  return { bundled: pick("bundled"), unbundled: pick("unbundled") };
}

async function main(): Promise<Row[]> {
  prepareBuild();
  log(`cold start, median of ${SPAWNS} spawns per server`);
  const cold = await coldStarts();

  log(`servers, raw pipelined client: ${CALLS_PIPELINED} calls at 64 in flight, ${CALLS_SEQUENTIAL} at 1`);
  const servers: Partial<Record<Kind, Driver>> = {};
  let s64: Record<Kind, Series>;
  let s1: Record<Kind, Series>;
  try {
    for (const kind of KINDS) servers[kind] = await rawDriver(SERVER_FILES[kind]);
    const ready = servers as Record<Kind, Driver>;
    s64 = await measure(ready, CALLS_PIPELINED, 64, "server 64");
    s1 = await measure(ready, CALLS_SEQUENTIAL, 1, "server  1");
  } finally {
    await closeAll(servers);
  }

  log("clients, each against its own raw server; the floor is the raw pipelined client");
  const clients: Partial<Record<Kind, Driver>> = {};
  let c64: Record<Kind, Series>;
  let c1: Record<Kind, Series>;
  try {
    clients.ours = await oursClientDriver();
    clients.sdk = await sdkClientDriver();
    clients.floor = await rawDriver(SERVER_FILES.floor);
    const ready = clients as Record<Kind, Driver>;
    c64 = await measure(ready, CALLS_PIPELINED, 64, "client 64");
    c1 = await measure(ready, CALLS_SEQUENTIAL, 1, "client  1");
  } finally {
    await closeAll(clients);
  }

  const row = (figure: string, unit: string, pick: (k: Kind) => number): Row => ({
    figure,
    ours: pick("ours"),
    sdk: pick("sdk"),
    floor: pick("floor"),
    unit,
  });
  return [
    row("server calls/s, 64 in flight", "calls/s", (k) => s64[k].callsPerSec),
    row("server calls/s, 1 in flight", "calls/s", (k) => s1[k].callsPerSec),
    row("server CPU per call, 64 in flight", "µs", (k) => s64[k].serverCpuUs),
    row("server CPU per call, 1 in flight", "µs", (k) => s1[k].serverCpuUs),
    row(
      "server cold start, bundled as `init` projects build (spawn → initialize result)",
      "ms",
      (k) => cold.bundled[k],
    ),
    row("server cold start, tsc output unbundled", "ms", (k) => cold.unbundled[k]),
    row("client calls/s, 64 in flight", "calls/s", (k) => c64[k].callsPerSec),
    row("client calls/s, 1 in flight", "calls/s", (k) => c1[k].callsPerSec),
    row("client CPU per call, 64 in flight", "µs", (k) => c64[k].clientCpuUs),
    row("client CPU per call, 1 in flight", "µs", (k) => c1[k].clientCpuUs),
  ];
}

// Output

const GOALS: Goal[] = [
  { figure: "server calls/s, 64 in flight", against: "sdk", bound: 3, text: "≥ 3× sdk" },
  { figure: "server calls/s, 64 in flight", against: "floor", bound: 0.85, text: "≥ 0.85× floor" },
  { figure: "server calls/s, 1 in flight", against: "floor", bound: 0.9, text: "≥ 0.9× floor" },
  {
    figure: "server cold start, bundled as `init` projects build (spawn → initialize result)",
    against: "floor",
    bound: 1 / 1.3,
    text: "≤ 1.3× floor",
  },
];

function markdown(rows: Row[]): string {
  const cpu = cpus()[0]?.model.trim() ?? "unknown CPU";
  const lines = [
    `stdio, node ${process.version}, ${cpus().length} cores (${cpu})${QUICK ? ", --quick" : ""}.`,
    MODE === "compiled"
      ? "Servers run as plain `node <file>.js` (compiled by tsc; ours from the package's dist/) with NODE_ENV=production (ours with its"
      : "Servers run as `node --import tsx --conditions=mcp-codegen-source <file>` with NODE_ENV=production (ours with its",
    "default options, so no result validation; params are still validated). Throughput and CPU: median of",
    `${RUNS} runs of ${CALLS_PIPELINED} calls at 64 in flight / ${CALLS_SEQUENTIAL} at 1, after ${WARMUP_CALLS[64]} / ${WARMUP_CALLS[1]} warm-up calls.`,
    `Cold start: median of ${SPAWNS} spawns, each server as tsc compiled it and bundled into one file the way an init`,
    "project's `npm run build` bundles its main.js (esbuild --bundle --platform=node --format=esm).",
    "Client rows: both clients call the raw server; floor = raw pipelined client.",
    "vs sdk / vs floor: how many times better ours is (ours/x for calls/s, x/ours for µs and ms); > 1 = ours wins.",
    "",
  ];
  return [...lines, ...tableLines(rows, GOALS)].join("\n");
}

startWatchdog("bench/stdio.ts", BENCH_TIMEOUT_MS);

try {
  const rows = await main();
  process.stdout.write(`${JSON_OUTPUT ? JSON.stringify(rows, null, 2) : markdown(rows)}\n`);
} catch (error) {
  process.stderr.write(
    `bench/stdio.ts: ${error instanceof Error ? (error.stack ?? error.message) : error}\n`,
  );
  process.exitCode = 1;
} finally {
  killAll();
}
