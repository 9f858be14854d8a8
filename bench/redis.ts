/**
 * What sharing sessions through Redis costs and gives (issue 24's figures): the stateful 2025-11-25 server
 * (POSTs answered with SSE) with its sessions, SSE event logs and message bus on a real redis-server,
 * against the same server with the in-memory defaults and SDK v2's stateful server (its in-memory
 * transports map), driven by the HTTP bench's load client: CPU per call, calls/s, p50/p99 latency, and
 * the Redis commands per call (counted by MONITOR, so the difference is explained); calls/s of one
 * instance against two behind haproxy (round robin per request) and with the client alternating; Redis
 * memory per 1,000 idle sessions; the time from an instance's SIGKILL to the client, resuming on another
 * instance with Last-Event-ID, holding the answer owed (the error for the request that instance ran).
 * Prints a markdown table, or with --json one report; --quick is a smoke run.
 * See bench/README.md for what each figure means and how it is measured.
 */

import { randomUUID } from "node:crypto";
import { connect, type Socket } from "node:net";
import { cpus } from "node:os";
import { fileURLToPath } from "node:url";
import { createClient } from "redis";
import { Pool, request } from "undici";
import { freePort } from "../generator/dev/server-process.js";
import { startRedis, type TestRedis } from "../test/fixtures/redis/redis-server.js";
import { startHaproxy, type TestHaproxy } from "../test/fixtures/scale/haproxy.js";
import {
  BASE_HEADERS,
  CPU_SETTLE_MS,
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
  HttpServerChild,
  killAll,
  MODE,
  median,
  prepareBuild,
  processCpuMs,
  runBounded,
  startWatchdog,
  within,
} from "./lib.js";

const JSON_OUTPUT = process.argv.includes("--json");
const QUICK = process.argv.includes("--quick");
const SCALE = QUICK ? 10 : 1;

/** Each run stops at its call count or its time cap, whichever comes first. */
const CALLS = { 64: 20_000 / SCALE, 1: 3_000 / SCALE } as const;
const RUN_MAX_MS = { 64: QUICK ? 300 : 1_500, 1: QUICK ? 200 : 1_000 } as const;
const WARMUP = {
  64: { count: 15_000 / SCALE, maxMs: QUICK ? 500 : 3_000 },
  1: { count: 1_000 / SCALE, maxMs: QUICK ? 200 : 500 },
} as const;
const RUNS = QUICK ? 1 : 3;
/** Calls watched with MONITOR (untimed: MONITOR slows Redis down) to count the commands each one sends. */
const MONITORED_CALLS = 200;
/** Idle sessions opened for the memory figure, reported per 1,000. */
const SESSIONS = QUICK ? 200 : 2_000;
const SESSIONS_INFLIGHT = 16;
/** Kill-and-resume runs; the median is reported. */
const RESUMES = QUICK ? 2 : 5;
/** The long call of a resume run: progress every STEP_MS, far more steps than a run lasts. */
const STEP_MS = 20;
/** Progress events the client reads from the doomed instance before it is killed. */
const SEEN_BEFORE_KILL = 3;
const SETTLE_MS = 300;
const BENCH_TIMEOUT_MS = 5 * 60_000;
/** The CPU-per-call target of the Redis-backed server against the in-memory one. */
const CPU_TARGET = 1.5;

const SERVER = fileURLToPath(new URL("./fixtures/http-redis-server.ts", import.meta.url));
const SDK2_SERVER = fileURLToPath(new URL("./fixtures/http-sdk2-server.ts", import.meta.url));
/** What a deployed server runs with; for ours it means no result validation unless asked for. */
const SERVER_ENV = { ...process.env, NODE_ENV: "production" };

const log = (text: string) => {
  if (!JSON_OUTPUT || process.stderr.isTTY) process.stderr.write(`${text}\n`);
};
const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const percentile = (xs: Float64Array, p: number): number => {
  const sorted = xs.slice().sort();
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
};

// The servers

type Kind = "redis" | "memory" | "sdkV2";

interface RedisSetup {
  redis: TestRedis;
  prefix: string;
  /** The balancers' Host headers, which every Redis-backed instance accepts. */
  balancers: string[];
}

/** An instance of the bench's server: Redis-backed when `shared` is given, else the in-memory defaults. */
async function startServer(
  shared: RedisSetup | undefined,
  jsonAnswers = false,
): Promise<{ child: HttpServerChild; port: number }> {
  const port = await freePort();
  const answers = jsonAnswers ? ["--json-answers"] : [];
  const flags = shared
    ? [
        `--redis=${shared.redis.url}`,
        `--prefix=${shared.prefix}`,
        `--port=${port}`,
        ...shared.balancers.map((host) => `--allow-host=${host}`),
        ...answers,
      ]
    : answers;
  const child = new HttpServerChild(SERVER, flags, { env: SERVER_ENV });
  return { child, port: await child.start() };
}

/**
 * A session's echo calls through one pool, or through several in turn (`extra`: the client alternating
 * instances), each call's latency recorded; CPU summed over `servers`.
 */
class SessionTarget extends LoadTarget {
  latencies = new Float64Array(0);
  #count = 0;
  readonly #pools: Pool[] = [];

  constructor(
    readonly servers: HttpServerChild[],
    /** Where the calls go: a balancer's port, or the servers' own ports (then the client alternates). */
    private readonly ports: number[],
  ) {
    super(servers[0]!);
  }

  async start(): Promise<void> {
    for (const port of this.ports)
      this.#pools.push(new Pool(`http://127.0.0.1:${port}`, { connections: POOL_SOCKETS, pipelining: 1 }));
    this.pool = this.#pools[0]!;
    const sessionId = await within(openSession(this.pool), 30_000, "a session");
    const headers = { ...BASE_HEADERS, "mcp-session-id": sessionId };
    const calls = this.#pools.map((pool) => echoCaller(pool, headers, callBody));
    this.call = async (i) => {
      const t0 = performance.now();
      await calls[i % calls.length]!(i);
      if (this.#count < this.latencies.length) this.latencies[this.#count++] = performance.now() - t0;
    };
  }

  override async run(count: number, inflight: number, maxMs: number): Promise<Sample> {
    this.latencies = new Float64Array(count);
    this.#count = 0;
    const cpu0 = this.servers.map((s) => processCpuMs(s.pid));
    const run = await runBounded(this.call, { count, inflight, maxMs });
    await delay(CPU_SETTLE_MS);
    const serverCpuMs = this.servers.reduce((sum, s, i) => sum + processCpuMs(s.pid) - cpu0[i]!, 0);
    this.latencies = this.latencies.subarray(0, this.#count);
    return { ...run, serverCpuMs };
  }

  override async close(): Promise<void> {
    await Promise.allSettled(this.#pools.map((pool) => within(pool.close(), 5_000, "a pool's close")));
  }
}

interface Series {
  callsPerSec: number;
  serverCpuUs: number;
  p50Ms: number;
  p99Ms: number;
  /** CPU of redis-server per call, µs (Redis-backed targets only). */
  redisCpuUs: number;
  clientBusy: number;
}

/** Warm-up, then RUNS rounds interleaved over the targets; medians. `redisPid`: whose CPU to read too. */
async function measure<K extends string>(
  targets: Record<K, SessionTarget>,
  inflight: 1 | 64,
  label: string,
  redisPid: number,
): Promise<Record<K, Series>> {
  const names = Object.keys(targets) as K[];
  for (const name of names) await targets[name].run(WARMUP[inflight].count, inflight, WARMUP[inflight].maxMs);
  const samples = Object.fromEntries(
    names.map((n) => [n, [] as (Sample & { p50: number; p99: number; redisMs: number })[]]),
  );
  for (let round = 0; round < RUNS; round++) {
    for (const name of names) {
      const redis0 = processCpuMs(redisPid);
      const sample = await targets[name].run(CALLS[inflight], inflight, RUN_MAX_MS[inflight]);
      const lat = targets[name].latencies;
      samples[name]!.push({
        ...sample,
        p50: percentile(lat, 50),
        p99: percentile(lat, 99),
        redisMs: processCpuMs(redisPid) - redis0,
      });
    }
  }
  const out = {} as Record<K, Series>;
  for (const name of names) {
    const runs = samples[name]!;
    const rates = runs.map((r) => (r.calls / r.ms) * 1000);
    out[name] = {
      callsPerSec: median(rates),
      serverCpuUs: median(runs.map((r) => (r.serverCpuMs / r.calls) * 1000)),
      p50Ms: median(runs.map((r) => r.p50)),
      p99Ms: median(runs.map((r) => r.p99)),
      redisCpuUs: median(runs.map((r) => (r.redisMs / r.calls) * 1000)),
      clientBusy: Math.max(...runs.map((r) => r.clientCpuMs / r.ms)),
    };
    log(
      `  ${label} ${name.padEnd(22)} ${rates.map((r) => Math.round(r)).join(" / ")} calls/s` +
        ` (server CPU ${out[name].serverCpuUs.toFixed(1)} µs/call, redis-server ${out[name].redisCpuUs.toFixed(1)} µs/call,` +
        ` p50 ${out[name].p50Ms.toFixed(2)} ms, p99 ${out[name].p99Ms.toFixed(2)} ms,` +
        ` load client ${Math.round(out[name].clientBusy * 100)}% of a core)`,
    );
  }
  return out;
}

// Redis: INFO, MONITOR

/** What the bench asks Redis: INFO sections. */
interface RedisInfo {
  info(section: string): Promise<unknown>;
}

const infoOf = async (client: RedisInfo, section: string): Promise<string> =>
  String(await client.info(section));

const infoField = (info: string, field: string): number =>
  Number(new RegExp(`^${field}:(\\S+)`, "m").exec(info)?.[1] ?? Number.NaN);

/** Calls of each command so far (INFO commandstats), commands run inside scripts included. */
async function commandStats(client: RedisInfo): Promise<Map<string, number>> {
  const stats = new Map<string, number>();
  for (const match of (await infoOf(client, "commandstats")).matchAll(/^cmdstat_(\S+):calls=(\d+)/gm))
    stats.set(match[1]!, Number(match[2]));
  return stats;
}

/** Per call: commands run between two commandstats readings (INFO itself left out). */
function perCall(
  before: Map<string, number>,
  after: Map<string, number>,
  calls: number,
): Map<string, number> {
  const out = new Map<string, number>();
  for (const [name, n] of after) {
    const d = n - (before.get(name) ?? 0);
    if (d > 0 && name !== "info") out.set(name, d / calls);
  }
  return out;
}

const describeCounts = (counts: Map<string, number>): string =>
  [...counts]
    .sort((a, b) => b[1] - a[1])
    .map(([name, n]) => `${name} ${n.toFixed(2)}`)
    .join(", ") || "none";

/**
 * Every command Redis runs while `during` runs, as MONITOR sees it: those a client sent (round trips)
 * and those run inside its scripts (MONITOR marks them `lua`), by name.
 */
async function monitored(
  port: number,
  during: () => Promise<void>,
): Promise<{ sent: Map<string, number>; inScripts: Map<string, number> }> {
  const socket: Socket = connect(port, "127.0.0.1");
  const sent = new Map<string, number>();
  const inScripts = new Map<string, number>();
  let pending = "";
  let started!: () => void;
  const ok = new Promise<void>((resolve) => {
    started = resolve;
  });
  socket.setEncoding("latin1");
  socket.on("data", (chunk: string) => {
    const lines = (pending + chunk).split("\r\n");
    pending = lines.pop() ?? "";
    for (const line of lines) {
      if (line === "+OK") started();
      // 1700000000.123456 [0 127.0.0.1:54321] "evalsha" "…"   or   … [0 lua] "HSET" …
      const match = /^\+\d+\.\d+ \[\d+ ([^\]]+)\] "([^"]+)"/.exec(line);
      if (!match) continue;
      const into = match[1] === "lua" ? inScripts : sent;
      const name = match[2]!.toLowerCase();
      into.set(name, (into.get(name) ?? 0) + 1);
    }
  });
  socket.write("MONITOR\r\n");
  await within(ok, 5_000, "MONITOR");
  try {
    await during();
    await delay(50);
  } finally {
    socket.destroy();
  }
  return { sent, inScripts };
}

const total = (counts: Map<string, number>): number => [...counts.values()].reduce((a, b) => a + b, 0);

// The kill-and-resume figure

interface SseEvent {
  id: string | undefined;
  data: string;
}

/** Splits an SSE byte stream into events (id and data lines; comments and retry ignored). */
function sseEvents(onEvent: (event: SseEvent) => void): (chunk: string) => void {
  let pending = "";
  return (chunk) => {
    const blocks = (pending + chunk).split("\n\n");
    pending = blocks.pop() ?? "";
    for (const block of blocks) {
      let id: string | undefined;
      const data: string[] = [];
      for (const line of block.split("\n")) {
        if (line.startsWith("id:")) id = line.slice(3).trim();
        else if (line.startsWith("data:")) data.push(line.slice(5).trimStart());
      }
      onEvent({ id, data: data.join("\n") });
    }
  };
}

interface Resume {
  /** SIGKILL to the client seeing its stream end. */
  brokenMs: number;
  /** SIGKILL to the client holding the answer owed (read on the other instance). */
  answeredMs: number;
  /** Progress events seen before the kill, replayed after it, and the error's code. */
  code: number | undefined;
}

/**
 * A session opened on a fresh instance (the victim); a long `count` call streaming progress from it; after
 * SEEN_BEFORE_KILL progress events, SIGKILL; the client at once sends GET with Last-Event-ID to `other`
 * and reads until the response to its call arrives there.
 */
async function resumeOnce(shared: RedisSetup, other: number): Promise<Resume> {
  const victim = await startServer(shared);
  const pool = new Pool(`http://127.0.0.1:${victim.port}`, { connections: 4 });
  try {
    const sessionId = await openSession(pool);
    const headers = { ...BASE_HEADERS, "mcp-session-id": sessionId };
    const callId = 7;
    const body = JSON.stringify({
      jsonrpc: "2.0",
      id: callId,
      method: "tools/call",
      params: {
        name: "count",
        arguments: { steps: 10_000, everyMs: STEP_MS },
        _meta: { progressToken: "p" },
      },
    });
    const response = await request(`http://127.0.0.1:${victim.port}${PATH}`, {
      method: "POST",
      headers,
      body,
    });
    if (response.statusCode !== 200) throw new Error(`count: HTTP ${response.statusCode}`);
    let lastId: string | undefined;
    let progress = 0;
    let killedAt = 0;
    let killing: Promise<void> | undefined;
    const onEvent = sseEvents((event) => {
      if (event.id) lastId = event.id;
      if (!event.data.includes('"notifications/progress"')) return;
      progress++;
      if (progress === SEEN_BEFORE_KILL && !killing) {
        killedAt = performance.now();
        victim.child.child.kill("SIGKILL");
        killing = victim.child.exited;
      }
    });
    try {
      for await (const chunk of response.body) onEvent((chunk as Buffer).toString("utf8"));
    } catch {
      // The stream broke: the instance is gone.
    }
    if (!killing) throw new Error("the count stream ended before the instance was killed");
    const brokenMs = performance.now() - killedAt;
    await killing;
    if (!lastId) throw new Error("no event id to resume from");
    const resumed = await request(`http://127.0.0.1:${other}${PATH}`, {
      method: "GET",
      headers: {
        accept: "text/event-stream",
        "mcp-protocol-version": PROTOCOL_VERSION,
        "mcp-session-id": sessionId,
        "last-event-id": lastId,
      },
    });
    if (resumed.statusCode !== 200)
      throw new Error(`resume: HTTP ${resumed.statusCode}: ${await resumed.body.text()}`);
    interface Answer {
      id?: unknown;
      method?: string;
      error?: { code?: number };
    }
    const got: { answer?: Answer; ms: number } = { ms: Number.NaN };
    const onResumed = sseEvents((event) => {
      if (got.answer || !event.data.startsWith("{")) return;
      const message = JSON.parse(event.data) as Answer;
      if (message.method === undefined && message.id === callId) {
        got.ms = performance.now() - killedAt;
        got.answer = message;
      }
    });
    const read = (async () => {
      for await (const chunk of resumed.body) {
        onResumed((chunk as Buffer).toString("utf8"));
        if (got.answer) break;
      }
    })();
    await within(read, 15_000, "the answer on the other instance");
    resumed.body.destroy();
    if (!got.answer) throw new Error("the resumed stream ended without the answer owed");
    return { brokenMs, answeredMs: got.ms, code: got.answer.error?.code };
  } finally {
    await Promise.allSettled([within(pool.destroy(), 5_000, "the pool's close")]);
    await victim.child.close();
  }
}

// The bench

interface Row {
  figure: string;
  /** ours, Redis-backed */
  redis: number;
  /** ours, in-memory defaults */
  memory: number;
  sdkV2: number;
  unit: string;
  /** redis ÷ memory (what Redis costs; for the scale-out rows: two instances ÷ one) */
  ratio: number;
  target?: { text: string; met: boolean };
}

const NaN_ = Number.NaN;

async function main(): Promise<{ rows: Row[]; notes: string[]; clientBusy: number }> {
  prepareBuild();
  // Redis's default stream node size (the test helper makes it small, to see trims in tests).
  const redis = await startRedis(["--stream-node-max-entries", "100"]);
  const stops: (() => Promise<unknown>)[] = [() => redis.dispose()];
  const rows: Row[] = [];
  const notes: string[] = [];
  try {
    const info = createClient({ url: redis.url });
    await info.connect();
    stops.push(() => info.close());
    const serverInfo = await infoOf(info, "server");
    const redisPid = infoField(serverInfo, "process_id");
    notes.push(
      `redis-server ${/^redis_version:(\S+)/m.exec(serverInfo)?.[1] ?? "?"} (Debian's), no persistence.`,
    );
    const proxyPorts = [await freePort(), await freePort()];
    const shared: RedisSetup = {
      redis,
      prefix: `bench-${randomUUID()}:`,
      balancers: proxyPorts.map((p) => `127.0.0.1:${p}`),
    };

    // 1. CPU and latency per call, Redis-backed against in-memory, SDK v2 beside them.
    log("per call: ours with Redis, ours in memory, sdk v2 (stateful, 2025-11-25, SSE answers)");
    const a = await startServer(shared);
    const memory = await startServer(undefined);
    const sdk = new HttpServerChild(SDK2_SERVER, [], { env: SERVER_ENV });
    const sdkPort = await sdk.start();
    stops.push(
      () => a.child.close(),
      () => memory.child.close(),
      () => sdk.close(),
    );
    const targets: Record<Kind, SessionTarget> = {
      redis: new SessionTarget([a.child], [a.port]),
      memory: new SessionTarget([memory.child], [memory.port]),
      sdkV2: new SessionTarget([sdk], [sdkPort]),
    };
    for (const t of Object.values(targets)) {
      stops.push(() => t.close());
      await t.start();
    }
    const s64 = await measure(targets, 64, "64 in flight", redisPid);
    const s1 = await measure(targets, 1, " 1 in flight", redisPid);
    await memory.child.close();
    await sdk.close();

    // The same with JSON answers: no SSE events, so nothing for the event store; what sessions alone cost.
    log("per call, JSON answers: ours with Redis, ours in memory (64 in flight)");
    const jsonRedis = await startServer(shared, true);
    const jsonMemory = await startServer(undefined, true);
    stops.push(
      () => jsonRedis.child.close(),
      () => jsonMemory.child.close(),
    );
    const jsonTargets = {
      redis: new SessionTarget([jsonRedis.child], [jsonRedis.port]),
      memory: new SessionTarget([jsonMemory.child], [jsonMemory.port]),
    };
    for (const t of Object.values(jsonTargets)) {
      stops.push(() => t.close());
      await t.start();
    }
    const j64 = await measure(jsonTargets, 64, "64 in flight, JSON", redisPid);
    const seenJson = await monitored(redis.port, async () => {
      await runBounded(jsonTargets.redis.call, { count: MONITORED_CALLS, inflight: 1, maxMs: 10_000 });
    });
    const sentJson = new Map([...seenJson.sent].map(([k, v]) => [k, v / MONITORED_CALLS]));
    const scriptsJson = new Map([...seenJson.inScripts].map(([k, v]) => [k, v / MONITORED_CALLS]));
    log(`  Redis commands sent per call, JSON answers: ${describeCounts(sentJson)}`);
    notes.push(
      `With JSON answers: ${describeCounts(sentJson)}; run inside those scripts: ${describeCounts(scriptsJson)}.`,
    );
    for (const t of Object.values(jsonTargets)) await t.close();
    await jsonRedis.child.close();
    await jsonMemory.child.close();

    // The commands one call sends, counted by MONITOR over untimed calls.
    const statsBefore = await commandStats(info);
    const seen = await monitored(redis.port, async () => {
      await runBounded(targets.redis.call, { count: MONITORED_CALLS, inflight: 1, maxMs: 10_000 });
    });
    const statsAfter = await commandStats(info);
    const sentPerCall = new Map([...seen.sent].map(([k, v]) => [k, v / MONITORED_CALLS]));
    const scriptsPerCall = new Map([...seen.inScripts].map(([k, v]) => [k, v / MONITORED_CALLS]));
    const executedPerCall = perCall(statsBefore, statsAfter, MONITORED_CALLS);
    log(`  Redis commands sent per call: ${describeCounts(sentPerCall)}`);
    log(`  run inside those scripts per call: ${describeCounts(scriptsPerCall)}`);
    notes.push(
      `Redis commands a call sends (MONITOR, ${MONITORED_CALLS} calls): ${describeCounts(sentPerCall)}; run inside those scripts: ${describeCounts(scriptsPerCall)}.`,
    );

    const k3 = (pick: (s: Series) => number, of: Record<Kind, Series>) => ({
      redis: pick(of.redis),
      memory: pick(of.memory),
      sdkV2: pick(of.sdkV2),
    });
    const perCallRow = (
      figure: string,
      unit: string,
      values: { redis: number; memory: number; sdkV2: number },
      target?: Row["target"],
    ): Row => ({
      figure,
      ...values,
      unit,
      ratio: values.redis / values.memory,
      ...(target ? { target } : {}),
    });
    for (const [inflight, s] of [
      [64, s64],
      [1, s1],
    ] as const) {
      const cpu = k3((x) => x.serverCpuUs, s);
      rows.push(
        perCallRow(`server CPU per call, ${inflight} in flight`, "µs", cpu, {
          text: `Redis ≤ ${CPU_TARGET}× memory`,
          met: cpu.redis / cpu.memory <= CPU_TARGET,
        }),
        perCallRow(`redis-server CPU per call, ${inflight} in flight`, "µs", {
          redis: s.redis.redisCpuUs,
          memory: NaN_,
          sdkV2: NaN_,
        }),
        perCallRow(
          `calls/s, ${inflight} in flight`,
          "calls/s",
          k3((x) => x.callsPerSec, s),
        ),
        perCallRow(
          `latency p50, ${inflight} in flight`,
          "ms",
          k3((x) => x.p50Ms, s),
        ),
        perCallRow(
          `latency p99, ${inflight} in flight`,
          "ms",
          k3((x) => x.p99Ms, s),
        ),
      );
    }
    rows.push(
      perCallRow("Redis round trips per call (commands sent)", "commands", {
        redis: total(sentPerCall),
        memory: 0,
        sdkV2: NaN_,
      }),
      perCallRow("Redis commands run per call (with those inside scripts)", "commands", {
        redis: total(executedPerCall),
        memory: 0,
        sdkV2: NaN_,
      }),
    );

    const jsonCpu = { redis: j64.redis.serverCpuUs, memory: j64.memory.serverCpuUs, sdkV2: NaN_ };
    rows.push(
      perCallRow("JSON answers: server CPU per call, 64 in flight", "µs", jsonCpu, {
        text: `Redis ≤ ${CPU_TARGET}× memory`,
        met: jsonCpu.redis / jsonCpu.memory <= CPU_TARGET,
      }),
      perCallRow("JSON answers: calls/s, 64 in flight", "calls/s", {
        redis: j64.redis.callsPerSec,
        memory: j64.memory.callsPerSec,
        sdkV2: NaN_,
      }),
      perCallRow("JSON answers: Redis round trips per call (commands sent)", "commands", {
        redis: total(sentJson),
        memory: 0,
        sdkV2: NaN_,
      }),
    );

    // 2. One instance against two, behind haproxy and with the client alternating.
    log("scale-out: one instance against two sharing sessions through Redis");
    const b = await startServer(shared);
    stops.push(() => b.child.close());
    const proxies: TestHaproxy[] = [];
    proxies.push(await startHaproxy(proxyPorts[0]!, [{ name: "a", port: a.port }]));
    stops.push(() => proxies[0]!.dispose());
    proxies.push(
      await startHaproxy(proxyPorts[1]!, [
        { name: "a", port: a.port },
        { name: "b", port: b.port },
      ]),
    );
    stops.push(() => proxies[1]!.dispose());
    for (const name of ["a", "b"]) await proxies[1]!.waitFor(name, "UP");
    await proxies[0]!.waitFor("a", "UP");
    const scale = {
      "1, haproxy": new SessionTarget([a.child], [proxyPorts[0]!]),
      "2, haproxy": new SessionTarget([a.child, b.child], [proxyPorts[1]!]),
      "1, direct": new SessionTarget([a.child], [a.port]),
      "2, client alternating": new SessionTarget([a.child, b.child], [a.port, b.port]),
    };
    for (const t of Object.values(scale)) {
      stops.push(() => t.close());
      await t.start();
    }
    const sc = await measure(scale, 64, "64 in flight", redisPid);
    const seenTwo = await monitored(redis.port, async () => {
      await runBounded(scale["2, client alternating"].call, {
        count: MONITORED_CALLS,
        inflight: 1,
        maxMs: 10_000,
      });
    });
    const sentTwo = new Map([...seenTwo.sent].map(([k, v]) => [k, v / MONITORED_CALLS]));
    log(`  Redis commands sent per call, 2 instances: ${describeCounts(sentTwo)}`);
    notes.push(`The same with 2 instances, the client alternating: ${describeCounts(sentTwo)}.`);
    const scaleRow = (
      figure: string,
      one: Series,
      two: Series,
      pick: (s: Series) => number,
      unit: string,
    ): Row[] => [
      { figure: `${figure}: 1 instance`, redis: pick(one), memory: NaN_, sdkV2: NaN_, unit, ratio: NaN_ },
      {
        figure: `${figure}: 2 instances`,
        redis: pick(two),
        memory: NaN_,
        sdkV2: NaN_,
        unit,
        ratio: pick(two) / pick(one),
      },
    ];
    rows.push(
      ...scaleRow(
        "calls/s through haproxy, 64 in flight",
        sc["1, haproxy"],
        sc["2, haproxy"],
        (s) => s.callsPerSec,
        "calls/s",
      ),
      ...scaleRow(
        "calls/s, client alternating instances, 64 in flight",
        sc["1, direct"],
        sc["2, client alternating"],
        (s) => s.callsPerSec,
        "calls/s",
      ),
      ...scaleRow(
        "server CPU per call (all instances), client alternating",
        sc["1, direct"],
        sc["2, client alternating"],
        (s) => s.serverCpuUs,
        "µs",
      ),
    );
    rows.push({
      figure: "Redis round trips per call (commands sent), 2 instances, client alternating",
      redis: total(sentTwo),
      memory: NaN_,
      sdkV2: NaN_,
      unit: "commands",
      ratio: total(sentTwo) / total(sentPerCall),
    });
    for (const t of Object.values(scale)) await t.close();
    for (const p of proxies) await p.dispose();

    // 3. Redis memory per 1,000 idle sessions.
    log(`idle sessions: ${SESSIONS} opened on a Redis-backed instance, never DELETEd`);
    const sessionPool = new Pool(`http://127.0.0.1:${a.port}`, {
      connections: SESSIONS_INFLIGHT,
      pipelining: 1,
    });
    stops.push(() => sessionPool.close());
    await delay(SETTLE_MS);
    const mem0 = infoField(await infoOf(info, "memory"), "used_memory");
    const keys0 = await info.dbSize();
    const opened = await runBounded(async () => void (await openSession(sessionPool)), {
      count: SESSIONS,
      inflight: SESSIONS_INFLIGHT,
      maxMs: 60_000,
    });
    if (opened.calls < SESSIONS) throw new Error(`only ${opened.calls} of ${SESSIONS} sessions in time`);
    await delay(SETTLE_MS);
    const mem1 = infoField(await infoOf(info, "memory"), "used_memory");
    const keys1 = await info.dbSize();
    const bytesPerSession = (mem1 - mem0) / SESSIONS;
    log(
      `  ${SESSIONS} sessions in ${Math.round(opened.ms)} ms: used_memory ${(mem0 / 2 ** 20).toFixed(2)} → ${(mem1 / 2 ** 20).toFixed(2)} MB,` +
        ` keys ${keys0} → ${keys1} (${((keys1 - keys0) / SESSIONS).toFixed(2)} per session)`,
    );
    rows.push(
      {
        figure: "Redis memory per 1,000 idle sessions",
        redis: (bytesPerSession * 1000) / 1024,
        memory: NaN_,
        sdkV2: NaN_,
        unit: "KB",
        ratio: NaN_,
      },
      {
        figure: "Redis keys per idle session",
        redis: (keys1 - keys0) / SESSIONS,
        memory: NaN_,
        sdkV2: NaN_,
        unit: "keys",
        ratio: NaN_,
      },
    );

    // 4. Resuming after an instance dies.
    log(
      `resume after SIGKILL: ${RESUMES} runs, a fresh instance killed each time, the stream resumed on another`,
    );
    const resumes: Resume[] = [];
    for (let i = 0; i < RESUMES; i++) {
      const r = await resumeOnce(shared, b.port);
      if (r.code !== -32000)
        throw new Error(`the owed request was answered ${JSON.stringify(r)}, not -32000`);
      resumes.push(r);
      log(
        `  run ${i + 1}: stream broken after ${r.brokenMs.toFixed(1)} ms, answer on the other instance after ${r.answeredMs.toFixed(1)} ms`,
      );
    }
    rows.push(
      {
        figure: "SIGKILL → client sees its stream end",
        redis: median(resumes.map((r) => r.brokenMs)),
        memory: NaN_,
        sdkV2: NaN_,
        unit: "ms",
        ratio: NaN_,
      },
      {
        figure: "SIGKILL → answer owed received on another instance (Last-Event-ID)",
        redis: median(resumes.map((r) => r.answeredMs)),
        memory: NaN_,
        sdkV2: NaN_,
        unit: "ms",
        ratio: NaN_,
      },
    );
    const clientBusy = Math.max(
      ...[s64, s1, j64, sc].flatMap((series) => Object.values<Series>(series).map((x) => x.clientBusy)),
    );
    return { rows, notes, clientBusy };
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => {});
  }
}

// Output

const fmt = (n: number): string =>
  Number.isNaN(n) ? "n/a" : Math.abs(n) >= 100 ? Math.round(n).toLocaleString("en-US") : n.toFixed(2);
const ratio = (n: number): string => (Number.isFinite(n) ? `${n.toFixed(2)}×` : "");

function header(notes: string[], clientBusy: number): string[] {
  const cpu = cpus()[0]?.model.trim() ?? "unknown CPU";
  return [
    `Sessions shared through Redis on 127.0.0.1, node ${process.version}, ${cpus().length} cores (${cpu})${QUICK ? ", --quick" : ""}.`,
    `Servers: ${MODE === "compiled" ? "plain `node <file>.js` (compiled)" : "tsx-loaded sources"}, NODE_ENV=production. "ours, Redis": the stateful`,
    '2025-11-25 server with RedisSessionStore, RedisEventStore and RedisMessageBus (bench/fixtures/http-redis-server.ts); "ours, memory": the',
    'same server with the in-memory defaults; "sdk v2": SDK v2\'s stateful server (a transport per session in a map). POSTs answered',
    `with SSE (priming event + response), in the "JSON answers" rows with application/json (no SSE events, nothing stored but the session). Load: the HTTP bench's client, one session per server, an undici Pool of ${POOL_SOCKETS} sockets;`,
    `median of ${RUNS} interleaved runs of ≤ ${CALLS[64]} calls / ${RUN_MAX_MS[64]} ms at 64 in flight, ≤ ${CALLS[1]} / ${RUN_MAX_MS[1]} ms at 1, after a warm-up;`,
    "latency: each call's POST to its parsed answer, percentiles per run, median of runs. CPU from /proc/<pid>/task/*/schedstat.",
    `The load client used at most ${Math.round(clientBusy * 100)}% of a core in any run. ${cpus().length} cores carry the load client, Redis, haproxy and the`,
    "instances at once: two instances cannot double the rate here; the ratio says how much of a second core the second instance turns into calls.",
    `Idle sessions: ${SESSIONS} initialize + notifications/initialized, never DELETEd, INFO memory used_memory before and after; KB = 1,024 bytes.`,
    `Resume: a fresh instance, a tools/call streaming progress every ${STEP_MS} ms, SIGKILL after ${SEEN_BEFORE_KILL} progress events; the client`,
    `at once sends GET with Last-Event-ID straight to another instance; median of ${RESUMES} runs.`,
    ...notes,
    "ratio: ours with Redis ÷ ours in memory (per-call rows); 2 instances ÷ 1 (scale-out rows).",
  ];
}

function markdown(rows: Row[], notes: string[], clientBusy: number): string {
  const lines = [
    ...header(notes, clientBusy),
    "",
    "| figure | ours, Redis | ours, memory | sdk v2 | unit | ratio | target |",
    "|---|---:|---:|---:|---|---:|---|",
    ...rows.map(
      (r) =>
        `| ${r.figure} | ${fmt(r.redis)} | ${fmt(r.memory)} | ${fmt(r.sdkV2)} | ${r.unit} | ${ratio(r.ratio)} | ` +
        `${r.target ? `${r.target.text}: ${r.target.met ? "met" : "**not met**"}` : ""} |`,
    ),
  ];
  return lines.join("\n");
}

const finite = (n: number): number | null => (Number.isFinite(n) ? n : null);

startWatchdog("bench/redis.ts", BENCH_TIMEOUT_MS);

try {
  const t0 = performance.now();
  const { rows, notes, clientBusy } = await main();
  log(`done in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  process.stdout.write(
    `${
      JSON_OUTPUT
        ? JSON.stringify(
            {
              name: "redis",
              header: header(notes, clientBusy),
              rows: rows.map((r) => ({
                ...r,
                redis: finite(r.redis),
                memory: finite(r.memory),
                sdkV2: finite(r.sdkV2),
                ratio: finite(r.ratio),
              })),
            },
            null,
            2,
          )
        : markdown(rows, notes, clientBusy)
    }\n`,
  );
} catch (error) {
  process.stderr.write(
    `bench/redis.ts: ${error instanceof Error ? (error.stack ?? error.message) : error}\n`,
  );
  process.exitCode = 1;
} finally {
  killAll();
}
