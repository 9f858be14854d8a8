/**
 * The in-memory task store against the shared contract (test/fixtures/stores/task-store-contract.ts, which
 * the Redis-backed store runs too), and what only it does: copies handed out, a sweep at the bound.
 */
import { describe, expect, it } from "vitest";
import { InMemoryTaskStore } from "../../../runtime/mcp/task-store.js";
import { init, taskStoreContract } from "../../fixtures/stores/task-store-contract.js";

taskStoreContract("in memory", (limits) => {
  const store = new InMemoryTaskStore(limits);
  return { a: store, b: store };
});

describe("InMemoryTaskStore", () => {
  it("hands out copies: changing a record read does not change the task", () => {
    const store = new InMemoryTaskStore();
    const created = store.create(init("alice"));
    if (!created.ok) throw new Error("refused");
    const read = store.get(created.task.taskId, "alice")! as { status: string };
    read.status = "completed";
    expect(store.get(created.task.taskId, "alice")!.status).toBe("working");
  });

  it("at a bound, sweeps every expired task, not only the owner's", () => {
    const clock = { now: 1000 };
    const store = new InMemoryTaskStore({ maxTasks: 3, now: () => clock.now });
    store.create(init("a", { ttlMs: 10 }));
    store.create(init("b", { ttlMs: 10 }));
    store.create(init("c"));
    expect(store.size).toBe(3);
    clock.now = 1010;
    expect(store.create(init("d")).ok).toBe(true);
    expect(store.size).toBe(2);
  });
});
