/**
 * The official MCP conformance suite against this repository's everything-server and everything-client.
 *
 *   tsx --conditions=mcp-codegen-source test/conformance/run.ts [--only server|client|auth] [--verbose]
 *   tsx --conditions=mcp-codegen-source test/conformance/run.ts --scenario sep-2640-skills-enumeration [--scenario …]
 *       only the named server [extension] scenarios
 *
 * Starts examples/everything-server on a free 127.0.0.1 port, runs every active server scenario of
 * `--spec-version 2025-06-18` and `2025-11-25` against it (and the pending ones it implements), stops it,
 * and every server `[extension]` scenario `conformance list --server` gives (once, without a version; the
 * number run is printed and checked against that list; such a row passes only when a check of its own
 * succeeds, not the wire schema's alone), then runs the client scenarios with
 * examples/everything-client as the client: the hand-listed ones below, every other client
 * `[extension]` scenario the list gives (once, without a version; counted and checked against the list),
 * and every `auth/*` scenario at every version `conformance list --client` gives it (an extension scenario
 * once, without a version); the number of auth rows run is printed and checked against that list. Prints one row per
 * scenario and version and exits 1 when any failed (a scenario fails on any FAILURE check; a client
 * scenario also on warnings or a bad exit, as the suite itself judges). Every run is bounded; full output
 * and checks.json files stay in test/.tmp/conformance/.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createWriteStream, existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const REPO = fileURLToPath(new URL("../../", import.meta.url));
// Relative to REPO, the working directory of every child: `conformance client --command` splits the
// command on spaces, so the command must not contain the (possibly spaced) absolute path.
const TSX = "node_modules/.bin/tsx";
const CONFORMANCE = "node_modules/.bin/conformance";
const SERVER_MAIN = "examples/everything-server/main.ts";
const CLIENT_COMMAND = `${TSX} --conditions=mcp-codegen-source examples/everything-client/main.ts`;

/**
 * Server suites by version. At 2026-07-28 the suite's default set holds only the scenarios carried over
 * from 2025; `--suite all` adds the stateless-era ones (server-stateless, caching, MRTR, headers).
 */
const SERVER_VERSIONS: ReadonlyArray<readonly [version: string, suite?: string]> = [
  ["2025-06-18"],
  ["2025-11-25"],
  ["2026-07-28", "all"],
];
/**
 * Server scenarios the suite keeps out of its active set ("pending" until the official SDK's server
 * passes them) but that the everything-server implements: run one by one, at the version they need.
 */
const PENDING_SERVER_SCENARIOS: ReadonlyArray<readonly [scenario: string, version: string]> = [
  ["json-schema-2020-12", "2025-11-25"],
  ["server-sse-polling", "2025-11-25"],
];
/** Client scenarios other than `auth/*` (those come from `conformance list --client`, see authScenarios). */
const CLIENT_SCENARIOS: ReadonlyArray<readonly [scenario: string, version: string]> = [
  ["initialize", "2025-06-18"],
  ["initialize", "2025-11-25"],
  ["tools_call", "2025-06-18"],
  ["tools_call", "2025-11-25"],
  ["elicitation-sep1034-client-defaults", "2025-11-25"],
  ["sse-retry", "2025-11-25"],
  ["json-schema-2020-12-preservation", "2025-11-25"],
  ["tools_call", "2026-07-28"],
  ["request-metadata", "2026-07-28"],
  ["sep-2322-client-request-state", "2026-07-28"],
  ["http-standard-headers", "2026-07-28"],
  ["http-custom-headers", "2026-07-28"],
  ["http-invalid-tool-headers", "2026-07-28"],
  ["json-schema-ref-no-deref", "2026-07-28"],
  ["json-schema-2020-12-preservation", "2026-07-28"],
];

/**
 * Scenarios whose every check the installed suite itself reports SKIPPED, whatever the server does, and
 * why: shown as "skip", counted apart from passes and failures. A scenario listed here that returns
 * anything but SKIPPED checks is judged as any other (so a suite that starts checking it is noticed).
 */
/** The check the suite adds to every scenario (the messages' JSON Schema): on its own, no evidence. */
const WIRE_SCHEMA_CHECK = "wire-schema-valid";
const NOT_OFFERED =
  "the server does not offer the extension this scenario tests (only the wire schema was checked)";
/**
 * An `[extension]` row passes only on a check of its own: the suite skips every check of a scenario
 * whose extension the server does not declare, leaving the wire schema's SUCCESS alone, which proves nothing.
 */
const hasOwnSuccess = (checks: Check[]) =>
  checks.some((c) => c.status === "SUCCESS" && c.id !== WIRE_SCHEMA_CHECK);

const SKIPPED_BY_SUITE: Readonly<Record<string, string>> = {
  "tasks-status-notifications":
    "the suite returns one SKIPPED check, pending its subscriptions/listen rewrite (the server sends notifications/tasks on listen streams)",
};

const SERVER_START_MS = 30_000;
const SCENARIO_TIMEOUT_MS = 30_000;
/** A whole server suite: ~35 scenarios, most well under a second, each bounded by the suite's timeout. */
const SERVER_SUITE_MS = 10 * 60_000;
const CLIENT_SCENARIO_MS = 90_000;

interface Row {
  scenario: string;
  version: string;
  side: "server" | "client";
  ok: boolean;
  /** Every check SKIPPED by the suite itself (SKIPPED_BY_SUITE): neither a pass nor a failure. */
  skipped?: boolean;
  passed: number;
  failed: number;
  warnings: number;
  note?: string;
}

interface Check {
  id: string;
  status: "SUCCESS" | "FAILURE" | "WARNING" | "INFO" | "SKIPPED";
  errorMessage?: string;
}

const { values: options } = parseArgs({
  options: {
    only: { type: "string" },
    verbose: { type: "boolean", default: false },
    /** Only these server `[extension]` scenarios (and no version suite): for iterating on one extension. */
    scenario: { type: "string", multiple: true },
  },
});
if (options.only !== undefined && !["server", "client", "auth"].includes(options.only)) {
  process.stderr.write(
    "usage: run.ts [--only server|client|auth] [--scenario <extension scenario>]... [--verbose]\n",
  );
  process.exit(2);
}

const OUT = join(REPO, "test/.tmp/conformance", new Date().toISOString().replace(/[:.]/g, "-"));
mkdirSync(OUT, { recursive: true });
const say = (line: string) => process.stdout.write(`${line}\n`);

/** Children that must not outlive this script, each the leader of its own process group. */
const children = new Set<ChildProcess>();

function killGroup(child: ChildProcess, signal: NodeJS.Signals = "SIGTERM"): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    child.kill(signal);
  }
}

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    for (const child of children) killGroup(child, "SIGKILL");
    process.exit(130);
  });
}

interface Run {
  code: number | null;
  timedOut: boolean;
  output: string;
}

/** Runs a command from REPO with a time limit, teeing its output to `logFile` (and to the terminal with --verbose). */
function run(command: string, args: string[], timeoutMs: number, logFile: string): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: REPO, detached: true, stdio: ["ignore", "pipe", "pipe"] });
    children.add(child);
    const log = createWriteStream(logFile);
    let output = "";
    const collect = (chunk: Buffer) => {
      output += chunk.toString();
      log.write(chunk);
      if (options.verbose) process.stderr.write(chunk);
    };
    child.stdout.on("data", collect);
    child.stderr.on("data", collect);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child);
      setTimeout(() => killGroup(child, "SIGKILL"), 2000).unref();
    }, timeoutMs);
    const finish = (code: number | null) => {
      clearTimeout(timer);
      children.delete(child);
      log.end();
      resolve({ code, timedOut, output });
    };
    child.once("error", (error) => {
      output += `\n${error.message}`;
      finish(null);
    });
    child.once("close", (code) => finish(code));
  });
}

interface StartedServer {
  url: string;
  stop(): Promise<void>;
}

/** Starts the everything-server on a free port; resolves with its URL once it prints "listening on <url>". */
function startServer(): Promise<StartedServer> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      TSX,
      ["--conditions=mcp-codegen-source", SERVER_MAIN, "--port", "0", "--host", "127.0.0.1"],
      {
        cwd: REPO,
        detached: true,
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    children.add(child);
    const log = createWriteStream(join(OUT, "everything-server.log"));
    let output = "";
    const exited = new Promise<void>((done) => child.once("close", () => done()));
    const stop = async () => {
      killGroup(child);
      const killer = setTimeout(() => killGroup(child, "SIGKILL"), 3000);
      await exited;
      clearTimeout(killer);
      children.delete(child);
      log.end();
    };
    const timer = setTimeout(() => {
      void stop();
      reject(new Error(`the everything-server did not start within ${SERVER_START_MS} ms:\n${output}`));
    }, SERVER_START_MS);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      log.write(chunk);
      if (options.verbose) process.stderr.write(chunk);
      const url = /listening on (https?:\/\/\S+)/.exec(output)?.[1];
      if (url) {
        clearTimeout(timer);
        resolve({ url, stop });
      }
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.once("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`the everything-server exited before listening:\n${output.trim()}`));
    });
  });
}

function tally(checks: Check[]) {
  const count = (status: Check["status"]) => checks.filter((c) => c.status === status).length;
  const failures = checks.filter((c) => c.status === "FAILURE");
  const warned = checks.filter((c) => c.status === "WARNING").map((c) => c.id);
  return {
    passed: count("SUCCESS"),
    failed: failures.length,
    warnings: warned.length,
    firstFailure: failures[0] && `${failures[0].id}: ${failures[0].errorMessage ?? "failed"}`,
    /** The warnings by check id, for the note: a row never hides them. */
    warned: warned.length > 0 ? `warnings: ${warned.join(", ")}` : undefined,
  };
}

/**
 * A row passes only on evidence: at least one passing check and no failure. The suite exits 0 for a
 * scenario it skips as not applicable (no checks at all): that is not a pass.
 */
const noEvidence = (t: { passed: number }) => (t.passed === 0 ? "no passing check (skipped?)" : undefined);

/** checks.json of each scenario the suite wrote under `dir` (folders `<prefix><scenario>-<timestamp>`). */
function resultsIn(dir: string, prefix: string): Map<string, Check[]> {
  const results = new Map<string, Check[]>();
  if (!existsSync(dir)) return results;
  for (const entry of readdirSync(dir)) {
    const file = join(dir, entry, "checks.json");
    const scenario = /^(.*)-\d{4}-\d{2}-\d{2}T[\d-]+Z$/.exec(entry)?.[1];
    if (!scenario?.startsWith(prefix) || !existsSync(file)) continue;
    results.set(scenario.slice(prefix.length), JSON.parse(readFileSync(file, "utf8")) as Check[]);
  }
  return results;
}

/** The active server suite at `version`, or only `scenario`. */
async function serverSuite(url: string, version: string, scenario?: string, suite?: string): Promise<Row[]> {
  const name = scenario ? `server-${scenario}-${version}` : `server-${version}`;
  const dir = join(OUT, name);
  say(
    `conformance server ${scenario ? `--scenario ${scenario} ` : ""}${version === EXTENSION ? "" : `--spec-version ${version} `}against ${url} …`,
  );
  const result = await run(
    CONFORMANCE,
    [
      "server",
      "--url",
      url,
      ...(scenario ? ["--scenario", scenario] : []),
      ...(suite ? ["--suite", suite] : []),
      ...(version === EXTENSION ? [] : ["--spec-version", version]),
      "--timeout",
      String(SCENARIO_TIMEOUT_MS),
      "-o",
      dir,
    ],
    SERVER_SUITE_MS,
    join(OUT, `${name}.log`),
  );
  const ran = scenario
    ? [scenario]
    : [...result.output.matchAll(/^=== Running scenario: (\S+) ===$/gm)].map((m) => m[1]!);
  const results = resultsIn(dir, "server-");
  const rows = ran.map((scenario): Row => {
    const checks = results.get(scenario);
    if (!checks)
      return {
        scenario,
        version,
        side: "server",
        ok: false,
        passed: 0,
        failed: 1,
        warnings: 0,
        note: "no results",
      };
    const { warned, firstFailure, ...t } = tally(checks);
    const suiteSkip = entryOf(SKIPPED_BY_SUITE, scenario);
    if (suiteSkip && checks.length > 0 && checks.every((c) => c.status === "SKIPPED"))
      return { scenario, version, side: "server", ok: true, skipped: true, ...t, note: suiteSkip };
    if (version === EXTENSION && !hasOwnSuccess(checks))
      return {
        scenario,
        version,
        side: "server",
        ok: false,
        ...t,
        note: `no check of its own succeeded: ${firstFailure ?? NOT_OFFERED}`,
      };
    const own = checks.filter((c) => c.id !== WIRE_SCHEMA_CHECK);
    // Only the wire schema was checked: the scenario's own checks were skipped. Not a pass.
    if (own.length > 0 && own.every((c) => c.status === "SKIPPED"))
      return { scenario, version, side: "server", ok: true, skipped: true, ...t, note: NOT_OFFERED };
    const ok = t.failed === 0 && t.passed > 0;
    const note = [firstFailure ?? noEvidence(t), warned].filter(Boolean).join("; ") || undefined;
    return { scenario, version, side: "server", ok, ...t, note };
  });
  if (result.timedOut || rows.length === 0 || (result.code !== 0 && rows.every((r) => r.ok))) {
    const why = result.timedOut ? `timed out after ${SERVER_SUITE_MS} ms` : `exit code ${result.code}`;
    rows.push({
      scenario: scenario ?? "(suite)",
      version,
      side: "server",
      ok: false,
      passed: 0,
      failed: 1,
      warnings: 0,
      note: why,
    });
  }
  return rows;
}

/** The `version` of an extension scenario's row: it is run once, without --spec-version. */
const EXTENSION = "extension";

/** An own entry of a table (never what every object inherits). */
const entryOf = (table: Readonly<Record<string, string>>, key: string): string | undefined =>
  Object.hasOwn(table, key) ? table[key] : undefined;

/** Every server `[extension]` scenario the installed suite lists (`  - tasks-lifecycle [extension]`). */
async function extensionServerScenarios(): Promise<string[]> {
  const listed = await run(CONFORMANCE, ["list", "--server"], 60_000, join(OUT, "list-server.log"));
  if (listed.code !== 0)
    throw new Error(`conformance list --server exited ${listed.code}:\n${listed.output}`);
  return [...listed.output.matchAll(/^\s*-\s+(\S+)\s+\[extension\]\s*$/gm)].map((m) => m[1]!);
}

/**
 * Every `auth/*` client scenario and version the installed suite lists, from lines like
 * `  - auth/metadata-default [2025-11-25,2026-07-28]` and `  - auth/dpop [extension]`.
 */
async function authScenarios(): Promise<Array<readonly [scenario: string, version: string]>> {
  const listed = await run(CONFORMANCE, ["list", "--client"], 60_000, join(OUT, "list-client.log"));
  if (listed.code !== 0)
    throw new Error(`conformance list --client exited ${listed.code}:\n${listed.output}`);
  const rows: Array<readonly [string, string]> = [];
  for (const [, scenario, versions] of listed.output.matchAll(/^\s*-\s+(auth\/\S+)\s+\[([^\]]*)\]\s*$/gm))
    for (const version of versions!.split(",").map((v) => v.trim()))
      if (version) rows.push([scenario!, version]);
  if (rows.length === 0)
    throw new Error(`conformance list --client lists no auth/* scenario:\n${listed.output}`);
  return rows;
}

/** A client row that failed without a scenario run: a listing that failed, or rows that do not add up. */
const failedClientRow = (scenario: string, note: string): Row => ({
  scenario,
  version: "-",
  side: "client",
  ok: false,
  passed: 0,
  failed: 1,
  warnings: 0,
  note,
});

/**
 * Runs every client scenario `list` gives (`conformance list --client`, filtered); a listing that fails,
 * and a number of rows run other than the number listed (or none), are failed rows of their own.
 */
async function runListed<T>(
  what: string,
  list: () => Promise<T[]>,
  runOne: (item: T) => Promise<Row>,
): Promise<Row[]> {
  const out: Row[] = [];
  let listed: T[] = [];
  try {
    listed = await list();
  } catch (error) {
    const note = (error instanceof Error ? error.message : String(error)).split("\n").slice(0, 3).join(" ");
    out.push(failedClientRow(`(list ${what})`, note));
  }
  const ran: Row[] = [];
  for (const item of listed) ran.push(await runOne(item));
  out.push(...ran);
  say(`${what} rows: ${ran.length} run of ${listed.length} listed by conformance list --client`);
  if (ran.length !== listed.length || ran.length === 0)
    out.push(
      failedClientRow(`(${what} row count)`, `${ran.length} ${what} rows run, ${listed.length} listed`),
    );
  return out;
}

/** Every client `[extension]` scenario but `auth/*` (run with the auth rows) the installed suite lists. */
async function extensionClientScenarios(): Promise<string[]> {
  const listed = await run(
    CONFORMANCE,
    ["list", "--client"],
    60_000,
    join(OUT, "list-client-extensions.log"),
  );
  if (listed.code !== 0)
    throw new Error(`conformance list --client exited ${listed.code}:\n${listed.output}`);
  return [...listed.output.matchAll(/^\s*-\s+(\S+)\s+\[extension\]\s*$/gm)]
    .map((m) => m[1]!)
    .filter((scenario) => !scenario.startsWith("auth/"));
}

async function clientScenario(scenario: string, version: string): Promise<Row> {
  const name = `client-${scenario.replace(/\//g, "-")}-${version}`;
  const dir = join(OUT, name);
  say(
    `conformance client --scenario ${scenario}${version === EXTENSION ? "" : ` --spec-version ${version}`} …`,
  );
  const result = await run(
    CONFORMANCE,
    [
      "client",
      "--command",
      CLIENT_COMMAND,
      "--scenario",
      scenario,
      ...(version === EXTENSION ? [] : ["--spec-version", version]),
      "--timeout",
      String(SCENARIO_TIMEOUT_MS),
      "-o",
      dir,
    ],
    CLIENT_SCENARIO_MS,
    join(OUT, `${name}.log`),
  );
  // An `auth/x` scenario's results are in `auth/x-<timestamp>/`, one folder down.
  const slash = scenario.lastIndexOf("/");
  const checks = [...resultsIn(slash < 0 ? dir : join(dir, scenario.slice(0, slash)), "").values()][0] ?? [];
  const { warned, firstFailure, ...t } = tally(checks);
  // Its own checks all skipped (the client never did what the scenario tests) is no pass.
  const own = checks.filter((c) => c.id !== WIRE_SCHEMA_CHECK);
  const skippedAll = own.length > 0 && own.every((c) => c.status === "SKIPPED");
  const why = result.timedOut
    ? `timed out after ${CLIENT_SCENARIO_MS} ms`
    : (firstFailure ??
      /CLIENT (EXITED WITH ERROR \(code \d+\)|TIMED OUT)/.exec(result.output)?.[0]?.toLowerCase() ??
      (skippedAll ? "every check of the scenario skipped" : undefined) ??
      noEvidence(t));
  const note = [why, warned && `${warned} (warnings fail a client scenario)`].filter(Boolean).join("; ");
  // The suite's exit code (warnings fail a client scenario), and evidence: checks passed, none failed.
  const ok =
    result.code === 0 &&
    !result.timedOut &&
    t.failed === 0 &&
    t.warnings === 0 &&
    t.passed > 0 &&
    !skippedAll;
  return { scenario, version, side: "client", ok, ...t, note: note || undefined };
}

function table(rows: Row[]): string {
  const header = ["side", "scenario", "version", "result", "checks (pass/fail/warn)", "note"];
  const cells = rows.map((r) => [
    r.side,
    r.scenario,
    r.version,
    r.skipped ? "skip" : r.ok ? "pass" : "FAIL",
    `${r.passed}/${r.failed}/${r.warnings}`,
    (r.note ?? "").replace(/\s+/g, " ").slice(0, 110),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (c: string[]) =>
    c
      .map((v, i) => v.padEnd(widths[i]!))
      .join("  ")
      .trimEnd();
  return [line(header), line(widths.map((w) => "-".repeat(w))), ...cells.map(line)].join("\n");
}

const rows: Row[] = [];
if (options.only === undefined || options.only === "server") {
  let server: StartedServer | undefined;
  try {
    server = await startServer();
    say(`everything-server listening on ${server.url}`);
    const picked = options.scenario;
    if (!picked) {
      for (const [version, suite] of SERVER_VERSIONS)
        rows.push(...(await serverSuite(server.url, version, undefined, suite)));
      for (const [scenario, version] of PENDING_SERVER_SCENARIOS)
        rows.push(...(await serverSuite(server.url, version, scenario)));
    }
    const listed = await extensionServerScenarios();
    const unknown = picked?.filter((s) => !listed.includes(s)) ?? [];
    if (unknown.length > 0) throw new Error(`not a server [extension] scenario: ${unknown.join(", ")}`);
    const extensions = picked ?? listed;
    const extensionRows: Row[] = [];
    for (const scenario of extensions)
      extensionRows.push(...(await serverSuite(server.url, EXTENSION, scenario)));
    rows.push(...extensionRows);
    const ranExtensions = new Set(extensionRows.map((r) => r.scenario)).size;
    say(
      `server extension rows: ${ranExtensions} run of ${extensions.length} ${picked ? "named by --scenario" : "listed by conformance list --server"}`,
    );
    if (ranExtensions !== extensions.length || extensions.length === 0)
      rows.push({
        scenario: "(extension row count)",
        version: "-",
        side: "server",
        ok: false,
        passed: 0,
        failed: 1,
        warnings: 0,
        note: `${ranExtensions} server extension rows run, ${extensions.length} listed`,
      });
  } catch (error) {
    const note = (error instanceof Error ? error.message : String(error)).split("\n").slice(0, 3).join(" ");
    rows.push({
      scenario: "(start server)",
      version: "-",
      side: "server",
      ok: false,
      passed: 0,
      failed: 1,
      warnings: 0,
      note,
    });
  } finally {
    await server?.stop();
  }
}
if (options.only !== "server" && !options.scenario) {
  if (options.only !== "auth") {
    for (const [scenario, version] of CLIENT_SCENARIOS) rows.push(await clientScenario(scenario, version));
    rows.push(
      ...(await runListed("client extension", extensionClientScenarios, (scenario) =>
        clientScenario(scenario, EXTENSION),
      )),
    );
  }
  rows.push(
    ...(await runListed("auth", authScenarios, ([scenario, version]) => clientScenario(scenario, version))),
  );
}

const failed = rows.filter((r) => !r.ok);
say(`\n${table(rows)}\n`);
say(`Logs and checks.json: ${OUT}`);
const skipped = rows.filter((r) => r.skipped);
say(
  `conformance: ${rows.length - failed.length - skipped.length} passed, ${failed.length} failed, ${skipped.length} skipped by the suite${skipped.length > 0 ? ` (${skipped.map((r) => r.scenario).join(", ")})` : ""}`,
);
process.exit(failed.length > 0 ? 1 : 0);
