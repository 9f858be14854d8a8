/**
 * What protecting a server costs: CPU per stateless JSON `tools/call` of a server behind OAuth 2.1
 * bearer auth (a JWT checked against the issuer's JWKS, fetched once and cached) against the same server
 * unprotected; ours (`protect()` + `jwtVerifier`, which takes a token it accepted on trust for a minute)
 * beside SDK v2 (`requireBearerAuth` with a jose verifier, every token checked), and ours with its cache
 * off, every token checked too. The JWKS is served by this process on 127.0.0.1; every call carries the
 * same valid RS256 token, which is never printed.
 * Prints a markdown table with targets, or with --json one report (rows, ratios, targets met). --quick
 * is a smoke run.
 * See bench/README.md for what each figure means and how it is measured.
 */

import { createServer as createHttpServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { cpus } from "node:os";
import { fileURLToPath } from "node:url";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import type { Pool } from "undici";
import type { BenchAuth } from "./fixtures/auth-config.js";
import { BASE_HEADERS, callBody, echoCaller, LoadTarget, POOL_SOCKETS, type Sample } from "./http-load.js";
import {
  type Goal,
  HttpServerChild,
  jsonOf,
  killAll,
  MODE,
  markdownOf,
  median,
  prepareBuild,
  type Report,
  type Row,
  rowOf,
  startWatchdog,
  within,
} from "./lib.js";

const JSON_OUTPUT = process.argv.includes("--json");
const QUICK = process.argv.includes("--quick");
const SCALE = QUICK ? 10 : 1;

/** As in bench/http.ts: each run stops at its call count or its time cap, whichever comes first. */
const CALLS = { 64: 20_000 / SCALE, 1: 4_000 / SCALE } as const;
const RUN_MAX_MS = QUICK ? 400 : 2_000;
const WARMUP = {
  64: { count: 30_000 / SCALE, maxMs: QUICK ? 600 : 6_000 },
  1: { count: 2_000 / SCALE, maxMs: QUICK ? 200 : 1_000 },
} as const;
const RUNS = 3;
const BENCH_TIMEOUT_MS = 10 * 60_000;
/** What a deployed server runs with; for ours it means no result validation unless asked for. */
const SERVER_ENV = { ...process.env, NODE_ENV: "production" };

/** The token: RS256 (the default signing algorithm of most authorization servers), an hour to live. */
const ALG = "RS256";
const KID = "bench-rs256";
const SCOPE = "mcp:tools";
/** The endpoint's resource URI as clients would reach it behind a proxy: the tokens' audience. */
const RESOURCE = "https://mcp.bench.test/mcp";
const TOKEN_TTL_SEC = 3600;

const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));
const SIDES = ["ours", "sdkV2"] as const;
type Side = (typeof SIDES)[number];
const SIDE_FILE: Record<Side, string> = {
  ours: fixture("http-auth-ours.ts"),
  sdkV2: fixture("http-auth-sdk2.ts"),
};
/**
 * open: no auth; protected: as a user configures it; checked (ours only): `cacheTtlSec: 0`, every call's
 * token verified in full, the work SDK v2's verifier does on every call.
 */
const MODES = ["open", "protected", "checked"] as const;
type Mode = (typeof MODES)[number];
type Key = `${Side} ${Mode}`;
const KEYS: Key[] = ["ours open", "ours protected", "ours checked", "sdkV2 open", "sdkV2 protected"];

const log = (text: string) => {
  if (!JSON_OUTPUT || process.stderr.isTTY) process.stderr.write(`${text}\n`);
};

// The authorization server's part: its keys, its JWKS over HTTP (fetches counted per fixture), one token.

interface Issuer {
  issuer: string;
  /** The JWKS address a fixture is given (its own path, so that fetches are counted per server). */
  jwksUri(name: string): string;
  /** JWKS fetches so far by the fixture given `jwksUri(name)`. */
  fetches(name: string): number;
  token: string;
  close(): Promise<void>;
}

async function startIssuer(): Promise<Issuer> {
  const { publicKey, privateKey } = await generateKeyPair(ALG, { extractable: true });
  const jwks = JSON.stringify({
    keys: [{ ...(await exportJWK(publicKey)), kid: KID, alg: ALG, use: "sig" }],
  });
  const hits = new Map<string, number>();
  const server: Server = createHttpServer((req, res) => {
    const name = /^\/jwks\/([A-Za-z0-9]+)$/.exec(req.url ?? "")?.[1];
    if (req.method !== "GET" || name === undefined) {
      res.writeHead(404).end();
      return;
    }
    hits.set(name, (hits.get(name) ?? 0) + 1);
    res.writeHead(200, { "content-type": "application/jwk-set+json" }).end(jwks);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const now = Math.floor(Date.now() / 1000);
  const token = await new SignJWT({ scope: SCOPE, client_id: "bench-client" })
    .setProtectedHeader({ alg: ALG, kid: KID, typ: "at+jwt" })
    .setIssuer(origin)
    .setAudience(RESOURCE)
    .setSubject("bench-user")
    .setIssuedAt(now)
    .setExpirationTime(now + TOKEN_TTL_SEC)
    .sign(privateKey);
  return {
    issuer: origin,
    jwksUri: (name) => `${origin}/jwks/${name}`,
    fetches: (name) => hits.get(name) ?? 0,
    token,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

// The load client: the HTTP bench's (bench/http-load.ts), stateless JSON calls, with the token when protected.

function caller(pool: Pool, token: string | undefined): (i: number) => Promise<void> {
  const headers: Record<string, string> = {
    ...BASE_HEADERS,
    ...(token !== undefined ? { authorization: `Bearer ${token}` } : {}),
  };
  return echoCaller(pool, headers, callBody);
}

class Target extends LoadTarget {
  constructor(
    readonly key: Key,
    readonly side: Side,
    readonly mode: Mode,
    readonly issuer: Issuer,
  ) {
    const auth: BenchAuth = {
      issuer: issuer.issuer,
      jwksUri: issuer.jwksUri(mode === "checked" ? `${side}Checked` : side),
      resource: RESOURCE,
      scope: SCOPE,
      ...(mode === "checked" ? { cacheTtlSec: 0 } : {}),
    };
    const env = mode === "open" ? SERVER_ENV : { ...SERVER_ENV, BENCH_AUTH: JSON.stringify(auth) };
    super(new HttpServerChild(SIDE_FILE[side], [], { env }));
  }

  async start(): Promise<void> {
    await this.connect();
    this.call = caller(this.pool, this.mode === "open" ? undefined : this.issuer.token);
    // One call before the clock: a protected server fetches its JWKS here.
    await within(this.call(0), 30_000, `${this.key}: the first call`);
  }
}

interface Series {
  callsPerSec: number;
  serverCpuUs: number;
  clientBusy: number;
}

/** Warm-up, then RUNS rounds interleaved over the four servers (drift falls on all alike); medians. */
async function measure(targets: Record<Key, Target>, inflight: 1 | 64): Promise<Record<Key, Series>> {
  for (const key of KEYS) await targets[key].run(WARMUP[inflight].count, inflight, WARMUP[inflight].maxMs);
  const samples = Object.fromEntries(KEYS.map((k) => [k, [] as Sample[]])) as Record<Key, Sample[]>;
  for (let round = 0; round < RUNS; round++) {
    for (const key of KEYS) samples[key].push(await targets[key].run(CALLS[inflight], inflight, RUN_MAX_MS));
  }
  const out = {} as Record<Key, Series>;
  for (const key of KEYS) {
    const runs = samples[key];
    const rates = runs.map((r) => (r.calls / r.ms) * 1000);
    out[key] = {
      callsPerSec: median(rates),
      serverCpuUs: median(runs.map((r) => (r.serverCpuMs / r.calls) * 1000)),
      clientBusy: Math.max(...runs.map((r) => r.clientCpuMs / r.ms)),
    };
    log(
      `  ${String(inflight).padStart(2)} in flight ${key.padEnd(16)} ${rates.map((r) => Math.round(r)).join(" / ")} calls/s` +
        ` (server CPU ${runs.map((r) => ((r.serverCpuMs / r.calls) * 1000).toFixed(1)).join(" / ")} µs/call,` +
        ` load client ${Math.round(out[key].clientBusy * 100)}% of a core)`,
    );
  }
  return out;
}

let clientBusyMax = 0;

async function main(): Promise<Row[]> {
  prepareBuild();
  const issuer = await startIssuer();
  const targets: Partial<Record<Key, Target>> = {};
  try {
    for (const key of KEYS) {
      const [side, mode] = key.split(" ") as [Side, Mode];
      targets[key] = new Target(key, side, mode, issuer);
      await targets[key].start();
    }
    const ready = targets as Record<Key, Target>;
    /** The JWKS addresses of each side's protected servers. */
    const jwksNames: Record<Side, string[]> = { ours: ["ours", "oursChecked"], sdkV2: ["sdkV2"] };
    const fetches = (side: Side) => jwksNames[side].map((name) => issuer.fetches(name));
    const before = { ours: fetches("ours"), sdkV2: fetches("sdkV2") };
    log(
      `stateless JSON: ${CALLS[64]} calls at 64 in flight, ${CALLS[1]} at 1, each run capped at ${RUN_MAX_MS} ms`,
    );
    const s = { 64: await measure(ready, 64), 1: await measure(ready, 1) };
    for (const inflight of [64, 1] as const) {
      for (const key of KEYS) clientBusyMax = Math.max(clientBusyMax, s[inflight][key].clientBusy);
    }
    const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
    const during = {
      ours: sum(fetches("ours")) - sum(before.ours),
      sdkV2: sum(fetches("sdkV2")) - sum(before.sdkV2),
    };
    log(
      `  JWKS fetches before the runs: ours ${before.ours.join(" / ")} (cached / checked), sdk v2 ${before.sdkV2.join("")};` +
        ` during the runs: ours ${during.ours}, sdk v2 ${during.sdkV2}`,
    );

    const by = (pick: (side: Side) => number) => (kind: string) =>
      kind === "ours" || kind === "sdkV2" ? pick(kind) : Number.NaN;
    const rows: Row[] = [];
    for (const inflight of [64, 1] as const) {
      const at = s[inflight];
      const cpu = (side: Side, mode: Mode) => at[`${side} ${mode}`].serverCpuUs;
      /** Every call's token verified: ours with its cache off, SDK v2 as it is. */
      const checked = (side: Side) => cpu(side, side === "ours" ? "checked" : "protected");
      rows.push(
        rowOf(
          `unprotected server CPU per call, ${inflight} in flight`,
          "µs",
          by((side) => cpu(side, "open")),
        ),
        rowOf(
          `JWT-protected server CPU per call, ${inflight} in flight`,
          "µs",
          by((side) => cpu(side, "protected")),
        ),
        rowOf(
          `protected ÷ unprotected CPU per call, ${inflight} in flight`,
          "% of unprotected",
          by((side) => (cpu(side, "protected") / cpu(side, "open")) * 100),
        ),
        rowOf(
          `JWT checked on every call (ours: cacheTtlSec 0) server CPU per call, ${inflight} in flight`,
          "µs",
          by(checked),
        ),
        rowOf(
          `JWT checked on every call ÷ unprotected CPU per call, ${inflight} in flight`,
          "% of unprotected",
          by((side) => (checked(side) / cpu(side, "open")) * 100),
        ),
        rowOf(
          `unprotected calls/s, ${inflight} in flight`,
          "calls/s",
          by((side) => at[`${side} open`].callsPerSec),
        ),
        rowOf(
          `JWT-protected calls/s, ${inflight} in flight`,
          "calls/s",
          by((side) => at[`${side} protected`].callsPerSec),
        ),
      );
    }
    rows.push(
      rowOf(
        "JWKS fetches before the runs (on the first call), most by one server",
        "fetches",
        by((side) => Math.max(...before[side])),
      ),
      rowOf(
        "JWKS fetches during the runs, all servers",
        "fetches",
        by((side) => during[side]),
      ),
    );
    return rows;
  } finally {
    await Promise.allSettled(Object.values(targets).map((t) => t.close()));
    await issuer.close();
  }
}

// Output

const GOALS: Goal[] = [
  {
    figure: "protected ÷ unprotected CPU per call, 64 in flight",
    against: "value",
    bound: 130,
    text: "≤ 1.30× unprotected",
  },
  { figure: "JWKS fetches during the runs, all servers", against: "value", bound: 0, text: "none (cached)" },
];

function header(): string[] {
  const cpu = cpus()[0]?.model.trim() ?? "unknown CPU";
  return [
    `OAuth-protected Streamable HTTP on 127.0.0.1, node ${process.version}, ${cpus().length} cores (${cpu})${QUICK ? ", --quick" : ""}.`,
    MODE === "compiled"
      ? "Servers run as plain `node <file>.js` (compiled by tsc; ours from the package's dist/) with NODE_ENV=production:"
      : "Servers run as `node --import tsx --conditions=mcp-codegen-source <file>` with NODE_ENV=production:",
    "the HTTP bench's stateless JSON servers, unprotected and protected. Ours: `protect()` with `jwtVerifier({ issuer,",
    'audience, jwksUri, typ })` (an accepted token taken on trust for up to 60 s; "checked": `cacheTtlSec: 0`, every',
    "token verified); sdk v2: `requireBearerAuth` with a jose `jwtVerify` verifier (every token verified), `createMcpHandler`",
    `behind \`toNodeHandler\`. Every call carries the same valid ${ALG} JWT (2048-bit key, \`at+jwt\`, scope ${SCOPE} required);`,
    "the JWKS is served by the bench on 127.0.0.1 and fetched by each protected server on its first call, before the runs.",
    `Load: an undici Pool of ${POOL_SOCKETS} keep-alive sockets. Median of ${RUNS} runs of ${CALLS[64]} calls at 64 in flight /`,
    `${CALLS[1]} at 1, each capped at ${RUN_MAX_MS} ms, after a warm-up (≤ ${WARMUP[64].count} calls / ${WARMUP[64].maxMs} ms at 64,`,
    `≤ ${WARMUP[1].count} / ${WARMUP[1].maxMs} ms at 1), interleaved. The load client used at most ${Math.round(clientBusyMax * 100)}% of a core.`,
    "sdk v1 and floor: n/a. vs v2: how many times better ours is (ours/x for calls/s, x/ours for µs and %); > 1 = ours wins.",
  ];
}

startWatchdog("bench/auth.ts", BENCH_TIMEOUT_MS);

try {
  const t0 = performance.now();
  const rows = await main();
  log(`done in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  const report: Report = { name: "auth", header: header(), rows, goals: GOALS };
  process.stdout.write(`${JSON_OUTPUT ? JSON.stringify(jsonOf(report), null, 2) : markdownOf(report)}\n`);
} catch (error) {
  process.stderr.write(`bench/auth.ts: ${error instanceof Error ? (error.stack ?? error.message) : error}\n`);
  process.exitCode = 1;
} finally {
  killAll();
}
