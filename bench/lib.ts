/**
 * Shared pieces of the benchmarks: spawning TypeScript servers, a raw pipelined JSON-RPC load
 * driver, a Promise-concurrency driver for real clients, HTTP fixture children and a count- and
 * time-bounded driver, CPU time and RSS from /proc, and small statistics.
 * Every loop here is bounded by a call count and every wait by a deadline.
 */

import { type ChildProcessWithoutNullStreams, execFileSync, spawn } from "node:child_process";
import { copyFileSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

/** The tsx ESM loader, resolved once so children do not depend on their working directory. */
export const TSX_LOADER = import.meta.resolve("tsx");

/**
 * `compiled` (default): servers run as plain JavaScript, the way a deployed server runs — the fixtures and
 * what they import compiled by tsc into bench/.build, the package's runtime from dist/. `source`
 * (BENCH_SOURCE=1): node with tsx as a loader, which adds the loader's per-module and per-thread costs.
 */
export const MODE: "compiled" | "source" = process.env.BENCH_SOURCE ? "source" : "compiled";

const REPO = fileURLToPath(new URL("../", import.meta.url));

/**
 * Builds the runtime package (runtime/dist/, what "ours" imports), the Redis package (redis/dist/),
 * dist/ and bench/.build once per bench run (compiled mode only). The packages' dist/ are rebuilt from
 * scratch: a stale one measured old code.
 */
export function prepareBuild(): void {
  if (MODE !== "compiled") return;
  const tsc = `${REPO}node_modules/.bin/tsc`;
  buildRuntime();
  rmSync(`${REPO}redis/dist`, { recursive: true, force: true });
  execFileSync(tsc, ["-p", `${REPO}redis/tsconfig.build.json`], { stdio: "inherit" });
  execFileSync(tsc, ["-p", `${REPO}tsconfig.build.json`], { stdio: "inherit" });
  execFileSync(tsc, ["-p", `${REPO}bench/tsconfig.fixtures.json`], { stdio: "inherit" });
  // tsc emits only TypeScript: the contract's compiled validators and tables join what it emitted.
  const contract = `${REPO}bench/fixtures/contract/`;
  for (const name of readdirSync(contract).filter((n) => n.endsWith(".js")))
    copyFileSync(`${contract}${name}`, `${REPO}bench/.build/bench/fixtures/contract/${name}`);
}

/** Builds runtime/dist/ from scratch (JavaScript and declarations, what an installed runtime holds). */
export function buildRuntime(): void {
  rmSync(`${REPO}runtime/dist`, { recursive: true, force: true });
  execFileSync(`${REPO}node_modules/.bin/tsc`, ["-p", `${REPO}runtime/tsconfig.build.json`], {
    stdio: "inherit",
  });
}

/**
 * The fixture bundled into one file the way `npm run build` of an `init` project bundles its main.js
 * (esbuild, same flags), from its compiled JavaScript; built on first use (compiled mode only).
 */
export function bundled(file: string): string {
  const compiled = nodeArgs(file)[0]!;
  const out = join(REPO, "bench/.build/bundled", relative(join(REPO, "bench/.build"), compiled));
  const esbuild = `${REPO}node_modules/.bin/esbuild`;
  const flags = ["--bundle", "--platform=node", "--format=esm", "--log-level=warning"];
  execFileSync(esbuild, [compiled, ...flags, `--outfile=${out}`], { stdio: "inherit" });
  return out;
}

/** How a fixture is run: one node process either way, so its pid is the server. */
export function nodeArgs(file: string): string[] {
  if (MODE === "source") return ["--import", TSX_LOADER, "--conditions=mcp-codegen-source", file];
  return [join(REPO, "bench/.build", relative(REPO, file)).replace(/\.ts$/, ".js")];
}

// Children

const children = new Set<number>();

/** Remembers a child's pid so that killAll() can end it, however the bench exits. */
export function track(pid: number | undefined): void {
  if (pid !== undefined) children.add(pid);
}

export function untrack(pid: number | undefined): void {
  if (pid !== undefined) children.delete(pid);
}

/** SIGKILLs every child still tracked, by pid. Safe to call more than once. */
export function killAll(): void {
  for (const pid of children) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // Already gone.
    }
  }
  children.clear();
}

/** Ends the children on every way out: normal exit, an uncaught error, Ctrl-C. */
export function killChildrenOnExit(): void {
  process.on("exit", killAll);
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.once(signal, () => {
      killAll();
      process.exit(130);
    });
  }
}

// Time and statistics

export const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};

/** Rejects with a message naming `what` when `promise` has not settled within `ms`. */
export async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * CPU time (all threads, user + system) a process has used so far, in ms; NaN where there is no /proc.
 * Read from outside, so the servers carry no instrumentation. /proc/<pid>/task/<tid>/schedstat counts
 * nanoseconds on the CPU per thread; /proc/<pid>/stat only 10 ms clock ticks, too coarse for a run of a
 * few hundred ms, so it is the fallback.
 */
export function processCpuMs(pid: number | undefined): number {
  if (pid === undefined) return Number.NaN;
  try {
    let ns = 0;
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8").split(" ")[0]);
    }
    if (ns > 0) return ns / 1e6;
  } catch {
    // No schedstat (or the process is gone): try the coarse counter.
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name (field 2) may contain spaces; the fields after its closing paren are fixed.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // utime and stime, in clock ticks of USER_HZ = 100 on every Linux architecture's user ABI.
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return Number.NaN;
  }
}

/** This process's CPU time so far in ms (the clients measured in-process). */
export function selfCpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

// A server child and the raw pipelined driver

export interface RunResult {
  calls: number;
  ms: number;
  /** CPU time the server process spent during the run, in ms (NaN when unknown). */
  serverCpuMs: number;
  /** CPU time this (the client's) process spent during the run, in ms. */
  clientCpuMs: number;
}

export interface SpawnOptions {
  env?: NodeJS.ProcessEnv;
  /** Runs this JavaScript file as it is instead of the fixture's compiled (or tsx-loaded) form. */
  script?: string;
}

const INITIALIZE = {
  jsonrpc: "2.0",
  id: 0,
  method: "initialize",
  params: {
    protocolVersion: "2025-11-25",
    capabilities: {},
    clientInfo: { name: "bench-stdio", version: "1.0.0" },
  },
};
const INITIALIZED = { jsonrpc: "2.0", method: "notifications/initialized" };
const STDERR_KEEP = 4096;
const CPU_SETTLE_MS = 20;

interface Response {
  id?: unknown;
  result?: ToolCallResult;
  error?: { code: number; message: string };
}

interface ToolCallResult {
  content?: { text?: unknown }[];
  structuredContent?: { id?: unknown };
}

/** The `tools/call` a run repeats: its request line for an id, and whether a result answers it right. */
export interface CallKind {
  line(id: number): string;
  check(result: ToolCallResult | undefined, id: number): boolean;
}

/** The `echo` call every server answers: the text back in one text block. */
export const ECHO_CALL: CallKind = {
  line: (id) =>
    `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"echo","arguments":{"text":"t${id}"}}}\n`,
  check: (result, id) => result?.content?.[0]?.text === `t${id}`,
};

/**
 * One server process spoken to directly over its pipes: newline-delimited JSON written as strings,
 * responses parsed and matched by id. No MCP library sits on the client side, so what it measures is
 * the server (and the pipes).
 */
/**
 * A bench fixture process: tracked (the watchdog kills what is left), the tail of its stderr kept for
 * the message when it exits early, its stdout handed on line by line.
 */
abstract class FixtureChild {
  readonly child: ChildProcessWithoutNullStreams;
  readonly exited: Promise<void>;
  #pending = "";
  #stderr = "";

  protected constructor(file: string, argv: string[], options: SpawnOptions) {
    this.child = spawn(process.execPath, argv, {
      env: options.env ?? process.env,
      stdio: ["pipe", "pipe", "pipe"],
    });
    track(this.child.pid);
    this.exited = new Promise((resolve) => this.child.once("exit", () => resolve()));
    void this.exited.then(() => {
      untrack(this.child.pid);
      this.failed(new Error(`${file} exited early; its stderr ends with:\n${this.#stderr}`));
    });
    this.child.stdout.setEncoding("utf8");
    this.child.stdout.on("data", (chunk: string) => {
      const lines = (this.#pending + chunk).split("\n");
      this.#pending = lines.pop() ?? "";
      for (const line of lines) this.line(line);
      this.chunkDone();
    });
    this.child.stderr.setEncoding("utf8");
    this.child.stderr.on("data", (chunk: string) => {
      this.#stderr = (this.#stderr + chunk).slice(-STDERR_KEEP);
    });
    // EPIPE after the child died; the exit handler reports that.
    this.child.stdin.on("error", () => {});
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** One whole line of the child's stdout. */
  protected abstract line(line: string): void;
  /** After the lines of one stdout chunk. */
  protected chunkDone(): void {}
  /** The child exited while something waited on it. */
  protected abstract failed(error: Error): void;
}

export class ServerChild extends FixtureChild {
  #onresponse?: (response: Response) => void;
  #onfailure?: (error: Error) => void;
  #nextId = 1;

  constructor(file: string, options: SpawnOptions = {}) {
    super(file, options.script ? [options.script] : nodeArgs(file), options);
  }

  protected line(line: string): void {
    if (line.length === 0) return;
    const message = JSON.parse(line) as Response;
    if (message.id === undefined) return; // a notification: nothing here asks for any
    this.#onresponse?.(message);
  }

  protected override chunkDone(): void {
    this.#afterChunk?.();
  }

  protected failed(error: Error): void {
    this.#onfailure?.(error);
  }

  #afterChunk?: () => void;

  /** Sends initialize and notifications/initialized; resolves with the initialize result. */
  async initialize(timeoutMs = 30_000): Promise<unknown> {
    const result = this.#expect(0, timeoutMs, "initialize");
    this.child.stdin.write(`${JSON.stringify(INITIALIZE)}\n`);
    const response = await result;
    this.child.stdin.write(`${JSON.stringify(INITIALIZED)}\n`);
    return response.result;
  }

  #expect(id: number, timeoutMs: number, what: string): Promise<Response> {
    const done = new Promise<Response>((resolve, reject) => {
      this.#onfailure = reject;
      this.#onresponse = (response) => {
        if (response.id !== id) return reject(new Error(`unexpected response id ${String(response.id)}`));
        if (response.error) return reject(new Error(`${what} failed: ${response.error.message}`));
        resolve(response);
      };
    });
    return within(done, timeoutMs, what).finally(() => {
      this.#onresponse = undefined;
      this.#onfailure = undefined;
    });
  }

  /**
   * `count` calls (echo unless `call` says otherwise) keeping exactly `inflight` outstanding: each chunk of responses is answered with
   * as many new requests, written together, until `count` have been sent.
   */
  run(count: number, inflight: number, timeoutMs: number, call: CallKind = ECHO_CALL): Promise<RunResult> {
    const outstanding = new Set<number>();
    let sent = 0;
    let received = 0;
    const requestLine = call.line;
    const top = () => {
      let out = "";
      while (outstanding.size < inflight && sent < count) {
        const id = this.#nextId++;
        outstanding.add(id);
        out += requestLine(id);
        sent++;
      }
      if (out.length > 0) this.child.stdin.write(out);
    };
    const done = new Promise<RunResult>((resolve, reject) => {
      const cpu0 = processCpuMs(this.pid);
      const self0 = selfCpuMs();
      const t0 = performance.now();
      this.#onfailure = reject;
      this.#onresponse = (response) => {
        const id = response.id as number;
        if (!outstanding.delete(id)) return reject(new Error(`response for unknown id ${String(id)}`));
        if (response.error) return reject(new Error(`tools/call failed: ${response.error.message}`));
        if (!call.check(response.result, id)) {
          return reject(new Error(`wrong answer for id ${id}: ${JSON.stringify(response.result)}`));
        }
        received++;
      };
      this.#afterChunk = () => {
        if (received < count) return top();
        const ms = performance.now() - t0;
        const clientCpuMs = selfCpuMs() - self0;
        // The server may still be finishing its last write callbacks: read its CPU a moment later.
        void delay(CPU_SETTLE_MS).then(() =>
          resolve({ calls: count, ms, serverCpuMs: processCpuMs(this.pid) - cpu0, clientCpuMs }),
        );
      };
      top();
    });
    return within(done, timeoutMs, `${count} calls at ${inflight} in flight`).finally(() => {
      this.#onresponse = undefined;
      this.#onfailure = undefined;
      this.#afterChunk = undefined;
    });
  }

  /** Ends stdin (a stdio server's signal to stop) and waits; SIGKILL after `graceMs`. */
  async close(graceMs = 2000): Promise<void> {
    this.#onfailure = undefined;
    this.child.stdin.end();
    await stopWithin(this.child, this.exited, graceMs);
  }
}

async function stopWithin(
  child: ChildProcessWithoutNullStreams,
  exited: Promise<void>,
  graceMs: number,
): Promise<void> {
  const gone = await Promise.race([exited.then(() => true), delay(graceMs).then(() => false)]);
  if (!gone) {
    child.kill("SIGKILL");
    await within(exited, graceMs, "SIGKILLed child exit");
  }
  untrack(child.pid);
}

/** Milliseconds from spawn to the initialize result arriving on stdout; the child is closed afterwards. */
export async function coldStart(file: string, options: SpawnOptions = {}): Promise<number> {
  const t0 = performance.now();
  const server = new ServerChild(file, options);
  try {
    await server.initialize();
    return performance.now() - t0;
  } finally {
    await server.close();
  }
}

// Client libraries in their own processes (bench/fixtures/stdio-client.ts)

/**
 * A client library in a child process, connected to its own server: `ready` once connected, then each
 * `run <count> <inflight>` line answered with `done {"ms","cpuMs"}` or `error <message>`. Its CPU is
 * measured inside it (process.cpuUsage over the run). Ending its stdin closes the client and its server.
 */
export class ClientChild extends FixtureChild {
  readonly ready: Promise<void>;
  #onready?: () => void;
  #waiter?: { resolve: (line: string) => void; reject: (error: Error) => void };
  #onfailure?: (error: Error) => void;

  constructor(file: string, args: string[], options: SpawnOptions = {}) {
    super(file, [...nodeArgs(file), ...args], options);
    this.ready = new Promise((resolve, reject) => {
      this.#onready = resolve;
      this.#onfailure = reject;
    });
    this.ready.catch(() => {}); // reported through start()
  }

  start(ms = 30_000): Promise<void> {
    return within(this.ready, ms, "the client's connect");
  }

  protected line(line: string): void {
    if (line === "ready") {
      this.#onready?.();
      this.#onready = undefined;
    } else if (line.startsWith("done ") || line.startsWith("error ")) {
      const waiter = this.#waiter;
      this.#waiter = undefined;
      waiter?.resolve(line);
    }
  }

  protected failed(error: Error): void {
    this.#onfailure?.(error);
    this.#waiter?.reject(error);
  }

  async run(count: number, inflight: number, timeoutMs: number): Promise<RunResult> {
    if (this.#waiter) throw new Error("a run is already under way");
    const reply = new Promise<string>((resolve, reject) => {
      this.#waiter = { resolve, reject };
    });
    this.child.stdin.write(`run ${count} ${inflight}\n`);
    const line = await within(reply, timeoutMs, `${count} client calls at ${inflight} in flight`);
    if (line.startsWith("error ")) throw new Error(`client run failed: ${line.slice(6)}`);
    const { ms, cpuMs } = JSON.parse(line.slice(5)) as { ms: number; cpuMs: number };
    return { calls: count, ms, clientCpuMs: cpuMs, serverCpuMs: Number.NaN };
  }

  async close(graceMs = 5000): Promise<void> {
    this.#onfailure = undefined;
    this.child.stdin.end();
    await stopWithin(this.child, this.exited, graceMs);
  }
}

// HTTP servers (bench/http.ts)

/** Resident set size of a process in KiB, from /proc/<pid>/status (VmRSS); NaN where there is no /proc. */
export function rssKb(pid: number | undefined): number {
  if (pid === undefined) return Number.NaN;
  try {
    const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Number(match[1]) : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

/**
 * An HTTP fixture (bench/fixtures/http-*.ts) as a child: started with --expose-gc, it prints
 * `listening <port>` on stdout and answers a `gc` line on stdin with `gc <process.memoryUsage() JSON>`.
 * Ending its stdin ends it.
 */
export class HttpServerChild extends FixtureChild {
  readonly listening: Promise<number>;
  #gcWaiters: ((usage: NodeJS.MemoryUsage) => void)[] = [];
  #onport?: (port: number) => void;
  #onfailure?: (error: Error) => void;

  constructor(file: string, args: string[] = [], options: SpawnOptions = {}) {
    super(file, ["--expose-gc", ...nodeArgs(file), ...args], options);
    this.listening = new Promise((resolve, reject) => {
      this.#onport = resolve;
      this.#onfailure = reject;
    });
    this.listening.catch(() => {}); // reported through start()
  }

  /** Resolves with the port once the server listens; rejects if it exits first or takes over `ms`. */
  start(ms = 30_000): Promise<number> {
    return within(this.listening, ms, "the server's listen");
  }

  protected line(line: string): void {
    if (line.startsWith("listening ")) {
      this.#onport?.(Number(line.slice("listening ".length)));
      this.#onport = undefined;
      this.#onfailure = undefined;
    } else if (line.startsWith("gc ")) {
      this.#gcWaiters.shift()?.(JSON.parse(line.slice(3)) as NodeJS.MemoryUsage);
    }
  }

  protected failed(error: Error): void {
    this.#onfailure?.(error);
  }

  /** A full garbage collection in the server; resolves with its memory usage afterwards. */
  gc(ms = 10_000): Promise<NodeJS.MemoryUsage> {
    const reply = new Promise<NodeJS.MemoryUsage>((resolve) => this.#gcWaiters.push(resolve));
    this.child.stdin.write("gc\n");
    return within(reply, ms, "the server's gc");
  }

  /** Ends stdin (the fixture exits on it) and waits; SIGKILL after `graceMs`. */
  async close(graceMs = 2000): Promise<void> {
    this.#onfailure = undefined;
    this.child.stdin.end();
    await stopWithin(this.child, this.exited, graceMs);
  }
}

export interface BoundedRun {
  /** Calls that completed: `count`, or fewer when `maxMs` ran out first. */
  calls: number;
  ms: number;
  clientCpuMs: number;
}

/**
 * `call(i)` by `inflight` workers, each awaiting one call at a time, until `count` calls have been
 * started or `maxMs` has passed, whichever comes first; the calls already started finish. Rejects when
 * any call fails or the whole run takes beyond `maxMs + graceMs`.
 */
export async function runBounded(
  call: (i: number) => Promise<void>,
  options: { count: number; inflight: number; maxMs: number; graceMs?: number },
): Promise<BoundedRun> {
  const { count, inflight, maxMs } = options;
  let next = 0;
  let done = 0;
  const self0 = selfCpuMs();
  const t0 = performance.now();
  const stopAt = t0 + maxMs;
  const worker = async () => {
    while (next < count && performance.now() < stopAt) {
      await call(next++);
      done++;
    }
  };
  await within(
    Promise.all(Array.from({ length: Math.min(inflight, count) }, worker)),
    maxMs + (options.graceMs ?? 30_000),
    `${count} calls at ${inflight} in flight`,
  );
  return { calls: done, ms: performance.now() - t0, clientCpuMs: selfCpuMs() - self0 };
}

// Result tables

/** The columns every table has: ours, the two official SDK majors, and the raw floor. */
export const KINDS = ["ours", "sdkV1", "sdkV2", "floor"] as const;
export type Kind = (typeof KINDS)[number];
/** How a column is headed and logged. */
export const KIND_NAME: Record<Kind, string> = {
  ours: "ours",
  sdkV1: "sdk v1",
  sdkV2: "sdk v2",
  floor: "floor",
};

/** One figure measured for ours, SDK v1, SDK v2 and the raw floor (NaN where one has no such figure). */
export interface Row {
  figure: string;
  ours: number;
  sdkV1: number;
  sdkV2: number;
  floor: number;
  unit: string;
}

/** A row from a per-kind reading. */
export const rowOf = (figure: string, unit: string, pick: (kind: Kind) => number): Row => ({
  figure,
  ours: pick("ours"),
  sdkV1: pick("sdkV1"),
  sdkV2: pick("sdkV2"),
  floor: pick("floor"),
  unit,
});

/** A target printed beside its row: a minimum advantage over a peer or the floor, or a maximum of ours itself. */
export interface Goal {
  figure: string;
  against: "sdkV1" | "sdkV2" | "floor" | "value";
  bound: number;
  text: string;
}

export const higherIsBetter = (row: Row): boolean => row.unit === "calls/s";

/** How many times better ours is than `other`: > 1 means ours wins, whichever direction the unit runs. */
export const advantage = (row: Row, other: number): number =>
  higherIsBetter(row) ? row.ours / other : other / row.ours;

const met = (row: Row, goal: Goal): boolean =>
  goal.against === "value" ? row.ours <= goal.bound : advantage(row, row[goal.against]) >= goal.bound;

const fmt = (n: number): string =>
  Number.isNaN(n) ? "n/a" : Math.abs(n) >= 100 ? Math.round(n).toLocaleString("en-US") : n.toFixed(1);

const ratio = (n: number): string => (Number.isFinite(n) ? `${n.toFixed(2)}×` : "n/a");

/** The markdown table every bench prints under its own header lines. */
export function tableLines(rows: Row[], goals: Goal[]): string[] {
  const lines = [
    "| figure | ours | sdk v1 | sdk v2 | floor | unit | better | vs v1 | vs v2 | vs floor | targets |",
    "|---|---:|---:|---:|---:|---|---|---:|---:|---:|---|",
  ];
  for (const row of rows) {
    const targets = goals
      .filter((g) => g.figure === row.figure)
      .map((g) => `${g.text}: ${met(row, g) ? "met" : "**not met**"}`);
    lines.push(
      `| ${row.figure} | ${fmt(row.ours)} | ${fmt(row.sdkV1)} | ${fmt(row.sdkV2)} | ${fmt(row.floor)} | ` +
        `${row.unit} | ${higherIsBetter(row) ? "higher" : "lower"} | ${ratio(advantage(row, row.sdkV1))} | ` +
        `${ratio(advantage(row, row.sdkV2))} | ${ratio(advantage(row, row.floor))} | ${targets.join("; ")} |`,
    );
  }
  return lines;
}

/** A row as `--json` prints it: the readings, the ratios (> 1 = ours wins; null where one is missing), the targets. */
export interface JsonRow extends Row {
  better: "higher" | "lower";
  vs: { sdkV1: number | null; sdkV2: number | null; floor: number | null };
  targets: { text: string; met: boolean }[];
}

const finite = (n: number): number | null => (Number.isFinite(n) ? n : null);

export function jsonRows(rows: Row[], goals: Goal[]): JsonRow[] {
  return rows.map((row) => ({
    ...row,
    better: higherIsBetter(row) ? "higher" : "lower",
    vs: {
      sdkV1: finite(advantage(row, row.sdkV1)),
      sdkV2: finite(advantage(row, row.sdkV2)),
      floor: finite(advantage(row, row.floor)),
    },
    targets: goals.filter((g) => g.figure === row.figure).map((g) => ({ text: g.text, met: met(row, g) })),
  }));
}

/** What one bench file gives the driver (bench/run.ts): its header lines, rows and targets. */
export interface Report {
  name: string;
  header: string[];
  rows: Row[];
  goals: Goal[];
}

/** A report as markdown: header, blank line, table. */
export const markdownOf = (report: Report): string =>
  [...report.header, "", ...tableLines(report.rows, report.goals)].join("\n");

/** A report as --json prints it (NaN has no JSON form: missing readings are null). */
export const jsonOf = (report: Report) => ({
  name: report.name,
  header: report.header,
  rows: jsonRows(report.rows, report.goals).map((r) => ({
    ...r,
    ours: finite(r.ours),
    sdkV1: finite(r.sdkV1),
    sdkV2: finite(r.sdkV2),
    floor: finite(r.floor),
  })),
});

/** Kills every child on exit, and gives up (exit 1) if the whole bench runs longer than `ms`. */
export function startWatchdog(name: string, ms: number): void {
  killChildrenOnExit();
  const watchdog = setTimeout(() => {
    process.stderr.write(`${name}: still running after ${ms} ms, giving up\n`);
    killAll();
    process.exit(1);
  }, ms);
  watchdog.unref();
}
