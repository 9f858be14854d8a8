/**
 * A client that answers the server's task-augmented sampling badly (a task without its fields, a
 * status outside the schema's, an outcome that is not a sampling result): the handler's await rejects
 * with -32602 naming what was wrong, never a hang or a crash. The client is a bare Connection over a
 * memory pair, answering exactly what each case says; real clients are in
 * test/interop/server-task-requests.test.ts.
 */

import { describe, expect, it } from "vitest";
import { Connection } from "../../../runtime/jsonrpc/connection.js";
import { createMemoryTransportPair } from "../../../runtime/jsonrpc/memory.js";
import { clientTaskServer } from "../../fixtures/interop/client-task-server.js";

const now = new Date().toISOString();
const task = (status: string) => ({
  taskId: "t-1",
  status,
  createdAt: now,
  lastUpdatedAt: now,
  ttl: 5000,
  pollInterval: 50,
});

/**
 * The tool's JSON answer, with the client answering each request with `answers[method]`; the methods
 * the client was sent are pushed on `sent`.
 */
async function sample(
  answers: Record<string, unknown>,
  sent?: string[],
): Promise<{ error?: { code: number; message: string } }> {
  const [a, b] = createMemoryTransportPair();
  const server = clientTaskServer();
  await server.connect(a);
  const client = new Connection({
    transport: b,
    onRequest: (request) => {
      sent?.push(request.method);
      if (!(request.method in answers)) throw new Error(`unexpected ${request.method}`);
      return answers[request.method] as Record<string, unknown>;
    },
  });
  await client.start();
  try {
    await client.request("initialize", {
      protocolVersion: "2025-11-25",
      capabilities: {
        sampling: {},
        tasks: { list: {}, cancel: {}, requests: { sampling: { createMessage: {} } } },
      },
      clientInfo: { name: "raw", version: "1" },
    });
    await client.notify("notifications/initialized");
    const result = (await client.request("tools/call", { name: "sample", arguments: { prompt: "hi" } })) as {
      content: { text: string }[];
    };
    return JSON.parse(result.content[0]!.text);
  } finally {
    await client.close();
  }
}

describe("a client answering the server's task-augmented request badly", () => {
  it("a CreateTaskResult whose task lacks its fields: -32602 naming the field", async () => {
    const { error } = await sample({
      "sampling/createMessage": { task: { taskId: "t-1", status: "working" } },
    });
    expect(error?.code).toBe(-32602);
    expect(error?.message).toMatch(/invalid sampling\/createMessage result from the client.*createdAt/s);
  });

  it("tasks/get with a status the schema does not know: -32602", async () => {
    const { error } = await sample({
      "sampling/createMessage": { task: task("working") },
      "tasks/get": task("finished"),
      "tasks/cancel": task("cancelled"),
    });
    expect(error?.code).toBe(-32602);
    expect(error?.message).toMatch(/invalid tasks\/get result from the client.*status/s);
  });

  it("a completed task whose tasks/result is not a sampling result: -32602", async () => {
    const sent: string[] = [];
    const { error } = await sample(
      {
        "sampling/createMessage": { task: task("working") },
        "tasks/get": task("completed"),
        "tasks/result": { model: "m" },
      },
      sent,
    );
    expect(sent).toEqual(["sampling/createMessage", "tasks/get", "tasks/result"]);
    expect(error?.code).toBe(-32602);
    expect(error?.message).toMatch(/invalid sampling\/createMessage result from the client/);
  });

  it("a client that answers the plain result at once has it returned", async () => {
    const plain = { role: "assistant", model: "m", content: { type: "text", text: "at once" } };
    expect(await sample({ "sampling/createMessage": plain, "tasks/list": { tasks: [] } })).toEqual({
      answer: plain,
      tasks: [],
    });
  });
});
