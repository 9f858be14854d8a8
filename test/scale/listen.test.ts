/**
 * 2026-07-28 through the balancer: a `subscriptions/listen` stream held open on one instance receives a
 * tools/list_changed notification raised on another (the project's client, through haproxy: the listen
 * request lands on one instance, the tool call raising the notification on the next), once, tagged with
 * the listen request's id. The same through Redis in one process: test/redis/fan-out.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient } from "../../generated/2026-07-28/index.js";
import { StreamableHttpClientTransport } from "../../runtime/http-client/streamable-http.js";
import { withoutRedis } from "../fixtures/redis/redis-server.js";
import { type ScaleBed, startScaleBed } from "../fixtures/scale/bed.js";
import { withoutHaproxy } from "../fixtures/scale/haproxy.js";
import { textOf } from "../fixtures/scale/text-of.js";

describe.skipIf(withoutRedis || withoutHaproxy)(
  "2026-07-28 subscriptions/listen across instances behind haproxy",
  () => {
    let bed: ScaleBed;
    beforeAll(async () => {
      bed = await startScaleBed({ instances: 3 });
    });
    afterAll(async () => {
      await bed?.close();
    });

    it("a listen stream on one instance receives a list_changed raised on another, once", async () => {
      const heard: unknown[] = [];
      const sent: { method: string; by: string | null }[] = [];
      const client = createClient({
        info: { name: "scale-listen", version: "1" },
        handlers: {
          onToolListChanged: (_params, ctx) =>
            void heard.push((ctx as { subscriptionId?: unknown }).subscriptionId),
        },
      });
      const fetchAndNote: typeof fetch = async (input, init) => {
        const response = await fetch(input, init);
        const body = typeof init?.body === "string" ? (JSON.parse(init.body) as { method?: string }) : {};
        sent.push({ method: body.method ?? "", by: response.headers.get("x-served-by") });
        return response;
      };
      await client.connect(new StreamableHttpClientTransport(bed.url, { fetch: fetchAndNote }));
      try {
        const subscription = await client.listen({ toolsListChanged: true });
        const listenOn = sent.find((s) => s.method === "subscriptions/listen")!.by!;
        expect(["a", "b", "c"]).toContain(listenOn);
        // Raised by whichever instance serves the call: round robin puts it elsewhere within two tries.
        let raisedOn = listenOn;
        for (let i = 0; i < 3 && raisedOn === listenOn; i++) {
          raisedOn = /from (\w)$/.exec(textOf(await client.callTool({ name: "notify", arguments: {} })))![1]!;
        }
        expect(raisedOn).not.toBe(listenOn);
        await expect.poll(() => heard.length, { timeout: 5000 }).toBeGreaterThan(0);
        // Every notification raised so far was heard once (the calls that landed on the listen's own
        // instance count too), each tagged with the subscription.
        const raised = sent.filter((s) => s.method === "tools/call").length;
        await expect.poll(() => heard.length, { timeout: 5000 }).toBe(raised);
        expect(new Set(heard)).toEqual(new Set([subscription.id]));
        await subscription.close();
      } finally {
        await client.close();
      }
    });
  },
);
