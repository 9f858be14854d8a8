/**
 * `npm run bench`: every bench, one after the other, each in its own process (its own children,
 * watchdog and heap). Without --json each prints its markdown table as it finishes; with --json nothing
 * but one JSON document goes to stdout: { node, cpus, cpu, quick, benches: { generate, cli, types, stdio, http, auth, telemetry, redis, reliability, dev } },
 * every figure of every bench (npm prints its own banner on stdout unless run as `npm run -s`);
 * `--out <file>` also writes it to a file (atomically). --quick is passed on (a smoke run);
 * --only <name,…> runs some of them. Progress goes to stderr. Exits 1 if any bench fails (the others
 * still run).
 */

import { spawn } from "node:child_process";
import { rename, writeFile } from "node:fs/promises";
import { cpus } from "node:os";
import { fileURLToPath } from "node:url";

const BENCHES = [
  "generate",
  "cli",
  "types",
  "stdio",
  "http",
  "auth",
  "telemetry",
  "redis",
  "reliability",
  "dev",
] as const;
type Bench = (typeof BENCHES)[number];

const args = process.argv.slice(2);
const JSON_OUTPUT = args.includes("--json");
const QUICK = args.includes("--quick");
const onlyAt = args.indexOf("--only");
const only = onlyAt >= 0 ? (args[onlyAt + 1] ?? "").split(",").filter(Boolean) : [...BENCHES];
const outAt = args.indexOf("--out");
const OUT = outAt >= 0 ? args[outAt + 1] : undefined;
const unknown = only.filter((name) => !(BENCHES as readonly string[]).includes(name));
const known = new Set([
  "--json",
  "--quick",
  "--only",
  "--out",
  ...(onlyAt >= 0 ? [args[onlyAt + 1]] : []),
  ...(outAt >= 0 ? [args[outAt + 1]] : []),
]);
const stray = args.filter((a) => !known.has(a));
if (unknown.length > 0 || stray.length > 0 || only.length === 0 || (outAt >= 0 && !OUT)) {
  process.stderr.write(
    `bench/run.ts: ${unknown.length > 0 ? `unknown bench ${unknown.join(", ")}` : stray.length > 0 ? `unknown argument ${stray.join(" ")}` : "--only names no bench"}\n` +
      `usage: npm run -s bench -- [--json] [--out <file>] [--quick] [--only ${BENCHES.join(",")}]\n`,
  );
  process.exit(2);
}

const REPO = fileURLToPath(new URL("../", import.meta.url));
const TSX = `${REPO}node_modules/.bin/tsx`;

/** Runs one bench; resolves with its stdout (inherited instead without --json) or rejects with why it failed. */
function runBench(name: Bench): Promise<string> {
  const json = JSON_OUTPUT || OUT !== undefined;
  const flags = [...(json ? ["--json"] : []), ...(QUICK ? ["--quick"] : [])];
  const child = spawn(TSX, ["--conditions=mcp-codegen-source", `bench/${name}.ts`, ...flags], {
    cwd: REPO,
    stdio: ["ignore", json ? "pipe" : "inherit", "inherit"],
  });
  let out = "";
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
    out += chunk;
  });
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code, signal) => {
      if (code === 0) resolve(out);
      else reject(new Error(`bench/${name}.ts ended with ${signal ?? `exit code ${code}`}`));
    });
  });
}

const benches: Partial<Record<Bench, unknown>> = {};
const failures: string[] = [];
for (const name of BENCHES.filter((b) => only.includes(b))) {
  process.stderr.write(`== bench/${name}.ts${QUICK ? " --quick" : ""}\n`);
  try {
    const out = await runBench(name);
    if (JSON_OUTPUT || OUT) benches[name] = JSON.parse(out);
    else process.stdout.write("\n");
  } catch (error) {
    failures.push(error instanceof Error ? error.message : String(error));
    process.stderr.write(`${failures.at(-1)}\n`);
  }
}

if (JSON_OUTPUT || OUT) {
  const document = {
    node: process.version,
    cpus: cpus().length,
    cpu: cpus()[0]?.model.trim() ?? "unknown",
    quick: QUICK,
    benches,
    failures,
  };
  const text = `${JSON.stringify(document, null, 2)}\n`;
  if (JSON_OUTPUT) process.stdout.write(text);
  if (OUT) {
    const tmp = `${OUT}.${process.pid}.tmp`;
    await writeFile(tmp, text);
    await rename(tmp, OUT);
    process.stderr.write(`wrote ${OUT}\n`);
  }
}
if (failures.length > 0) process.exitCode = 1;
