import { describe, expect, it } from "vitest";
import { HttpError } from "../../../runtime/http/http-error.js";
import { type Expirable, newSessionId, SessionRegistry } from "../../../runtime/http/session-registry.js";

class FakeSession implements Expirable {
  lastActive = 0;
  linkPrev?: Expirable;
  linkNext?: Expirable;
  closed = 0;
  constructor(
    readonly id: string,
    public idle = true,
  ) {}
  async close(): Promise<void> {
    this.closed++;
  }
}

function registry(max = 3, ttlMs = 1000) {
  const clock = { now: 0 };
  const errors: unknown[] = [];
  const sessions = new SessionRegistry<FakeSession>({ ttlMs, max, now: () => clock.now }, (e) =>
    errors.push(e),
  );
  return { sessions, clock, errors };
}

describe("SessionRegistry", () => {
  it("evicts the least recently used idle session when full; a touch makes a session recent", async () => {
    const { sessions } = registry(3);
    const [a, b, c] = ["a", "b", "c"].map((id) => new FakeSession(id));
    for (const s of [a!, b!, c!]) {
      sessions.reserve();
      sessions.add(s);
    }
    sessions.touch(a!); // b is now the oldest
    sessions.reserve();
    expect(b!.closed).toBe(1);
    expect(sessions.get("b")).toBeUndefined();
    expect(sessions.size).toBe(2);
    expect(a!.closed + c!.closed).toBe(0);
  });

  it("skips busy sessions when evicting, and answers 503 with Retry-After when none is idle", () => {
    const { sessions } = registry(2);
    const busy = new FakeSession("busy", false);
    const idle = new FakeSession("idle", true);
    sessions.add(busy);
    sessions.add(idle);
    sessions.touch(idle);
    sessions.reserve(); // the oldest is busy: the idle one goes
    expect(idle.closed).toBe(1);
    expect(busy.closed).toBe(0);
    sessions.add(new FakeSession("busy2", false));
    let thrown: unknown;
    try {
      sessions.reserve();
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(HttpError);
    expect((thrown as HttpError).status).toBe(503);
    expect((thrown as HttpError).headers).toEqual({ "retry-after": "5" });
    expect(sessions.size).toBe(2);
  });

  it("sweep closes idle sessions unused past the TTL, and keeps recent or busy ones", () => {
    const { sessions, clock } = registry(10, 1000);
    const old = new FakeSession("old");
    const oldBusy = new FakeSession("oldBusy", false);
    sessions.add(old);
    sessions.add(oldBusy);
    clock.now = 900;
    const recent = new FakeSession("recent");
    sessions.add(recent);
    clock.now = 1500;
    sessions.sweep();
    expect(old.closed).toBe(1);
    expect(oldBusy.closed).toBe(0);
    expect(recent.closed).toBe(0);
    expect(sessions.values().map((s) => s.id)).toEqual(["oldBusy", "recent"]);
    sessions.delete(oldBusy);
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
