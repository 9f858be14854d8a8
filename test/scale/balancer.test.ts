/**
 * The scale bed itself, through its real balancer (Debian's haproxy, unprivileged): every request is
 * balanced, not every connection (several requests over one keep-alive connection reach different
 * instances); 2026-07-28 calls through it (this project's client, the official SDK v2 client) are served
 * by all three instances; an SSE stream through it arrives as the events are sent, not buffered to the
 * end; a killed instance leaves the rotation (requests to it meanwhile go to another) and a restarted
 * one comes back.
 */
import { Agent, request } from "node:http";
import { Client as ClientV2, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient } from "../../generated/2026-07-28/index.js";
import { connectHttp } from "../../runtime/http-client/connect.js";
import { withoutRedis } from "../fixtures/redis/redis-server.js";
import { type ScaleBed, startScaleBed } from "../fixtures/scale/bed.js";
import { withoutHaproxy } from "../fixtures/scale/haproxy.js";
import { answerOf, statelessCall } from "../fixtures/scale/stateless-call.js";
import { textOf } from "../fixtures/scale/text-of.js";

const NAMES = ["a", "b", "c"];

describe.skipIf(withoutRedis || withoutHaproxy)("scale bed: three instances behind haproxy", () => {
  let bed: ScaleBed;
  beforeAll(async () => {
    bed = await startScaleBed({ instances: 3 });
  });
  afterAll(async () => {
    await bed?.close();
  });

  it("balances every request: six calls over one keep-alive connection reach all three instances", async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const seen: { instance: string; servedBy: string | undefined; reused: boolean; socket: number }[] = [];
      const sockets = new Map<unknown, number>();
      for (let i = 0; i < 6; i++) {
        const body = JSON.stringify(statelessCall(i, "whoami"));
        const answer = await new Promise<(typeof seen)[number]>((resolve, reject) => {
          const req = request(
            bed.url,
            { method: "POST", agent, headers: statelessCall.headers("whoami") },
            (res) => {
              let text = "";
              res.setEncoding("utf8");
              res.on("data", (d: string) => {
                text += d;
              });
              res.on("end", () => {
                const message = answerOf(res.headers["content-type"], text) as {
                  result: { content: { text: string }[] };
                };
                if (!sockets.has(req.socket)) sockets.set(req.socket, sockets.size);
                resolve({
                  instance: message.result.content[0]!.text,
                  servedBy: res.headers["x-served-by"] as string | undefined,
                  reused: req.reusedSocket,
                  socket: sockets.get(req.socket)!,
                });
              });
            },
          );
          req.on("error", reject);
          req.end(body);
        });
        seen.push(answer);
      }
      // One connection throughout: every request after the first went over the socket the first opened.
      expect(seen.map((s) => s.socket)).toEqual([0, 0, 0, 0, 0, 0]);
      expect(seen.map((s) => s.reused)).toEqual([false, true, true, true, true, true]);
      // Round robin, request by request: no two consecutive requests on the same instance.
      expect(new Set(seen.map((s) => s.instance))).toEqual(new Set(NAMES));
      for (let i = 1; i < seen.length; i++) expect(seen[i]!.instance).not.toBe(seen[i - 1]!.instance);
      // The tool's own answer and the balancer's header agree on who served each request.
      for (const s of seen) expect(s.servedBy).toBe(s.instance);
    } finally {
      agent.destroy();
    }
  });

  /** Nine whoami calls: how many each instance served. */
  const tally = async (call: () => Promise<string>) => {
    const served = new Map<string, number>();
    for (let i = 0; i < 9; i++) {
      const name = await call();
      served.set(name, (served.get(name) ?? 0) + 1);
    }
    return served;
  };
  const expectAllThree = (served: Map<string, number>) => {
    expect([...served.keys()].sort()).toEqual(NAMES);
    for (const name of NAMES) expect(served.get(name), name).toBeGreaterThanOrEqual(1);
  };

  it("2026-07-28, the project's client: calls through the balancer are served by all three instances", async () => {
    const client = createClient({ info: { name: "scale-test", version: "1.0.0" } });
    await client.connect(await connectHttp(bed.url));
    try {
      expectAllThree(
        await tally(async () => textOf(await client.callTool({ name: "whoami", arguments: {} }))),
      );
    } finally {
      await client.close();
    }
  });

  it("2026-07-28, the official SDK v2 client: calls through the balancer are served by all three instances", async () => {
    const client = new ClientV2(
      { name: "sdk-v2-scale", version: "1.0.0" },
      { versionNegotiation: { mode: { pin: "2026-07-28" } } },
    );
    await client.connect(new StreamableHTTPClientTransport(new URL(bed.url)));
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe("2026-07-28");
      expectAllThree(
        await tally(async () => textOf(await client.callTool({ name: "whoami", arguments: {} }))),
      );
    } finally {
      await client.close();
    }
  });

  it("an SSE answer streams through the balancer: progress arrives while the tool runs, not at its end", async () => {
    const client = createClient({ info: { name: "scale-test", version: "1.0.0" } });
    await client.connect(await connectHttp(bed.url));
    try {
      const started = Date.now();
      const arrivals: number[] = [];
      const result = await client.callTool(
        { name: "count", arguments: { steps: 5, everyMs: 200 } },
        { onprogress: () => arrivals.push(Date.now() - started) },
      );
      const finished = Date.now() - started;
      expect(textOf(result)).toMatch(/^counted 5 on [abc]$/);
      expect(arrivals).toHaveLength(5);
      // Sent 200 ms apart: a buffering proxy would deliver them all at once, with the result.
      expect(finished - arrivals[0]!).toBeGreaterThanOrEqual(600);
      expect(arrivals[4]! - arrivals[0]!).toBeGreaterThanOrEqual(600);
    } finally {
      await client.close();
    }
  });

  /** Stateless whoami call `i`, raw, through the balancer. */
  const whoami = (i: number) =>
    fetch(bed.url, {
      method: "POST",
      headers: statelessCall.headers("whoami"),
      body: JSON.stringify(statelessCall(i, "whoami")),
    });

  it("a killed instance leaves the rotation and the calls go on; restarted, it serves again", async () => {
    const [a] = bed.instances;
    await a!.kill();
    // Before the health checks notice: a connection refused by the dead instance is tried on another.
    const meanwhile = await Promise.all(
      [0, 1, 2, 3, 4, 5].map(async (i) => {
        const response = await whoami(i);
        return [response.status, response.headers.get("x-served-by")];
      }),
    );
    for (const [status, servedBy] of meanwhile) {
      expect(status).toBe(200);
      expect(["b", "c"]).toContain(servedBy);
    }
    await bed.proxy.waitFor("a", "DOWN");
    const names = new Set<string>();
    for (let i = 0; i < 6; i++) {
      const response = await whoami(i);
      expect(response.status).toBe(200);
      names.add(response.headers.get("x-served-by")!);
    }
    expect([...names].sort()).toEqual(["b", "c"]);

    await a!.restart();
    await bed.proxy.waitFor("a", "UP");
    const again = new Set<string>();
    for (let i = 0; i < 6; i++) {
      const response = await whoami(i);
      const answer = answerOf(response.headers.get("content-type"), await response.text()) as {
        result: { content: { text: string }[] };
      };
      again.add(answer.result.content[0]!.text);
    }
    expect([...again].sort()).toEqual(NAMES);
  });
});

describe.skipIf(withoutRedis || withoutHaproxy)("scale bed teardown", () => {
  const alive = (pid: number | undefined) => {
    if (pid === undefined) return false;
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };

  it("close() leaves no process behind, an instance killed or not", async () => {
    const bed = await startScaleBed({ instances: 2 });
    const pids = [bed.proxy.pid, ...bed.instances.map((i) => i.pid)];
    expect(pids.map(alive)).toEqual([true, true, true]);
    await bed.instances[0]!.kill();
    await bed.close();
    expect(pids.map(alive)).toEqual([false, false, false]);
    // Nothing answers on the balancer's port any more.
    await expect(fetch(bed.url, { method: "POST" })).rejects.toThrow();
  });
});
