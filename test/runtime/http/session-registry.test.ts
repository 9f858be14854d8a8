import { describe, expect, it } from "vitest";
import { HttpError } from "../../../runtime/http/http-error.js";
import { newSessionId, SessionRegistry } from "../../../runtime/http/session-registry.js";
import { FakeSession } from "./fake-session.js";

function registry(max = 3, ttlMs = 1000, pendingTtlMs = 100, maxPerClient = Number.POSITIVE_INFINITY) {
  const clock = { now: 0 };
  const errors: unknown[] = [];
  const sessions = new SessionRegistry<FakeSession>(
    { ttlMs, pendingTtlMs, max, maxPerClient, now: () => clock.now },
    (e) => errors.push(e),
  );
  return { sessions, clock, errors };
}

function refusal(f: () => void): HttpError {
  let thrown: unknown;
  try {
    f();
  } catch (e) {
    thrown = e;
  }
  expect(thrown).toBeInstanceOf(HttpError);
  return thrown as HttpError;
}

describe("SessionRegistry", () => {
  it("when full, the oldest pending idle session gives way; established ones never do (503 + Retry-After)", () => {
    const { sessions } = registry(3);
    const active = new FakeSession("active", true, true);
    const p1 = new FakeSession("p1", true, false);
    const p2 = new FakeSession("p2", true, false);
    for (const s of [active, p1, p2]) {
      sessions.reserve();
      sessions.add(s);
    }
    sessions.touch(p1); // p2 is now the oldest pending one; active is older than both and idle
    sessions.reserve();
    expect(p2.closed).toBe(1);
    expect(sessions.get("p2")).toBeUndefined();
    sessions.add(new FakeSession("p3", true, false));
    sessions.reserve();
    expect(p1.closed).toBe(1);
    sessions.add(new FakeSession("e2", true, true));
    sessions.reserve(); // p3, the last pending one, goes
    expect(sessions.values().map((x) => x.id)).toEqual(["active", "e2"]);
    const e3 = new FakeSession("e3", true, true);
    sessions.add(e3);
    // Full of established sessions, idle ones included: refused, nothing evicted.
    const refused = refusal(() => sessions.reserve());
    expect(refused.status).toBe(503);
    expect(refused.headers).toEqual({ "retry-after": "5" });
    // A pending session that is busy (its initialize still running) does not give way either.
    sessions.delete(e3);
    sessions.add(new FakeSession("busy-pending", false, false));
    expect(refusal(() => sessions.reserve()).status).toBe(503);
    expect(active.closed).toBe(0);
    expect(sessions.size).toBe(3);
  });

  it("per client: beyond maxPerClient its own oldest pending session gives way, else 429; other clients are unaffected", () => {
    const { sessions } = registry(100, 1000, 100, 2);
    const a1 = new FakeSession("a1", true, true, "A");
    const a2 = new FakeSession("a2", true, false, "A");
    for (const s of [a1, a2]) {
      sessions.reserve("A");
      sessions.add(s);
    }
    expect(sessions.countOf("A")).toBe(2);
    sessions.reserve("A"); // a2 is pending: it goes
    expect(a2.closed).toBe(1);
    expect(sessions.countOf("A")).toBe(1);
    sessions.add(new FakeSession("a3", true, true, "A"));
    const refused = refusal(() => sessions.reserve("A"));
    expect(refused.status).toBe(429);
    expect(refused.headers).toEqual({ "retry-after": "5" });
    sessions.reserve("B");
    sessions.add(new FakeSession("b1", true, true, "B"));
    sessions.reserve(); // uncounted
    expect(sessions.countOf("B")).toBe(1);
    sessions.delete(a1);
    expect(sessions.countOf("A")).toBe(1);
    sessions.reserve("A");
  });

  it("sweep: pending sessions go after pendingTtlMs, established ones after ttlMs, busy ones stay", () => {
    const { sessions, clock } = registry(10, 1000, 100);
    const pending = new FakeSession("pending", true, false);
    const established = new FakeSession("established", true, true);
    const busyPending = new FakeSession("busyPending", false, false);
    sessions.add(pending);
    sessions.add(established);
    sessions.add(busyPending);
    clock.now = 150;
    sessions.sweep();
    expect(pending.closed).toBe(1);
    expect(established.closed).toBe(0);
    expect(busyPending.closed).toBe(0);
    clock.now = 900;
    const recent = new FakeSession("recent");
    sessions.add(recent);
    clock.now = 1500;
    sessions.sweep();
    expect(established.closed).toBe(1);
    expect(recent.closed).toBe(0);
    expect(sessions.values().map((s) => s.id)).toEqual(["busyPending", "recent"]);
    sessions.delete(busyPending);
    sessions.delete(recent);
  });

  it("a touch of a session no longer held changes nothing; closeAll closes each once and reports failures", async () => {
    const { sessions, errors } = registry(10);
    const gone = new FakeSession("x");
    sessions.add(gone);
    sessions.delete(gone);
    sessions.touch(gone);
    expect(sessions.size).toBe(0);
    const failing = new FakeSession("f");
    failing.close = async () => {
      throw new Error("close failed");
    };
    const fine = new FakeSession("g");
    sessions.add(failing);
    sessions.add(fine);
    await sessions.closeAll();
    expect(fine.closed).toBe(1);
    expect(sessions.size).toBe(0);
    expect(errors.map(String)).toEqual(["Error: close failed"]);
  });
});

describe("newSessionId", () => {
  it("is 32 lower-case hex digits (visible ASCII), different every time", () => {
    const ids = new Set(Array.from({ length: 1000 }, newSessionId));
    expect(ids.size).toBe(1000);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{32}$/);
  });
});
