/**
 * A slow and a stuck Redis behind three instances and haproxy: a relay between the instances and
 * redis-server delays or holds every byte while the connections stay open (a Redis that hangs, not one
 * that is gone). Slow: requests still succeed. Stuck: requests that need Redis fail with 503 and
 * Retry-After within the Redis client's command timeout, on an instance and through the balancer;
 * the commands left waiting stay bounded (the client's queue limit) however many requests come; no
 * session is kept for a refused initialize; once Redis answers again, so do the instances. Gone
 * (killed, then started again empty): refused at once, out of the balancer's rotation, then back.
 */
import { connectRedis, type OwnedRedisConnection } from "@mcp-codegen/redis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { initializeBody, POST_HEADERS } from "../fixtures/http/helpers.js";
import { withoutRedis } from "../fixtures/redis/redis-server.js";
import { type ScaleBed, startScaleBed } from "../fixtures/scale/bed.js";
import { withoutHaproxy } from "../fixtures/scale/haproxy.js";
import { answerOf, statelessCall } from "../fixtures/scale/stateless-call.js";

const COMMAND_TIMEOUT_MS = 500;
const MAX_QUEUED = 20;
/** How long past the command timeout a refusal may take (a busy two-core machine, three instances). */
const SLACK_MS = 1500;

interface Answer {
  status: number;
  retryAfter: string | null;
  sessionId: string | null;
  contentType: string | null;
  ms: number;
  body: string;
}

async function post(
  url: string,
  body: unknown,
  headers: Record<string, string> = POST_HEADERS,
): Promise<Answer> {
  const started = performance.now();
  const response = await fetch(url, {
    method: "POST",
    headers,
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(15_000),
  });
  const text = await response.text();
  return {
    status: response.status,
    retryAfter: response.headers.get("retry-after"),
    sessionId: response.headers.get("mcp-session-id"),
    contentType: response.headers.get("content-type"),
    ms: performance.now() - started,
    body: text,
  };
}

/** A stateless `ask` call at `url`, with its headers. */
const postAsk = (url: string, body: unknown) => post(url, body, statelessCall.headers("ask"));

/** Starts an `ask` input round at `url`: the retry answering it, carrying the requestState it was given. */
async function askRetry(url: string) {
  const first = await postAsk(url, statelessCall(1, "ask"));
  const round = answerOf(first.contentType, first.body) as { result: { requestState: string } };
  return statelessCall(2, "ask", {
    inputResponses: { step1: { action: "accept", content: { name: "Ada" } } },
    requestState: round.result.requestState,
  });
}

describe.skipIf(withoutRedis || withoutHaproxy)("slow, stuck and restarted Redis behind haproxy", () => {
  let bed: ScaleBed;
  let redis: OwnedRedisConnection;
  beforeAll(async () => {
    bed = await startScaleBed({
      instances: 3,
      relay: true,
      commandTimeoutMs: COMMAND_TIMEOUT_MS,
      maxQueuedCommands: MAX_QUEUED,
      keyCacheMs: 60_000,
    });
    // The test's own connection goes straight to redis-server, around the relay.
    redis = await connectRedis(bed.redis.url, { log: () => {} });
  });
  afterAll(async () => {
    bed?.relay?.resume();
    await redis?.close();
    await bed?.close();
  });

  /** Session records the instances stored (their hashes under the bed's prefix). */
  const sessionRecords = async () =>
    (
      (await (redis.client as unknown as { keys(p: string): Promise<string[]> }).keys(
        `${bed.prefix}{sessions}:s:*`,
      )) ?? []
    ).length;

  it("slow (100 ms each way): initialize and an input round still succeed through the balancer", async () => {
    bed.relay!.latency(100);
    try {
      const opened = await post(bed.url, initializeBody());
      expect(opened.status).toBe(200);
      expect(opened.sessionId).toEqual(expect.any(String));
      const retry = await postAsk(bed.url, await askRetry(bed.url));
      expect(retry.status).toBe(200);
      expect(answerOf(retry.contentType, retry.body)).toMatchObject({
        result: { resultType: "input_required" },
      });
    } finally {
      bed.relay!.latency(0);
    }
  });

  it("stuck: 503 + Retry-After within the command timeout, bounded waiting commands, recovery", async () => {
    const relay = bed.relay!;
    const [a] = bed.instances;
    const before = await sessionRecords();
    // A state sealed while Redis answers, to retry while it does not.
    const retryBody = await askRetry(a!.url);

    relay.stall();
    try {
      // Three waves of 40 initializes at one instance, straight (the balancer would soon stop sending).
      for (let wave = 0; wave < 3; wave++) {
        const answers = await Promise.all(Array.from({ length: 40 }, () => post(a!.url, initializeBody())));
        for (const answer of answers) {
          expect([answer.status, answer.retryAfter, answer.sessionId]).toEqual([503, "2", null]);
          expect(answer.body).toMatch(/Redis is unreachable/);
          expect(answer.ms).toBeLessThan(COMMAND_TIMEOUT_MS + SLACK_MS);
        }
        // However many requests came, the commands waiting for Redis stay within each client's queue.
        expect(relay.heldCommands).toBeLessThanOrEqual(MAX_QUEUED * bed.instances.length);
      }
      // An input round's retry: refused the same way, the state not consumed (JSON-RPC STORE_UNAVAILABLE).
      const refused = await postAsk(a!.url, retryBody);
      expect([refused.status, refused.retryAfter]).toEqual([503, "2"]);
      expect(JSON.parse(refused.body)).toMatchObject({ error: { code: -32050 } });
      expect(refused.ms).toBeLessThan(COMMAND_TIMEOUT_MS + SLACK_MS);

      // The instances' readiness turns 503; haproxy takes them out and answers 503 + Retry-After itself.
      for (const instance of bed.instances) await bed.proxy.waitFor(instance.name, "DOWN");
      const viaProxy = await post(bed.url, initializeBody());
      expect([viaProxy.status, viaProxy.retryAfter, viaProxy.sessionId]).toEqual([503, "2", null]);
      expect(viaProxy.ms).toBeLessThan(COMMAND_TIMEOUT_MS + SLACK_MS);
    } finally {
      relay.resume();
    }

    for (const instance of bed.instances) await bed.proxy.waitFor(instance.name, "UP");
    const opened = await post(bed.url, initializeBody());
    expect([opened.status, opened.sessionId]).toEqual([200, expect.any(String)]);
    const retried = await postAsk(a!.url, retryBody);
    expect(answerOf(retried.contentType, retried.body)).toMatchObject({
      result: { resultType: "input_required" },
    });
    // No refused initialize left a session behind, even after Redis ran the commands it was holding.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await sessionRecords()).toBe(before + 1);
  });

  it("stuck: a retry refused while Redis hangs is still good for one retry once it answers", async () => {
    const relay = bed.relay!;
    const [a] = bed.instances;
    const retryBody = await askRetry(a!.url);
    relay.stall();
    try {
      // The keys are cached: the claim is the command Redis holds, and the instance gives up on it.
      const refused = await postAsk(a!.url, retryBody);
      expect([refused.status, refused.retryAfter]).toEqual([503, "2"]);
      expect(JSON.parse(refused.body)).toMatchObject({ error: { code: -32050 } });
    } finally {
      relay.resume();
    }
    // Redis now runs what it held, the claim among it: the client was told to retry, so its retry is served.
    const retried = await postAsk(a!.url, retryBody);
    expect(answerOf(retried.contentType, retried.body)).toMatchObject({
      result: { resultType: "input_required" },
    });
    // And once only.
    const again = await postAsk(a!.url, retryBody);
    expect(answerOf(again.contentType, again.body)).toMatchObject({ error: { code: -32602 } });
  });

  it("gone (killed) and started again: 503 + Retry-After at once, out of rotation, then back", async () => {
    const [a] = bed.instances;
    await bed.redis.stop();
    try {
      const refused = await post(a!.url, initializeBody());
      expect([refused.status, refused.retryAfter, refused.sessionId]).toEqual([503, "2", null]);
      expect(refused.ms).toBeLessThan(COMMAND_TIMEOUT_MS); // no waiting on a connection that is down
      for (const instance of bed.instances) await bed.proxy.waitFor(instance.name, "DOWN");
      const viaProxy = await post(bed.url, initializeBody());
      expect([viaProxy.status, viaProxy.retryAfter]).toEqual([503, "2"]);
    } finally {
      await bed.redis.start();
    }
    for (const instance of bed.instances) await bed.proxy.waitFor(instance.name, "UP", 15_000);
    const opened = await post(bed.url, initializeBody());
    expect([opened.status, opened.sessionId]).toEqual([200, expect.any(String)]);
    // An input round across instances: the keyring made a new first key in the empty Redis.
    const retry = await postAsk(bed.url, await askRetry(bed.url));
    expect(answerOf(retry.contentType, retry.body)).toMatchObject({
      result: { resultType: "input_required" },
    });
  });
});
