/**
 * The official SDK client, in its own process, against a server written as generated handlers and
 * served by serveHttp on 127.0.0.1: Streamable HTTP stateful and stateless, a session the SDK
 * negotiates down to 2025-06-18, SSE polling, and the legacy HTTP+SSE transport.
 */
import { afterAll, describe, expect, it } from "vitest";
import { handlers, info } from "../../../examples/everything-server/handlers.js";
import { createServer } from "../../../generated/2026-07-28/index.js";
import { type ServeHttpOptions, serveHttp } from "../../../runtime/node/http.js";
import { featureServer } from "../../fixtures/http/feature-server.js";
import { runSdkClient } from "../../fixtures/http/helpers.js";

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

async function serve(options: ServeHttpOptions = {}, version = "2025-11-25") {
  const server = await featureServer(version);
  const http = await serveHttp(server, options);
  cleanups.push(() => http.close());
  return { server, http };
}

const EVERYTHING = ["connect", "tools", "echo", "progress", "logging", "sample", "notify", "cancel"];

describe("official SDK client over Streamable HTTP", () => {
  it("stateful: session id, tools, progress, logs, sampling, list_changed on GET, cancel, DELETE", async () => {
    const { server, http } = await serve();
    const report = await runSdkClient("streamable", http.url, [...EVERYTHING, "terminate"]);
    expect(report.error).toBeUndefined();
    const connect = report.connect as { server: string; sessionId: string; protocolVersion: string };
    expect(connect).toMatchObject({ server: "http-feature-server", protocolVersion: "2025-11-25" });
    expect(connect.sessionId).toMatch(/^[0-9a-f]{32}$/);
    expect(report.tools).toContain("reconnect");
    expect(report.echo).toBe("héllo");
    expect(report.progress).toEqual({ result: "done in 4 steps", progress: [1, 2, 3, 4] });
    expect(report.logging).toEqual({ who: `2025-11-25 sdk-http ${connect.sessionId}`, logged: true });
    expect(report.sample).toBe("sampled: echo ping (sdk-model)");
    expect(report.notify).toBe(true);
    expect(report.cancel).toEqual({ outcome: "rejected", afterwards: "still there" });
    // DELETE ended the session here and in the server.
    expect(http.handler.sessionCount).toBe(0);
    expect(server.sessions.size).toBe(0);
    const after = await fetch(http.url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-session-id": connect.sessionId,
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
    });
    expect(after.status).toBe(404);
  });

  it("stateless: no session id, every POST served and forgotten, GET → 405", async () => {
    const { server, http } = await serve({ stateless: true });
    const report = await runSdkClient("streamable", http.url, [
      "connect",
      "tools",
      "echo",
      "progress",
      "logging",
    ]);
    expect(report.error).toBeUndefined();
    expect(report.connect).toMatchObject({ sessionId: null, protocolVersion: "2025-11-25" });
    expect(report.progress).toEqual({ result: "done in 4 steps", progress: [1, 2, 3, 4] });
    // No handshake reaches a stateless session: the client is unknown, the version is the header's.
    expect(report.logging).toEqual({ who: "2025-11-25 unknown undefined", logged: true });
    expect(http.handler.sessionCount).toBe(0);
    await expect.poll(() => server.sessions.size).toBe(0);
    const get = await fetch(http.url, { headers: { accept: "text/event-stream" } });
    expect(get.status).toBe(405);
    expect(get.headers.get("allow")).toBe("POST");
  });

  it("stateless: a tool asking the client for sampling or elicitation fails saying why (no session to ask on), not that the client declared no such capability", async () => {
    const server = createServer({ info, handlers, onError: () => {} });
    const http = await serveHttp(server, { port: 0, stateless: true });
    cleanups.push(() => http.close());
    // The SDK client declares sampling and elicitation and would answer both.
    const report = await runSdkClient("streamable", http.url, [
      "connect",
      "test_sampling",
      "test_elicitation",
    ]);
    expect(report.error).toBeUndefined();
    expect(report.connect).toMatchObject({ sessionId: null, protocolVersion: "2025-11-25" });
    for (const [step, method] of [
      ["test_sampling", "sampling/createMessage"],
      ["test_elicitation", "elicitation/create"],
    ] as const) {
      const { error } = report[step] as { error?: string };
      expect(error).toContain(`cannot send ${method} to the client: this request came without a session`);
      expect(error).toContain("whatever capabilities the client declared");
      expect(error).not.toMatch(/did not declare/);
    }
    // With sessions, the same client and tools work.
    const stateful = await serveHttp(createServer({ info, handlers, onError: () => {} }), { port: 0 });
    cleanups.push(() => stateful.close());
    const ok = await runSdkClient("streamable", stateful.url, [
      "connect",
      "test_sampling",
      "test_elicitation",
    ]);
    expect(ok.test_sampling).toMatchObject({ isError: false, text: expect.stringContaining("LLM response") });
    expect(ok.test_elicitation).toMatchObject({
      isError: false,
      text: expect.stringContaining("sdk@example.org"),
    });
  });

  it("a session the SDK negotiates down to 2025-06-18", async () => {
    const { http } = await serve({}, "2025-06-18");
    const report = await runSdkClient("streamable", http.url, ["connect", "progress", "logging", "sample"]);
    expect(report.error).toBeUndefined();
    expect(report.connect).toMatchObject({ protocolVersion: "2025-06-18" });
    expect(report.progress).toEqual({ result: "done in 4 steps", progress: [1, 2, 3, 4] });
    expect((report.logging as { who: string }).who).toMatch(/^2025-06-18 sdk-http /);
    expect(report.sample).toBe("sampled: echo ping (sdk-model)");
  });

  it("SSE polling: a handler closes its stream, the client resumes with Last-Event-ID", async () => {
    const { http } = await serve({ retryMs: 20 });
    const report = await runSdkClient("streamable", http.url, ["connect", "logging", "reconnect"]);
    expect(report.error).toBeUndefined();
    expect(report.reconnect).toEqual({ result: "reconnected (closed: true)", logged: true });
  });
});

describe("official SDK SSEClientTransport over the legacy HTTP+SSE transport", () => {
  it("connects at /sse, posts to /messages, gets every answer on the stream", async () => {
    const { server, http } = await serve();
    const report = await runSdkClient("legacy", new URL("/sse", http.url).href, [
      "connect",
      "tools",
      "echo",
      "progress",
      "logging",
      "sample",
      "cancel",
    ]);
    expect(report.error).toBeUndefined();
    expect(report.echo).toBe("héllo");
    expect(report.progress).toEqual({ result: "done in 4 steps", progress: [1, 2, 3, 4] });
    expect(report.logging).toMatchObject({ logged: true });
    expect(report.sample).toBe("sampled: echo ping (sdk-model)");
    expect(report.cancel).toEqual({ outcome: "rejected", afterwards: "still there" });
    // The client closed its stream: the session is gone.
    await expect.poll(() => http.legacy?.sessionCount).toBe(0);
    await expect.poll(() => server.sessions.size).toBe(0);
  });
});
