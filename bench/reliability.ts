/**
 * Reliability side by side: ours (as `init` scaffolds a server) against SDK v2 (as it documents one),
 * each a fresh child process per scenario: fuzzed frames over stdio (answered exactly once? alive? stack
 * traces on stderr?), stdin EOF and SIGTERM with 64 calls in flight (how many answered?), a 10 MB line
 * (does the next request still get its answer?), and a flood of initialize calls over HTTP beside a
 * session in use (does it keep working? what does the flood cost in memory?).
 * Prints a markdown table, or with --json one report. --quick divides the counts by 10.
 * Every wait is bounded; every child is killed at the end.
 */

import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { cpus } from "node:os";
import { fileURLToPath } from "node:url";
import { Pool } from "undici";
import { bytesOf, frames } from "../test/fuzz/frames.js";
import { type Answer, Ledger } from "../test/fuzz/ledger.js";
import {
  HttpServerChild,
  killAll,
  nodeArgs,
  prepareBuild,
  rssKb,
  startWatchdog,
  track,
  untrack,
} from "./lib.js";

const JSON_OUTPUT = process.argv.includes("--json");
const QUICK = process.argv.includes("--quick");
const SCALE = QUICK ? 10 : 1;
const FUZZ_FRAMES = 20_000 / SCALE;
const FLOOD = 20_000 / SCALE;
const IN_FLIGHT = 64;
const WAIT_MS = 10_000;
const STACK = /^\s+at .+(:\d+:\d+\)?|\(native\))$/gm;

const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));
const KINDS = ["ours", "sdkV2"] as const;
type Kind = (typeof KINDS)[number];
const STDIO: Record<Kind, string> = {
  ours: fixture("reliability-ours.ts"),
  sdkV2: fixture("reliability-sdk2.ts"),
};
const HTTP: Record<Kind, string> = {
  ours: fixture("http-ours-server.ts"),
  sdkV2: fixture("http-sdk2-server.ts"),
};
const ENV = { ...process.env, NODE_ENV: "production" };

const log = (text: string) => {
  if (!JSON_OUTPUT || process.stderr.isTTY) process.stderr.write(`${text}\n`);
};
const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A stdio server child: its answers by id, stderr, and how it ended. */
class StdioChild {
  readonly child: ChildProcessWithoutNullStreams;
  readonly answers = new Map<string, Answer>();
  readonly others: Answer[] = [];
  stderr = "";
  exit: string | undefined;
  readonly exited: Promise<void>;
  #pending = "";

  constructor(file: string, onAnswer?: (a: Answer) => void) {
    this.child = spawn(process.execPath, nodeArgs(file), { env: ENV, stdio: ["pipe", "pipe", "pipe"] });
    track(this.child.pid);
    this.exited = new Promise((resolve) =>
      this.child.once("exit", (code, signal) => {
        this.exit = signal ?? String(code);
        untrack(this.child.pid);
        resolve();
      }),
    );
    this.child.stdin.on("error", () => {});
    this.child.stderr.setEncoding("utf8").on("data", (c: string) => {
      this.stderr = (this.stderr + c).slice(-1_000_000);
    });
    this.child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      const lines = (this.#pending + chunk).split("\n");
      this.#pending = lines.pop() ?? "";
      for (const line of lines) {
        let a: Answer;
        try {
          a = JSON.parse(line) as Answer;
        } catch {
          continue;
        }
        if (typeof a.id === "string" && a.id.startsWith("ctl-")) this.answers.set(a.id, a);
        else if (onAnswer) onAnswer(a);
        else if (typeof a.id === "string") this.answers.set(a.id, a);
        else this.others.push(a);
      }
    });
  }

  write(data: string | Uint8Array): Promise<void> {
    return new Promise((resolve) => this.child.stdin.write(data, () => resolve()));
  }

  async until(check: () => boolean, ms = WAIT_MS): Promise<boolean> {
    const deadline = Date.now() + ms;
    while (!check()) {
      if (Date.now() > deadline || this.exit !== undefined) return check();
      await delay(5);
    }
    return true;
  }

  #ctl = 0;
  async ask(method: string, params: object): Promise<Answer | undefined> {
    const id = `ctl-${this.#ctl++}`;
    await this.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
    await this.until(() => this.answers.has(id));
    return this.answers.get(id);
  }

  async initialize(): Promise<void> {
    const init = await this.ask("initialize", {
      protocolVersion: "2025-11-25",
      capabilities: {},
      clientInfo: { name: "reliability", version: "1" },
    });
    if (!init || !("result" in init))
      throw new Error(`initialize failed: ${JSON.stringify(init)} ${this.stderr}`);
    await this.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
  }

  stacks(): number {
    return this.stderr.match(STACK)?.length ?? 0;
  }

  async stop(): Promise<void> {
    if (this.exit === undefined) {
      this.child.stdin.end();
      if (!(await Promise.race([this.exited.then(() => true), delay(2000).then(() => false)])))
        this.child.kill("SIGKILL");
      await this.exited;
    }
  }
}

const call = (id: string, name: string, text = id) =>
  `${JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: { text } } })}\n`;

interface Figures {
  fuzzAnswered: number;
  fuzzMissing: number;
  fuzzInternal: number;
  fuzzAlive: number;
  fuzzStacks: number;
  eofAnswered: number;
  eofExit: string;
  sigtermAnswered: number;
  sigtermExit: string;
  bigLineNext: number;
  bigLineAlive: number;
  floodVictim: number;
  floodRefused: number;
  floodRssMb: number;
}

async function fuzz(kind: Kind, f: Partial<Figures>): Promise<void> {
  const ledger = new Ledger();
  let internal = 0;
  const server = new StdioChild(STDIO[kind], (a) => {
    if (a.error?.code === -32603) internal++;
    ledger.record(a);
  });
  try {
    await server.initialize();
    for (let first = 0; first < FUZZ_FRAMES; first += 500) {
      const chunk = frames(Math.min(500, FUZZ_FRAMES - first), 0xbe7c, first);
      const parts: Uint8Array[] = [];
      for (const frame of chunk) {
        ledger.expect(frame);
        parts.push(bytesOf(frame.body), Uint8Array.of(0x0a));
      }
      await server.write(Buffer.concat(parts));
      if (!(await server.ask("ping", {}))) break; // dead or stuck: what was answered is what counts
    }
    await server.until(() => ledger.missing().length === 0, 2000);
    const owed = ledger.owed.size;
    f.fuzzMissing = ledger.missing().length;
    f.fuzzAnswered = ((owed - f.fuzzMissing) / owed) * 100;
    f.fuzzInternal = internal;
    f.fuzzAlive = server.exit === undefined ? 1 : 0;
    f.fuzzStacks = server.stacks();
  } finally {
    await server.stop();
  }
}

async function inFlight(kind: Kind, end: "eof" | "sigterm", f: Partial<Figures>): Promise<void> {
  const server = new StdioChild(STDIO[kind]);
  try {
    await server.initialize();
    let calls = "";
    for (let i = 0; i < IN_FLIGHT; i++) calls += call(`d${i}`, "delay");
    await server.write(calls);
    if (end === "eof") server.child.stdin.end();
    else {
      await delay(10);
      server.child.kill("SIGTERM");
    }
    await Promise.race([server.exited, delay(WAIT_MS)]);
    const answered = [...server.answers.keys()].filter((id) => id.startsWith("d")).length;
    if (end === "eof") {
      f.eofAnswered = answered;
      f.eofExit = server.exit ?? "still running";
    } else {
      f.sigtermAnswered = answered;
      f.sigtermExit = server.exit ?? "still running";
    }
  } finally {
    if (server.exit === undefined) server.child.kill("SIGKILL");
    await server.exited;
  }
}

async function bigLine(kind: Kind, f: Partial<Figures>): Promise<void> {
  const server = new StdioChild(STDIO[kind]);
  try {
    await server.initialize();
    await server.write(call("big", "echo", "x".repeat(10 * 2 ** 20)));
    const after = await server.ask("ping", {});
    f.bigLineNext = after && "result" in after ? 1 : 0;
    f.bigLineAlive = server.exit === undefined ? 1 : 0;
  } finally {
    await server.stop();
  }
}

const HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };
const INIT = JSON.stringify({
  jsonrpc: "2.0",
  id: 0,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "flood", version: "1" } },
});

async function flood(kind: Kind, f: Partial<Figures>): Promise<void> {
  const server = new HttpServerChild(HTTP[kind], [], { env: ENV });
  const port = await server.start();
  const pool = new Pool(`http://127.0.0.1:${port}`, { connections: 16 });
  try {
    const post = async (body: string, headers: Record<string, string> = {}) => {
      const r = await pool.request({
        path: "/mcp",
        method: "POST",
        headers: { ...HEADERS, ...headers },
        body,
      });
      return {
        status: r.statusCode,
        session: r.headers["mcp-session-id"] as string | undefined,
        text: await r.body.text(),
      };
    };
    const init = await post(INIT);
    const victim = { "mcp-session-id": init.session!, "mcp-protocol-version": "2025-11-25" };
    await post('{"jsonrpc":"2.0","method":"notifications/initialized"}', victim);
    const rss0 = rssKb(server.pid);
    let next = 0;
    let refused = 0;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (next++ < FLOOD) if ((await post(INIT)).status !== 200) refused++;
      }),
    );
    const after = await post(call("v", "echo", "still here").trim(), victim);
    f.floodVictim = after.status === 200 && after.text.includes("still here") ? 1 : 0;
    f.floodRefused = refused;
    f.floodRssMb = (rssKb(server.pid) - rss0) / 1024;
  } finally {
    await pool.close();
    await server.close();
  }
}

async function measure(kind: Kind): Promise<Figures> {
  const f: Partial<Figures> = {};
  log(`${kind}: fuzz (${FUZZ_FRAMES} frames)`);
  await fuzz(kind, f);
  log(`${kind}: stdin EOF, then SIGTERM, with ${IN_FLIGHT} calls in flight`);
  await inFlight(kind, "eof", f);
  await inFlight(kind, "sigterm", f);
  log(`${kind}: a 10 MB line`);
  await bigLine(kind, f);
  log(`${kind}: ${FLOOD} initialize calls beside a session in use`);
  await flood(kind, f);
  log(`${kind}: ${JSON.stringify(f)}`);
  return f as Figures;
}

interface Row {
  figure: string;
  ours: number | string;
  sdkV2: number | string;
  unit: string;
  better: string;
}

async function main(): Promise<Row[]> {
  prepareBuild();
  const got = {} as Record<Kind, Figures>;
  for (const kind of KINDS) got[kind] = await measure(kind);
  const row = (figure: string, key: keyof Figures, unit: string, better: string): Row => ({
    figure,
    ours: got.ours[key],
    sdkV2: got.sdkV2[key],
    unit,
    better,
  });
  return [
    row(`fuzz: requests answered exactly once (${FUZZ_FRAMES} frames)`, "fuzzAnswered", "%", "higher"),
    row("fuzz: requests left unanswered", "fuzzMissing", "requests", "lower"),
    row("fuzz: internal errors (-32603) answered", "fuzzInternal", "answers", "lower"),
    row("fuzz: process alive at the end", "fuzzAlive", "1 = yes", "higher"),
    row("fuzz: stack-trace lines on stderr", "fuzzStacks", "lines", "lower"),
    row(`stdin EOF with ${IN_FLIGHT} calls in flight: answered`, "eofAnswered", "answers", "higher"),
    row("stdin EOF: how the process ended", "eofExit", "exit code / signal", ""),
    row(`SIGTERM with ${IN_FLIGHT} calls in flight: answered`, "sigtermAnswered", "answers", "higher"),
    row("SIGTERM: how the process ended", "sigtermExit", "exit code / signal", ""),
    row("a 10 MB line: the next request answered", "bigLineNext", "1 = yes", "higher"),
    row("a 10 MB line: process alive", "bigLineAlive", "1 = yes", "higher"),
    row(`${FLOOD} initialize calls: the session in use still works`, "floodVictim", "1 = yes", "higher"),
    row(`${FLOOD} initialize calls: refused`, "floodRefused", "calls", ""),
    row(`${FLOOD} initialize calls: server RSS growth`, "floodRssMb", "MB", "lower"),
  ];
}

function markdown(rows: Row[]): string {
  const cell = (v: number | string) =>
    typeof v === "number" ? (Number.isInteger(v) ? String(v) : v.toFixed(1)) : v;
  return [
    ...header(),
    "",
    "| figure | ours | sdk v2 | unit | better |",
    "|---|---:|---:|---|---|",
    ...rows.map((r) => `| ${r.figure} | ${cell(r.ours)} | ${cell(r.sdkV2)} | ${r.unit} | ${r.better} |`),
  ].join("\n");
}

function header(): string[] {
  return [
    `Reliability, node ${process.version}, ${cpus().length} cores${QUICK ? ", --quick" : ""}. Each scenario in a fresh process, NODE_ENV=production.`,
    "ours: generated 2025-11-25 handlers, StdioServerTransport, shutdownOnSignals (as `init` scaffolds it); HTTP: serveHttp defaults.",
    "sdk v2: McpServer + its stdio transport as documented (no signal handling documented); HTTP: a transport per session in a map.",
    "Fuzz: frames from test/fuzz/frames.ts after initialize at 2025-11-25; `delay` answers after 50 ms.",
  ];
}

startWatchdog("bench/reliability.ts", 10 * 60_000);
try {
  const rows = await main();
  process.stdout.write(
    `${JSON_OUTPUT ? JSON.stringify({ name: "reliability", header: header(), rows }, null, 2) : markdown(rows)}\n`,
  );
} catch (error) {
  process.stderr.write(
    `bench/reliability.ts: ${error instanceof Error ? (error.stack ?? error.message) : error}\n`,
  );
  process.exitCode = 1;
} finally {
  killAll();
}
