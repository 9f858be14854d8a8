/**
 * The everything-server (generated 2026-07-28 handlers) as a real process over stdio: stateless requests
 * carrying `_meta` (progress on stdout before the response, multi round-trip input, subscriptions/listen
 * ended by notifications/cancelled), and, in another process, the initialize handshake of a 2025 client.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { Inbox, splitLines, TSX } from "../helpers.js";

const MAIN = fileURLToPath(new URL("../../../examples/everything-server/main.ts", import.meta.url));
const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": { elicitation: {} },
};

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill("SIGTERM");
});

function start() {
  const child = spawn(TSX, ["--conditions=mcp-codegen-source", MAIN, "--stdio"], {
    stdio: ["pipe", "pipe", "pipe"],
  });
  children.push(child);
  const inbox = new Inbox<Record<string, unknown>>();
  splitLines(child.stdout!, (line) => inbox.push(JSON.parse(line) as Record<string, unknown>));
  const send = (message: Record<string, unknown>) =>
    child.stdin!.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`);
  const answer = (id: number) =>
    inbox.waitFor((m) => m.id === id && ("result" in m || "error" in m), `the answer to ${id}`, 20_000);
  return { inbox, send, answer };
}

describe("stateless era over stdio", () => {
  it("progress precedes the response; two rounds of input; a listen stream acknowledged and cancelled", async () => {
    const s = start();
    s.send({
      id: 1,
      method: "tools/call",
      params: { name: "test_tool_with_progress", _meta: { ...META, progressToken: 7 } },
    });
    const done = await s.answer(1);
    expect(done).toMatchObject({ result: { resultType: "complete" } });
    const progress = s.inbox.items.filter((m) => m.method === "notifications/progress");
    expect(progress.map((m) => (m.params as { progress: number }).progress)).toEqual([0, 50, 100]);
    expect(s.inbox.items.indexOf(done)).toBeGreaterThan(s.inbox.items.indexOf(progress[2]!));

    const tool = { name: "test_input_required_result_elicitation", _meta: META };
    s.send({ id: 2, method: "tools/call", params: tool });
    const asked = (await s.answer(2)).result as {
      resultType: string;
      inputRequests: object;
      requestState: string;
    };
    expect(asked).toMatchObject({
      resultType: "input_required",
      inputRequests: { user_name: { method: "elicitation/create" } },
    });
    s.send({
      id: 3,
      method: "tools/call",
      params: {
        ...tool,
        inputResponses: { user_name: { action: "accept", content: { name: "Ada" } } },
        requestState: asked.requestState,
      },
    });
    expect(await s.answer(3)).toMatchObject({ result: { content: [{ type: "text", text: "Hello, Ada!" }] } });

    s.send({
      id: 4,
      method: "subscriptions/listen",
      params: { _meta: META, notifications: { toolsListChanged: true } },
    });
    await s.inbox.waitFor(
      (m) => m.method === "notifications/subscriptions/acknowledged",
      "the acknowledgement",
    );
    s.send({ id: 5, method: "tools/call", params: { name: "test_trigger_tool_change", _meta: META } });
    await s.answer(5);
    const changed = await s.inbox.waitFor(
      (m) => m.method === "notifications/tools/list_changed",
      "list_changed",
    );
    expect(changed.params).toEqual({ _meta: { "io.modelcontextprotocol/subscriptionId": 4 } });
    s.send({ method: "notifications/cancelled", params: { requestId: 4 } });
    s.send({ id: 6, method: "tools/call", params: { name: "test_trigger_tool_change", _meta: META } });
    await s.answer(6);
    // The cancelled subscription hears nothing more.
    expect(s.inbox.items.filter((m) => m.method === "notifications/tools/list_changed")).toHaveLength(1);
  });

  it("a requestState serves only the arguments it was issued for, once", async () => {
    const s = start();
    const ask = { name: "test_elicitation", arguments: { message: "Pay 1 EUR?" }, _meta: META };
    s.send({ id: 1, method: "tools/call", params: ask });
    const { requestState, inputRequests } = (await s.answer(1)).result as {
      requestState: string;
      inputRequests: Record<string, unknown>;
    };
    const retry = (id: number, params: Record<string, unknown>) => {
      const answer = { action: "accept", content: { username: "ada", email: "ada@x.org" } };
      const inputResponses = Object.fromEntries(Object.keys(inputRequests).map((key) => [key, answer]));
      s.send({ id, method: "tools/call", params: { ...params, inputResponses, requestState } });
      return s.answer(id);
    };
    expect(await retry(2, { ...ask, arguments: { message: "Pay 1000000 EUR?" } })).toMatchObject({
      error: { code: -32602, message: expect.stringContaining("issued for other arguments") },
    });
    expect(await retry(3, ask)).toMatchObject({ result: { resultType: "complete" } });
    expect(await retry(4, ask)).toMatchObject({
      error: { code: -32602, message: expect.stringContaining("already used") },
    });
  });

  it("a process opened with initialize follows the handshake era", async () => {
    const s = start();
    s.send({
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "old", version: "1" } },
    });
    expect(await s.answer(1)).toMatchObject({
      result: { protocolVersion: "2025-11-25", serverInfo: { name: "mcp-codegen-everything-server" } },
    });
    s.send({ method: "notifications/initialized" });
    s.send({ id: 2, method: "ping" });
    expect(await s.answer(2)).toMatchObject({ result: {} });
    s.send({ id: 3, method: "tools/call", params: { name: "test_simple_text" } });
    const result = (await s.answer(3)).result as Record<string, unknown>;
    expect(result.content).toEqual([{ type: "text", text: "This is a simple text response for testing." }]);
    expect(result.resultType).toBeUndefined();
  });
});
