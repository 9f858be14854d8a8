/**
 * Streamable HTTP throughput, CPU per call and memory: a server written as generated handlers behind
 * `serveHttp` ("ours") against the official SDK's McpServer on node:http, v1 (StreamableHTTPServerTransport)
 * and v2 (createMcpHandler, NodeStreamableHTTPServerTransport) ("sdk v1", "sdk v2"), and a raw node:http
 * responder ("floor"), all driven by the same keep-alive connection pool. Stateless JSON (every POST on
 * its own), stateful SSE (one initialized session) and 2026-07-28 (ours and v2 only), at 1 and 64 in
 * flight; server RSS after the runs; RSS (and V8 heap) growth per 1,000 idle sessions on fresh stateful
 * servers.
 * Prints a markdown table with targets, or with --json one report (rows, ratios, targets met). --quick
 * is a smoke run.
 * See bench/README.md for what each figure means and how it is measured.
 */

import { cpus } from "node:os";
import { fileURLToPath } from "node:url";
import type { Pool } from "undici";
import {
  BASE_HEADERS,
  callBody,
  echoCaller,
  LoadTarget,
  openSession,
  PATH,
  POOL_SOCKETS,
  PROTOCOL_VERSION,
  type Sample,
} from "./http-load.js";
import {
  type BoundedRun,
  type Goal,
  HttpServerChild,
  jsonOf,
  KIND_NAME,
  KINDS,
  type Kind,
  killAll,
  MODE,
  markdownOf,
  median,
  prepareBuild,
  type Report,
  type Row,
  rowOf,
  rssKb,
  runBounded,
  startWatchdog,
  within,
} from "./lib.js";

const JSON_OUTPUT = process.argv.includes("--json");
const QUICK = process.argv.includes("--quick");
const SCALE = QUICK ? 10 : 1;

/** Each run stops at its call count or its time cap, whichever comes first. */
const CALLS = { 64: 20_000 / SCALE, 1: 4_000 / SCALE } as const;
const RUN_MAX_MS = QUICK ? 400 : 2_000;
/**
 * Warm-up before the runs at each concurrency, also bounded by count and time. A fresh server needs
 * about 5 s of load to reach its steady rate (JIT tiers, heap sizing): the first phase (64 in flight)
 * warms for up to 6 s; the second (1 in flight) runs on the same, already warm servers.
 */
const WARMUP = {
  64: { count: 30_000 / SCALE, maxMs: QUICK ? 600 : 6_000 },
  1: { count: 2_000 / SCALE, maxMs: QUICK ? 200 : 1_000 },
} as const;
const RUNS = 3;
/**
 * Idle sessions opened for the memory figures, reported per 1,000. More than 1,000 so that one-off growth
 * (the young generation enlarging under the burst: several MB whatever the count) weighs little: with
 * 1,000 the same code read anywhere from 1 to 10 MB per 1,000 from run to run.
 */
const SESSIONS = QUICK ? 500 : 5_000;
const SESSIONS_MAX_MS = 60_000;
const SESSIONS_INFLIGHT = 16;
/**
 * Before the idle-session baseline: some calls, then as many sessions as are measured, each ended with
 * DELETE at once (the floor answers 405 and keeps its ids, a few hundred KB), then some kept. Session
 * setup is compiled and the heap (its young generation above all) is sized for a burst of sessions, so
 * the growth measured is what the sessions themselves hold. Without the ended burst the young generation
 * grew during the measured one: 5 to 10 MB per 1,000 of RSS that no session held (heap growth ~1.7 MB).
 */
const IDLE_WARMUP = {
  calls: 2_000 / SCALE,
  maxMs: QUICK ? 200 : 1_000,
  ended: SESSIONS,
  sessions: QUICK ? 20 : 100,
};
/** After the sessions are made: time for their last callbacks and timers before the gc and the reading. */
const SETTLE_MS = 500;
const BENCH_TIMEOUT_MS = 10 * 60_000;

const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));
const SERVER_FILES: Record<Kind, string> = {
  ours: fixture("http-ours-server.ts"),
  sdkV1: fixture("http-sdk1-server.ts"),
  sdkV2: fixture("http-sdk2-server.ts"),
  floor: fixture("http-raw-server.ts"),
};
/** Who speaks 2026-07-28: SDK v1 does not. */
const MODERN_KINDS = ["ours", "sdkV2"] as const;
const STYLES = ["stateless", "stateful"] as const;
type Style = (typeof STYLES)[number];
const STYLE_NAME: Record<Style, string> = { stateless: "stateless JSON", stateful: "stateful SSE" };
/** What a deployed server runs with; for ours it means no result validation unless asked for. */
const SERVER_ENV = { ...process.env, NODE_ENV: "production" };

const log = (text: string) => {
  if (!JSON_OUTPUT || process.stderr.isTTY) process.stderr.write(`${text}\n`);
};

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

// The load client: an undici Pool of keep-alive sockets, bodies built as strings, responses parsed only
// as far as needed to check the echo (about 20 µs of client CPU per call on the reference machine).

/** 2026-07-28: no session; every request names its version (header and `_meta`), method and tool. */
const MODERN_HEADERS = {
  ...BASE_HEADERS,
  "mcp-protocol-version": "2026-07-28",
  "mcp-method": "tools/call",
  "mcp-name": "echo",
};
const MODERN_META =
  '"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"bench-http","version":"1.0.0"}}';
const modernCallBody = (i: number) =>
  `{"jsonrpc":"2.0","id":${i},"method":"tools/call","params":{"name":"echo","arguments":{"text":"c${i}"},${MODERN_META}}}`;

function caller(pool: Pool, sessionId: string | undefined, modern = false): (i: number) => Promise<void> {
  const headers = modern
    ? MODERN_HEADERS
    : sessionId
      ? { ...BASE_HEADERS, "mcp-session-id": sessionId }
      : BASE_HEADERS;
  return echoCaller(pool, headers, modern ? modernCallBody : callBody);
}

// One server under load

class Target extends LoadTarget {
  constructor(
    readonly kind: Kind,
    readonly style: Style | "2026",
  ) {
    const flags = style === "stateless" ? ["--stateless"] : style === "2026" ? ["--2026"] : [];
    super(new HttpServerChild(SERVER_FILES[kind], flags, { env: SERVER_ENV }));
  }

  async start(): Promise<void> {
    await this.connect();
    const sessionId =
      this.style === "stateful" ? await within(openSession(this.pool), 30_000, "a session") : undefined;
    this.call = caller(this.pool, sessionId, this.style === "2026");
  }
}

interface Series {
  callsPerSec: number;
  serverCpuUs: number;
  /** The load client's share of one core during the run (how close it came to being the bottleneck). */
  clientBusy: number;
}

const ratesOf = (runs: Sample[]) => runs.map((r) => (r.calls / r.ms) * 1000);

/** Medians of a target's runs, and the load client's busiest share of a core. */
function seriesOf(runs: Sample[]): Series {
  return {
    callsPerSec: median(ratesOf(runs)),
    serverCpuUs: median(runs.map((r) => (r.serverCpuMs / r.calls) * 1000)),
    clientBusy: Math.max(...runs.map((r) => r.clientCpuMs / r.ms)),
  };
}

/** Warm-up, then RUNS rounds interleaved over the servers (drift falls on all alike); medians. */
async function measure<K extends Kind>(
  kinds: readonly K[],
  targets: Record<K, Target>,
  inflight: 1 | 64,
  label: string,
): Promise<Record<K, Series>> {
  for (const kind of kinds) await targets[kind].run(WARMUP[inflight].count, inflight, WARMUP[inflight].maxMs);
  const samples = Object.fromEntries(kinds.map((k) => [k, [] as Sample[]])) as Record<K, Sample[]>;
  for (let round = 0; round < RUNS; round++) {
    for (const kind of kinds)
      samples[kind].push(await targets[kind].run(CALLS[inflight], inflight, RUN_MAX_MS));
  }
  const out = {} as Record<K, Series>;
  for (const kind of kinds) {
    const runs = samples[kind];
    const rates = ratesOf(runs);
    out[kind] = seriesOf(runs);
    log(
      `  ${label} ${KIND_NAME[kind].padEnd(6)} ${rates.map((r) => Math.round(r)).join(" / ")} calls/s` +
        ` (${runs.map((r) => r.calls).join(" / ")} calls; server CPU ${out[kind].serverCpuUs.toFixed(1)} µs/call,` +
        ` load client ${Math.round(out[kind].clientBusy * 100)}% of a core)`,
    );
  }
  return out;
}

interface StyleResult {
  s64: Record<Kind, Series>;
  s1: Record<Kind, Series>;
  rssMb: Record<Kind, number>;
}

/** Stateless 2026-07-28 calls to ours and SDK v2 (v1 does not speak it), measured as in measure(). */
async function modernThroughput(): Promise<Record<1 | 64, Record<(typeof MODERN_KINDS)[number], Series>>> {
  type Modern = (typeof MODERN_KINDS)[number];
  const targets: Partial<Record<Modern, Target>> = {};
  try {
    for (const kind of MODERN_KINDS) {
      targets[kind] = new Target(kind, "2026");
      await targets[kind].start();
    }
    const ready = targets as Record<Modern, Target>;
    return {
      64: await measure(MODERN_KINDS, ready, 64, "2026-07-28 stateless 64"),
      1: await measure(MODERN_KINDS, ready, 1, "2026-07-28 stateless  1"),
    };
  } finally {
    await Promise.allSettled(Object.values(targets).map((t) => t.close()));
  }
}

async function throughput(style: Style): Promise<StyleResult> {
  const targets: Partial<Record<Kind, Target>> = {};
  try {
    for (const kind of KINDS) {
      targets[kind] = new Target(kind, style);
      await targets[kind].start();
    }
    const ready = targets as Record<Kind, Target>;
    const name = STYLE_NAME[style];
    const s64 = await measure(KINDS, ready, 64, `${name} 64`);
    const s1 = await measure(KINDS, ready, 1, `${name}  1`);
    const rssMb = {} as Record<Kind, number>;
    for (const kind of KINDS) rssMb[kind] = rssKb(ready[kind].server.pid) / 1024;
    log(
      `  ${name} RSS after the runs: ${KINDS.map((k) => `${KIND_NAME[k]} ${rssMb[k].toFixed(1)} MB`).join(", ")}`,
    );
    return { s64, s1, rssMb };
  } finally {
    await Promise.allSettled(Object.values(targets).map((t) => t.close()));
  }
}

/** `count` sessions opened, SESSIONS_INFLIGHT at a time, bounded by SESSIONS_MAX_MS. */
function openSessions(pool: Pool, count: number, end = false): Promise<BoundedRun> {
  const open = async () => {
    const sessionId = await openSession(pool);
    if (!end) return;
    const { statusCode, body } = await pool.request({
      path: PATH,
      method: "DELETE",
      headers: { "mcp-protocol-version": PROTOCOL_VERSION, "mcp-session-id": sessionId },
    });
    await body.text();
    if (statusCode >= 300 && statusCode !== 405) throw new Error(`DELETE: HTTP ${statusCode}`);
  };
  return runBounded(open, { count, inflight: SESSIONS_INFLIGHT, maxMs: SESSIONS_MAX_MS });
}

/**
 * A fresh stateful server; after a warm-up (IDLE_WARMUP) and a gc, SESSIONS sessions
 * are opened (initialize + notifications/initialized, never DELETEd); after a settle and a gc again, the
 * growth of VmRSS and of the V8 heap in use, scaled to 1,000 sessions, in MB (2^20 bytes).
 */
async function idleSessions(kind: Kind): Promise<{ rss: number; heap: number }> {
  const target = new Target(kind, "stateful");
  try {
    await target.start();
    await target.run(IDLE_WARMUP.calls, 64, IDLE_WARMUP.maxMs);
    await openSessions(target.pool, IDLE_WARMUP.ended, true);
    await openSessions(target.pool, IDLE_WARMUP.sessions);
    await delay(SETTLE_MS);
    const heap0 = (await target.server.gc()).heapUsed;
    const rss0 = rssKb(target.server.pid);
    const made = await openSessions(target.pool, SESSIONS);
    if (made.calls < SESSIONS) throw new Error(`${kind}: only ${made.calls} of ${SESSIONS} sessions in time`);
    await delay(SETTLE_MS);
    const heap1 = (await target.server.gc()).heapUsed;
    const rss1 = rssKb(target.server.pid);
    const scale = 1000 / SESSIONS;
    const growth = { rss: ((rss1 - rss0) / 1024) * scale, heap: ((heap1 - heap0) / 2 ** 20) * scale };
    log(
      `  ${KIND_NAME[kind].padEnd(6)} ${SESSIONS} sessions in ${Math.round(made.ms)} ms: RSS ${(rss0 / 1024).toFixed(1)} → ` +
        `${(rss1 / 1024).toFixed(1)} MB, heap used ${(heap0 / 2 ** 20).toFixed(1)} → ${(heap1 / 2 ** 20).toFixed(1)} MB` +
        ` (${growth.rss.toFixed(2)} MB RSS, ${growth.heap.toFixed(2)} MB heap per 1,000)`,
    );
    return growth;
  } finally {
    await target.close();
  }
}

let clientBusyMax = 0;

async function main(): Promise<Row[]> {
  prepareBuild();
  const results = {} as Record<Style, StyleResult>;
  for (const style of STYLES) {
    log(
      `${STYLE_NAME[style]}: ${CALLS[64]} calls at 64 in flight, ${CALLS[1]} at 1, each run capped at ${RUN_MAX_MS} ms`,
    );
    results[style] = await throughput(style);
    for (const s of [results[style].s64, results[style].s1]) {
      for (const kind of KINDS) clientBusyMax = Math.max(clientBusyMax, s[kind].clientBusy);
    }
  }
  log("2026-07-28 stateless: ours and sdk v2 (dual-era servers, per-request _meta, no session)");
  const modern = await modernThroughput();
  for (const s of [modern[64], modern[1]]) {
    for (const kind of MODERN_KINDS) clientBusyMax = Math.max(clientBusyMax, s[kind].clientBusy);
  }
  log(`idle sessions: ${SESSIONS} sessions opened on a fresh stateful server, never DELETEd`);
  const idle = {} as Record<Kind, { rss: number; heap: number }>;
  for (const kind of KINDS) idle[kind] = await idleSessions(kind);

  const row = rowOf;
  const rows: Row[] = [];
  for (const style of STYLES) {
    const { s64, s1 } = results[style];
    const name = STYLE_NAME[style];
    rows.push(
      row(`${name} calls/s, 64 in flight`, "calls/s", (k) => s64[k].callsPerSec),
      row(`${name} calls/s, 1 in flight`, "calls/s", (k) => s1[k].callsPerSec),
      row(`${name} server CPU per call, 64 in flight`, "µs", (k) => s64[k].serverCpuUs),
      row(`${name} server CPU per call, 1 in flight`, "µs", (k) => s1[k].serverCpuUs),
    );
  }
  // SDK v1 does not speak 2026-07-28; the floor column holds the stateless JSON floor (the same work).
  for (const inflight of [64, 1] as const) {
    const s = inflight === 64 ? "s64" : "s1";
    const floor = results.stateless[s].floor;
    rows.push(
      row(`2026-07-28 stateless calls/s, ${inflight} in flight`, "calls/s", (k) =>
        k === "floor" ? floor.callsPerSec : k === "sdkV1" ? Number.NaN : modern[inflight][k].callsPerSec,
      ),
      row(`2026-07-28 stateless server CPU per call, ${inflight} in flight`, "µs", (k) =>
        k === "floor" ? floor.serverCpuUs : k === "sdkV1" ? Number.NaN : modern[inflight][k].serverCpuUs,
      ),
    );
  }
  for (const style of STYLES) {
    rows.push(row(`server RSS after the ${STYLE_NAME[style]} runs`, "MB", (k) => results[style].rssMb[k]));
  }
  rows.push(
    row("RSS growth per 1,000 idle sessions", "MB", (k) => idle[k].rss),
    row("heap growth per 1,000 idle sessions", "MB", (k) => idle[k].heap),
  );
  return rows;
}

// Output

const GOALS: Goal[] = [];
for (const inflight of [64, 1]) {
  const stateless = `${STYLE_NAME.stateless} calls/s, ${inflight} in flight`;
  const stateful = `${STYLE_NAME.stateful} calls/s, ${inflight} in flight`;
  GOALS.push(
    { figure: stateless, against: "sdkV2", bound: 3, text: "≥ 3× sdk v2" },
    { figure: stateless, against: "sdkV1", bound: 5, text: "≥ 5× sdk v1" },
    { figure: stateless, against: "floor", bound: 0.8, text: "≥ 0.8× floor" },
    { figure: stateful, against: "sdkV2", bound: 3, text: "≥ 3× sdk v2" },
    { figure: stateful, against: "sdkV1", bound: 3, text: "≥ 3× sdk v1" },
  );
}
GOALS.push({ figure: "RSS growth per 1,000 idle sessions", against: "value", bound: 5, text: "≤ 5 MB" });

function header(): string[] {
  const cpu = cpus()[0]?.model.trim() ?? "unknown CPU";
  return [
    `Streamable HTTP on 127.0.0.1, node ${process.version}, ${cpus().length} cores (${cpu})${QUICK ? ", --quick" : ""}.`,
    MODE === "compiled"
      ? "Servers run as plain `node <file>.js` (compiled by tsc; ours from the package's dist/) with NODE_ENV=production (ours with its"
      : "Servers run as `node --import tsx --conditions=mcp-codegen-source <file>` with NODE_ENV=production (ours with its",
    "default options but `stateless: true, jsonResponse: true` for the stateless rows; sdk v2 stateless and 2026-07-28 through",
    "`createMcpHandler`). Load: an undici Pool of",
    `${POOL_SOCKETS} keep-alive sockets. Throughput and CPU: median of ${RUNS} runs of ${CALLS[64]} calls at 64 in flight /`,
    `${CALLS[1]} at 1, each capped at ${RUN_MAX_MS} ms, after a warm-up (≤ ${WARMUP[64].count} calls / ${WARMUP[64].maxMs} ms at 64,`,
    `≤ ${WARMUP[1].count} / ${WARMUP[1].maxMs} ms at 1). The load client used at most`,
    `${Math.round(clientBusyMax * 100)}% of a core in any run. RSS after the runs: VmRSS, no gc. Idle sessions: ${SESSIONS} sessions`,
    "(initialize + notifications/initialized) on a fresh stateful server, VmRSS and V8 heapUsed after a gc before and after,",
    "scaled to 1,000; MB = 2^20 bytes. RSS deltas within about ±1 MB are noise (the heap grows into pages already held).",
    "2026-07-28 rows: sdk v1 does not speak it; floor = the stateless JSON floor.",
    "vs v1 / vs v2 / vs floor: how many times better ours is (ours/x for calls/s, x/ours for µs and MB); > 1 = ours wins.",
  ];
}

startWatchdog("bench/http.ts", BENCH_TIMEOUT_MS);

try {
  const t0 = performance.now();
  const rows = await main();
  log(`done in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  const report: Report = { name: "http", header: header(), rows, goals: GOALS };
  process.stdout.write(`${JSON_OUTPUT ? JSON.stringify(jsonOf(report), null, 2) : markdownOf(report)}\n`);
} catch (error) {
  process.stderr.write(`bench/http.ts: ${error instanceof Error ? (error.stack ?? error.message) : error}\n`);
  process.exitCode = 1;
} finally {
  killAll();
}
