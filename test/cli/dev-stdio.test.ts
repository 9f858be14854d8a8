/**
 * `mcp-codegen dev` on a scaffolded stdio server: dev prints the MCP Inspector command line for the
 * server's bundle; the official SDK v2 client runs that bundle and lists the contract's tools; after a
 * contract edit the bundle serves the new tool; after a type error it is left as it was (the Inspector
 * must never restart onto code that does not type-check).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO, runCli } from "./run.js";

const work = mkdtempSync(join(tmpdir(), "mcp-codegen-dev-stdio-"));
const dir = join(work, "project");
let dev: ChildProcess | undefined;
let output = "";

afterAll(() => {
  dev?.kill("SIGKILL");
  rmSync(work, { recursive: true, force: true });
});

async function waitFor(pattern: RegExp, from: number, ms = 30_000): Promise<RegExpExecArray> {
  const deadline = Date.now() + ms;
  for (;;) {
    const m = pattern.exec(output.slice(from));
    if (m) return m;
    if (Date.now() > deadline) throw new Error(`dev never printed ${pattern}; its output:\n${output}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The tools a fresh official client lists from the command the Inspector would run. */
async function toolsOf(command: string[]): Promise<string[]> {
  const client = new Client({ name: "dev-stdio-test", version: "1.0.0" });
  await client.connect(new StdioClientTransport({ command: command[0]!, args: command.slice(1), cwd: dir }));
  try {
    return (await client.listTools()).tools.map((t) => t.name).sort();
  } finally {
    await client.close();
  }
}

/** Replaces `from` (which must be there) in a file. */
function edit(path: string, from: string, to: string): void {
  const text = readFileSync(path, "utf8");
  if (!text.includes(from)) throw new Error(`${path} no longer holds ${JSON.stringify(from)}`);
  writeFileSync(path, text.replace(from, to));
}

beforeAll(() => {
  const r = runCli(["init", dir, "-q"]);
  expect(r.code, r.stderr).toBe(0);
  // As in dev.test.ts: the repository's node_modules, the runtime read from source.
  symlinkSync(join(REPO, "node_modules"), join(dir, "node_modules"));
  const tsconfig = JSON.parse(readFileSync(join(dir, "tsconfig.json"), "utf8"));
  tsconfig.compilerOptions.customConditions = ["mcp-codegen-source"];
  tsconfig.compilerOptions.lib = ["ES2023", "DOM"];
  writeFileSync(join(dir, "tsconfig.json"), JSON.stringify(tsconfig, null, 2));
  dev = spawn(
    process.execPath,
    ["--import", "tsx", "--conditions=mcp-codegen-source", join(REPO, "generator/cli/index.ts"), "dev"],
    { cwd: dir, stdio: ["ignore", "pipe", "pipe"] },
  );
  dev.stdout!.setEncoding("utf8").on("data", (s: string) => {
    output += s;
  });
  dev.stderr!.setEncoding("utf8").on("data", (s: string) => {
    output += s;
  });
}, 180_000);

describe("mcp-codegen dev over stdio", () => {
  it("prints the Inspector command; its bundle follows contract edits and skips code that does not type-check", async () => {
    const shown = await waitFor(/attach the MCP Inspector with: (.*)\n/, 0);
    const command = shown[1]!.split(" ");
    expect(command.slice(0, 3)).toEqual(["npx", "@modelcontextprotocol/inspector", "node"]);
    expect(command.at(-1)).toBe("dist/dev/server/main.js");
    await waitFor(/dev: bundle ready in \d+ ms/, 0, 60_000);
    // What the Inspector runs, without npx: node and its flags on the bundle.
    const server = command.slice(2);
    server[0] = process.execPath;
    expect(await toolsOf(server)).toEqual(["add", "greet"]);

    const contractPath = join(dir, "contract.yaml");
    const mark = output.length;
    edit(
      contractPath,
      "\nprompts:\n",
      "\n  ping2:\n    description: Answers pong\n    inputSchema: { type: object }\n\nprompts:\n",
    );
    await waitFor(/dev: bundle ready in \d+ ms/, mark);
    expect(await toolsOf(server)).toEqual(["add", "greet", "ping2"]);

    const bundle = join(dir, "dist/dev/server/main.js");
    const written = statSync(bundle).mtimeMs;
    const handlersPath = join(dir, "src/handlers.ts");
    const before = output.length;
    edit(handlersPath, "const sum = a + b;", "const sum: string = a + b;");
    await waitFor(/error: src\/handlers\.ts:\d+:\d+ .*\(TS2322\)\n/, before);
    await waitFor(/\d+ type errors?; the bundle is left as it was/, before);
    expect(statSync(bundle).mtimeMs).toBe(written);
    expect(await toolsOf(server)).toEqual(["add", "greet", "ping2"]);

    dev!.kill("SIGTERM");
    const [code] = await once(dev!, "exit");
    expect(code).toBe(0);
  }, 180_000);
});
