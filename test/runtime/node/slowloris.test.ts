/**
 * Connection hygiene of serveHttp over real sockets on 127.0.0.1: 4,000 connections that send their
 * request headers a byte at a time are closed once the header timeout passes, while an official SDK
 * client keeps being served the whole time.
 */
import { connect, type Socket } from "node:net";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, describe, expect, it } from "vitest";
import { serveHttp } from "../../../runtime/node/http.js";
import { featureServer } from "../../fixtures/http/feature-server.js";

const SLOW = 4000;
const HEADERS_TIMEOUT_MS = 2000;
/** Slow sockets stop dripping after this long whatever happens (the loop is bounded in time). */
const DRIP_LIMIT_MS = 15_000;

const sockets: Socket[] = [];
const timers: ReturnType<typeof setInterval>[] = [];
afterAll(() => {
  for (const t of timers) clearInterval(t);
  for (const s of sockets) s.destroy();
});

/** Opens one connection that sends a request line, then one header byte every 500 ms; resolves when connected. */
function slowConnection(port: number, closed: () => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    sockets.push(socket);
    socket.on("error", () => {}); // a reset from the server is what the test wants
    socket.once("close", closed);
    socket.once("connect", () => {
      socket.write("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ");
      resolve();
    });
    socket.once("error", reject);
  });
}

describe("slow connections", () => {
  it("4,000 slowloris connections are closed after the header timeout; a normal client is served meanwhile", async () => {
    const http = await serveHttp(await featureServer(), { port: 0, headersTimeoutMs: HEADERS_TIMEOUT_MS });
    let closedCount = 0;
    let allClosed: () => void = () => {};
    const everyoneClosed = new Promise<void>((resolve) => {
      allClosed = resolve;
    });
    const onClose = () => {
      if (++closedCount === SLOW) allClosed();
    };
    const t0 = Date.now();
    // In batches, so that the listen backlog never overflows into SYN retries.
    for (let i = 0; i < SLOW; i += 200) {
      await Promise.all(
        Array.from({ length: Math.min(200, SLOW - i) }, () => slowConnection(http.port, onClose)),
      );
    }
    const opened = Date.now() - t0;
    const drip = setInterval(() => {
      if (Date.now() - t0 > DRIP_LIMIT_MS) return clearInterval(drip);
      for (const s of sockets) if (!s.destroyed) s.write("x");
    }, 500);
    timers.push(drip);

    const client = new Client({ name: "normal", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(http.url)));
    try {
      for (let i = 0; i < 5; i++) {
        const result = await client.callTool({ name: "echo", arguments: { text: `t${i}` } });
        expect(result.content).toEqual([{ type: "text", text: `t${i}` }]);
      }
      await Promise.race([
        everyoneClosed,
        new Promise((_, reject) =>
          setTimeout(() => reject(new Error(`only ${closedCount} of ${SLOW} closed`)), DRIP_LIMIT_MS),
        ),
      ]);
      const took = Date.now() - t0;
      // Closed by the header timeout (checked every 500 ms here), not by the drip ending.
      expect(took).toBeLessThan(opened + HEADERS_TIMEOUT_MS + 3000);
      // Still served after the flood went.
      const after = await client.callTool({ name: "echo", arguments: { text: "after" } });
      expect(after.content).toEqual([{ type: "text", text: "after" }]);
    } finally {
      clearInterval(drip);
      await client.close();
      await http.close();
    }
  }, 60_000);
});
