/**
 * The TaskRunner on the in-memory task store: a cancel made in the store reaches the running handler
 * through the lease renewal even when the bus carries nothing; a lease another instance settled (it
 * lapsed) aborts the handler and its late result is dropped; closing aborts what still runs and records
 * it failed, never leaving a task working.
 */
import { describe, expect, it } from "vitest";
import type { MessageBus } from "../../../runtime/mcp/message-bus.js";
import { InMemoryMessageBus } from "../../../runtime/mcp/message-bus.js";
import { InMemoryTaskStore, LEASE_LAPSED, type TaskRecord } from "../../../runtime/mcp/task-store.js";
import { SERVER_CLOSED, TaskRunner } from "../../../runtime/server/task-runner.js";

/** A bus that loses every message: only the store tells the runner anything. */
const deafBus: MessageBus = { publish: () => 0, subscribe: () => () => {} };

const aborted = (signal: AbortSignal) =>
  new Promise<unknown>((resolve) => signal.addEventListener("abort", () => resolve(signal.reason)));

async function until<T>(read: () => T | undefined, ms = 2000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function start(store: InMemoryTaskStore, runner: TaskRunner, leaseMs: number): TaskRecord {
  const created = store.create({
    owner: "o",
    method: "tools/call",
    ttlMs: 60_000,
    holder: runner.holder,
    leaseMs,
  });
  if (!created.ok) throw new Error("not created");
  return created.task;
}

describe("TaskRunner", () => {
  it("learns of a cancel from its lease renewal when the bus loses the message", async () => {
    const store = new InMemoryTaskStore();
    const runner = new TaskRunner({ store, bus: deafBus, leaseMs: 300, report: () => {} });
    const task = start(store, runner, 300);
    let reason: unknown;
    runner.start(task, async (running) => {
      reason = await aborted(running.signal);
      return { status: "completed", result: { content: [] } };
    });
    expect(store.cancel(task.taskId, "o").ok).toBe(true);
    expect(await until(() => reason)).toBe("cancelled");
    await until(() => (runner.size === 0 ? true : undefined));
    // The late result does not undo the cancel.
    expect(store.get(task.taskId, "o")?.status).toBe("cancelled");
  });

  it("aborts the handler once its lease lapsed and another read settled the task failed", async () => {
    let now = Date.now();
    const store = new InMemoryTaskStore({ now: () => now });
    const runner = new TaskRunner({ store, bus: new InMemoryMessageBus(), leaseMs: 300, report: () => {} });
    const task = start(store, runner, 300);
    let reason: unknown;
    runner.start(task, async (running) => {
      reason = await aborted(running.signal);
      return { status: "completed", result: { content: [] } };
    });
    // This instance stalled past its lease: the next read anywhere settles the task failed.
    now += 10_000;
    expect(store.get(task.taskId, "o")).toMatchObject({ status: "failed", error: LEASE_LAPSED });
    expect(await until(() => reason)).toBe("lease-lost");
    await until(() => (runner.size === 0 ? true : undefined));
    expect(store.get(task.taskId, "o")?.status).toBe("failed");
  });

  it("on close, waits for running tasks up to the timeout, then records them failed", async () => {
    const store = new InMemoryTaskStore();
    const runner = new TaskRunner({
      store,
      bus: new InMemoryMessageBus(),
      leaseMs: 15_000,
      report: () => {},
    });
    const quick = start(store, runner, 15_000);
    const stuck = start(store, runner, 15_000);
    runner.start(quick, async () => {
      await new Promise((resolve) => setTimeout(resolve, 50));
      return { status: "completed", result: { content: [{ type: "text", text: "quick" }] } };
    });
    let stuckSaw: unknown;
    runner.start(stuck, async (running) => {
      stuckSaw = await aborted(running.signal);
      // Ignores its abort for a while, then answers: too late.
      await new Promise((resolve) => setTimeout(resolve, 300));
      return { status: "completed", result: { content: [] } };
    });
    await runner.close(200);
    expect(store.get(quick.taskId, "o")?.status).toBe("completed");
    expect(stuckSaw).toBe("closing");
    expect(store.get(stuck.taskId, "o")).toMatchObject({ status: "failed", error: SERVER_CLOSED });
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(store.get(stuck.taskId, "o")?.status).toBe("failed");
  });
});
