/**
 * What every SessionStore must do, as a test suite any implementation runs: `sessionStoreContract(name,
 * make)` with a factory of empty stores (in memory here; a Redis-backed store in its own package).
 */
import { describe, expect, it } from "vitest";
import type { SessionRecord, SessionStore } from "../../../runtime/http/session-store.js";

/** A plain record, as a store may get it from any instance. */
export function record(id: string, over: Partial<SessionRecord> = {}): SessionRecord {
  return { id, established: false, lastActive: 0, ...over };
}

export function sessionStoreContract(name: string, make: () => SessionStore | Promise<SessionStore>): void {
  const all = () => true;
  describe(`SessionStore contract: ${name}`, () => {
    it("keeps a record by id until it is deleted; size counts them", async () => {
      const store = await make();
      expect(await store.get("a")).toBeUndefined();
      const a = record("a", {
        owner: "alice",
        client: "10.0.0.1",
        lastActive: 5,
        protocolVersion: "2025-11-25",
      });
      await store.put(a);
      await store.put(record("b"));
      expect(await store.get("a")).toMatchObject({
        id: "a",
        owner: "alice",
        client: "10.0.0.1",
        lastActive: 5,
        established: false,
        protocolVersion: "2025-11-25",
      });
      expect(await store.size()).toBe(2);
      await store.delete("a");
      await store.delete("never-there"); // unknown ids are ignored
      expect(await store.get("a")).toBeUndefined();
      expect(await store.size()).toBe(1);
    });

    it("counts records per client, and forgets a client's count with its records", async () => {
      const store = await make();
      await store.put(record("a1", { client: "A" }));
      await store.put(record("a2", { client: "A" }));
      await store.put(record("b1", { client: "B" }));
      await store.put(record("n")); // uncounted
      expect(await store.countOf("A")).toBe(2);
      expect(await store.countOf("B")).toBe(1);
      expect(await store.countOf("C")).toBe(0);
      await store.delete("a1");
      await store.delete("a1"); // twice: counted once
      expect(await store.countOf("A")).toBe(1);
      // Replacing a record under its id does not count it twice.
      await store.put(record("a2", { client: "A", established: true }));
      expect(await store.countOf("A")).toBe(1);
      expect(await store.size()).toBe(3);
    });

    it("a touch stores lastActive and established, and makes the record the most recently active", async () => {
      const store = await make();
      const a = record("a", { lastActive: 1 });
      const b = record("b", { lastActive: 2 });
      await store.put(a);
      await store.put(b);
      expect((await store.oldestPending(undefined, all))?.id).toBe("a");
      a.lastActive = 3;
      await store.touch(a);
      expect((await store.oldestPending(undefined, all))?.id).toBe("b");
      b.established = true;
      b.lastActive = 4;
      await store.touch(b);
      expect(await store.get("b")).toMatchObject({ established: true, lastActive: 4 });
      // b is established now: the only pending one left is a.
      expect((await store.oldestPending(undefined, all))?.id).toBe("a");
    });

    it("oldestPending: least recently active first, pending only, of the client when given, as evictable says", async () => {
      const store = await make();
      await store.put(record("e", { established: true, client: "A", lastActive: 1 }));
      await store.put(record("p1", { client: "A", lastActive: 2 }));
      await store.put(record("p2", { client: "B", lastActive: 3 }));
      await store.put(record("p3", { client: "A", lastActive: 4 }));
      expect((await store.oldestPending(undefined, all))?.id).toBe("p1");
      expect((await store.oldestPending("B", all))?.id).toBe("p2");
      expect((await store.oldestPending("A", (r) => r.id !== "p1"))?.id).toBe("p3");
      expect(await store.oldestPending("A", () => false)).toBeUndefined();
      expect(await store.oldestPending("C", all)).toBeUndefined();
    });

    it("due: established records past the cutoff, pending ones past the pending cutoff, oldest first", async () => {
      const store = await make();
      await store.put(record("old-established", { established: true, lastActive: 10 }));
      await store.put(record("old-pending", { lastActive: 20 }));
      await store.put(record("recent-established", { established: true, lastActive: 60 }));
      await store.put(record("recent-pending", { lastActive: 90 }));
      // Established ones active at or before 15 are due; pending ones at or before 70.
      const due = (await store.due(15, 70)).map((r) => r.id);
      expect(due).toEqual(["old-established", "old-pending"]);
      expect((await store.due(100, 100)).map((r) => r.id)).toEqual([
        "old-established",
        "old-pending",
        "recent-established",
        "recent-pending",
      ]);
      expect(await store.due(0, 0)).toEqual([]);
    });

    it("reports whether it can serve, if it reports at all", async () => {
      const store = await make();
      if (store.healthy) expect(await store.healthy()).toBe(true);
    });
  });
}
