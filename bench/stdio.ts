/**
 * stdio throughput, CPU per call and cold start: a server written as generated handlers ("ours") against
 * the official SDK's McpServer, v1 and v2 ("sdk v1", "sdk v2"), and a raw newline-JSON responder ("floor"),
 * all driven by the same raw pipelined client; then our generated client against the SDK v1 and v2
 * Clients, all calling the raw server.
 * Prints a markdown table with targets, or with --json one report (rows, ratios, targets met).
 * --quick divides the call counts by 10.
 * See bench/README.md for what each figure means and how it is measured.
 */

import { cpus } from "node:os";
import { fileURLToPath } from "node:url";
import { recordArgumentsJson } from "./fixtures/record.js";
import {
  bundled,
  type CallKind,
  ClientChild,
  coldStart,
  ECHO_CALL,
  type Goal,
  jsonOf,
  KIND_NAME,
  KINDS,
  type Kind,
  killAll,
  MODE,
  markdownOf,
  median,
  nodeArgs,
  prepareBuild,
  type Report,
  type Row,
  type RunResult,
  rowOf,
  ServerChild,
  type SpawnOptions,
  startWatchdog,
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
const SERVER_FILES: Record<Kind, string> = {
  ours: fixture("ours-server.ts"),
  sdkV1: fixture("sdk1-server.ts"),
  sdkV2: fixture("sdk2-server.ts"),
  floor: fixture("raw-server.ts"),
};
/** Ours' typed tool through the generated contract, and the same payload through a plain callTool. */
const CONTRACT_FILE = fixture("contract-server.ts");
const RECORD_UNTYPED_FILE = fixture("record-untyped-server.ts");
/** The typed tool's call: 6 arguments (a nested object, an enum, an array); its output's id must come back. */
const RECORD_CALL: CallKind = {
  line: (id) =>
    `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"record","arguments":${recordArgumentsJson(id)}}}\n`,
  check: (result, id) => result?.structuredContent?.id === `t${id}` && result.content?.length === 1,
};
/** The client libraries' process (ours, sdk1 or sdk2 by argument). */
const CLIENT_FILE = fixture("stdio-client.ts");
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

async function rawDriver(file: string, call: CallKind = ECHO_CALL): Promise<Driver> {
  const server = new ServerChild(file, { env: SERVER_ENV });
  await server.initialize();
  return {
    run: (count, inflight) => server.run(count, inflight, RUN_TIMEOUT_MS, call),
    close: () => server.close(),
  };
}

/**
 * A client library (ours, SDK v1 or v2) in its own process, run as compiled JavaScript like the servers,
 * calling its own raw server; its CPU is measured inside it.
 */
async function clientDriver(kind: "ours" | "sdk1" | "sdk2"): Promise<Driver> {
  const args = [kind, ...nodeArgs(SERVER_FILES.floor)];
  const client = new ClientChild(CLIENT_FILE, args, { env: SERVER_ENV });
  try {
    await client.start();
  } catch (error) {
    await client.close().catch(() => {});
    throw error;
  }
  return {
    run: (count, inflight) => client.run(count, inflight, RUN_TIMEOUT_MS),
    close: () => client.close(),
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
  const samples = Object.fromEntries(KINDS.map((k) => [k, [] as RunResult[]])) as Record<Kind, RunResult[]>;
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
      `  ${label} ${KIND_NAME[kind].padEnd(6)} ${rates.map((r) => Math.round(r)).join(" / ")} calls/s` +
        ` (server CPU ${out[kind].serverCpuUs.toFixed(1)} µs/call, client CPU ${out[kind].clientCpuUs.toFixed(1)} µs/call)`,
    );
  }
  return out;
}

async function closeAll(drivers: Partial<Record<Kind, Driver>>): Promise<void> {
  await Promise.allSettled(Object.values(drivers).map((d) => d.close()));
}

const TYPED = ["echo", "typedEcho", "untyped", "contract"] as const;
type Typed = (typeof TYPED)[number];

/**
 * Server CPU per call at 64 in flight of ours' untyped echo, the same echo through the contract (its
 * `{ text }` input checked), the `record` tool untyped and the same tool through the contract, each in
 * its own fresh server process: warmed up like the servers above, then RUNS interleaved runs, medians.
 */
async function typedTool(): Promise<Record<Typed, number>> {
  const drivers: Partial<Record<Typed, Driver>> = {};
  try {
    drivers.echo = await rawDriver(SERVER_FILES.ours);
    drivers.typedEcho = await rawDriver(CONTRACT_FILE);
    drivers.untyped = await rawDriver(RECORD_UNTYPED_FILE, RECORD_CALL);
    drivers.contract = await rawDriver(CONTRACT_FILE, RECORD_CALL);
    const ready = drivers as Record<Typed, Driver>;
    for (const kind of TYPED) await ready[kind].run(WARMUP_CALLS[64], 64);
    const samples = Object.fromEntries(TYPED.map((k) => [k, [] as number[]])) as Record<Typed, number[]>;
    for (let round = 0; round < RUNS; round++) {
      for (const kind of TYPED) {
        const r = await ready[kind].run(CALLS_PIPELINED, 64);
        samples[kind].push((r.serverCpuMs / r.calls) * 1000);
      }
    }
    for (const kind of TYPED)
      log(`  typed 64 ${kind.padEnd(8)} ${samples[kind].map((us) => us.toFixed(1)).join(" / ")} µs/call`);
    return Object.fromEntries(TYPED.map((k) => [k, median(samples[k])])) as Record<Typed, number>;
  } finally {
    await Promise.allSettled(Object.values(drivers).map((d) => d.close()));
  }
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
  const samples = new Map(forms.map(([form, kind]) => [`${form} ${KIND_NAME[kind]}`, [] as number[]]));
  for (let i = 0; i < SPAWNS; i++) {
    for (const [form, kind, options] of forms) {
      samples.get(`${form} ${KIND_NAME[kind]}`)!.push(await coldStart(SERVER_FILES[kind], options));
    }
  }
  for (const [key, ms] of samples)
    log(`  cold start ${key.padEnd(16)} ${ms.map((t) => t.toFixed(0)).join(" ")} ms`);
  const pick = (form: Form) =>
    Object.fromEntries(KINDS.map((k) => [k, median(samples.get(`${form} ${KIND_NAME[k]}`) ?? [])])) as Record<
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

  log(
    `typed tool: ours' echo untyped and through the contract, record untyped and through the contract, ${CALLS_PIPELINED} calls at 64 in flight`,
  );
  const typed = await typedTool();

  log("clients, each against its own raw server; the floor is the raw pipelined client");
  const clients: Partial<Record<Kind, Driver>> = {};
  let c64: Record<Kind, Series>;
  let c1: Record<Kind, Series>;
  try {
    clients.ours = await clientDriver("ours");
    clients.sdkV1 = await clientDriver("sdk1");
    clients.sdkV2 = await clientDriver("sdk2");
    clients.floor = await rawDriver(SERVER_FILES.floor);
    const ready = clients as Record<Kind, Driver>;
    c64 = await measure(ready, CALLS_PIPELINED, 64, "client 64");
    c1 = await measure(ready, CALLS_SEQUENTIAL, 1, "client  1");
  } finally {
    await closeAll(clients);
  }

  const row = rowOf;
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
    row(TYPED_FIGURES.typedEcho, "µs", (k) => (k === "ours" ? typed.typedEcho : Number.NaN)),
    row(TYPED_FIGURES.echo, "µs", (k) => (k === "ours" ? typed.echo : Number.NaN)),
    row(TYPED_FIGURES.typedVsEcho, "% of echo", (k) =>
      k === "ours" ? (typed.typedEcho / typed.echo) * 100 : Number.NaN,
    ),
    row(TYPED_FIGURES.contract, "µs", (k) => (k === "ours" ? typed.contract : Number.NaN)),
    row(TYPED_FIGURES.untyped, "µs", (k) => (k === "ours" ? typed.untyped : Number.NaN)),
    row(TYPED_FIGURES.vsUntyped, "% of untyped", (k) =>
      k === "ours" ? (typed.contract / typed.untyped) * 100 : Number.NaN,
    ),
    row(TYPED_FIGURES.vsEcho, "% of echo", (k) =>
      k === "ours" ? (typed.contract / typed.echo) * 100 : Number.NaN,
    ),
    row("client calls/s, 64 in flight", "calls/s", (k) => c64[k].callsPerSec),
    row("client calls/s, 1 in flight", "calls/s", (k) => c1[k].callsPerSec),
    row("client CPU per call, 64 in flight", "µs", (k) => c64[k].clientCpuUs),
    row("client CPU per call, 1 in flight", "µs", (k) => c1[k].clientCpuUs),
  ];
}

// Output

const TYPED_FIGURES = {
  typedEcho: "server CPU per call, echo through the contract (its `{ text }` input checked), 64 in flight",
  typedVsEcho: "echo through the contract ÷ untyped echo, server CPU per call",
  contract: "server CPU per call, typed contract tool `record` (6-field input, object output), 64 in flight",
  untyped:
    "server CPU per call, `record` untyped (same payload, a plain callTool, nothing checked), 64 in flight",
  echo: "server CPU per call, untyped echo (in the same interleaved runs), 64 in flight",
  vsEcho: "typed contract tool `record` ÷ untyped echo (a much larger payload), server CPU per call",
  vsUntyped: "typed contract tool `record` ÷ the same tool untyped, server CPU per call",
} as const;

const GOALS: Goal[] = [
  { figure: TYPED_FIGURES.typedVsEcho, against: "value", bound: 110, text: "≤ 1.10× echo" },
  { figure: TYPED_FIGURES.vsUntyped, against: "value", bound: 110, text: "≤ 1.10× untyped" },
  { figure: "server calls/s, 64 in flight", against: "sdkV2", bound: 3, text: "≥ 3× sdk v2" },
  { figure: "server calls/s, 64 in flight", against: "sdkV1", bound: 3, text: "≥ 3× sdk v1" },
  { figure: "server calls/s, 64 in flight", against: "floor", bound: 0.85, text: "≥ 0.85× floor" },
  { figure: "server calls/s, 1 in flight", against: "floor", bound: 0.9, text: "≥ 0.9× floor" },
  {
    figure: "server cold start, bundled as `init` projects build (spawn → initialize result)",
    against: "floor",
    bound: 1 / 1.3,
    text: "≤ 1.3× floor",
  },
  { figure: "client calls/s, 64 in flight", against: "sdkV2", bound: 3, text: "≥ 3× sdk v2" },
];

function header(): string[] {
  const cpu = cpus()[0]?.model.trim() ?? "unknown CPU";
  return [
    `stdio, node ${process.version}, ${cpus().length} cores (${cpu})${QUICK ? ", --quick" : ""}.`,
    MODE === "compiled"
      ? "Servers run as plain `node <file>.js` (compiled by tsc; ours from the package's dist/) with NODE_ENV=production (ours with its"
      : "Servers run as `node --import tsx --conditions=mcp-codegen-source <file>` with NODE_ENV=production (ours with its",
    "default options, so no result validation; params are still validated). Throughput and CPU: median of",
    `${RUNS} runs of ${CALLS_PIPELINED} calls at 64 in flight / ${CALLS_SEQUENTIAL} at 1, after ${WARMUP_CALLS[64]} / ${WARMUP_CALLS[1]} warm-up calls.`,
    `Cold start: median of ${SPAWNS} spawns, each server as tsc compiled it and bundled into one file the way an init`,
    "project's `npm run build` bundles its main.js (esbuild --bundle --platform=node --format=esm).",
    "Client rows: every client calls the raw server; floor = raw pipelined client.",
    "vs v1 / vs v2 / vs floor: how many times better ours is (ours/x for calls/s, x/ours for µs and ms); > 1 = ours wins.",
  ];
}

startWatchdog("bench/stdio.ts", BENCH_TIMEOUT_MS);

try {
  const report: Report = { name: "stdio", header: header(), rows: await main(), goals: GOALS };
  process.stdout.write(`${JSON_OUTPUT ? JSON.stringify(jsonOf(report), null, 2) : markdownOf(report)}\n`);
} catch (error) {
  process.stderr.write(
    `bench/stdio.ts: ${error instanceof Error ? (error.stack ?? error.message) : error}\n`,
  );
  process.exitCode = 1;
} finally {
  killAll();
}
