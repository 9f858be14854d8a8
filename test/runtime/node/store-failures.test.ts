/**
 * A store that fails while a request needs it: the answer is 503 with Retry-After, never a 200 whose
 * result cannot follow; no session is kept, no requestState consumed; the same request succeeds once the
 * store answers again. Over serveHttp, with the in-memory stores behind a switch that makes them fail.
 */

import { afterEach, describe, expect, it } from "vitest";
import { InMemoryEventStore } from "../../../runtime/http/event-store.js";
import { HttpError } from "../../../runtime/http/http-error.js";
import type { JsonRpcMessage } from "../../../runtime/jsonrpc/messages.js";
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
class SwitchedEventStore extends InMemoryEventStore {
  down = false;
  override append(streamId: string, message: Parameters<InMemoryEventStore["append"]>[1]): Promise<string> {
    if (this.down) return Promise.reject(unavailable());
    return Promise.resolve(super.append(streamId, message));
  }
}

async function serve(version: string, options: ServeHttpOptions, serverOptions = {}) {
  const errors: unknown[] = [];
  const server = await featureServer(version, (e) => errors.push(e));
  Object.assign(server, serverOptions);
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
    const messages = messagesOf((await readSse(answered.body!)).events) as JsonRpcMessage[];
    expect(messages.at(-1)).toMatchObject({ id: 7, result: { content: [{ type: "text" }] } });
    // The refused call never reached the tool: the log of the one that ran is the only one.
    expect(messages.filter((m) => "method" in m && m.method === "notifications/message")).toHaveLength(1);
  });
});
