/** The fixture server spawned by hand and fed raw bytes: framing and lifecycle as a peer sees them. */

import { afterEach, describe, expect, it } from "vitest";
import { spawnRawServer } from "../helpers.js";

type Server = Awaited<ReturnType<typeof spawnRawServer>>;
const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.stop()));
});

async function start(...flags: string[]): Promise<Server> {
  const server = await spawnRawServer(...flags);
  servers.push(server);
  return server;
}

const line = (message: unknown) => `${JSON.stringify(message)}\n`;
const echo = (id: unknown, params: Record<string, unknown> = {}) => ({
  jsonrpc: "2.0",
  id,
  method: "echo",
  params,
});
/** Lets the child's event loop run between writes, so the pieces arrive as separate reads. */
const turn = () => new Promise((resolve) => setImmediate(resolve));

describe("stdio server framing over a real pipe", () => {
  it("reassembles a message written in pieces, splitting multi-byte characters", async () => {
    const s = await start();
    const bytes = Buffer.from(line(echo(1, { text: "naïve 😀 日本" })));
    const emoji = bytes.indexOf(Buffer.from("😀"));
    const cuts = [3, emoji + 1, emoji + 3, bytes.length - 1];
    let from = 0;
    for (const cut of cuts) {
      await s.write(bytes.subarray(from, cut));
      await turn();
      from = cut;
    }
    await s.write(bytes.subarray(from));
    expect(await s.response(1)).toEqual({ jsonrpc: "2.0", id: 1, result: { text: "naïve 😀 日本" } });
  });

  it("reads several messages from one write, with \\r\\n and blank lines", async () => {
    const s = await start();
    const notification = { jsonrpc: "2.0", method: "notifications/initialized" };
    const frames = [echo("a"), notification, echo("b"), echo("c")].map((m) => JSON.stringify(m));
    await s.write(`${frames.join("\r\n\n")}\r\n`);
    for (const id of ["a", "b", "c"]) expect(await s.response(id)).toMatchObject({ result: {} });
    expect(s.messages()).toHaveLength(3);
  });

  it("answers malformed JSON with -32700 and id null, and stays up", async () => {
    const s = await start();
    await s.write('{"jsonrpc": "2.0", "id": 1, "method": \n');
    expect(await s.response(null)).toMatchObject({ id: null, error: { code: -32700 } });
    expect((await s.response(null)).error).toMatchObject({
      message: expect.stringMatching(/^Parse error: /),
    });
    await s.write(line(echo(2)));
    await s.response(2);
  });

  it("answers a 5 MiB line with -32600 and id null, then serves the next request", async () => {
    const s = await start();
    const huge = line(echo(1, { big: "y".repeat(5 * 1024 * 1024) }));
    await s.write(huge);
    await s.write(line(echo(2, { small: true })));
    expect(await s.response(null)).toEqual({
      jsonrpc: "2.0",
      id: null,
      error: { code: -32600, message: "Message exceeds the 4194304-byte limit" },
    });
    expect(await s.response(2)).toMatchObject({ result: { small: true } });
    expect(s.messages().filter((m) => (m as { id?: unknown }).id === 1)).toEqual([]);
  });

  it("refuses batches by default and answers them when enabled", async () => {
    const off = await start();
    await off.write(line([echo(1), echo(2)]));
    expect(await off.response(null)).toMatchObject({
      error: { code: -32600, message: "JSON-RPC batches are not supported in this protocol version" },
    });
    const on = await start("--batches");
    await on.write(line([echo(1), { jsonrpc: "2.0", method: "n" }, echo(2)]));
    await on.lines.waitFor((l) => l.startsWith("["));
    expect(on.messages()).toEqual([
      [
        { jsonrpc: "2.0", id: 1, result: {} },
        { jsonrpc: "2.0", id: 2, result: {} },
      ],
    ]);
  });

  it("sends console.log output from a handler to stderr, never into the protocol stream", async () => {
    const s = await start();
    await s.write(line({ jsonrpc: "2.0", id: 1, method: "log", params: { text: "stray" } }));
    await s.write(line(echo(2)));
    await s.response(2);
    await s.stderr.waitFor((l) => l === "console.log from the log handler: stray");
    // Every stdout line is one JSON-RPC response.
    expect(s.messages()).toEqual([
      { jsonrpc: "2.0", id: 1, result: { logged: true } },
      { jsonrpc: "2.0", id: 2, result: {} },
    ]);
  });

  it("on stdin EOF answers all 64 requests in flight, then exits 0 by itself", async () => {
    const s = await start();
    const frames = Array.from({ length: 64 }, (_, i) =>
      line({ jsonrpc: "2.0", id: i, method: "delay", params: { ms: 50 + (i % 8) * 10 } }),
    );
    // One write, then EOF at once: the shell pattern `printf '…' | server`.
    await s.write(frames.join(""));
    s.child.stdin.end();
    expect(await s.exited).toEqual({ code: 0, signal: null });
    const answers = s.messages() as { id: number; result?: { waited: number } }[];
    expect(answers.map((m) => m.id).sort((a, b) => a - b)).toEqual([...Array(64).keys()]);
    for (const m of answers) expect(m.result).toEqual({ waited: 50 + (m.id % 8) * 10 });
  });

  it("on stdin EOF a handler still running at the drain deadline is aborted and answered -32000", async () => {
    const s = await start("--drain-ms", "300");
    await s.write(line({ jsonrpc: "2.0", id: "long", method: "slow" }));
    await s.write(line(echo("quick")));
    await s.stderr.waitFor((l) => l === 'slow started "long"');
    const started = Date.now();
    s.child.stdin.end();
    await s.stderr.waitFor((l) => l === 'slow aborted "long": server shutting down');
    expect(await s.exited).toEqual({ code: 0, signal: null });
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(s.messages()).toEqual([
      { jsonrpc: "2.0", id: "quick", result: {} },
      {
        jsonrpc: "2.0",
        id: "long",
        error: {
          code: -32000,
          message: "Server shutting down: the request did not finish in time and was aborted",
        },
      },
    ]);
  });

  it("cancels an in-flight request on notifications/cancelled and sends no response for it", async () => {
    const s = await start();
    await s.write(line({ jsonrpc: "2.0", id: 7, method: "slow" }));
    await s.stderr.waitFor((l) => l === "slow started 7");
    await s.write(
      line({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 7, reason: "stop" } }),
    );
    await s.stderr.waitFor((l) => l === "slow aborted 7: stop");
    await s.write(line(echo(8)));
    await s.response(8);
    expect(s.messages()).toEqual([{ jsonrpc: "2.0", id: 8, result: {} }]);
  });
});
