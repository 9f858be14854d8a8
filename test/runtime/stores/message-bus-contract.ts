/**
 * What every MessageBus must do, as a test suite any implementation runs: `messageBusContract(name,
 * make)` with a factory of buses. `make` may return two handles on one bus (two instances): what one
 * publishes, the other's subscribers get. Delivery may be later than `publish`: the tests wait for it.
 */
import { describe, expect, it } from "vitest";
import type { MessageBus } from "../../../runtime/mcp/message-bus.js";

export interface BusPair {
  a: MessageBus;
  b: MessageBus;
}

/** Waits until `check` holds (a bus may deliver later), at most `ms`. */
async function until(check: () => boolean, ms = 2000): Promise<void> {
  const end = Date.now() + ms;
  while (!check() && Date.now() < end) await new Promise((r) => setTimeout(r, 5));
}

export function messageBusContract(name: string, make: () => BusPair | Promise<BusPair>): void {
  describe(`MessageBus contract: ${name}`, () => {
    it("delivers a message to every subscriber of its channel, in either instance, and to no other channel", async () => {
      const { a, b } = await make();
      const gotA: unknown[] = [];
      const gotB: unknown[] = [];
      const other: unknown[] = [];
      await a.subscribe("fanout:s", (m) => gotA.push(m));
      await b.subscribe("fanout:s", (m) => gotB.push(m));
      await b.subscribe("fanout:other", (m) => other.push(m));
      const message = { method: "notifications/tools/list_changed", n: 1 };
      await a.publish("fanout:s", message);
      await until(() => gotA.length > 0 && gotB.length > 0);
      expect(gotA).toEqual([message]);
      expect(gotB).toEqual([message]);
      expect(other).toEqual([]);
    });

    it("keeps the order of one publisher's messages on a channel", async () => {
      const { a, b } = await make();
      const got: unknown[] = [];
      await b.subscribe("session:x", (m) => got.push(m));
      for (let i = 0; i < 20; i++) await a.publish("session:x", { i });
      await until(() => got.length === 20);
      expect(got).toEqual(Array.from({ length: 20 }, (_, i) => ({ i })));
    });

    it("stops delivering once unsubscribed; other subscribers of the channel keep theirs", async () => {
      const { a, b } = await make();
      const first: unknown[] = [];
      const second: unknown[] = [];
      const stop = await b.subscribe("request:x:1", (m) => first.push(m));
      await b.subscribe("request:x:1", (m) => second.push(m));
      await a.publish("request:x:1", 1);
      await until(() => first.length === 1 && second.length === 1);
      stop();
      stop(); // twice: harmless
      await a.publish("request:x:1", 2);
      await until(() => second.length === 2);
      expect(second).toEqual([1, 2]);
      expect(first).toEqual([1]);
    });

    it("a publish with no subscriber is taken and dropped", async () => {
      const { a } = await make();
      const reached = await a.publish("session:nobody", { x: 1 });
      if (reached !== undefined) expect(reached).toBe(0);
    });

    it("reports whether it can serve, if it reports at all", async () => {
      const { a } = await make();
      if (a.healthy) expect(await a.healthy()).toBe(true);
    });
  });
}
