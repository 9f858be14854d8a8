/**
 * The scenario for 2025-era sessions, through a real non-sticky balancer (Debian's haproxy in
 * front of three server processes sharing a real redis-server; test/fixtures/scale/), with the project's
 * client and the official SDK clients v1 and v2:
 * - a session opened through the proxy is served by all three instances;
 * - a sampling request raised on one instance is answered by the client through another, and reaches
 *   the handler waiting for it;
 * - a long tool streaming progress; its instance killed with SIGKILL mid-stream; the client resumes with
 *   Last-Event-ID on another instance, gets every event once, then a JSON-RPC error for the call (its
 *   handler died with its instance: the failure is reported, never silence; see docs/scale-out.md);
 * - a list-changed notification raised on one instance reaches every client's GET stream, wherever it
 *   is open, exactly once;
 * - DELETE through the proxy ends the session on every instance;
 * - Redis restarted mid-run (persisting what it acknowledged): the balancer takes the unready instances
 *   out and answers 503 with Retry-After meanwhile; then the instances recover, the session goes on, and
 *   a stream's events acknowledged before the restart are replayed after it.
 */
import { StreamableHttpClientTransport } from "@mcp-codegen/runtime/http-client";
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as TransportV2,
} from "@modelcontextprotocol/client";
import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as TransportV1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  CreateMessageRequestSchema,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient } from "../../generated/2025-11-25/index.js";
import { withoutRedis } from "../fixtures/redis/redis-server.js";
import { type ScaleBed, startScaleBed } from "../fixtures/scale/bed.js";
import { withoutHaproxy } from "../fixtures/scale/haproxy.js";
import { textOf } from "../fixtures/scale/text-of.js";

const NAMES = ["a", "b", "c"];

/** What went through the balancer, request by request. */
interface Sent {
  method: string;
  /** The JSON-RPC body's kind: "request <method>", "notification <method>", "response", or "" for none. */
  kind: string;
  servedBy: string | null;
  status: number;
  lastEventId: string | null;
}

function recording() {
  const sent: Sent[] = [];
  const fetchRecorded: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    let kind = "";
    if (typeof init?.body === "string") {
      const m = JSON.parse(init.body) as { id?: unknown; method?: string };
      kind =
        m.method === undefined
          ? "response"
          : `${m.id === undefined ? "notification" : "request"} ${m.method}`;
    }
    sent.push({
      method: init?.method ?? "GET",
      kind,
      servedBy: response.headers.get("x-served-by"),
      status: response.status,
      lastEventId: new Headers(init?.headers).get("last-event-id"),
    });
    return response;
  };
  return { sent, fetch: fetchRecorded };
}

interface Peer {
  name: string;
  sent: Sent[];
  sessionId(): string | undefined;
  call(name: string, args: Record<string, unknown>, onprogress?: (message: string) => void): Promise<string>;
  listChanged: number;
  close(): Promise<void>;
}

const sampled = {
  role: "assistant" as const,
  content: { type: "text" as const, text: "sampled" },
  model: "m",
};
const RECONNECT = {
  initialReconnectionDelay: 100,
  maxReconnectionDelay: 500,
  reconnectionDelayGrowFactor: 1.5,
  maxRetries: 8,
};

async function ownClient(url: string): Promise<Peer> {
  const { sent, fetch } = recording();
  const peer = { listChanged: 0 } as Peer;
  const client = createClient({
    info: { name: "own", version: "1" },
    handlers: { createMessage: () => sampled, onToolListChanged: () => void peer.listChanged++ },
  });
  const transport = new StreamableHttpClientTransport(url, {
    fetch,
    reconnect: { initialDelayMs: 100, maxDelayMs: 500, maxRetries: 8 },
  });
  await client.connect(transport);
  return Object.assign(peer, {
    name: "the project's client",
    sent,
    sessionId: () => transport.sessionId,
    call: async (name: string, args: Record<string, unknown>, onprogress?: (m: string) => void) =>
      textOf(
        await client.callTool(
          { name, arguments: args },
          onprogress ? { onprogress: (p) => onprogress(String(p.message)), timeoutMs: 30_000 } : undefined,
        ),
      ),
    close: () => client.close(),
  });
}

async function sdkV1(url: string): Promise<Peer> {
  const { sent, fetch } = recording();
  const peer = { listChanged: 0 } as Peer;
  const client = new ClientV1({ name: "sdk-v1", version: "1" }, { capabilities: { sampling: {} } });
  client.setRequestHandler(CreateMessageRequestSchema, async () => sampled);
  client.setNotificationHandler(ToolListChangedNotificationSchema, async () => void peer.listChanged++);
  const transport = new TransportV1(new URL(url), { fetch, reconnectionOptions: RECONNECT });
  await client.connect(transport);
  return Object.assign(peer, {
    name: "SDK v1",
    sent,
    sessionId: () => transport.sessionId,
    call: async (name: string, args: Record<string, unknown>, onprogress?: (m: string) => void) =>
      textOf(
        (await client.callTool({ name, arguments: args }, undefined, {
          timeout: 30_000,
          ...(onprogress ? { onprogress: (p) => onprogress(String(p.message)) } : {}),
        })) as { content: unknown },
      ),
    close: async () => {
      await transport.terminateSession();
      await client.close();
    },
  });
}

async function sdkV2(url: string): Promise<Peer> {
  const { sent, fetch } = recording();
  const peer = { listChanged: 0 } as Peer;
  const client = new ClientV2({ name: "sdk-v2", version: "1" }, { capabilities: { sampling: {} } });
  client.setRequestHandler("sampling/createMessage", async () => sampled);
  client.setNotificationHandler("notifications/tools/list_changed", async () => void peer.listChanged++);
  const transport = new TransportV2(new URL(url), { fetch, reconnectionOptions: RECONNECT });
  await client.connect(transport);
  return Object.assign(peer, {
    name: "SDK v2",
    sent,
    sessionId: () => transport.sessionId,
    call: async (name: string, args: Record<string, unknown>, onprogress?: (m: string) => void) =>
      textOf(
        await client.callTool(
          { name, arguments: args },
          { timeout: 30_000, ...(onprogress ? { onprogress: (p) => onprogress(String(p.message)) } : {}) },
        ),
      ),
    close: async () => {
      await transport.terminateSession();
      await client.close();
    },
  });
}

const sessionHeaders = (sessionId: string) => ({
  "mcp-session-id": sessionId,
  "mcp-protocol-version": "2025-11-25",
});

/** The events of an SSE answer, read to its end: their ids and data. */
async function sseEvents(response: Response): Promise<{ id: string; data: string }[]> {
  expect(response.status).toBe(200);
  const text = await response.text();
  const events: { id: string; data: string }[] = [];
  for (const block of text.split("\n\n")) {
    const id = /^id: ?(.*)$/m.exec(block)?.[1];
    if (id === undefined) continue;
    const data = [...block.matchAll(/^data: ?(.*)$/gm)].map((m) => m[1]).join("\n");
    events.push({ id, data });
  }
  return events;
}

/** A ping naming `sessionId`, sent to one instance directly (around the balancer). */
async function pingAt(url: string, sessionId: string): Promise<number> {
  const response = await fetch(url, {
    method: "POST",
    headers: {
      ...sessionHeaders(sessionId),
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: "ping", method: "ping" }),
  });
  await response.body?.cancel();
  return response.status;
}

describe.skipIf(withoutRedis || withoutHaproxy)(
  "2025-era sessions across three instances behind haproxy",
  () => {
    let bed: ScaleBed;
    beforeAll(async () => {
      bed = await startScaleBed({ instances: 3, persistRedis: true });
    });
    afterAll(async () => {
      await bed?.close();
    });

    describe.each([
      ["the project's client", ownClient],
      ["SDK v1", sdkV1],
      ["SDK v2", sdkV2],
    ])("%s", (_name, connect) => {
      let peer: Peer;
      beforeAll(async () => {
        for (const instance of bed.instances) if (instance.pid === undefined) await instance.restart();
        for (const name of NAMES) await bed.proxy.waitFor(name, "UP");
        peer = await connect(bed.url);
      });
      afterAll(async () => {
        await peer?.close().catch(() => {});
      });

      it("one session, served by all three instances", async () => {
        const served = new Set<string>();
        for (let i = 0; i < 6; i++) served.add(await peer.call("whoami", {}));
        expect([...served].sort()).toEqual(NAMES);
        expect(peer.sent.filter((s) => s.status >= 300)).toEqual([]);
      });

      it("a sampling request raised on one instance is answered through another and reaches its handler", async () => {
        const answer = await peer.call("sample", {});
        const askedOn = /asked on (\w)/.exec(answer)![1]!;
        expect(answer).toBe(`sampled (asked on ${askedOn})`);
        // The answer's POST is recorded when its 202 arrives, which may be after the call's result did.
        await expect.poll(() => peer.sent.some((s) => s.kind === "response")).toBe(true);
        const answeredThrough = peer.sent.filter((s) => s.kind === "response").at(-1)!;
        expect(answeredThrough.servedBy).not.toBe(askedOn);
        expect(answeredThrough.status).toBe(202);
      });

      it("its instance killed mid-stream: resumed on another, every event once, then the call's failure", async () => {
        const progress: string[] = [];
        const call = peer.call("count", { steps: 40, everyMs: 100 }, (m) => progress.push(m));
        await expect.poll(() => progress.length, { timeout: 10_000 }).toBeGreaterThanOrEqual(3);
        const runningOn = /on (\w)$/.exec(progress[0]!)![1]!;
        const victim = bed.instances.find((i) => i.name === runningOn)!;
        await victim.kill();
        await expect(call).rejects.toThrow(/stopped before answering/);
        // Every event once, in order, all from the instance that ran it.
        expect(progress).toEqual(progress.map((_, i) => `step ${i + 1} on ${runningOn}`));
        const resumed = peer.sent.filter((s) => s.lastEventId !== null && s.status === 200);
        expect(resumed.length).toBeGreaterThan(0);
        expect(resumed.at(-1)!.servedBy).not.toBe(runningOn);
        // The session itself lives on, on the other instances.
        expect(await peer.call("whoami", {})).not.toBe(runningOn);
        await victim.restart();
        await bed.proxy.waitFor(runningOn, "UP");
      });
    });

    it("a list-changed notification raised on one instance reaches every client's GET stream, once", async () => {
      const peers: Peer[] = [];
      for (const connect of [ownClient, sdkV1, sdkV2]) {
        peers.push(await connect(bed.url));
        // Shifts the rotation: the next client's GET stream opens on another instance.
        await fetch(`${bed.url.replace(/\/mcp$/, "")}/readyz`).catch(() => {});
      }
      try {
        const getOf = (p: Peer) =>
          p.sent.find((s) => s.method === "GET" && s.lastEventId === null && s.status === 200)?.servedBy;
        // Each client opens its GET stream once its session is initialized, in the background.
        await expect
          .poll(() => peers.every((p) => NAMES.includes(getOf(p) ?? "")), { timeout: 5000 })
          .toBe(true);
        const getsOn = peers.map(getOf);
        const raisedOn = /from (\w)$/.exec(await peers[0]!.call("notify", {}))![1]!;
        // Listened to elsewhere than where it was raised, for at least one client.
        expect(getsOn.some((g) => g !== raisedOn)).toBe(true);
        await expect.poll(() => peers.map((p) => p.listChanged), { timeout: 5000 }).toEqual([1, 1, 1]);
        // A second one: had the first been delivered twice anywhere, it would show by now.
        await peers[1]!.call("notify", {});
        await expect.poll(() => peers.map((p) => p.listChanged), { timeout: 5000 }).toEqual([2, 2, 2]);
      } finally {
        for (const p of peers) await p.close().catch(() => {});
      }
    });

    it("DELETE through the proxy ends the session on every instance", async () => {
      for (const connect of [ownClient, sdkV1, sdkV2]) {
        const peer = await connect(bed.url);
        for (let i = 0; i < 3; i++) await peer.call("whoami", {});
        const sessionId = peer.sessionId()!;
        for (const instance of bed.instances) expect(await pingAt(instance.url, sessionId)).toBe(200);
        await peer.close();
        expect(peer.sent.find((s) => s.method === "DELETE")?.status).toBe(204);
        const after = await Promise.all(bed.instances.map((i) => pingAt(i.url, sessionId)));
        expect(after, "the instances' answers right after the DELETE").toEqual([404, 404, 404]);
      }
    });

    it("Redis restarted mid-run: 503 with Retry-After meanwhile, then the instances recover, the session goes on, no acknowledged event lost", async () => {
      const peer = await ownClient(bed.url);
      try {
        const progress: string[] = [];
        await peer.call("count", { steps: 3, everyMs: 10 }, (m) => progress.push(m));
        expect(progress).toHaveLength(3);
        // A call's events, read raw: each was acknowledged (sent) only once Redis had stored it.
        const sessionId = peer.sessionId()!;
        const events = await sseEvents(
          await fetch(bed.url, {
            method: "POST",
            headers: {
              ...sessionHeaders(sessionId),
              "content-type": "application/json",
              accept: "application/json, text/event-stream",
            },
            body: JSON.stringify({
              jsonrpc: "2.0",
              id: "raw-count",
              method: "tools/call",
              params: {
                name: "count",
                arguments: { steps: 3, everyMs: 10 },
                _meta: { progressToken: "raw" },
              },
            }),
          }),
        );
        expect(events.length).toBeGreaterThanOrEqual(4); // progress ×3 and the response (and a priming event)
        await bed.redis.stop();
        // The balancer's probes of /readyz take every instance out while Redis is gone.
        for (const name of NAMES) await bed.proxy.waitFor(name, "DOWN");
        const refused = await fetch(bed.url, { method: "POST", body: "{}" });
        expect(refused.status).toBe(503);
        expect(refused.headers.get("retry-after")).toBeTruthy();
        await bed.redis.start();
        for (const name of NAMES) await bed.proxy.waitFor(name, "UP");
        // Through the balancer, and at each instance directly: every one serves the session again.
        expect(NAMES).toContain(await peer.call("whoami", {}));
        // No acknowledged event was lost: resumed after the first, the rest are replayed from Redis.
        const replayed = await sseEvents(
          await fetch(bed.url, {
            headers: {
              ...sessionHeaders(sessionId),
              accept: "text/event-stream",
              "last-event-id": events[0]!.id,
            },
          }),
        );
        expect(replayed.filter((e) => e.data !== "")).toEqual(events.slice(1).filter((e) => e.data !== ""));
        const answers = await Promise.all(bed.instances.map((i) => pingAt(i.url, sessionId)));
        expect(answers).toEqual([200, 200, 200]);
      } finally {
        await peer.close();
      }
    });
  },
);
