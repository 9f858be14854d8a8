/**
 * Fair sessions over real HTTP on 127.0.0.1: an unauthenticated flood of initialize calls cannot take
 * the session of a client that is using it (official SDK v2 client), a new client still gets in, and
 * the per-client bound answers 429.
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, describe, expect, it } from "vitest";
import { serveHttp } from "../../../runtime/node/http.js";
import { featureServer } from "../../fixtures/http/feature-server.js";
import { initializeBody, POST_HEADERS } from "../../fixtures/http/helpers.js";

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

async function sdkClient(url: string): Promise<Client> {
  const client = new Client({ name: "flood-victim", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  cleanups.push(() => client.close());
  return client;
}

/** `count` initialize POSTs, `inflight` at a time, never followed up; the statuses seen. */
async function flood(url: string, count: number, inflight = 16): Promise<Map<number, number>> {
  const statuses = new Map<number, number>();
  let next = 0;
  const worker = async () => {
    while (next < count) {
      next++;
      const r = await fetch(url, {
        method: "POST",
        headers: POST_HEADERS,
        body: JSON.stringify(initializeBody()),
      });
      await r.body?.cancel();
      statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
    }
  };
  await Promise.all(Array.from({ length: inflight }, worker));
  return statuses;
}

describe("session flood", () => {
  it("2,000 initialize calls against maxSessions 100 leave an SDK client's session working, and a new client gets in", async () => {
    const http = await serveHttp(await featureServer(), { port: 0, maxSessions: 100 });
    cleanups.push(() => http.close());
    const victim = await sdkClient(http.url);
    expect((await victim.callTool({ name: "echo", arguments: { text: "before" } })).content).toEqual([
      { type: "text", text: "before" },
    ]);
    const statuses = await flood(http.url, 2000);
    // Every flood session is pending, so each new one took the place of an older one: none refused.
    expect(Object.fromEntries(statuses)).toEqual({ 200: 2000 });
    expect(http.handler.sessionCount).toBeLessThanOrEqual(100);
    expect((await victim.callTool({ name: "echo", arguments: { text: "after" } })).content).toEqual([
      { type: "text", text: "after" },
    ]);
    const newcomer = await sdkClient(http.url);
    expect((await newcomer.listTools()).tools.length).toBeGreaterThan(0);
  }, 60_000);

  it("maxSessionsPerClient: the client's next established session is refused with 429 + Retry-After; its pending ones give way", async () => {
    const http = await serveHttp(await featureServer(), { port: 0, maxSessionsPerClient: 3 });
    cleanups.push(() => http.close());
    const clients = [await sdkClient(http.url), await sdkClient(http.url)];
    // Pending sessions of the same address give way to newer ones: the limit never refuses them...
    expect(Object.fromEntries(await flood(http.url, 20, 4))).toEqual({ 200: 20 });
    clients.push(await sdkClient(http.url));
    // ...but three established sessions fill this address's share.
    const refused = await fetch(http.url, {
      method: "POST",
      headers: POST_HEADERS,
      body: JSON.stringify(initializeBody()),
    });
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("5");
    await refused.body?.cancel();
    for (const client of clients) expect((await client.listTools()).tools.length).toBeGreaterThan(0);
  }, 60_000);
});
