/**
 * Shared pieces of the runtime tests: bundling a fixture entry with esbuild, a runtime as a child process
 * (started, watched for readiness, stopped), and the smoke legs the official SDK clients run against
 * the fixture server (test/fixtures/runtimes/server.ts) on each runtime.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { request as httpRequest } from "node:http";
import { fileURLToPath } from "node:url";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as StreamableHttpV1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { build } from "esbuild";
import { afterAll, beforeAll, expect, it } from "vitest";

const REPO = fileURLToPath(new URL("../../", import.meta.url));
export const FIXTURES = `${REPO}test/fixtures/runtimes/`;
/** Where bundles go (git-ignored); workerd.capnp embeds workerd.js from here. */
export const OUT = `${REPO}test/.tmp/runtimes/`;
/** A binary installed by npm (bun, deno, workerd): a missing one fails the test that spawns it. */
export const bin = (name: string): string => `${REPO}node_modules/.bin/${name}`;

const LEGACY = "2025-11-25";
const MODERN = "2026-07-28";
/** Bound on every request a smoke leg makes. */
const REQUEST_MS = 10_000;
/** Bound on a test: the server's start (bundle, spawn, readiness) and its requests. */
const TEST_MS = 50_000;
const TOOLS = ["echo", "progress", "ask"];

/**
 * Bundles a fixture entry into OUT, resolving `@mcp-codegen/runtime` to its TypeScript sources (the
 * package's `default` export points at dist/, which the repository does not build). `neutral`: no
 * Node built-ins may be used; `node`: `node:*` imports stay imports.
 */
export async function bundle(entry: string, platform: "neutral" | "node"): Promise<string> {
  const outfile = `${OUT}${entry.replace(/\.ts$/, ".js")}`;
  await build({
    entryPoints: [`${FIXTURES}${entry}`],
    outfile,
    bundle: true,
    format: "esm",
    platform,
    target: "es2023",
    conditions: ["mcp-codegen-source"],
    logLevel: "warning",
  });
  return outfile;
}

/** A runtime running a fixture: its output is kept for waits and for failure messages. */
export class RuntimeProcess {
  readonly child: ChildProcess;
  output = "";
  readonly #exited: Promise<void>;
  #lines = "";
  #listeners = new Set<() => void>();

  constructor(
    command: string,
    args: string[],
    options: { env?: NodeJS.ProcessEnv; controlFd?: boolean } = {},
  ) {
    this.child = spawn(command, args, {
      stdio: ["ignore", "pipe", "pipe", ...(options.controlFd ? (["pipe"] as const) : [])],
      env: { ...process.env, NO_COLOR: "1", ...options.env },
    });
    const collect = (chunk: Buffer) => {
      this.output += chunk.toString();
      for (const listener of this.#listeners) listener();
    };
    this.child.stdout!.on("data", collect);
    this.child.stderr!.on("data", collect);
    this.child.stdio[3]?.on("data", (chunk: Buffer) => {
      this.#lines += chunk.toString();
      for (const listener of this.#listeners) listener();
    });
    this.#exited = new Promise((resolve) => this.child.once("exit", () => resolve()));
    this.child.once("error", (error) => {
      this.output += `\nspawn failed: ${error.message}`;
      for (const listener of this.#listeners) listener();
    });
  }

  /** The first match of `pattern` in the output (or, with `control`, in the control descriptor's text). */
  waitFor(pattern: RegExp, ms = 30_000, control = false): Promise<RegExpMatchArray> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const match = (control ? this.#lines : this.output).match(pattern);
        if (match) finish(() => resolve(match));
        else if (
          this.child.exitCode !== null ||
          this.child.signalCode !== null ||
          /spawn failed/.test(this.output)
        )
          finish(() => reject(new Error(`the runtime exited before ${pattern}:\n${this.output}`)));
      };
      const finish = (settle: () => void) => {
        clearTimeout(timer);
        this.#listeners.delete(check);
        this.child.off("exit", check);
        settle();
      };
      const timer = setTimeout(
        () => finish(() => reject(new Error(`no ${pattern} within ${ms} ms:\n${this.output}`))),
        ms,
      );
      this.#listeners.add(check);
      this.child.on("exit", check);
      check();
    });
  }

  /** SIGTERM, then SIGKILL if it has not exited within 5 s. */
  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    this.child.kill("SIGTERM");
    const timer = setTimeout(() => this.child.kill("SIGKILL"), 5000);
    await this.#exited;
    clearTimeout(timer);
  }
}

/**
 * A server for a suite: launched (bundled, spawned) in beforeAll, stopped in afterAll. Each test awaits
 * its URL, so a runtime that cannot start (a binary missing, a crash, no readiness within 30 s) fails
 * every test rather than leaving them skipped.
 */
export function serverFor(
  launch: () => Promise<RuntimeProcess>,
  ready: (server: RuntimeProcess) => Promise<string>,
): () => Promise<string> {
  let server: RuntimeProcess | undefined;
  let url: Promise<string> | undefined;
  beforeAll(() => {
    url = launch().then((launched) => {
      server = launched;
      return ready(launched);
    });
    url.catch(() => {}); // reported by each test
  });
  afterAll(() => server?.stop());
  return () => url!;
}

/** `make()` once, for every test that asks (a bundle several tests run). */
export function once<T>(make: () => Promise<T>): () => Promise<T> {
  let made: Promise<T> | undefined;
  return () => (made ??= make());
}

/** An HTTP request with the Host header we choose (fetch cannot set one), answered with its status. */
export function statusWithHost(url: string, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, {
      method: "POST",
      headers: {
        host,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      timeout: REQUEST_MS,
    });
    req.on("response", (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on("timeout", () => req.destroy(new Error("timed out")));
    req.on("error", reject);
    req.end(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }));
  });
}

type ProgressSeen = { progress: number; total?: number; message?: string };

const textOf = (result: unknown): string =>
  ((result as { content: { type: string; text: string }[] }).content[0] as { text: string }).text;

/** Declares elicitation and answers it: the `ask` tool's question. */
function v2Client(modern: boolean): Client {
  const client = new Client(
    { name: `sdk-v2-${modern ? "modern" : "legacy"}`, version: "1.0.0" },
    {
      capabilities: { elicitation: {} },
      ...(modern ? { versionNegotiation: { mode: { pin: MODERN } } } : {}),
    },
  );
  client.setRequestHandler("elicitation/create", async () => ({
    action: "accept",
    content: { name: "Ada" },
  }));
  return client;
}

/** The calls a leg makes, the same for both SDKs (v1 takes a result schema before the options). */
interface Peer {
  listTools(): Promise<{ tools: { name: string }[] }>;
  callTool(
    name: string,
    args?: Record<string, unknown>,
    onprogress?: (p: ProgressSeen) => void,
  ): Promise<unknown>;
}

const v2Peer = (client: Client): Peer => ({
  listTools: () => client.listTools(undefined, { timeout: REQUEST_MS }),
  callTool: (name, args, onprogress) =>
    client.callTool(
      { name, arguments: args },
      { timeout: REQUEST_MS, ...(onprogress ? { onprogress } : {}) },
    ),
});

const v1Peer = (client: ClientV1): Peer => ({
  listTools: () => client.listTools(undefined, { timeout: REQUEST_MS }),
  callTool: (name, args, onprogress) =>
    client.callTool({ name, arguments: args }, undefined, {
      timeout: REQUEST_MS,
      ...(onprogress ? { onprogress } : {}),
    }),
});

/** What every leg checks once connected: the tools, a call with streamed progress, an echo of the version. */
async function toolsProgressEcho(peer: Peer, runtime: string, version: string): Promise<void> {
  const { tools } = await peer.listTools();
  expect(tools.map((t) => t.name)).toEqual(TOOLS);

  const seen: ProgressSeen[] = [];
  let seenWhenAnswered: ProgressSeen[] = [];
  const result = await peer
    .callTool("progress", { steps: 2 }, (p) => void seen.push(p))
    .then((r) => {
      seenWhenAnswered = [...seen];
      return r;
    });
  expect(textOf(result)).toBe(`done in 2 steps on ${runtime}`);
  // Both notifications reached the client during the call, before its answer.
  expect(seenWhenAnswered).toEqual([
    { progress: 1, total: 2, message: `step 1 on ${runtime}` },
    { progress: 2, total: 2, message: `step 2 on ${runtime}` },
  ]);

  // The server's own view of the version its session (or the request) speaks.
  expect(textOf(await peer.callTool("echo", { text: "hi" }))).toBe(`hi from ${runtime} at ${version}`);
}

/**
 * The HTTP legs against `url()`: the official SDK v2 client at 2025-11-25 (initialize) and at 2026-07-28
 * (pinned: server/discover, per-request `_meta`, an input round for `ask`), and the SDK v1 client at
 * 2025-11-25. `sessions`: the server keeps sessions, so a 2025 client is asked for input too.
 */
export function httpLegs(runtime: string, url: () => Promise<string>, options: { sessions: boolean }): void {
  it(
    "official SDK v2 client, protocol 2025-11-25: initialize, tools/list, tools/call with progress",
    async () => {
      const client = v2Client(false);
      try {
        await client.connect(new StreamableHTTPClientTransport(new URL(await url())), {
          timeout: REQUEST_MS,
        });
        expect(client.getProtocolEra()).toBe("legacy");
        expect(client.getNegotiatedProtocolVersion()).toBe(LEGACY);
        expect(client.getServerVersion()).toEqual({ name: "runtimes-fixture", version: "1.0.0" });
        await toolsProgressEcho(v2Peer(client), runtime, LEGACY);
        if (options.sessions) {
          expect(textOf(await v2Peer(client).callTool("ask"))).toBe(`hello Ada from ${runtime}`);
        }
      } finally {
        await client.close();
      }
    },
    TEST_MS,
  );

  it(
    "official SDK v2 client, protocol 2026-07-28: discover, tools/list, tools/call with progress, an input round",
    async () => {
      const client = v2Client(true);
      try {
        await client.connect(new StreamableHTTPClientTransport(new URL(await url())), {
          timeout: REQUEST_MS,
        });
        expect(client.getProtocolEra()).toBe("modern");
        expect(client.getNegotiatedProtocolVersion()).toBe(MODERN);
        expect(client.getDiscoverResult()?.supportedVersions).toContain(MODERN);
        expect(client.getServerVersion()).toEqual({ name: "runtimes-fixture", version: "1.0.0" });
        await toolsProgressEcho(v2Peer(client), runtime, MODERN);
        // input_required with a requestState sealed by the runtime (WebCrypto HMAC), answered and retried.
        expect(textOf(await v2Peer(client).callTool("ask"))).toBe(`hello Ada from ${runtime}`);
      } finally {
        await client.close();
      }
    },
    TEST_MS,
  );

  it(
    "official SDK v1 client, protocol 2025-11-25: initialize, tools/list, tools/call with progress",
    async () => {
      const client = new ClientV1({ name: "sdk-v1", version: "1.0.0" });
      try {
        await client.connect(new StreamableHttpV1(new URL(await url())), { timeout: REQUEST_MS });
        expect(client.getServerVersion()).toEqual({ name: "runtimes-fixture", version: "1.0.0" });
        await toolsProgressEcho(v1Peer(client), runtime, LEGACY);
      } finally {
        await client.close();
      }
    },
    TEST_MS,
  );

  it(
    "refuses a Host outside its allowlist (DNS-rebinding protection stays on)",
    async () => {
      const served = await url();
      expect(await statusWithHost(served, "attacker.example")).toBe(403);
      // The same request naming the server's own Host passes the check (400 with sessions: it has none).
      expect(await statusWithHost(served, new URL(served).host)).toBe(options.sessions ? 400 : 200);
    },
    TEST_MS,
  );
}

/**
 * The stdio legs: the official SDK v2 client spawns the server (`command()`) and speaks 2025-11-25, then
 * 2026-07-28 (pinned), over the process's stdin and stdout.
 */
export function stdioLegs(
  runtime: string,
  command: () => Promise<{ command: string; args: string[] }>,
): void {
  for (const modern of [false, true]) {
    const version = modern ? MODERN : LEGACY;
    it(
      `official SDK v2 client over stdio, protocol ${version}: tools/list, tools/call with progress, elicitation`,
      async () => {
        const client = v2Client(modern);
        try {
          await client.connect(new StdioClientTransport({ ...(await command()), stderr: "pipe" }), {
            timeout: REQUEST_MS,
          });
          expect(client.getProtocolEra()).toBe(modern ? "modern" : "legacy");
          expect(client.getNegotiatedProtocolVersion()).toBe(version);
          await toolsProgressEcho(v2Peer(client), runtime, version);
          expect(textOf(await v2Peer(client).callTool("ask"))).toBe(`hello Ada from ${runtime}`);
        } finally {
          await client.close();
        }
      },
      TEST_MS,
    );
  }
}
