/**
 * `mcp-codegen dev` on a scaffolded HTTP server, all real processes on 127.0.0.1: the official SDK v2
 * client connects through dev's endpoint; a tool added to the contract (and its handler) is listed by the
 * restarted server and called once the client has opened a new session (its old one ends with a 404,
 * never a refused connection); a type error planted in a handler is printed as file:line:col and the last
 * good server keeps answering. A skill's file edited (no contract file touched) is served once dev has
 * regenerated, as is a new file in the skill. The times are printed for the record; the bound is
 * bench/dev.ts's. Run with --allow-inspector, the MCP Inspector's web UI origins get CORS answers
 * through dev's endpoint.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client, SdkHttpError, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO, runCli } from "./run.js";

const work = mkdtempSync(join(tmpdir(), "mcp-codegen-dev-"));
const dir = join(work, "project");
let dev: ChildProcess | undefined;
let output = "";

/** Processes whose command line names the project folder (dev's server children run its bundles). */
function projectProcesses(): number[] {
  const pids: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/cmdline`, "utf8").includes(dir)) pids.push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

afterAll(() => {
  dev?.kill("SIGKILL");
  for (const pid of projectProcesses()) process.kill(pid, "SIGKILL");
  rmSync(work, { recursive: true, force: true });
});

/** Resolves once dev's output (from `from` on) matches, with the match; rejects after `ms`. */
async function waitFor(pattern: RegExp, from: number, ms = 30_000): Promise<RegExpExecArray> {
  const deadline = Date.now() + ms;
  for (;;) {
    const m = pattern.exec(output.slice(from));
    if (m) return m;
    if (Date.now() > deadline) throw new Error(`dev never printed ${pattern}; its output:\n${output}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Replaces `from` (which must be there) in a file; returns the new text. */
function edit(path: string, from: string, to: string): string {
  const text = readFileSync(path, "utf8");
  if (!text.includes(from)) throw new Error(`${path} no longer holds ${JSON.stringify(from)}`);
  const next = text.replace(from, to);
  writeFileSync(path, next);
  return next;
}

beforeAll(async () => {
  const r = runCli(["init", dir, "--transport", "http", "-q"]);
  expect(r.code, r.stderr).toBe(0);
  expect(JSON.parse(readFileSync(join(dir, "package.json"), "utf8")).scripts.dev).toBe("mcp-codegen dev");
  // The repository's node_modules stand in for an install; the runtime is read from its source (as the
  // other project tests do), which needs the source condition and DOM's crypto types.
  symlinkSync(join(REPO, "node_modules"), join(dir, "node_modules"));
  const tsconfig = JSON.parse(readFileSync(join(dir, "tsconfig.json"), "utf8"));
  tsconfig.compilerOptions.customConditions = ["mcp-codegen-source"];
  tsconfig.compilerOptions.lib = ["ES2023", "DOM"];
  writeFileSync(join(dir, "tsconfig.json"), JSON.stringify(tsconfig, null, 2));
  // node itself (tsx as a loader), so SIGTERM reaches dev and not a wrapper.
  dev = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      "--conditions=mcp-codegen-source",
      join(REPO, "generator/cli/index.ts"),
      "dev",
      "--port",
      "0",
      "--allow-inspector",
    ],
    { cwd: dir, stdio: ["ignore", "pipe", "pipe"] },
  );
  dev.stdout!.setEncoding("utf8").on("data", (s: string) => {
    output += s;
  });
  dev.stderr!.setEncoding("utf8").on("data", (s: string) => {
    output += s;
  });
}, 180_000);

const SHOUT_CONTRACT = `  shout:
    description: Upper-cases a text
    inputSchema:
      type: object
      properties:
        text: { type: string, minLength: 1 }
      required: [text]

prompts:
`;

describe("mcp-codegen dev over HTTP", () => {
  it("--allow-inspector: the Inspector's origins get CORS answers through dev's endpoint, others none", async () => {
    const url = new URL(
      (await waitFor(/MCP over Streamable HTTP at (http:\/\/127\.0\.0\.1:\d+\/mcp) \(kept/, 0))[1]!,
    );
    await waitFor(/dev: started the server/, 0, 60_000);
    expect(output).toContain(
      "dev: --allow-inspector: pages on http://localhost:6274 and http://127.0.0.1:6274 may call the server",
    );
    const preflight = (origin: string) =>
      fetch(url, {
        method: "OPTIONS",
        headers: {
          origin,
          "access-control-request-method": "POST",
          "access-control-request-headers": "content-type, mcp-protocol-version",
        },
      });
    for (const origin of ["http://localhost:6274", "http://127.0.0.1:6274"]) {
      const asked = await preflight(origin);
      expect(asked.status).toBe(204);
      expect(asked.headers.get("access-control-allow-origin")).toBe(origin);
      // An answer (here a 400: no session) is readable by the page, its MCP headers exposed.
      const answer = await fetch(url, {
        method: "POST",
        headers: {
          origin,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      });
      expect(answer.status).toBe(400);
      expect(answer.headers.get("access-control-allow-origin")).toBe(origin);
      expect(answer.headers.get("access-control-expose-headers")).toContain("Mcp-Session-Id");
      await answer.body?.cancel();
    }
    const other = await preflight("http://localhost:6275");
    expect(other.status).toBe(403);
    expect(other.headers.get("access-control-allow-origin")).toBeNull();
  }, 120_000);

  it("serves an edit of a skill's file as it serves a contract edit (the contract read it)", async () => {
    const url = new URL(
      (await waitFor(/MCP over Streamable HTTP at (http:\/\/127\.0\.0\.1:\d+\/mcp) \(kept/, 0))[1]!,
    );
    await waitFor(/dev: started the server/, 0, 60_000);
    const skill = join(dir, "skills/release-notes");
    mkdirSync(join(skill, "references"), { recursive: true });
    writeFileSync(join(skill, "references/style.md"), "Three headings.\n");
    writeFileSync(
      join(skill, "SKILL.md"),
      "---\nname: release-notes\ndescription: Writes release notes\n---\n\nNewest first.\n",
    );
    writeFileSync(
      join(dir, "contract.yaml"),
      `${readFileSync(join(dir, "contract.yaml"), "utf8")}\nskills: ./skills\n`,
    );
    /** The file as a new session reads it; undefined until the server serving it answers. */
    const served = async (uri: string) => {
      const probe = new Client({ name: "dev-skills-probe", version: "1.0.0" });
      try {
        await probe.connect(new StreamableHTTPClientTransport(url));
        const [content] = (await probe.readResource({ uri })).contents;
        return content && "text" in content ? content.text : undefined;
      } catch (e) {
        // Not served yet (an unknown resource), or a session the next server replaced (404).
        if (e instanceof SdkHttpError && e.status === 404) return undefined;
        if (e instanceof Error && /not found|unknown/i.test(e.message)) return undefined;
        throw e;
      } finally {
        await probe.close();
      }
    };
    const until = async (uri: string, text: string) => {
      const saved = Date.now();
      for (;;) {
        if ((await served(uri)) === text) return;
        if (Date.now() - saved > 30_000)
          throw new Error(`${uri} never served ${text}; dev's output:\n${output}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    await until("skill://release-notes/references/style.md", "Three headings.\n");
    // Edits of the skill's files alone (no contract file touched): served once dev regenerated.
    writeFileSync(join(skill, "references/style.md"), "Added, Changed, Fixed.\n");
    await until("skill://release-notes/references/style.md", "Added, Changed, Fixed.\n");
    writeFileSync(join(skill, "references/new.md"), "A new file.\n");
    await until("skill://release-notes/references/new.md", "A new file.\n");
  }, 120_000);

  it("serves a contract edit through the same endpoint; a type error keeps the last good server", async () => {
    const url = new URL(
      (await waitFor(/MCP over Streamable HTTP at (http:\/\/127\.0\.0\.1:\d+\/mcp) \(kept/, 0))[1]!,
    );
    await waitFor(/dev: started the server/, 0, 60_000);

    const client = new Client({ name: "dev-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(url));
    const names = async () => (await client.listTools()).tools.map((t) => t.name).sort();
    expect(await names()).toEqual(["add", "greet"]);

    // The handler first, then the contract, as an editor saving two files would.
    const handlersPath = join(dir, "src/handlers.ts");
    edit(
      handlersPath,
      "  },\n\n  prompts: {",
      "    shout: ({ text }) => text.toUpperCase(),\n  },\n\n  prompts: {",
    );
    const saved = Date.now();
    edit(join(dir, "contract.yaml"), "\nprompts:\n", `\n${SHOUT_CONTRACT}`);
    // A new session (as the Inspector's reconnect would open) sees the tool once the new server serves.
    const probeTools = async () => {
      const probe = new Client({ name: "dev-probe", version: "1.0.0" });
      try {
        await probe.connect(new StreamableHTTPClientTransport(url));
        return (await probe.listTools()).tools.map((t) => t.name);
      } catch (e) {
        // Its session began on the old server, which the new one just replaced: a 404, try again.
        if (e instanceof SdkHttpError && e.status === 404) return [];
        throw e;
      } finally {
        await probe.close();
      }
    };
    for (;;) {
      if ((await probeTools()).includes("shout")) break;
      if (Date.now() - saved > 30_000) throw new Error(`shout never listed; dev's output:\n${output}`);
      await new Promise((r) => setTimeout(r, 20));
    }
    console.log(`dev: contract edit listed by the restarted server ${Date.now() - saved} ms after the save`);

    // The old session is gone with the old server: the client is told so with a 404 (not ECONNREFUSED),
    // and opens a new session as the specification says.
    const stale = await client.listTools().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(stale).toBeInstanceOf(SdkHttpError);
    expect((stale as SdkHttpError).status).toBe(404);
    await client.close();
    await client.connect(new StreamableHTTPClientTransport(url));
    expect(await names()).toEqual(["add", "greet", "shout"]);
    const shouted = await client.callTool({ name: "shout", arguments: { text: "hi" } });
    expect(shouted.content).toEqual([{ type: "text", text: "HI" }]);

    // A handler that does not type-check: reported in place, never served.
    const before = output.length;
    const broken = edit(
      handlersPath,
      "shout: ({ text }) => text.toUpperCase(),",
      "shout: ({ text }) => text.toLowerCase() * 2,",
    );
    const shown = await waitFor(/error: (src\/handlers\.ts:\d+:\d+ .*)\n/, before, 30_000);
    const line = broken.split("\n").findIndex((l) => l.includes("toLowerCase() * 2")) + 1;
    expect(shown[1]).toMatch(new RegExp(`^src/handlers\\.ts:${line}:\\d+ .*\\(TS\\d+\\)$`));
    await waitFor(/\d+ type errors?; still serving the last good server/, before, 30_000);
    expect(output.slice(before)).not.toContain("restarted the server");
    // The same session still answers, with the code that type-checked.
    const again = await client.callTool({ name: "shout", arguments: { text: "still" } });
    expect(again.content).toEqual([{ type: "text", text: "STILL" }]);
    await client.close();

    // dev stops its server with it.
    const children = projectProcesses();
    expect(children.length).toBeGreaterThan(0);
    dev!.kill("SIGTERM");
    const [code] = await once(dev!, "exit");
    expect(code).toBe(0);
    await new Promise((r) => setTimeout(r, 200));
    expect(projectProcesses()).toEqual([]);
    await expect(fetch(url, { method: "POST" })).rejects.toThrow();
  }, 180_000);
});

describe("mcp-codegen dev refuses what it cannot run", () => {
  it("outside a project, in a client project, with a bad --port or a taken one: one line, exit 2", async () => {
    const none = runCli(["dev"], { cwd: work });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("error: no mcp-codegen.json here: run `mcp-codegen dev` in a project");

    const client = join(work, "client");
    expect(runCli(["init", client, "--client", "-q"]).code).toBe(0);
    const wrongKind = runCli(["dev"], { cwd: client });
    expect(wrongKind.code).toBe(2);
    expect(wrongKind.stderr).toContain("error: `dev` runs a server project; this one is a client");

    const badPort = runCli(["dev", "--port", "http"], { cwd: dir });
    expect(badPort.code).toBe(2);
    expect(badPort.stderr).toContain('error: --port must be a port number (got "http")');

    const taken = createServer().listen(0, "127.0.0.1");
    await once(taken, "listening");
    const port = (taken.address() as { port: number }).port;
    const busy = runCli(["dev", "--port", String(port)], { cwd: dir });
    taken.close();
    expect(busy.code).toBe(2);
    expect(busy.stderr).toContain(`error: port ${port} on 127.0.0.1 is taken; pass --port <n> (or set PORT)`);
    expect(busy.stderr).not.toContain("internal error");
  }, 120_000);
});
