/**
 * SSE stream resumption (Streamable HTTP "Resumability and Redelivery", SEP-1699 polling) against a small
 * server of our own (test/fixtures/http-client/resume-server.ts) that closes streams early on purpose.
 */
import { afterEach, describe, expect, it } from "vitest";
import * as V from "../../../generated/2025-11-25/index.js";
import {
  type StreamableHttpClientOptions,
  StreamableHttpClientTransport,
} from "../../../runtime/http-client/index.js";
import { McpError } from "../../../runtime/jsonrpc/messages.js";
import {
  type ResumeServer,
  type ResumeServerOptions,
  startResumeServer,
} from "../../fixtures/http-client/resume-server.js";

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

async function setup(server: ResumeServerOptions, transportOptions: StreamableHttpClientOptions = {}) {
  const peer = await startResumeServer(server);
  const errors: unknown[] = [];
  const notified: string[] = [];
  const client = V.createClient({
    info: { name: "resuming-client", version: "1.0.0" },
    onError: (e) => errors.push(e),
    handlers: { onToolListChanged: () => void notified.push("tools") },
  });
  const transport = new StreamableHttpClientTransport(peer.url, transportOptions);
  await client.connect(transport);
  cleanup.push(peer.close, () => client.close());
  return { peer, client, transport, errors, notified };
}

const text = (r: V.CallToolResult) => (r.content[0] as V.TextContent).text;
const resumptions = (peer: ResumeServer) => peer.gets.filter((g) => g.lastEventId?.startsWith("ev-"));

describe("resuming a request's SSE stream", () => {
  it("reconnects with GET + Last-Event-ID after the server's retry and gets the response", async () => {
    // A 5 s default delay: only the server's `retry: 100` explains a reconnection within a second.
    const { peer, client, errors } = await setup({ retryMs: 100 }, { reconnect: { initialDelayMs: 5000 } });
    const progress: number[] = [];
    const result = await client.callTool({ name: "slow" }, { onprogress: (p) => progress.push(p.progress) });
    expect(text(result)).toBe("resumed");
    expect(progress).toEqual([1]);

    const [resume, ...more] = resumptions(peer);
    expect(more).toEqual([]);
    expect(resume!.lastEventId).toBe("ev-2"); // the progress event's id, the last one seen
    expect(resume!.sessionId).toBe("resume-session");
    const delay = resume!.at - peer.closedAt[0]!;
    expect(delay).toBeGreaterThanOrEqual(95);
    expect(delay).toBeLessThan(1000);
    // The resumed GET stays open on the server's side; the client closes it once the response is in.
    await expect.poll(() => resume!.closedAt).toBeDefined();
    expect(errors).toEqual([]);
  });

  it("without a retry field, waits the initial delay", async () => {
    const { peer, client } = await setup({}, { reconnect: { initialDelayMs: 150 } });
    expect(text(await client.callTool({ name: "slow" }))).toBe("resumed");
    const delay = resumptions(peer)[0]!.at - peer.closedAt[0]!;
    expect(delay).toBeGreaterThanOrEqual(145);
  });

  it("resumes a connection that broke (socket destroyed) the same way", async () => {
    const { peer, client } = await setup({ retryMs: 30, abrupt: true });
    expect(text(await client.callTool({ name: "slow" }))).toBe("resumed");
    expect(resumptions(peer).map((g) => g.lastEventId)).toEqual(["ev-1"]);
  });

  it("stops resuming a request the client cancelled", async () => {
    const { peer, client } = await setup({ retryMs: 300 });
    const abort = new AbortController();
    const call = client.callTool({ name: "slow" }, { signal: abort.signal });
    await expect.poll(() => peer.closedAt.length).toBe(1);
    abort.abort("changed my mind");
    await expect(call).rejects.toThrow(/changed my mind/);
    await expect.poll(() => peer.posts.at(-1)).toBe("notifications/cancelled");
    // A later call whose stream breaks the same way is resumed after the same 300 ms: once it has been,
    // a resumption of the cancelled call (due earlier) would have come too. Only the later one came.
    expect(text(await client.callTool({ name: "slow" }))).toBe("resumed");
    expect(resumptions(peer)).toHaveLength(1);
  });

  it("fails the call at once when the stream ended with no event id to resume from", async () => {
    const { peer, client } = await setup({ retryMs: 10, eventIds: false });
    const started = performance.now();
    const error = await client.callTool({ name: "slow" }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).message).toMatch(
      /ended the stream before its responses, and no event id to resume/,
    );
    expect(performance.now() - started).toBeLessThan(1000);
    expect(resumptions(peer)).toEqual([]);
  });

  it("gives up after maxRetries reconnections that bring nothing", async () => {
    const { peer, client } = await setup({ retryMs: 10, getStatus: 503 }, { reconnect: { maxRetries: 2 } });
    const error = await client.callTool({ name: "slow" }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((error as Error).message).toMatch(/gave up after 2 reconnections: GET .* answered 503/);
    expect(resumptions(peer)).toHaveLength(2);
  });
});

describe("the standalone GET stream", () => {
  it("is resumed with Last-Event-ID when the server drops it, and the missed event is replayed", async () => {
    const { peer, transport, notified, errors } = await setup({ standalone: true });
    await expect.poll(() => peer.gets.length).toBe(1);
    expect(peer.gets[0]!.lastEventId).toBeUndefined();
    await expect.poll(() => peer.notify("notifications/tools/list_changed")).toBe(true);
    await expect.poll(() => notified.length).toBe(1);

    peer.dropStandalone(50);
    expect(peer.notify("notifications/tools/list_changed")).toBe(false); // stored for replay
    await expect.poll(() => notified.length).toBe(2);
    expect(peer.gets[1]!.lastEventId).toBe("sa-1");
    expect(peer.gets[1]!.at - peer.gets[0]!.closedAt!).toBeGreaterThanOrEqual(45);

    await transport.close();
    await expect.poll(() => peer.gets[1]!.closedAt).toBeDefined();
    expect(errors).toEqual([]);
  });

  it("a 405 means the server offers none: no error, no retry", async () => {
    const { peer, client, errors } = await setup({}, { reconnect: { initialDelayMs: 10 } });
    await expect.poll(() => peer.gets.length).toBe(1);
    await client.ping();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(peer.gets).toHaveLength(1);
    expect(errors).toEqual([]);
  });

  it("is not opened when openStandaloneStream is false", async () => {
    const { peer, client } = await setup({ standalone: true }, { openStandaloneStream: false });
    await client.ping();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(peer.gets).toEqual([]);
  });
});
