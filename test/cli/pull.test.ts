/**
 * `mcp-codegen pull` against real peers over real pipes and sockets on 127.0.0.1: the official
 * server-everything (stdio and Streamable HTTP), this project's everything-server, the official
 * server-memory, and a fixture server whose contract changes with PULL_VARIANT (`--check`). The generated
 * client is type-checked with tsc (a wrong argument type must be a compile error) and then called through
 * this project's runtime client.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { join } from "node:path";
import { connectHttp } from "@mcp-codegen/runtime/http-client";
import { StdioClientTransport } from "@mcp-codegen/runtime/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient } from "../../generated/2025-11-25/client.js";
import { REPO } from "./run.js";

const require = createRequire(import.meta.url);
const EVERYTHING = require.resolve("@modelcontextprotocol/server-everything/dist/index.js");
const MEMORY = require.resolve("@modelcontextprotocol/server-memory/dist/index.js");
const TSX = `${REPO}node_modules/.bin/tsx`;
const FIXTURE = [TSX, "--conditions=mcp-codegen-source", `${REPO}test/fixtures/pull/variant-server.ts`];
const TMP = join(REPO, "test/.tmp", `pull-${process.pid}`);
const TOKEN = "s3cret-token-value";

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The CLI from source as a real process, not blocking this one (HTTP peers keep running meanwhile). */
function pull(args: string[], env: NodeJS.ProcessEnv = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      TSX,
      ["--conditions=mcp-codegen-source", `${REPO}generator/cli/index.ts`, "pull", ...args],
      { cwd: REPO, env: { ...process.env, ...env }, encoding: "utf8", timeout: 60_000 },
      (error, stdout, stderr) =>
        resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as { port: number };
  await new Promise((r) => server.close(r));
  return port;
}

const children: ChildProcess[] = [];

/** Starts `command` and waits for `ready` on its stderr or stdout. */
function start(command: string, args: string[], ready: RegExp, env: NodeJS.ProcessEnv = {}): Promise<void> {
  const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  children.push(child);
  return new Promise((resolve, reject) => {
    let seen = "";
    const look = (chunk: Buffer) => {
      seen += chunk.toString();
      if (ready.test(seen)) resolve();
    };
    child.stdout!.on("data", look);
    child.stderr!.on("data", look);
    child.once("exit", (code) =>
      reject(new Error(`${command} exited (${code}) before it was ready: ${seen}`)),
    );
  });
}

const read = (path: string) => readFileSync(join(TMP, path), "utf8");

/** tsc over `files` (written into TMP) with the repository's settings; returns the error lines. */
function typecheck(files: Record<string, string>): Promise<string[]> {
  for (const [name, text] of Object.entries(files)) writeFileSync(join(TMP, name), text);
  writeFileSync(
    join(TMP, "tsconfig.json"),
    JSON.stringify({
      extends: "../../../tsconfig.json",
      compilerOptions: { noEmit: true },
      include: Object.keys(files).map((f) => `./${f}`),
      // The base config excludes test/.tmp; without this override tsc would check nothing here.
      exclude: [],
    }),
  );
  return new Promise((resolve) => {
    execFile(
      `${REPO}node_modules/.bin/tsc`,
      ["-p", join(TMP, "tsconfig.json")],
      { encoding: "utf8" },
      (_e, out) => resolve(out.split("\n").filter((l) => l.includes("error TS"))),
    );
  });
}

beforeAll(() => mkdirSync(TMP, { recursive: true }));
afterAll(() => {
  for (const child of children) child.kill();
  rmSync(TMP, { recursive: true, force: true });
});

const newClient = () => createClient({ info: { name: "pull-test", version: "1.0.0" } });

describe("server-everything over stdio", () => {
  beforeAll(async () => {
    const run = await pull(["--out", TMP, "--", process.execPath, EVERYTHING, "stdio"]);
    expect(run.stderr).toContain("mcp-servers/everything");
    expect(run.code).toBe(0);
  });

  it("writes a lock: canonical definitions with their sha256, and an overall sha256, the same each time", async () => {
    const text = read("mcp-servers-everything.lock.json");
    const lock = JSON.parse(text);
    expect(lock.server.name).toBe("mcp-servers/everything");
    expect(lock.protocolVersion).toBe("2025-11-25");
    expect(lock.sha256).toMatch(/^[0-9a-f]{64}$/);
    const names = lock.tools.map((t: { name: string }) => t.name);
    expect(names).toEqual([...names].sort());
    expect(names).toEqual(expect.arrayContaining(["echo", "get-sum", "get-structured-content"]));
    expect(lock.prompts.length).toBeGreaterThan(0);
    expect(lock.resourceTemplates.length).toBeGreaterThan(0);
    const again = await pull(["--out", TMP, "--name", "again", "--", process.execPath, EVERYTHING, "stdio"]);
    expect(again.code).toBe(0);
    expect(read("again.lock.json")).toBe(text);
    // The same code; only the header names the other lock file.
    const body = (path: string) => read(path).split("\n").slice(1).join("\n");
    expect(body("again/types.ts")).toBe(body("mcp-servers-everything/types.ts"));
    expect(body("again/client.ts")).toBe(body("mcp-servers-everything/client.ts"));
  });

  it("generates a client that type-checks, and a wrong argument type does not", async () => {
    const errors = await typecheck({
      "everything-usage.ts": `
import { createClient } from "../../../generated/2025-11-25/client.js";
import type { CallToolResult } from "../../../generated/2025-11-25/types.js";
import { bindClient } from "./mcp-servers-everything/client.js";
import type { GetStructuredContentOutput } from "./mcp-servers-everything/types.js";

export async function use(): Promise<void> {
  const everything = bindClient(createClient({ info: { name: "t", version: "1" } }));
  const sum: CallToolResult = await everything.tools["get-sum"]({ a: 1, b: 2 });
  const weather: GetStructuredContentOutput = await everything.tools["get-structured-content"]({ location: "Chicago" });
  const temperature: number = weather.temperature;
  await everything.prompts["args-prompt"]({ city: "Paris" });
  await everything.tools.echo({ message: "hi" }, { timeoutMs: 1000 });
  // @ts-expect-error a is a number
  await everything.tools["get-sum"]({ a: "1", b: 2 });
  // @ts-expect-error location is one of three cities
  await everything.tools["get-structured-content"]({ location: "Paris" });
  // @ts-expect-error message is required
  await everything.tools.echo({});
  void sum; void temperature;
}
`,
    });
    expect(errors).toEqual([]);
  });

  it("calls tools through the generated client over the runtime's stdio client", async () => {
    const { bindClient, InvalidArgumentsError } = await import(join(TMP, "mcp-servers-everything/client.ts"));
    const client = newClient();
    await client.connect(
      new StdioClientTransport({ command: process.execPath, args: [EVERYTHING, "stdio"], stderr: "ignore" }),
    );
    try {
      const everything = bindClient(client);
      const echoed = await everything.tools.echo({ message: "hello" });
      expect(echoed.content[0]).toMatchObject({ type: "text", text: expect.stringContaining("hello") });
      const sum = await everything.tools["get-sum"]({ a: 2, b: 3 });
      expect(JSON.stringify(sum.content)).toContain("5");
      // outputSchema: resolves to the structuredContent, checked by the generated validator.
      const weather = await everything.tools["get-structured-content"]({ location: "Chicago" });
      expect(weather).toEqual({
        temperature: expect.any(Number),
        conditions: expect.any(String),
        humidity: expect.any(Number),
      });
      // A wrong call fails here, naming the field, before anything is sent.
      const wrong = await everything.tools["get-sum"]({ a: "2", b: 3 }).catch((e: unknown) => e);
      expect(wrong).toBeInstanceOf(InvalidArgumentsError);
      expect(wrong).toMatchObject({ field: "a", target: "tools.get-sum" });
      const prompt = await everything.prompts["args-prompt"]({ city: "Paris" });
      expect(JSON.stringify(prompt.messages)).toContain("Paris");
      const text = await everything.resourceTemplates["Dynamic Text Resource"]({ resourceId: "7" });
      expect(text.contents[0].uri).toBe("demo://resource/dynamic/text/7");
    } finally {
      await client.close();
    }
  });
});

describe("server-everything over Streamable HTTP", () => {
  let url = "";
  beforeAll(async () => {
    const port = await freePort();
    url = `http://127.0.0.1:${port}/mcp`;
    await start(process.execPath, [EVERYTHING, "streamableHttp"], /listening/i, { PORT: String(port) });
  });

  it("pulls over HTTP with a bearer token it never prints or writes, the same contract as over stdio", async () => {
    const run = await pull([
      "--out",
      TMP,
      "--name",
      "everything-http",
      "--bearer",
      TOKEN,
      "-H",
      "X-Trace: pull-test",
      url,
    ]);
    expect(run.stderr).toContain("streamable-http");
    expect(run.code).toBe(0);
    const lock = read("everything-http.lock.json");
    for (const text of [run.stdout, run.stderr, lock, read("everything-http/client.ts")])
      expect(text).not.toContain(TOKEN);
    const stdio = JSON.parse(read("mcp-servers-everything.lock.json"));
    expect(JSON.parse(lock).tools).toEqual(stdio.tools);
    const check = await pull(["--check", "--out", TMP, "--name", "everything-http", url]);
    expect(check.stdout).toBe("no changes: the server matches the lock\n");
    expect(check.code).toBe(0);
  });

  it("calls a tool with an outputSchema through the generated client over the runtime's HTTP client", async () => {
    const { bindClient } = await import(join(TMP, "everything-http/client.ts"));
    const client = newClient();
    await client.connect(await connectHttp(url));
    try {
      const everything = bindClient(client);
      const weather = await everything.tools["get-structured-content"]({ location: "New York" });
      expect(typeof weather.temperature).toBe("number");
      const sum = await everything.tools["get-sum"]({ a: 20, b: 22 });
      expect(JSON.stringify(sum.content)).toContain("42");
    } finally {
      await client.close();
    }
  });
});

describe("this project's everything-server", () => {
  it("pulls it over stdio; its 2020-12 tool (anyOf of `required`, if/then/else, $defs) is typed and checked", async () => {
    const server = [
      TSX,
      "--conditions=mcp-codegen-source",
      `${REPO}examples/everything-server/main.ts`,
      "--stdio",
    ];
    const run = await pull(["--out", TMP, "--", ...server]);
    expect(run.code).toBe(0);
    // No tool is typed loosely: `required` under an object's anyOf and x-mcp-header are both understood.
    expect(run.stderr).not.toMatch(/warning: tool/);
    const lock = JSON.parse(read("mcp-codegen-everything-server.lock.json"));
    // It serves the stateless era too: pull's client found it with server/discover, no handshake.
    expect(lock.protocolVersion).toBe("2026-07-28");
    expect(run.stderr).toMatch(/\(protocol 2026-07-28/);
    expect(lock.tools.map((t: { name: string }) => t.name)).toContain("test_simple_text");
    const errors = await typecheck({
      "own-usage.ts": `
import { createClient } from "../../../generated/2025-11-25/client.js";
import { bindClient } from "./mcp-codegen-everything-server/client.js";
export async function use(): Promise<void> {
  const own = bindClient(createClient({ info: { name: "t", version: "1" } }));
  await own.tools.test_simple_text();
  await own.tools.json_schema_2020_12_tool({ name: "Ada", contactMethod: "email", email: "ada@example.com" });
  // @ts-expect-error additionalProperties: false
  await own.tools.json_schema_2020_12_tool({ email: "ada@example.com", anything: [1, 2] });
  await own.tools.test_custom_headers({ region: "eu" });
  // @ts-expect-error region is a string
  await own.tools.test_custom_headers({ region: 1 });
}
`,
    });
    expect(errors).toEqual([]);
    const { bindClient } = await import(join(TMP, "mcp-codegen-everything-server/client.ts"));
    const client = newClient();
    await client.connect(
      new StdioClientTransport({ command: server[0]!, args: server.slice(1), stderr: "ignore" }),
    );
    try {
      const tools = bindClient(client).tools;
      const result = await tools.test_simple_text();
      expect(result.content[0]).toMatchObject({ type: "text" });
      const sent = await tools.json_schema_2020_12_tool({ contactMethod: "phone", phone: "123" });
      expect(sent.content[0]).toMatchObject({ type: "text", text: expect.stringContaining('"phone":"123"') });
      // The `then` branch: a phone contact needs a phone; refused before anything is sent.
      await expect(
        tools.json_schema_2020_12_tool({ contactMethod: "phone", email: "a@b.c" }),
      ).rejects.toThrow(/phone/);
    } finally {
      await client.close();
    }
  });
});

describe("@modelcontextprotocol/server-memory", () => {
  it("pulls it and calls its tools, whose structured outputs are checked", async () => {
    const env = { MEMORY_FILE_PATH: join(TMP, "memory.jsonl") };
    const run = await pull(["--out", TMP, "--name", "memory", "--", process.execPath, MEMORY], env);
    expect(run.code).toBe(0);
    const lock = JSON.parse(read("memory.lock.json"));
    expect(lock.tools.map((t: { name: string }) => t.name)).toEqual(
      expect.arrayContaining(["create_entities", "read_graph", "search_nodes"]),
    );
    const errors = await typecheck({
      "memory-usage.ts": `
import { createClient } from "../../../generated/2025-11-25/client.js";
import { bindClient } from "./memory/client.js";
export async function use(): Promise<void> {
  const memory = bindClient(createClient({ info: { name: "t", version: "1" } }));
  const graph = await memory.tools.read_graph({});
  const names: string[] = graph.entities.map((e) => e.name);
  // @ts-expect-error entities is an array of entities
  await memory.tools.create_entities({ entities: "ada" });
  void names;
}
`,
    });
    expect(errors).toEqual([]);
    const { bindClient } = await import(join(TMP, "memory/client.ts"));
    const client = newClient();
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [MEMORY],
        env: { ...process.env, ...env },
        stderr: "ignore",
      }),
    );
    try {
      const memory = bindClient(client);
      await memory.tools.create_entities({
        entities: [{ name: "Ada", entityType: "person", observations: ["wrote the first program"] }],
      });
      const graph = await memory.tools.read_graph({});
      expect(graph.entities).toEqual([expect.objectContaining({ name: "Ada", entityType: "person" })]);
    } finally {
      await client.close();
    }
  });
});

describe("pull --check", () => {
  beforeAll(async () => {
    const run = await pull(["--out", TMP, "--", ...FIXTURE]);
    expect(run.code).toBe(0);
  });
  const check = (variant: string, ...extra: string[]) =>
    pull(["--check", "--out", TMP, ...extra, "--", ...FIXTURE], { PULL_VARIANT: variant });

  it("lists every page, in a stable order", () => {
    const lock = JSON.parse(read("pull-fixture-server.lock.json"));
    expect(lock.tools.map((t: { name: string }) => t.name)).toEqual(["add", "convert", "legacy"]);
  });

  it("exits 0 on the unchanged server, writing nothing", async () => {
    const before = read("pull-fixture-server.lock.json");
    const run = await check("base");
    expect(run.stdout).toBe("no changes: the server matches the lock\n");
    expect(run.code).toBe(0);
    expect(read("pull-fixture-server.lock.json")).toBe(before);
  });

  const breaking: [string, string][] = [
    ["removed-tool", "tool legacy\n  BREAKING   tool removed\n"],
    ["new-required-argument", 'tool add\n  BREAKING   new required argument "c"\n'],
    ["narrowed-enum", 'tool convert\n  BREAKING   argument "unit": enum value "k" removed\n'],
    ["changed-output", 'tool add\n  BREAKING   output property "sum": type number → string\n'],
  ];
  for (const [variant, want] of breaking) {
    it(`exits 1 on a breaking change: ${variant}`, async () => {
      const run = await check(variant);
      expect(run.stdout).toBe(`${want}1 breaking, 0 compatible\n`);
      expect(run.code).toBe(1);
    });
  }

  it("exits 0 on compatible changes, listing them", async () => {
    const run = await check("compatible");
    expect(run.stdout).toBe(
      [
        "tool add",
        '  compatible new optional argument "precision"',
        "tool convert",
        "  compatible description changed",
        "tool multiply",
        "  compatible new tool",
        "0 breaking, 3 compatible",
        "",
      ].join("\n"),
    );
    expect(run.code).toBe(0);
  });

  it("--format json", async () => {
    const run = await check("removed-tool", "--format", "json");
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout)).toMatchObject({
      matches: false,
      breaking: 1,
      compatible: 0,
      changes: [{ level: "breaking", kind: "tools", name: "legacy", change: "tool removed" }],
    });
  });

  it("the client from the lock: isError and a changed output reject with ToolCallError", async () => {
    const { bindClient, ToolCallError } = await import(join(TMP, "pull-fixture-server/client.ts"));
    const connect = async (variant: string) => {
      const client = newClient();
      await client.connect(
        new StdioClientTransport({
          command: FIXTURE[0]!,
          args: FIXTURE.slice(1),
          env: { ...process.env, PULL_VARIANT: variant },
          stderr: "ignore",
        }),
      );
      return client;
    };
    const base = await connect("base");
    try {
      const fixture = bindClient(base);
      expect(await fixture.tools.add({ a: 1, b: 2 })).toEqual({ sum: 3 });
      const failed = await fixture.tools.legacy().catch((e: unknown) => e);
      expect(failed).toBeInstanceOf(ToolCallError);
      expect(failed).toMatchObject({
        kind: "isError",
        tool: "legacy",
        message: 'Tool "legacy" failed: legacy',
        content: [{ type: "text", text: "legacy" }],
      });
    } finally {
      await base.close();
    }
    const changed = await connect("changed-output");
    try {
      const mismatch = await bindClient(changed)
        .tools.add({ a: 1, b: 2 })
        .catch((e: unknown) => e);
      expect(mismatch).toBeInstanceOf(ToolCallError);
      expect(mismatch).toMatchObject({ kind: "output", tool: "add" });
      expect((mismatch as Error).message).toBe(
        'Tool "add" returned structuredContent that does not match its outputSchema: sum: Expected number',
      );
    } finally {
      await changed.close();
    }
  });

  it("exits 2 when the lock is missing", async () => {
    const run = await pull(["--check", "--out", TMP, "--name", "nothing-here", "--", ...FIXTURE]);
    expect(run.stderr).toMatch(/cannot read the lock .*nothing-here\.lock\.json: ENOENT/);
    expect(run.code).toBe(2);
  });
});

describe("pull --no-resources: a server whose fixed resources are its data", () => {
  const lockOf = (dir: string) =>
    JSON.parse(readFileSync(join(dir, "pull-fixture-server.lock.json"), "utf8"));

  it("leaves them out of the lock, and a --check of that lock leaves them out too", async () => {
    const dir = join(TMP, "no-resources");
    const made = await pull(["--no-resources", "--out", dir, "--", ...FIXTURE]);
    expect(made.code).toBe(0);
    expect(made.stderr).toMatch(/3 tools, 1 prompt, 0 resources, 0 resource templates /);
    const lock = lockOf(dir);
    expect(lock.without).toEqual(["resources"]);
    expect(lock.resources).toEqual([]);
    expect(lock.tools.map((t: { name: string }) => t.name)).toEqual(["add", "convert", "legacy"]);
    // The notes changed; the check, without the flag, goes by the lock.
    const changed = await pull(["--check", "--out", dir, "--", ...FIXTURE], { PULL_RESOURCES: "readme" });
    expect(changed.stdout).not.toMatch(/note:\/\//);
    expect(changed.code).toBe(0);
  });

  it("with a lock that has them, a removed one is breaking, unless --check --no-resources", async () => {
    const dir = join(TMP, "with-resources");
    expect((await pull(["--out", dir, "--", ...FIXTURE])).code).toBe(0);
    // The fixture has no resources/templates/list ("Method not found"): no templates, not an error.
    expect(lockOf(dir).resourceTemplates).toEqual([]);
    expect(lockOf(dir).resources.map((r: { definition: { uri: string } }) => r.definition.uri)).toEqual([
      "note://changelog",
      "note://readme",
    ]);
    const removed = await pull(["--check", "--out", dir, "--", ...FIXTURE], { PULL_RESOURCES: "readme" });
    expect(removed.stdout).toMatch(/note:\/\/changelog/);
    expect(removed.code).toBe(1);
    const skipped = await pull(["--check", "--no-resources", "--out", dir, "--", ...FIXTURE], {
      PULL_RESOURCES: "readme",
    });
    expect(skipped.stdout).not.toMatch(/note:\/\//);
    expect(skipped.code).toBe(0);
  });
});

describe("pull: errors exit 2 with a clear message", () => {
  it("an unreachable server", async () => {
    const run = await pull(["--out", TMP, `http://127.0.0.1:${await freePort()}/mcp`]);
    expect(run.stderr).toMatch(/^error: cannot pull from http:\/\/127\.0\.0\.1:\d+\/mcp while connecting: /m);
    expect(run.code).toBe(2);
  });

  it("a command that does not exist", async () => {
    const run = await pull(["--out", TMP, "--", "no-such-mcp-server-command"]);
    expect(run.stderr).toMatch(/^error: .*no-such-mcp-server-command/m);
    expect(run.code).toBe(2);
  });

  it("a server that crashes while listing", async () => {
    const crashing = `
      const rl = require("node:readline").createInterface({ input: process.stdin });
      rl.on("line", (line) => {
        const m = JSON.parse(line);
        if (m.method === "initialize")
          process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id: m.id, result: { protocolVersion: "2025-11-25", capabilities: { tools: {} }, serverInfo: { name: "crash", version: "0" } } }) + "\\n");
        if (m.method === "tools/list") { console.error("boom: out of cheese"); process.exit(3); }
      });`;
    const run = await pull(["--out", TMP, "--", process.execPath, "-e", crashing]);
    expect(run.stderr).toMatch(
      /^error: cannot pull from the server \(.*\) while tools\/list \(the server exited\): /m,
    );
    expect(run.stderr).toContain("boom: out of cheese");
    expect(run.code).toBe(2);
  });

  it("usage: no target, a bad header", async () => {
    expect((await pull([])).code).toBe(2);
    const bad = await pull(["-H", "no colon here", "http://127.0.0.1:1/mcp"]);
    expect(bad.stderr).toContain('--header needs "Name: value"');
    expect(bad.code).toBe(2);
  });
});
