/**
 * Scaffolded HTTP servers switched to Redis by one setting, as real processes against a real
 * redis-server: `MCP_REDIS_URL` puts a session's record in Redis (read back with a Redis client), `/readyz`
 * follows Redis going and coming back, two 2026-07-28 instances sharing the Redis open each other's
 * sealed `requestState` (the scaffold's tools ask no input, so the test adds one that elicits, as a user
 * would, and regenerates), and Redis unreachable at start is one line naming the host and exit 1. Built,
 * it runs from dist/ alone and loads the chunk holding @mcp-codegen/redis only when MCP_REDIS_URL is set.
 * The projects sit under the repository (test/.tmp/) so their imports resolve to this checkout.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { createClient } from "redis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scaffold } from "../../generator/project/project.js";
import { freePort } from "../fixtures/auth/protected-server.js";
import { redisSuite, startRedis, type TestRedis, withoutRedis } from "../fixtures/redis/redis-server.js";
import { answerOf, statelessCall } from "../fixtures/scale/stateless-call.js";
import { typeErrors } from "../support/typecheck.js";
import { REPO, runCli } from "./run.js";

const WORK = `${REPO}test/.tmp/scaffold-redis/`;
const httpDir = join(WORK, "shared-server");
const mrtrDir = join(WORK, "mrtr-server");
const TSX = `${REPO}node_modules/.bin/tsx`;
const PASSWORD = "s3cret-Pa55word";
const children = new Set<ChildProcess>();

interface Running {
  child: ChildProcess;
  /** The MCP endpoint, once it listens. */
  url?: string;
  code?: number | null;
  stderr: () => string;
}

/** The scaffold in `dir` run from source with `env` added: its URL once it listens, or its exit and stderr. */
function start(dir: string, env: Record<string, string>, args: string[] = []): Promise<Running> {
  const child = spawn(TSX, ["--conditions=mcp-codegen-source", "src/main.ts", ...args], {
    cwd: dir,
    env: { ...process.env, PORT: "0", ...env },
    stdio: ["ignore", "ignore", "pipe"],
    // Its own process group: tsx runs the server in a child, which a kill of the group reaches too.
    detached: true,
  });
  return watch(child);
}

function watch(child: ChildProcess): Promise<Running> {
  children.add(child);
  let stderr = "";
  const running: Running = { child, stderr: () => stderr };
  return new Promise((resolve) => {
    child.stderr!.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
      const url = /Streamable HTTP at (http:\/\/\S+)/.exec(stderr)?.[1];
      if (url && !running.url) resolve(Object.assign(running, { url }));
    });
    child.on("exit", (code) => {
      children.delete(child);
      resolve(Object.assign(running, { code }));
    });
  });
}

/** SIGKILL to the process and whatever it started (a test that failed leaves nothing running). */
function killGroup(child: ChildProcess) {
  try {
    process.kill(-child.pid!, "SIGKILL");
  } catch {
    child.kill("SIGKILL");
  }
}

/** SIGTERM, as an orchestrator stops it: its exit code. */
async function stop(running: Running): Promise<number | null> {
  if (running.child.exitCode !== null) return running.child.exitCode;
  const exited = new Promise<number | null>((resolve) => running.child.once("exit", resolve));
  running.child.kill("SIGTERM");
  return exited;
}

const readyz = (url: string) =>
  fetch(new URL("/readyz", url), { signal: AbortSignal.timeout(5_000) }).then((r) => r.status);

/** Adds to a scaffold a tool that asks the user to confirm (an elicitation: an input round in 2026-07-28). */
function addConfirmTool(dir: string) {
  const contract = readFileSync(join(dir, "contract.yaml"), "utf8");
  writeFileSync(
    join(dir, "contract.yaml"),
    contract.replace(
      "\n  greet:\n",
      "\n  confirm:\n    description: Asks the user to confirm\n    inputSchema: { type: object, additionalProperties: false }\n  greet:\n",
    ),
  );
  const handlers = readFileSync(join(dir, "src/handlers.ts"), "utf8");
  writeFileSync(
    join(dir, "src/handlers.ts"),
    handlers.replace(
      "    greet: async",
      `    confirm: async (_args, ctx) => {
      const schema = { type: "object" as const, properties: { ok: { type: "boolean" as const } }, required: ["ok"] };
      const answer = await ctx.elicit({ message: "Sure?", requestedSchema: schema }, { key: "sure" });
      return \`confirmed=\${String(answer.content?.ok)}\`;
    },
    greet: async`,
    ),
  );
  const generated = runCli(["generate", "-q"], { cwd: dir });
  expect(generated.code, generated.stderr).toBe(0);
}

const V2026 = "2026-07-28";
/** One stateless-era tools/call of `confirm` sent as it is on the wire: its JSON-RPC answer. */
async function callConfirm(url: string, extra: Record<string, unknown> = {}) {
  const response = await fetch(url, {
    method: "POST",
    headers: statelessCall.headers("confirm"),
    body: JSON.stringify(statelessCall(1, "confirm", extra)),
    signal: AbortSignal.timeout(10_000),
  });
  return answerOf(response.headers.get("content-type"), await response.text()) as {
    result?: { resultType?: string; requestState?: string; content?: unknown };
    error?: { code: number; message: string };
  };
}

describe("what init writes for Redis", () => {
  const config = {
    kind: "server",
    protocol: "2025-11-25",
    output: "generated",
    handlers: "src/handlers.ts",
    schema: null,
  } as const;
  const ranges = {
    codegenRange: "^0.1.0",
    runtimeRange: "0.1.0",
    zodRange: "^4",
    typescriptRange: "^5",
    typesNodeRange: "^22",
    esbuildRange: "^0.28",
    tsxRange: "^4",
    joseRange: "^6",
    redisPackageRange: "0.1.0",
    redisRange: "^6.3.1",
  };

  it("an HTTP server (http, both): redis as development dependencies, built into a chunk of its own, the Deployment section", () => {
    for (const transport of ["http", "both"] as const) {
      const files = scaffold(config, "app", ranges, transport);
      const pkg = JSON.parse(files["package.json"]!) as Record<string, Record<string, string>>;
      expect(pkg.devDependencies).toMatchObject({ "@mcp-codegen/redis": "0.1.0", redis: "^6.3.1" });
      // A production install (--omit=dev) stays the runtime alone.
      expect(Object.keys(pkg.dependencies!)).toEqual(["@mcp-codegen/runtime"]);
      expect(pkg).not.toHaveProperty("optionalDependencies");
      expect(pkg.scripts!.build).toContain(" --splitting --outdir=dist/src ");
      expect(files["src/main.ts"]).toContain('await import("@mcp-codegen/redis")');
      expect(files["src/main.ts"]).not.toMatch(/^import .*@mcp-codegen\/redis/m);
      const readme = files["README.md"]!;
      expect(readme).toContain("## Deployment");
      for (const text of [
        "MCP_REDIS_URL",
        "readinessProbe",
        "/readyz",
        "terminationGracePeriodSeconds",
        "replicas: 3",
      ])
        expect(readme).toContain(text);
    }
  });

  it("a stdio server: none of it", () => {
    const files = scaffold(config, "app", ranges, "stdio");
    const pkg = JSON.parse(files["package.json"]!) as Record<string, unknown>;
    expect(pkg).not.toHaveProperty("optionalDependencies");
    expect(JSON.stringify(files)).not.toMatch(/redis|Deployment/i);
  });
});

describe.skipIf(withoutRedis)(redisSuite("a scaffolded HTTP server with MCP_REDIS_URL"), () => {
  let redis: TestRedis;
  let url: string;
  let reader: ReturnType<typeof createClient>;
  const bundleDir = mkdtempSync(join(tmpdir(), "mcp-scaffold-bundle-"));

  beforeAll(async () => {
    rmSync(WORK, { recursive: true, force: true });
    mkdirSync(WORK, { recursive: true });
    const http = runCli(["init", httpDir, "--transport", "http", "-q"]);
    expect(http.code, http.stderr).toBe(0);
    const mrtr = runCli(["init", mrtrDir, "--transport", "both", "--protocol", V2026, "-q"]);
    expect(mrtr.code, mrtr.stderr).toBe(0);
    addConfirmTool(mrtrDir);
    redis = await startRedis(["--requirepass", PASSWORD]);
    url = `redis://:${PASSWORD}@127.0.0.1:${redis.port}`;
    reader = createClient({ url });
    reader.on("error", () => {}); // redis-server is stopped on purpose below
    await reader.connect();
  }, 180_000);
  afterAll(async () => {
    for (const child of children) killGroup(child);
    await reader?.destroy();
    await redis?.dispose();
    rmSync(bundleDir, { recursive: true, force: true });
  });

  it("type-checks, the confirm tool added and the Redis package's types found", () => {
    expect(typeErrors(WORK, ["shared-server/src/**/*.ts", "mrtr-server/src/**/*.ts"])).toEqual([]);
  }, 120_000);

  it("keeps its session in Redis, and /readyz turns 503 while redis-server is stopped, 200 once it is back", async () => {
    // HOST picks the address (a container listens on 0.0.0.0; here another loopback address).
    const server = await start(httpDir, { MCP_REDIS_URL: url, HOST: "127.0.0.2" });
    expect(server.url, server.stderr()).toMatch(/^http:\/\/127\.0\.0\.2:\d+\/mcp$/);
    expect(server.stderr()).toContain(
      `shared-server: sessions and state shared in Redis at 127.0.0.1:${redis.port}\n`,
    );

    const client = new Client({ name: "scaffold-redis", version: "1.0.0" });
    const transport = new StreamableHTTPClientTransport(new URL(server.url!));
    await client.connect(transport);
    const sum = await client.callTool({ name: "add", arguments: { a: 2, b: 40 } });
    expect(sum.structuredContent).toEqual({ sum: 42 });
    const id = transport.sessionId!;
    expect(id).toBeTruthy();
    const stored = await reader.hGetAll(`shared-server:{sessions}:s:${id}`);
    expect(stored.id).toBe(id);
    expect(stored.client).toBe("127.0.0.1"); // the client's address: it connects from 127.0.0.1
    await client.close();

    expect(await readyz(server.url!)).toBe(200);
    await redis.stop();
    await expect.poll(() => readyz(server.url!), { timeout: 10_000, interval: 200 }).toBe(503);
    await redis.start();
    await expect.poll(() => readyz(server.url!), { timeout: 15_000, interval: 200 }).toBe(200);
    await reader.ping(); // the reader reconnects too, for the tests after

    expect(await stop(server)).toBe(0);
    expect(server.stderr()).not.toContain(PASSWORD);
  }, 60_000);

  it("SIGTERM with Redis stuck (paused) and a session open: exits 0 within seconds, a stuck Redis cannot hold it up", async () => {
    const server = await start(httpDir, { MCP_REDIS_URL: url });
    expect(server.url, server.stderr()).toBeDefined();
    const client = new Client({ name: "scaffold-redis", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url!)));
    expect((await client.callTool({ name: "add", arguments: { a: 1, b: 1 } })).structuredContent).toEqual({
      sum: 2,
    });
    redis.pause();
    try {
      const started = performance.now();
      expect(await stop(server)).toBe(0);
      // The drain and the Redis client's close are each bounded by the command timeout (2 s).
      expect(performance.now() - started).toBeLessThan(8_000);
    } finally {
      redis.resume();
      await client.close().catch(() => {});
    }
  }, 60_000);

  it("2025-11-25: a session opened on one instance is served by another sharing the Redis; not without it", async () => {
    const [a, b] = await Promise.all([
      start(httpDir, { MCP_REDIS_URL: url }),
      start(httpDir, { MCP_REDIS_URL: url }),
    ]);
    const instances = [a.url!, b.url!];
    let next = 0;
    // Every request to the next instance: a balancer without sticky sessions.
    const alternate: typeof fetch = (input, init) => {
      const target = new URL(instances[next++ % 2]!);
      const to = new URL(typeof input === "string" || input instanceof URL ? input : input.url);
      to.host = target.host;
      return fetch(to, init);
    };
    const client = new Client({ name: "scaffold-redis", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(a.url!), { fetch: alternate }));
    for (let i = 0; i < 4; i++) {
      const sum = await client.callTool({ name: "add", arguments: { a: i, b: 1 } });
      expect(sum.structuredContent).toEqual({ sum: i + 1 });
    }
    await client.close();

    // Without Redis, the second instance knows nothing of the first's session.
    const [alone, other] = await Promise.all([start(httpDir, {}), start(httpDir, {})]);
    instances.splice(0, 2, alone.url!, other.url!);
    next = 0;
    const stranded = new Client({ name: "scaffold-redis", version: "1.0.0" });
    await expect(
      stranded.connect(new StreamableHTTPClientTransport(new URL(alone.url!), { fetch: alternate })),
    ).rejects.toThrow(/404|[Ss]ession/);
    for (const running of [a, b, alone, other]) expect(await stop(running)).toBe(0);
  }, 60_000);

  it("2026-07-28: a requestState sealed by one instance is opened by another sharing the Redis; not without it", async () => {
    // The `both` scaffold, serving HTTP with --http [port].
    const [a, b] = await Promise.all([
      start(mrtrDir, { MCP_REDIS_URL: url }, ["--http", "0"]),
      start(mrtrDir, { MCP_REDIS_URL: url }, ["--http", "0"]),
    ]);
    const answer = { inputResponses: { sure: { action: "accept", content: { ok: true } } } };
    const round = await callConfirm(a.url!);
    expect(round.result?.resultType, JSON.stringify(round)).toBe("input_required");
    const onB = await callConfirm(b.url!, { ...answer, requestState: round.result!.requestState });
    expect(onB.result?.content, JSON.stringify(onB)).toEqual([{ type: "text", text: "confirmed=true" }]);
    // Single use across instances too.
    const again = await callConfirm(a.url!, { ...answer, requestState: round.result!.requestState });
    expect(again.error?.message).toMatch(/requestState was already used/);
    expect(await reader.exists("mrtr-server:state-keys")).toBe(1);

    // The same two instances without Redis each seal with a key of their own: B cannot open A's state.
    const [alone, other] = await Promise.all([
      start(mrtrDir, {}, ["--http", "0"]),
      start(mrtrDir, {}, ["--http", "0"]),
    ]);
    const state = (await callConfirm(alone.url!)).result!.requestState;
    const refused = await callConfirm(other.url!, { ...answer, requestState: state });
    expect(refused.result).toBeUndefined();
    expect(refused.error?.message).toMatch(/sealed by a server with another key/);
    for (const running of [a, b, alone, other]) expect(await stop(running)).toBe(0);
  }, 60_000);

  it("Redis unreachable at start: one line naming the host, never the password, exit 1", async () => {
    const port = await freePort(); // nothing listens there
    const cases = [
      {
        env: `redis://user:${PASSWORD}@127.0.0.1:${port}`,
        line: `shared-server: cannot start with MCP_REDIS_URL: RedisUnavailable: Redis at 127.0.0.1:${port} cannot answer: Error: connect ECONNREFUSED 127.0.0.1:${port}\n`,
      },
      {
        env: `redis://:wrong-${PASSWORD}@127.0.0.1:${redis.port}`,
        line: `shared-server: cannot start with MCP_REDIS_URL: RedisUnavailable: Redis at 127.0.0.1:${redis.port} cannot answer: Error: WRONGPASS invalid username-password pair or user is disabled.\n`,
      },
      {
        env: `http://user:${PASSWORD}@127.0.0.1:${port}`,
        line: "shared-server: cannot start with MCP_REDIS_URL: TypeError: Redis URL must start with redis:// or rediss://, not http://\n",
      },
    ];
    const results = await Promise.all(cases.map((c) => start(httpDir, { MCP_REDIS_URL: c.env })));
    results.forEach((result, i) => {
      expect({ code: result.code, stderr: result.stderr() }).toEqual({ code: 1, stderr: cases[i]!.line });
    });
  }, 60_000);

  it("built, runs from dist/ alone: the Redis chunk is loaded only when MCP_REDIS_URL is set, and then serves from Redis", async () => {
    const dir = join(WORK, "bundled-server");
    const made = runCli(["init", dir, "--transport", "http", "-q"]);
    expect(made.code, made.stderr).toBe(0);
    // The scaffold's own esbuild command (its build script after the type check), on this checkout's sources.
    const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { scripts: { build: string } };
    const esbuild = pkg.scripts.build.split(" && ")[1]!;
    expect(esbuild).toMatch(/^esbuild /);
    // Through a shell, as npm runs scripts (the banner is quoted).
    const built = spawnSync("sh", ["-c", `${esbuild} --conditions=mcp-codegen-source`], {
      cwd: dir,
      env: { ...process.env, PATH: `${REPO}node_modules/.bin:${process.env.PATH}` },
      encoding: "utf8",
    });
    expect(built.status, built.stderr).toBe(0);
    // dist/src alone in a folder with no node_modules anywhere above it.
    cpSync(join(dir, "dist/src"), bundleDir, { recursive: true });
    writeFileSync(join(bundleDir, "package.json"), '{ "type": "module" }\n');
    const chunks = readdirSync(join(bundleDir, "chunks"));
    const redisChunk = chunks.find((f) =>
      readFileSync(join(bundleDir, "chunks", f), "utf8").includes("RedisStateKeyring"),
    );
    expect(redisChunk, chunks.join(", ")).toBeDefined();
    expect(readFileSync(join(bundleDir, "main.js"), "utf8")).not.toContain("RedisStateKeyring");

    const run = (env: Record<string, string>, trace: string) =>
      watch(
        spawn(
          process.execPath,
          ["--import", `${REPO}test/support/module-trace.mjs`, join(bundleDir, "main.js")],
          {
            cwd: bundleDir,
            env: { ...process.env, PORT: "0", MODULE_TRACE_FILE: join(bundleDir, trace), ...env },
            stdio: ["ignore", "ignore", "pipe"],
          },
        ),
      );
    const loaded = (trace: string) =>
      readFileSync(join(bundleDir, trace), "utf8")
        .split("\n")
        .filter((u) => u.includes("/chunks/"))
        .map((u) => u.slice(u.lastIndexOf("/") + 1));

    const plain = await run({}, "plain.trace");
    expect(plain.url, plain.stderr()).toBeDefined();
    expect(await readyz(plain.url!)).toBe(200);
    expect(await stop(plain)).toBe(0);
    expect(loaded("plain.trace").length).toBeGreaterThan(0); // the trace sees chunks: the shared one
    expect(loaded("plain.trace")).not.toContain(redisChunk);

    const shared = await run({ MCP_REDIS_URL: url }, "shared.trace");
    expect(shared.url, shared.stderr()).toBeDefined();
    expect(loaded("shared.trace")).toContain(redisChunk);
    const client = new Client({ name: "scaffold-redis", version: "1.0.0" });
    const transport = new StreamableHTTPClientTransport(new URL(shared.url!));
    await client.connect(transport);
    expect((await client.callTool({ name: "add", arguments: { a: 1, b: 2 } })).structuredContent).toEqual({
      sum: 3,
    });
    expect(await reader.hGet(`bundled-server:{sessions}:s:${transport.sessionId}`, "id")).toBe(
      transport.sessionId,
    );
    await client.close();
    expect(await stop(shared)).toBe(0);
    expect(shared.stderr()).not.toContain(PASSWORD);
  }, 120_000);
});
