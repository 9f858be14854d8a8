/**
 * End to end in the 2026-07-28 era: two server instances (serveHttp, one sealing secret) sharing a
 * RedisUsedStateStore. A multi round-trip request's sealed requestState, used once on one instance,
 * is refused on the other; in-memory stores, one per instance, would let it through twice.
 */
import { randomUUID } from "node:crypto";
import { connectRedis, RedisStateKeyring, RedisUsedStateStore } from "@mcp-codegen/redis";
import { serveHttp } from "@mcp-codegen/runtime/node";
import type { UsedStateStore } from "@mcp-codegen/runtime/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { handlers, info } from "../../examples/everything-server/handlers.js";
import { createServer } from "../../generated/2026-07-28/index.js";
import { messagesOf, POST_HEADERS, readSse } from "../fixtures/http/helpers.js";
import { redisSuite, startRedis, type TestRedis, withoutRedis } from "../fixtures/redis/redis-server.js";

const V = "2026-07-28";
const TOOL = "test_input_required_result_tampered_state";
const META = {
  "io.modelcontextprotocol/protocolVersion": V,
  "io.modelcontextprotocol/clientCapabilities": { elicitation: {} },
  "io.modelcontextprotocol/clientInfo": { name: "raw-2026", version: "1" },
};

/** One stateless-era tools/call of TOOL; its JSON-RPC answer. */
async function callTool(url: string, extra: Record<string, unknown> = {}, tool = TOOL) {
  const body = {
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { _meta: META, name: tool, arguments: {}, ...extra },
  };
  const response = await fetch(url, {
    method: "POST",
    headers: { ...POST_HEADERS, "mcp-protocol-version": V, "mcp-method": "tools/call", "mcp-name": tool },
    body: JSON.stringify(body),
  });
  const messages = (response.headers.get("content-type") ?? "").includes("text/event-stream")
    ? messagesOf((await readSse(response.body!)).events)
    : [JSON.parse(await response.text()) as Record<string, unknown>];
  const answer = messages.find((m) => m.id === 1) as {
    result?: { resultType?: string; requestState?: string; content?: unknown; inputRequests?: object };
    error?: { code: number; message: string };
  };
  return { status: response.status, headers: response.headers, answer };
}

describe.skipIf(withoutRedis)(redisSuite("requestState claims shared through Redis"), () => {
  let redis: TestRedis;
  const cleanups: (() => Promise<void>)[] = [];
  beforeAll(async () => {
    redis = await startRedis();
    cleanups.push(() => redis.dispose());
  });
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  const secret = randomUUID();
  async function instance(usedStateStore: UsedStateStore) {
    const server = createServer({ info, handlers, onError: () => {}, stateSecret: secret, usedStateStore });
    const http = await serveHttp(server, { port: 0 });
    cleanups.push(() => http.close());
    return http.url;
  }
  async function redisInstance(prefix: string) {
    const connection = await connectRedis(redis.url, { log: () => {} });
    cleanups.push(() => connection.close());
    return instance(new RedisUsedStateStore(connection, { prefix }));
  }
  const answer = { inputResponses: { confirm: { action: "accept", content: { ok: true } } } };

  it("a state sealed on A and used on B is refused when used again on A", async () => {
    const prefix = `mrtr-${randomUUID()}:`;
    const a = await redisInstance(prefix);
    const b = await redisInstance(prefix);
    const first = await callTool(a);
    expect(first.answer.result?.resultType).toBe("input_required");
    const state = first.answer.result!.requestState!;
    const onB = await callTool(b, { ...answer, requestState: state });
    expect(onB.answer.result).toMatchObject({ content: [{ type: "text", text: "confirmed=true" }] });
    const againOnA = await callTool(a, { ...answer, requestState: state });
    expect(againOnA.answer.error?.code).toBe(-32602);
    expect(againOnA.answer.error?.message).toMatch(/requestState was already used/);
  });

  it("while Redis is down a retry is refused, not let through; once it is back the state is good once", async () => {
    const a = await redisInstance(`mrtr-${randomUUID()}:`);
    const state = (await callTool(a)).answer.result!.requestState!;
    await redis.stop();
    try {
      const refused = await callTool(a, { ...answer, requestState: state });
      expect(refused.answer.result).toBeUndefined();
      expect(JSON.stringify(refused.answer.error)).toMatch(/Redis is unreachable/);
    } finally {
      await redis.start();
    }
    const retry = () => callTool(a, { ...answer, requestState: state });
    await expect
      .poll(async () => (await retry()).answer.result?.content, { timeout: 15_000, interval: 200 })
      .toEqual([{ type: "text", text: "confirmed=true" }]);
    expect((await retry()).answer.error?.message).toMatch(/requestState was already used/);
  });

  it("Redis stalls while a retry's handler runs: the next round is still sealed, and the state stays used", async () => {
    const prefix = `mrtr-${randomUUID()}:`;
    const connection = await connectRedis(redis.url, { log: () => {}, commandTimeoutMs: 300 });
    cleanups.push(() => connection.close());
    const cacheMs = 50;
    const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    // Set for the retry: Redis stops answering while the handler runs, for longer than the keyring's cache.
    let stall: (() => Promise<void>) | undefined;
    const server = createServer({
      info,
      handlers: {
        ...handlers,
        callTool: async (params, ctx) => {
          await stall?.();
          return handlers.callTool!(params, ctx);
        },
      },
      onError: () => {},
      stateKeys: new RedisStateKeyring(connection, { prefix, cacheMs }),
      usedStateStore: new RedisUsedStateStore(connection, { prefix }),
    });
    const http = await serveHttp(server, { port: 0 });
    cleanups.push(() => http.close());
    // Two rounds of input: the retry answering the first is answered with a second, sealed then.
    const multiRound = "test_input_required_result_multi_round";
    const first = await callTool(http.url, {}, multiRound);
    const state = first.answer.result!.requestState!;
    const step1 = { inputResponses: { step1: { action: "accept", content: { name: "Alice" } } } };
    stall = async () => {
      stall = undefined;
      redis.pause();
      await sleep(cacheMs * 3);
    };
    let retried: Awaited<ReturnType<typeof callTool>>;
    try {
      retried = await callTool(http.url, { ...step1, requestState: state }, multiRound);
    } finally {
      redis.resume();
    }
    expect([retried.status, retried.answer.result?.resultType]).toEqual([200, "input_required"]);
    expect(Object.keys(retried.answer.result!.inputRequests!)).toEqual(["step2"]);
    const again = await callTool(http.url, { ...step1, requestState: state }, multiRound);
    expect(again.answer.error?.message).toMatch(/requestState was already used/);
  });
});
