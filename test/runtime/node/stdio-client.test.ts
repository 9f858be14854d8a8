/** Connection + StdioClientTransport driving the fixture server in a real child process. */

import { afterEach, describe, expect, it } from "vitest";
import { Connection, REQUEST_CANCELLED } from "../../../runtime/jsonrpc/connection.js";
import { ErrorCode, McpError } from "../../../runtime/jsonrpc/messages.js";
import {
  StdioClientTransport,
  type StdioClientTransportOptions,
} from "../../../runtime/node/stdio-client.js";
import { deferred, fixtureCommand, Inbox, STUBBORN_FIXTURE, splitLines } from "../helpers.js";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
});

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** A client Connection to a child; its stderr is piped into `stderr`, its errors into `errors`. */
async function connect(options: Partial<StdioClientTransportOptions> = {}, flags: string[] = []) {
  const transport = new StdioClientTransport({ ...fixtureCommand(...flags), stderr: "pipe", ...options });
  const conn = new Connection({
    transport,
    onRequest: () => {
      throw new McpError(ErrorCode.MethodNotFound, "client serves nothing");
    },
  });
  const errors = new Inbox<Error>();
  const stderr = new Inbox<string>();
  const frameErrors = new Inbox<unknown>();
  conn.onerror = errors.push;
  cleanups.push(() => conn.close());
  await conn.start();
  // Watch frame errors as well as answering them: the client must never receive a broken line.
  const answer = transport.onframeerror;
  transport.onframeerror = (e) => {
    frameErrors.push(e);
    answer?.(e);
  };
  if (transport.stderr) splitLines(transport.stderr, stderr.push);
  await stderr.waitFor((l) => l === "ready", "the fixture to start");
  return { conn, transport, errors, stderr, frameErrors };
}

describe("a Connection over StdioClientTransport to a real child", () => {
  it("round-trips requests, method errors and handler failures", async () => {
    const { conn, errors, frameErrors } = await connect();
    await expect(conn.request("echo", { hello: "wörld 😀" })).resolves.toEqual({ hello: "wörld 😀" });
    await expect(conn.request("nope")).rejects.toMatchObject({ code: ErrorCode.MethodNotFound });
    await expect(conn.request("fail")).rejects.toMatchObject({
      code: ErrorCode.InternalError,
      message: "Internal error",
      data: { message: "handler exploded" },
    });
    expect(errors.items).toEqual([]);
    expect(frameErrors.items).toEqual([]);
  });

  it("answers 1,000 pipelined requests", async () => {
    const { conn } = await connect();
    const results = await Promise.all(Array.from({ length: 1000 }, (_, i) => conn.request("echo", { i })));
    expect(results).toEqual(Array.from({ length: 1000 }, (_, i) => ({ i })));
    expect(conn.pendingCount).toBe(0);
  });

  it("carries a 3 MiB message both ways", async () => {
    const { conn } = await connect();
    const big = "x".repeat(3 * 1024 * 1024);
    const result = await conn.request("echo", { big });
    expect(result.big).toBe(big);
  });

  it("routes progress from the child to the request", async () => {
    const { conn } = await connect();
    const seen: unknown[] = [];
    await expect(
      conn.request("progress", { steps: 3 }, { onprogress: (p) => seen.push(p) }),
    ).resolves.toEqual({
      steps: 3,
    });
    expect(seen).toEqual([1, 2, 3].map((i) => ({ progress: i, total: 3, message: `step ${i}` })));
  });

  it("cancels a request in the child: the handler is aborted and no response comes back", async () => {
    const { conn, errors, stderr } = await connect();
    const controller = new AbortController();
    const pending = conn.request("slow", {}, { signal: controller.signal });
    await stderr.waitFor((l) => l === "slow started 0");
    controller.abort("user gave up");
    await expect(pending).rejects.toMatchObject({ code: REQUEST_CANCELLED });
    await stderr.waitFor((l) => l === "slow aborted 0: user gave up");
    // The echo's response comes after anything the cancelled handler could have sent.
    await expect(conn.request("echo", { after: true })).resolves.toEqual({ after: true });
    expect(errors.items).toEqual([]);
  });

  it("keeps the protocol stream clean when a handler console.logs; the text goes to stderr", async () => {
    const { conn, errors, frameErrors, stderr } = await connect();
    await expect(conn.request("log", { text: "hello from user code" })).resolves.toEqual({ logged: true });
    await stderr.waitFor((l) => l === "console.log from the log handler: hello from user code");
    await expect(conn.request("echo", { still: "fine" })).resolves.toEqual({ still: "fine" });
    expect(frameErrors.items).toEqual([]);
    expect(errors.items).toEqual([]);
  });

  it("close() ends stdin; the child drains (here 200 ms), exits by itself; pending work is rejected", async () => {
    const { conn, transport, stderr } = await connect({}, ["--drain-ms", "200"]);
    const pid = transport.pid!;
    const closed = deferred();
    conn.onclose = () => closed.resolve();
    const pending = conn.request("slow").catch((e: unknown) => e);
    await stderr.waitFor((l) => l.startsWith("slow started"));
    const started = Date.now();
    await conn.close();
    await closed.promise;
    expect(Date.now() - started).toBeLessThan(2000);
    expect(await pending).toMatchObject({ code: ErrorCode.ConnectionClosed });
    expect(isAlive(pid)).toBe(false);
  });
});

describe("StdioClientTransport process handling", () => {
  it("rejects start() naming the command when it cannot be spawned", async () => {
    const transport = new StdioClientTransport({ command: "mcp-codegen-no-such-command-xyz" });
    await expect(transport.start()).rejects.toThrow(/mcp-codegen-no-such-command-xyz.*ENOENT/);
    await transport.close();
  });

  it("closes when the child exits on its own, rejecting what was pending", async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ["-e", "process.stdin.once('data', () => process.exit(3))"],
    });
    const conn = new Connection({ transport, onRequest: () => ({}) });
    const closed = deferred();
    conn.onclose = () => closed.resolve();
    await conn.start();
    const pending = conn.request("anything").catch((e: unknown) => e);
    await closed.promise;
    expect(await pending).toMatchObject({ code: ErrorCode.ConnectionClosed });
    await expect(transport.send({ jsonrpc: "2.0", method: "x" })).rejects.toThrow(/not open/);
    await transport.close();
  });

  it("delivers a message sent just before close() to the child before its stdin ends", async () => {
    // The child reports on stderr what its stdin carried up to EOF.
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [
        "-e",
        "let d = ''; process.stdin.on('data', (c) => (d += c)); process.stdin.on('end', () => process.stderr.write(d))",
      ],
      stderr: "pipe",
    });
    await transport.start();
    let received = "";
    transport.stderr?.on("data", (chunk: Buffer) => {
      received += chunk.toString();
    });
    const message = { jsonrpc: "2.0", method: "last", params: { n: 1 } } as const;
    const sent = transport.send(message);
    await transport.close();
    await sent;
    expect(received).toBe(`${JSON.stringify(message)}\n`);
  });

  it("passes arguments verbatim (no shell), and env and cwd", async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [
        "-e",
        "process.stdout.write(JSON.stringify({ jsonrpc: '2.0', method: 'hi', params: { argv: process.argv.slice(1), env: process.env.FIXTURE_VALUE, cwd: process.cwd() } }) + '\\n')",
        "$HOME; echo 'quoted' | cat",
      ],
      env: { FIXTURE_VALUE: "from env" },
      cwd: "/",
    });
    const got = new Inbox<unknown>();
    transport.onmessage = got.push;
    cleanups.push(() => transport.close());
    await transport.start();
    expect(await got.waitFor(() => true)).toEqual({
      jsonrpc: "2.0",
      method: "hi",
      params: { argv: ["$HOME; echo 'quoted' | cat"], env: "from env", cwd: "/" },
    });
  });

  it.each([
    ["ignores stdin EOF (SIGTERM)", []],
    ["also ignores SIGTERM (SIGKILL)", ["--ignore-sigterm"]],
  ])("close() terminates a child that %s", async (_name, flags) => {
    const closeTimeoutMs = 150;
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [STUBBORN_FIXTURE, ...flags],
      closeTimeoutMs,
    });
    const ready = deferred();
    let closes = 0;
    transport.onmessage = () => ready.resolve();
    transport.onclose = () => closes++;
    cleanups.push(() => transport.close());
    await transport.start();
    await ready.promise;
    const pid = transport.pid!;
    const started = Date.now();
    await transport.close();
    const waited = Date.now() - started;
    expect(isAlive(pid)).toBe(false);
    expect(closes).toBe(1);
    // Each escalation step waits its full period first.
    const steps = flags.length === 0 ? 1 : 2;
    expect(waited).toBeGreaterThanOrEqual(steps * closeTimeoutMs - 5);
    expect(waited).toBeLessThan((steps + 2) * closeTimeoutMs + 1000);
  });
});
