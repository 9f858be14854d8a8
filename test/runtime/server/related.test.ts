/**
 * Messages sent on behalf of a request (its progress, logs, requests to the peer, its response) reach the
 * transport with that request's id, which HTTP transports use to pick the response stream.
 */
import { expect, it } from "vitest";
import * as V from "../../../generated/2025-11-25/index.js";
import type { JsonRpcMessage } from "../../../runtime/jsonrpc/messages.js";
import type { SendOptions, Transport } from "../../../runtime/jsonrpc/transport.js";

class RecordingTransport implements Transport {
  sent: { message: JsonRpcMessage | JsonRpcMessage[]; options: SendOptions | undefined }[] = [];
  onmessage?: Transport["onmessage"];
  async start() {}
  async send(message: JsonRpcMessage | JsonRpcMessage[], options?: SendOptions) {
    this.sent.push({ message, options });
    const m = message as { id?: unknown; method?: string };
    // Answer the server's sampling request like a client would.
    if (m.method === "sampling/createMessage") {
      queueMicrotask(() =>
        this.onmessage?.({
          jsonrpc: "2.0",
          id: m.id,
          result: { role: "assistant", model: "m", content: { type: "text", text: "ok" } },
        }),
      );
    }
  }
  async close() {}
  deliver(message: object) {
    this.onmessage?.(message);
  }
}

it("tags progress, logs, server→client requests and the response with the request id", async () => {
  const transport = new RecordingTransport();
  const server = V.createServer({
    info: { name: "t", version: "1" },
    handlers: {
      callTool: async (_params, ctx) => {
        await ctx.progress?.(1, 1);
        await ctx.log("info", "working");
        await ctx.request("sampling/createMessage", { messages: [], maxTokens: 1 });
        return { content: [] };
      },
    },
  });
  await server.connect(transport);
  transport.deliver({
    jsonrpc: "2.0",
    id: "init",
    method: "initialize",
    params: {
      protocolVersion: "2025-11-25",
      capabilities: { sampling: {} },
      clientInfo: { name: "c", version: "1" },
    },
  });
  transport.deliver({
    jsonrpc: "2.0",
    id: "call-7",
    method: "tools/call",
    params: { name: "x", _meta: { progressToken: "p" } },
  });
  await expect
    .poll(() => transport.sent.some((s) => (s.message as { id?: unknown }).id === "call-7"))
    .toBe(true);
  const byKind = (pred: (m: Record<string, unknown>) => boolean) =>
    transport.sent.find((s) => pred(s.message as unknown as Record<string, unknown>))?.options;
  expect(byKind((m) => m.id === "init")).toEqual({ relatedRequestId: "init" });
  expect(byKind((m) => m.method === "notifications/progress")).toEqual({ relatedRequestId: "call-7" });
  expect(byKind((m) => m.method === "notifications/message")).toEqual({ relatedRequestId: "call-7" });
  expect(byKind((m) => m.method === "sampling/createMessage")).toEqual({ relatedRequestId: "call-7" });
  expect(byKind((m) => m.id === "call-7")).toEqual({ relatedRequestId: "call-7" });
});
