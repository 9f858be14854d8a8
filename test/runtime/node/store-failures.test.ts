/**
 * A store that fails while a request needs it: the answer is 503 with Retry-After, never a 200 whose
 * result cannot follow; no session is kept, no requestState consumed; the same request succeeds once the
 * store answers again. Over serveHttp, with the in-memory stores behind a switch that makes them fail.
 */

import { afterEach, describe, expect, it } from "vitest";
import { handlers, info } from "../../../examples/everything-server/handlers.js";
import { createServer } from "../../../generated/2026-07-28/index.js";
import { type EventStore, InMemoryEventStore } from "../../../runtime/http/event-store.js";
import { HttpError } from "../../../runtime/http/http-error.js";
import { InMemoryStateKeyring, type StateKeyring } from "../../../runtime/mcp/state-keyring.js";
import { InMemoryUsedStateStore } from "../../../runtime/mcp/used-states.js";
import { type HttpServerHandle, type ServeHttpOptions, serveHttp } from "../../../runtime/node/http.js";
import { featureServer } from "../../fixtures/http/feature-server.js";
import { initializeBody, messagesOf, POST_HEADERS, readSse } from "../../fixtures/http/helpers.js";

const handles: HttpServerHandle[] = [];
afterEach(async () => {
  await Promise.all(handles.splice(0).map((h) => h.close({ timeoutMs: 100 })));
});

/** What a shared store throws while its backend is down: a 503 with Retry-After (as RedisUnavailable). */
const unavailable = () =>
  new HttpError(503, "Service Unavailable: the store is unreachable, retry later", { "retry-after": "2" });

/** The in-memory event store answering later (as a networked one does), failing while `down`. */
class SwitchedEventStore implements EventStore {
  readonly #inner = new InMemoryEventStore();
  down = false;
  append(streamId: string, message: Parameters<EventStore["append"]>[1]): Promise<string> {
    if (this.down) return Promise.reject(unavailable());
    return Promise.resolve(this.#inner.append(streamId, message));
  }
  replayAfter(...args: Parameters<EventStore["replayAfter"]>) {
    return this.#inner.replayAfter(...args);
  }
  deleteStream(streamId: string) {
    this.#inner.deleteStream(streamId);
  }
}

async function serve(version: string, options: ServeHttpOptions) {
  const errors: unknown[] = [];
  const server = await featureServer(version, (e) => errors.push(e));
  const handle = await serveHttp(server, { port: 0, ...options });
  handles.push(handle);
  return { handle, errors, url: `http://127.0.0.1:${handle.port}/mcp` };
}

const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(url, { method: "POST", headers: { ...POST_HEADERS, ...headers }, body: JSON.stringify(body) });

describe("an event store that fails (2025-11-25, stateful SSE)", () => {
  it("initialize: 503 + Retry-After, no session kept; after recovery a session opens", async () => {
    const store = new SwitchedEventStore();
    const { handle, url } = await serve("2025-11-25", { eventStore: store, primingEvents: true });
    store.down = true;
    const refused = await post(url, initializeBody());
    expect(refused.status).toBe(503);
    expect(refused.headers.get("retry-after")).toBe("2");
    expect(refused.headers.get("mcp-session-id")).toBeNull();
    expect(refused.headers.get("content-type")).toContain("application/json");
    expect(JSON.parse(await refused.text())).toMatchObject({ error: { message: /unreachable/ } });
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(handle.handler.sessionCount).toBe(0);

    store.down = false;
    const opened = await post(url, initializeBody());
    expect(opened.status).toBe(200);
    expect(opened.headers.get("mcp-session-id")).toBeTruthy();
    const events = (await readSse(opened.body!, (e) => e.data !== "")).events;
    expect(events[0]).toMatchObject({ data: "" }); // the priming event, stored before the 200
    expect(messagesOf(events)).toEqual([expect.objectContaining({ id: 0, result: expect.anything() })]);
    expect(handle.handler.sessionCount).toBe(1);
  });

  it("initialize unprimed (2025-03-26, or by default): the 200 waits for the stored result; a failure is 503, no session", async () => {
    for (const [version, options] of [
      ["2025-03-26", {}],
      ["2025-11-25", {}],
    ] as const) {
      const store = new SwitchedEventStore();
      const { handle, url } = await serve(version, { eventStore: store, ...options });
      store.down = true;
      const refused = await post(url, initializeBody(version));
      expect([version, refused.status, refused.headers.get("retry-after")]).toEqual([version, 503, "2"]);
      expect(refused.headers.get("mcp-session-id")).toBeNull();
      expect(await refused.json()).toMatchObject({ error: { message: /unreachable/ } });
      await new Promise((resolve) => setTimeout(resolve, 10));
      expect(handle.handler.sessionCount).toBe(0);

      store.down = false;
      const opened = await post(url, initializeBody(version));
      expect(opened.status).toBe(200);
      const type = opened.headers.get("content-type") ?? "";
      const answer = type.includes("event-stream")
        ? messagesOf((await readSse(opened.body!)).events)[0]
        : await opened.json();
      expect(answer).toMatchObject({ id: 0, result: { protocolVersion: version } });
      expect(handle.handler.sessionCount).toBe(1);
    }
  });

  it("jsonResponse: a call whose progress cannot be stored is answered 503 + Retry-After, not left waiting", async () => {
    const store = new SwitchedEventStore();
    const { url } = await serve("2025-11-25", { eventStore: store, jsonResponse: true });
    const init = await post(url, initializeBody());
    expect(init.status).toBe(200); // a JSON answer: nothing to store
    const headers = {
      "mcp-session-id": init.headers.get("mcp-session-id")!,
      "mcp-protocol-version": "2025-11-25",
    };
    store.down = true;
    const call = {
      jsonrpc: "2.0",
      id: 3,
      method: "tools/call",
      params: { name: "progress", arguments: { steps: 2 }, _meta: { progressToken: "p" } },
    };
    const refused = await fetch(url, {
      method: "POST",
      headers: { ...POST_HEADERS, ...headers },
      body: JSON.stringify(call),
      signal: AbortSignal.timeout(3_000),
    });
    expect([refused.status, refused.headers.get("retry-after")]).toEqual([503, "2"]);
    store.down = false;
    const answered = await post(url, call, headers);
    const messages = messagesOf((await readSse(answered.body!)).events);
    expect(messages.at(-1)).toMatchObject({ id: 3, result: { content: [{ text: "done in 2 steps" }] } });
  });

  it("tools/call: 503 + Retry-After and the tool not run; the same call succeeds after recovery", async () => {
    const store = new SwitchedEventStore();
    const { url } = await serve("2025-11-25", { eventStore: store });
    const init = await post(url, initializeBody());
    const sessionId = init.headers.get("mcp-session-id")!;
    await readSse(init.body!);
    const headers = { "mcp-session-id": sessionId, "mcp-protocol-version": "2025-11-25" };
    expect((await post(url, { jsonrpc: "2.0", method: "notifications/initialized" }, headers)).status).toBe(
      202,
    );

    store.down = true;
    const call = { jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "whoami", arguments: {} } };
    const refused = await post(url, call, headers);
    expect(refused.status).toBe(503);
    expect(refused.headers.get("retry-after")).toBe("2");
    expect(await refused.json()).toMatchObject({ error: { message: /unreachable/ } });

    store.down = false;
    const answered = await post(url, call, headers);
    expect(answered.status).toBe(200);
    const messages = messagesOf((await readSse(answered.body!)).events);
    expect(messages.at(-1)).toMatchObject({ id: 7, result: { content: [{ type: "text" }] } });
    // The refused call never reached the tool: the log of the one that ran is the only one.
    expect(messages.filter((m) => m.method === "notifications/message")).toHaveLength(1);
  });
});

/** The in-memory used-state store, failing while `down`. */
class SwitchedUsedStates extends InMemoryUsedStateStore {
  down = false;
  override claim(id: string, expires: number): boolean {
    if (this.down) throw unavailable();
    return super.claim(id, expires);
  }
}

/** An in-memory keyring that fails while `down`, as a keyring reading a shared store does. */
class SwitchedKeyring implements StateKeyring {
  down = false;
  /** When set: this many more reads are answered, then the keyring is down (a store failing mid-request). */
  readsLeft: number | undefined;
  readonly #inner = new InMemoryStateKeyring([{ id: "k1", secret: "a secret of thirty-two bytes!!!!" }]);
  keys() {
    if (this.readsLeft !== undefined && this.readsLeft-- <= 0) this.down = true;
    return this.down ? Promise.reject(unavailable()) : Promise.resolve(this.#inner.keys());
  }
}

const V = "2026-07-28";
const META = {
  "io.modelcontextprotocol/protocolVersion": V,
  "io.modelcontextprotocol/clientCapabilities": { elicitation: {}, sampling: {} },
  "io.modelcontextprotocol/clientInfo": { name: "raw-2026", version: "1" },
};
const TOOL = "test_input_required_result_multi_round";

/** One stateless-era tools/call of the multi-round tool: status, Retry-After and the JSON answer. */
async function call2026(url: string, params: Record<string, unknown> = {}) {
  const body = {
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { _meta: META, name: TOOL, arguments: {}, ...params },
  };
  const headers = { "mcp-protocol-version": V, "mcp-method": "tools/call", "mcp-name": TOOL };
  const response = await post(url, body, headers);
  const answer = (await response.json()) as {
    result?: { resultType: string; requestState: string; inputRequests: Record<string, unknown> };
    error?: { code: number; message: string; data?: unknown };
  };
  return { status: response.status, retryAfter: response.headers.get("retry-after"), ...answer };
}

async function serve2026(usedStates: SwitchedUsedStates, keyring: SwitchedKeyring) {
  const errors: unknown[] = [];
  const server = createServer({
    info,
    handlers,
    capabilities: { tools: {} },
    usedStateStore: usedStates,
    stateKeys: keyring,
    onError: (e) => errors.push(e),
  });
  const handle = await serveHttp(server, { port: 0 });
  handles.push(handle);
  return { errors, url: `http://127.0.0.1:${handle.port}/mcp` };
}

describe("stores that fail in the stateless era (2026-07-28 MRTR)", () => {
  it("a retry while the used-state store fails: 503 + Retry-After, the state not consumed; the same retry succeeds later", async () => {
    const usedStates = new SwitchedUsedStates();
    const { url, errors } = await serve2026(usedStates, new SwitchedKeyring());
    const first = await call2026(url);
    expect(first.result?.resultType).toBe("input_required");
    const retry = {
      inputResponses: { step1: { action: "accept", content: { name: "Alice" } } },
      requestState: first.result!.requestState,
    };
    usedStates.down = true;
    const refused = await call2026(url, retry);
    expect([refused.status, refused.retryAfter, refused.error?.code]).toEqual([503, "2", -32050]);
    expect(refused.error?.message).toMatch(/the store is unreachable, retry later/);
    expect(usedStates.size).toBe(0);
    expect(errors).toEqual([expect.objectContaining({ status: 503 })]);

    usedStates.down = false;
    const retried = await call2026(url, retry);
    expect(retried.status).toBe(200);
    expect(retried.result?.resultType).toBe("input_required");
    expect(Object.keys(retried.result!.inputRequests)).toEqual(["step2"]);
    // Consumed now, by the retry that was served: once only.
    expect((await call2026(url, retry)).error?.message).toMatch(/already used/);
  });

  it("a keyring that fails: sealing and opening answer 503 + Retry-After; both work after recovery", async () => {
    const keyring = new SwitchedKeyring();
    const usedStates = new SwitchedUsedStates();
    const { url } = await serve2026(usedStates, keyring);
    keyring.down = true;
    const unsealed = await call2026(url);
    expect([unsealed.status, unsealed.retryAfter, unsealed.error?.code]).toEqual([503, "2", -32050]);

    keyring.down = false;
    const first = await call2026(url);
    expect(first.result?.resultType).toBe("input_required");
    const retry = {
      inputResponses: { step1: { action: "accept", content: { name: "Alice" } } },
      requestState: first.result!.requestState,
    };
    keyring.down = true;
    const unopened = await call2026(url, retry);
    expect([unopened.status, unopened.retryAfter, unopened.error?.code]).toEqual([503, "2", -32050]);
    expect(usedStates.size).toBe(0);

    keyring.down = false;
    expect((await call2026(url, retry)).result?.resultType).toBe("input_required");
  });

  it("a keyring that fails once a retry's state is opened: the retry is still answered, its state used once", async () => {
    const keyring = new SwitchedKeyring();
    const usedStates = new SwitchedUsedStates();
    const { url } = await serve2026(usedStates, keyring);
    const first = await call2026(url);
    expect(first.result?.resultType).toBe("input_required");
    const retry = {
      inputResponses: { step1: { action: "accept", content: { name: "Alice" } } },
      requestState: first.result!.requestState,
    };
    // The retry's state opens (one read of the keys), then the keyring goes down while its handler runs:
    // the next round is sealed with the key read when the state was opened, not left unanswerable.
    keyring.readsLeft = 1;
    const retried = await call2026(url, retry);
    expect([retried.status, retried.result?.resultType]).toEqual([200, "input_required"]);
    expect(Object.keys(retried.result!.inputRequests)).toEqual(["step2"]);
    expect(usedStates.size).toBe(1);

    keyring.readsLeft = undefined;
    keyring.down = false;
    expect((await call2026(url, retry)).error?.message).toMatch(/already used/);
  });
});
