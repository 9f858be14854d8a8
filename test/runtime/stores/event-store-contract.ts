/**
 * What every EventStore must do, as a test suite any implementation runs: `eventStoreContract(name,
 * make)` with a factory of empty stores.
 */
import { describe, expect, it } from "vitest";
import type { EventStore } from "../../../runtime/http/event-store.js";
import type { JsonRpcMessage } from "../../../runtime/jsonrpc/messages.js";

const note = (n: number): JsonRpcMessage => ({
  jsonrpc: "2.0",
  method: "notifications/progress",
  params: { progressToken: "t", progress: n },
});

/** What `replayAfter` sends, in order, and what it resolves to. */
async function replay(store: EventStore, lastEventId: string) {
  const sent: { id: string; message: JsonRpcMessage }[] = [];
  const stream = await store.replayAfter(lastEventId, async (id, message) => {
    sent.push({ id, message });
  });
  return { stream, sent };
}

export function eventStoreContract(name: string, make: () => EventStore | Promise<EventStore>): void {
  describe(`EventStore contract: ${name}`, () => {
    it("event ids are unique across streams; a replay sends what followed, in order, on that stream only", async () => {
      const store = await make();
      const a1 = await store.append("s1/a", note(1));
      const b1 = await store.append("s1/b", note(10));
      const a2 = await store.append("s1/a", note(2));
      const a3 = await store.append("s1/a", note(3));
      await store.append("s1/b", note(11));
      expect(new Set([a1, b1, a2, a3]).size).toBe(4);
      const { stream, sent } = await replay(store, a1);
      expect(stream).toBe("s1/a");
      expect(sent).toEqual([
        { id: a2, message: note(2) },
        { id: a3, message: note(3) },
      ]);
      // After the last event: nothing to send, the stream still known.
      expect(await replay(store, a3)).toEqual({ stream: "s1/a", sent: [] });
    });

    it("a priming event holds a place and is never replayed", async () => {
      const store = await make();
      const primed = await store.append("s2/a", {});
      const first = await store.append("s2/a", note(1));
      const { stream, sent } = await replay(store, primed);
      expect(stream).toBe("s2/a");
      expect(sent).toEqual([{ id: first, message: note(1) }]);
    });

    it("an unknown event id resolves undefined and sends nothing", async () => {
      const store = await make();
      await store.append("s3/a", note(1));
      expect(await replay(store, "never-issued")).toEqual({ stream: undefined, sent: [] });
    });

    it("a deleted stream can no longer be resumed", async () => {
      const store = await make();
      const id = await store.append("s4/a", note(1));
      await store.append("s4/a", note(2));
      if (!store.deleteStream) return;
      await store.deleteStream("s4/a");
      expect((await replay(store, id)).stream).toBeUndefined();
    });

    it("reports whether it can serve, if it reports at all", async () => {
      const store = await make();
      if (store.healthy) expect(await store.healthy()).toBe(true);
    });
  });
}
