/**
 * Graceful shutdown of real server processes: SIGTERM (and stdin EOF) with calls in flight loses no
 * answer over stdio or HTTP; past the drain deadline calls are answered with an error; a second signal
 * exits at once. The fixture is wired as a scaffold's main.ts is.
 */

import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { Inbox, splitLines } from "../helpers.js";

const REPO = fileURLToPath(new URL("../../../", import.meta.url));
const FIXTURE = `${REPO}test/fixtures/shutdown/server.ts`;
const children: ChildProcessWithoutNullStreams[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
});

function start(...flags: string[]) {
  // node itself (tsx as a loader), so that signals reach the server process and not a wrapper.
  const child = spawn(
    process.execPath,
    ["--import", "tsx", "--conditions=mcp-codegen-source", FIXTURE, ...flags],
    {
      cwd: REPO,
      stdio: ["pipe", "pipe", "pipe"],
    },
  );
  children.push(child);
  const stderr = new Inbox<string>();
  const stdout = new Inbox<Record<string, unknown>>();
  splitLines(child.stderr, stderr.push);
  splitLines(child.stdout, (l) => stdout.push(JSON.parse(l)));
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  return { child, stderr, stdout, exited };
}

const started = (stderr: Inbox<string>, n: number) =>
  stderr.waitFor(() => stderr.items.filter((l) => l === "started").length >= n, `${n} calls started`);

const call = (id: number, ms: number) =>
  `${JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "wait", arguments: { ms } } })}\n`;
const INIT =
  `${JSON.stringify({
    jsonrpc: "2.0",
    id: "init",
    method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } },
  })}\n` + `${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`;

describe("stdio", () => {
  it("SIGTERM with 64 calls in flight: 64 answers, then exit 0", async () => {
    const s = start();
    await s.stderr.waitFor((l) => l === "ready");
    s.child.stdin.write(INIT + Array.from({ length: 64 }, (_, i) => call(i, 300)).join(""));
    await started(s.stderr, 64);
    s.child.kill("SIGTERM");
    expect(await s.exited).toEqual({ code: 0, signal: null });
    const answers = s.stdout.items.filter((m) => typeof m.id === "number");
    expect(answers.map((m) => m.id).sort((a, b) => Number(a) - Number(b))).toEqual([...Array(64).keys()]);
    for (const m of answers) expect(m.result).toEqual({ content: [{ type: "text", text: "waited 300" }] });
  });

  it("stdin EOF with 64 calls in flight: 64 answers, then exit 0", async () => {
    const s = start();
    await s.stderr.waitFor((l) => l === "ready");
    s.child.stdin.end(INIT + Array.from({ length: 64 }, (_, i) => call(i, 200)).join(""));
    expect(await s.exited).toEqual({ code: 0, signal: null });
    expect(s.stdout.items.filter((m) => typeof m.id === "number" && "result" in m)).toHaveLength(64);
  });

  it("past the drain deadline the call is aborted and answered -32000; exit 0", async () => {
    const s = start("--drain-ms", "200");
    await s.stderr.waitFor((l) => l === "ready");
    s.child.stdin.write(INIT + call(1, 30_000));
    await started(s.stderr, 1);
    const t0 = Date.now();
    s.child.kill("SIGTERM");
    expect(await s.exited).toEqual({ code: 0, signal: null });
    expect(Date.now() - t0).toBeLessThan(3000);
    expect(s.stderr.items).toContain("aborted: server shutting down");
    expect(s.stdout.items.find((m) => m.id === 1)).toEqual({
      jsonrpc: "2.0",
      id: 1,
      error: {
        code: -32000,
        message: "Server shutting down: the request did not finish in time and was aborted",
      },
    });
  });

  it("a second signal exits at once (143), without waiting for the drain", async () => {
    const s = start();
    await s.stderr.waitFor((l) => l === "ready");
    s.child.stdin.write(INIT + call(1, 30_000));
    await started(s.stderr, 1);
    s.child.kill("SIGTERM");
    await s.stderr.waitFor((l) => l === "closing");
    const t0 = Date.now();
    s.child.kill("SIGTERM");
    expect(await s.exited).toEqual({ code: 143, signal: null });
    expect(Date.now() - t0).toBeLessThan(2000);
  });
});

describe("Streamable HTTP", () => {
  async function post(url: string, body: string) {
    const response = await fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2025-11-25",
      },
      body,
    });
    return {
      status: response.status,
      retryAfter: response.headers.get("retry-after"),
      text: await response.text(),
    };
  }
  const dataOf = (text: string) =>
    text
      .split("\n")
      .filter((l) => l.startsWith("data: ") && l.length > 6)
      .map((l) => JSON.parse(l.slice(6)));

  it("SIGTERM with 64 calls in flight: 64 answers, new requests get 503 + Retry-After, then exit 0", async () => {
    const s = start("--http", "--stateless");
    const ready = await s.stderr.waitFor((l) => l.startsWith("ready "));
    const url = ready.slice("ready ".length);
    const calls = Array.from({ length: 64 }, (_, i) => post(url, call(i, 500)));
    await started(s.stderr, 64);
    s.child.kill("SIGTERM");
    await s.stderr.waitFor((l) => l === "closing");
    const late = await post(url, call(99, 0));
    expect(late.status).toBe(503);
    expect(late.retryAfter).toBe("5");
    expect(JSON.parse(late.text).error.message).toBe("Service Unavailable: shutting down");
    const answers = await Promise.all(calls);
    for (const [i, a] of answers.entries()) {
      expect(a.status).toBe(200);
      expect(dataOf(a.text)).toEqual([
        { jsonrpc: "2.0", id: i, result: { content: [{ type: "text", text: "waited 500" }] } },
      ]);
    }
    expect(await s.exited).toEqual({ code: 0, signal: null });
  });
});
