/**
 * The 2026-07-28 era behind the balancer: a multi round-trip tool call (`ask`, two input rounds) goes
 * round robin over three instances, so each round's requestState is sealed on one instance and opened
 * on another (the RedisStateKeyring they share); a key rotation between two rounds of one call does
 * not break it. Both the project's client and the official SDK v2 client (pinned to 2026-07-28, where
 * it speaks the stateless era with server/discover and input_required rounds) run it. Without the
 * shared keyring the same call is refused: the tests prove what the keyring gives.
 */

import { connectRedis, type OwnedRedisConnection, RedisStateKeyring } from "@mcp-codegen/redis";
import { Client as ClientV2, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient } from "../../generated/2026-07-28/index.js";
import { connectHttp } from "../../runtime/http-client/connect.js";
import { withoutRedis } from "../fixtures/redis/redis-server.js";
import { type ScaleBed, startScaleBed } from "../fixtures/scale/bed.js";
import { withoutHaproxy } from "../fixtures/scale/haproxy.js";

const V = "2026-07-28";

/** One request as the client sent it, and who served it (the balancer's header). */
interface Sent {
  method: string;
  requestState?: string;
  servedBy: string | null;
}

/** A fetch that records the JSON-RPC requests going out and which instance answered each. */
function recordingFetch(sent: Sent[]): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    if (typeof init?.body === "string") {
      const body = JSON.parse(init.body) as { method?: string; params?: { requestState?: string } };
      if (body.method)
        sent.push({
          method: body.method,
          ...(body.params?.requestState ? { requestState: body.params.requestState } : {}),
          servedBy: response.headers.get("x-served-by"),
        });
    }
    return response;
  };
}

type Ask = (message: string) => Promise<Record<string, string>>;

/** A client connected through the balancer: calls a tool, answers the server's elicitations with `ask`. */
interface Peer {
  call(tool: string): Promise<string>;
  close(): Promise<void>;
}

const answers = { step1: { name: "Ada" }, step2: { color: "green" } };
const contentFor = (message: string) => (message.startsWith("step1") ? answers.step1 : answers.step2);

const clients: { name: string; connect(url: string, sent: Sent[], ask: Ask): Promise<Peer> }[] = [
  {
    name: "the project's client (connectHttp)",
    async connect(url, sent, ask) {
      const client = createClient({
        info: { name: "scale-mrtr", version: "1.0.0" },
        handlers: { elicit: async (params) => ({ action: "accept", content: await ask(params.message) }) },
      });
      await client.connect(await connectHttp(url, { fetch: recordingFetch(sent) }));
      expect(client.protocolVersion).toBe(V);
      return {
        call: async (tool) => {
          const result = await client.callTool({ name: tool, arguments: {} });
          return (result.content as { text: string }[]).map((c) => c.text).join("");
        },
        close: () => client.close(),
      };
    },
  },
  {
    name: "the official SDK v2 client (pinned to 2026-07-28)",
    async connect(url, sent, ask) {
      const client = new ClientV2(
        { name: "sdk-v2-scale", version: "1.0.0" },
        { capabilities: { elicitation: {} }, versionNegotiation: { mode: { pin: V } } },
      );
      client.setRequestHandler("elicitation/create", async (request) => ({
        action: "accept",
        content: await ask((request.params as { message: string }).message),
      }));
      await client.connect(new StreamableHTTPClientTransport(new URL(url), { fetch: recordingFetch(sent) }));
      expect(client.getProtocolEra()).toBe("modern");
      expect(client.getNegotiatedProtocolVersion()).toBe(V);
      return {
        call: async (tool) => {
          const result = await client.callTool({ name: tool, arguments: {} });
          return (result.content as { text: string }[]).map((c) => c.text).join("");
        },
        close: () => client.close(),
      };
    },
  },
];

/** The instance named in "step1 asked on b". */
const instanceIn = (message: string) => /asked on ([a-z])$/.exec(message)?.[1];
const keyIdOf = (state: string) => state.slice(0, state.indexOf("."));

describe.skipIf(withoutRedis || withoutHaproxy)(
  "2026-07-28 MRTR rounds across instances behind haproxy",
  () => {
    let bed: ScaleBed;
    let redis: OwnedRedisConnection;
    beforeAll(async () => {
      bed = await startScaleBed({ instances: 3 });
      redis = await connectRedis(bed.redis.url, { log: () => {} });
    });
    afterAll(async () => {
      await redis?.close();
      await bed?.close();
    });

    describe.each(clients)("$name", (peerKind) => {
      it("each round's requestState is sealed on one instance and opened on another", async () => {
        const sent: Sent[] = [];
        const asked: string[] = [];
        const peer = await peerKind.connect(bed.url, sent, async (message) => {
          asked.push(message);
          return contentFor(message);
        });
        try {
          const text = await peer.call("ask");
          expect(text).toMatch(/^Ada likes green, answered on [abc]$/);
          const calls = sent.filter((s) => s.method === "tools/call");
          // Three rounds: the first without state, each retry with the state the round before sealed.
          expect(calls).toHaveLength(3);
          expect(calls[0]!.requestState).toBeUndefined();
          expect(calls[1]!.requestState).toEqual(expect.any(String));
          expect(calls[2]!.requestState).toEqual(expect.any(String));
          // Who sealed and who opened each state, in the instances' own words (the tool names itself).
          const sealers = asked.map(instanceIn);
          const finisher = /answered on ([a-z])$/.exec(text)![1];
          expect(sealers).toEqual([calls[0]!.servedBy, calls[1]!.servedBy]);
          expect(finisher).toBe(calls[2]!.servedBy);
          expect(sealers[0]).not.toBe(sealers[1]); // round 1's state opened on another instance
          expect(sealers[1]).not.toBe(finisher); // and round 2's
        } finally {
          await peer.close();
        }
      });

      it("a key rotation between two rounds of one call does not break it", async () => {
        const keyring = new RedisStateKeyring(redis, { prefix: bed.prefix, cacheMs: bed.keyCacheMs });
        const sent: Sent[] = [];
        let rotated: string | undefined;
        const peer = await peerKind.connect(bed.url, sent, async (message) => {
          if (message.startsWith("step1")) {
            // The old key keeps opening for a minute; the new one seals once every instance has read it.
            rotated = await keyring.rotate(60_000);
            await new Promise((resolve) => setTimeout(resolve, bed.keyCacheMs + 200));
          }
          return contentFor(message);
        });
        try {
          expect(await peer.call("ask")).toMatch(/^Ada likes green, answered on [abc]$/);
          const [, second, third] = sent.filter((s) => s.method === "tools/call");
          // Round 1 was sealed before the rotation and opened after it; round 2 was sealed with the new key.
          expect(keyIdOf(second!.requestState!)).not.toBe(rotated);
          expect(keyIdOf(third!.requestState!)).toBe(rotated);
          expect(second!.servedBy).not.toBe(third!.servedBy);
        } finally {
          await peer.close();
        }
      });
    });

    it("a rotation that retires the old key at once breaks the round in flight (why rotate keeps it)", async () => {
      const keyring = new RedisStateKeyring(redis, { prefix: bed.prefix, cacheMs: bed.keyCacheMs });
      const peer = await clients[0]!.connect(bed.url, [], async (message) => {
        if (message.startsWith("step1")) {
          await keyring.rotate(0);
          await new Promise((resolve) => setTimeout(resolve, bed.keyCacheMs + 200));
        }
        return contentFor(message);
      });
      try {
        await expect(peer.call("ask")).rejects.toThrow(/sealed with a key this server does not have/);
      } finally {
        await peer.close();
      }
    });
  },
);

describe.skipIf(withoutRedis || withoutHaproxy)(
  "without a shared keyring (each instance its own random key)",
  () => {
    let bed: ScaleBed;
    beforeAll(async () => {
      bed = await startScaleBed({ instances: 3, sharedKeys: false });
    });
    afterAll(async () => {
      await bed?.close();
    });

    it("a state sealed on one instance is refused on the next", async () => {
      const peer = await clients[0]!.connect(bed.url, [], async (message) => contentFor(message));
      try {
        await expect(peer.call("ask")).rejects.toThrow(/requestState integrity check failed/);
      } finally {
        await peer.close();
      }
    });
  },
);
