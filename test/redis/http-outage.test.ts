/**
 * A real redis-server behind a server served over HTTP (RedisEventStore, RedisUsedStateStore), killed and
 * started again: while it is down, requests that need it get 503 with Retry-After and nothing half
 * answered (no session kept, no requestState consumed); once it is back, the same requests succeed.
 */

import {
  connectRedis,
  type OwnedRedisConnection,
  RedisEventStore,
  RedisUsedStateStore,
} from "@mcp-codegen/redis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { handlers, info } from "../../examples/everything-server/handlers.js";
import { createServer as createServer2025 } from "../../generated/2025-11-25/index.js";
import { createServer } from "../../generated/2026-07-28/index.js";
import { type HttpServerHandle, serveHttp } from "../../runtime/node/http.js";
import { featureServer } from "../fixtures/http/feature-server.js";
import { initializeBody, messagesOf, POST_HEADERS, readSse } from "../fixtures/http/helpers.js";
import { redisSuite, startRedis, type TestRedis, withoutRedis } from "../fixtures/redis/redis-server.js";

describe.skipIf(withoutRedis)(redisSuite("HTTP while Redis is down"), () => {
  let redis: TestRedis;
  let connection: OwnedRedisConnection;
  const handles: HttpServerHandle[] = [];

  beforeAll(async () => {
    redis = await startRedis();
    connection = await connectRedis(redis.url, { commandTimeoutMs: 1000, maxReconnectDelayMs: 200 });
  });
  afterAll(async () => {
    await Promise.all(handles.map((h) => h.close({ timeoutMs: 100 })));
    await connection?.close();
    await redis?.dispose();
  });

  const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(url, {
      method: "POST",
      headers: { ...POST_HEADERS, ...headers },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(5_000),
    });

  /** Polls until Redis answers the connection again after a restart. */
  const reachable = () => {
    const probe = new RedisUsedStateStore(connection, { prefix: "probe:" });
    let n = 0;
    return expect
      .poll(
        () =>
          Promise.resolve(probe.claim(`p${n++}`, Date.now() + 60_000)).then(
            () => true,
            () => false,
          ),
        { timeout: 10_000 },
      )
      .toBe(true);
  };

  it("2025-11-25: initialize answers 503 + Retry-After and keeps no session; after the restart it opens one", async () => {
    const server = await featureServer("2025-11-25");
    const events = new RedisEventStore(connection, { prefix: "http-outage:" });
    const handle = await serveHttp(server, { port: 0, eventStore: events });
    handles.push(handle);
    const url = `http://127.0.0.1:${handle.port}/mcp`;

    await redis.stop();
    for (const version of ["2025-11-25", "2025-03-26"]) {
      const refused = await post(url, initializeBody(version));
      expect([version, refused.status, refused.headers.get("retry-after")]).toEqual([version, 503, "2"]);
      expect(refused.headers.get("mcp-session-id")).toBeNull();
      expect(await refused.json()).toMatchObject({ error: { message: /Redis is unreachable/ } });
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(handle.handler.sessionCount).toBe(0);

    await redis.start();
    await reachable();
    const opened = await post(url, initializeBody());
    expect(opened.status).toBe(200);
    expect(messagesOf((await readSse(opened.body!)).events)).toEqual([
      expect.objectContaining({ id: 0, result: expect.objectContaining({ protocolVersion: "2025-11-25" }) }),
    ]);
    expect(handle.handler.sessionCount).toBe(1);
  });

  it("2025-11-25: a tools/call while Redis is stuck or down answers 503 + Retry-After and the tool is not run", async () => {
    // The stream's priming event is stored before the POST reaches the server: a store that fails then
    // leaves the call unrun, so the client's retry cannot repeat its effects.
    let ran = 0;
    const server = createServer2025({
      info: { name: "counting", version: "1" },
      handlers: {
        listTools: () => ({ tools: [{ name: "count", inputSchema: { type: "object" } }] }),
        callTool: () => ({ content: [{ type: "text", text: `run ${++ran}` }] }),
      },
      capabilities: { tools: {} },
      onError: () => {},
    });
    const events = new RedisEventStore(connection, { prefix: "http-outage:" });
    const handle = await serveHttp(server, { port: 0, eventStore: events });
    handles.push(handle);
    const url = `http://127.0.0.1:${handle.port}/mcp`;
    const init = await post(url, initializeBody());
    const headers = {
      "mcp-session-id": init.headers.get("mcp-session-id")!,
      "mcp-protocol-version": "2025-11-25",
    };
    await readSse(init.body!);
    expect((await post(url, { jsonrpc: "2.0", method: "notifications/initialized" }, headers)).status).toBe(
      202,
    );
    const call = (id: number) =>
      post(url, { jsonrpc: "2.0", id, method: "tools/call", params: { name: "count" } }, headers);

    redis.pause(); // connected, answering nothing: each append waits out commandTimeoutMs
    const stuck = await call(1);
    redis.resume();
    expect([stuck.status, stuck.headers.get("retry-after")]).toEqual([503, "2"]);
    await redis.stop(); // refused at once
    const down = await call(2);
    expect([down.status, down.headers.get("retry-after")]).toEqual([503, "2"]);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(ran).toBe(0);

    await redis.start();
    await reachable();
    const answered = await call(3);
    const sse = (await readSse(answered.body!)).events;
    expect(sse[0]).toMatchObject({ data: "" }); // primed: its id stored before the 200
    expect(messagesOf(sse)).toEqual([expect.objectContaining({ id: 3, result: expect.anything() })]);
    expect(ran).toBe(1);
  });

  it("2026-07-28: a retry with requestState answers 503 + Retry-After, then the same retry succeeds", async () => {
    const server = createServer({
      info,
      handlers,
      capabilities: { tools: {} },
      usedStateStore: new RedisUsedStateStore(connection, { prefix: "http-outage:" }),
      onError: () => {},
    });
    const handle = await serveHttp(server, { port: 0 });
    handles.push(handle);
    const url = `http://127.0.0.1:${handle.port}/mcp`;
    const V = "2026-07-28";
    const tool = "test_input_required_result_multi_round";
    const call = async (params: Record<string, unknown> = {}) => {
      const _meta = {
        "io.modelcontextprotocol/protocolVersion": V,
        "io.modelcontextprotocol/clientCapabilities": { elicitation: {} },
        "io.modelcontextprotocol/clientInfo": { name: "raw-2026", version: "1" },
      };
      const body = {
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { _meta, name: tool, arguments: {}, ...params },
      };
      const response = await post(url, body, {
        "mcp-protocol-version": V,
        "mcp-method": "tools/call",
        "mcp-name": tool,
      });
      const answer = (await response.json()) as {
        result?: Record<string, unknown>;
        error?: { code: number };
      };
      return { status: response.status, retryAfter: response.headers.get("retry-after"), ...answer };
    };
    const first = await call();
    expect(first.result?.resultType).toBe("input_required");
    const retry = {
      inputResponses: { step1: { action: "accept", content: { name: "Alice" } } },
      requestState: first.result!.requestState,
    };

    await redis.stop();
    const refused = await call(retry);
    expect([refused.status, refused.retryAfter, refused.error?.code]).toEqual([503, "2", -32050]);

    await redis.start();
    await reachable();
    const retried = await call(retry);
    expect([retried.status, retried.result?.resultType]).toEqual([200, "input_required"]);
    expect((await call(retry)).error).toMatchObject({ code: -32602 }); // used once, by the retry served
  });
});
