/**
 * Session expiry over Streamable HTTP: the SDK server forgets a session (its transport closes), our next
 * request gets 404, the transport clears the session id, fires onsessionexpired once and rejects with an
 * error saying so; a new initialize on the same transport then starts a new session.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as V from "../../../generated/2025-11-25/index.js";
import {
  HttpStatusError,
  SessionExpiredError,
  StreamableHttpClientTransport,
} from "../../../runtime/http-client/index.js";
import { type PeerServer, startStreamableServer } from "../../fixtures/http-client/sdk-servers.js";

let peer: PeerServer;
beforeAll(async () => {
  peer = await startStreamableServer();
});
afterAll(() => peer.close());

const initialize = (id: number) => ({
  jsonrpc: "2.0" as const,
  id,
  method: "initialize",
  params: {
    protocolVersion: "2025-11-25",
    capabilities: {},
    clientInfo: { name: "raw", version: "1.0.0" },
  },
});

describe("session expiry", () => {
  it("a 404 for our session fires onsessionexpired, rejects saying so, and the client starts a new session", async () => {
    const client = V.createClient({ info: { name: "expiring", version: "1.0.0" }, onError: () => {} });
    const transport = new StreamableHttpClientTransport(peer.url, { openStandaloneStream: false });
    await client.connect(transport);
    const expired: string[] = [];
    const reinitialize = transport.onsessionexpired;
    expect(reinitialize).toBeTypeOf("function"); // the client's own hook
    transport.onsessionexpired = () => {
      expired.push(String(transport.sessionId));
      reinitialize?.();
    };
    const sessionId = transport.sessionId!;
    expect(sessionId).toBeDefined();
    expect((await client.listTools()).tools).toHaveLength(3);

    await peer.sessions.get(sessionId)!.transport.close(); // the server forgets the session
    expect(peer.sessions.has(sessionId)).toBe(false);

    const error = await client.listTools().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(SessionExpiredError);
    expect((error as Error).message).toMatch(new RegExp(`session ${sessionId} expired`));
    expect((error as SessionExpiredError).status).toBe(404);
    // The hook ran after the id was cleared, so the new initialize goes out without it.
    expect(expired).toEqual(["undefined"]);

    await expect.poll(() => transport.sessionId).toBeDefined();
    expect(transport.sessionId).not.toBe(sessionId);
    expect((await client.listTools()).tools).toHaveLength(3);
    await client.close();
  });

  it("after expiry, initialize on the same transport starts a new session and reopens the GET stream", async () => {
    const received: unknown[] = [];
    const transport = new StreamableHttpClientTransport(peer.url);
    transport.onmessage = (m) => received.push(m);
    let expired = 0;
    transport.onsessionexpired = () => {
      expired++;
    };
    await transport.start();
    await transport.send(initialize(1));
    await expect.poll(() => received.length).toBe(1);
    await transport.send({ jsonrpc: "2.0", method: "notifications/initialized" });
    const first = transport.sessionId!;
    await expect
      .poll(
        () => peer.requests.filter((r) => r.headers["mcp-session-id"] === first && r.method === "GET").length,
      )
      .toBe(1);

    await peer.sessions.get(first)!.transport.close();
    // Two requests in flight see the 404; the hook fires once.
    const results = await Promise.allSettled([
      transport.send({ jsonrpc: "2.0", id: 2, method: "tools/list" }),
      transport.send({ jsonrpc: "2.0", id: 3, method: "tools/list" }),
    ]);
    expect(results.map((r) => r.status)).toEqual(["rejected", "rejected"]);
    expect(expired).toBe(1);

    await transport.send(initialize(4));
    await transport.send({ jsonrpc: "2.0", method: "notifications/initialized" });
    const second = transport.sessionId!;
    expect(second).toBeDefined();
    expect(second).not.toBe(first);
    await expect
      .poll(
        () =>
          peer.requests.filter((r) => r.headers["mcp-session-id"] === second && r.method === "GET").length,
      )
      .toBe(1);
    await transport.send({ jsonrpc: "2.0", id: 5, method: "tools/list" });
    await expect.poll(() => received.some((m) => (m as { id?: number }).id === 5)).toBe(true);
    await transport.close();
    expect(peer.sessions.has(second)).toBe(false);
  });

  it("a 404 without a session is a plain HTTP error", async () => {
    const transport = new StreamableHttpClientTransport(peer.url.replace("/mcp", "/nowhere"));
    let expired = 0;
    transport.onsessionexpired = () => {
      expired++;
    };
    await transport.start();
    const error = await transport.send(initialize(1)).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(HttpStatusError);
    expect(error).not.toBeInstanceOf(SessionExpiredError);
    expect(expired).toBe(0);
    await transport.close();
  });
});
