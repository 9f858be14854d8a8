/**
 * What a server sends about a task is checked before the client acts on it: a 2025-11-25 `Task` and a
 * 2026-07-28 `DetailedTask` (read by hand: no generated types cover the extension yet) are refused with
 * -32602 naming the field, never passed on half-read.
 */
import { describe, expect, it } from "vitest";
import { readDetailedTask } from "../../../runtime/client/extension-tasks.js";
import { readTask } from "../../../runtime/client/tool-task.js";

const task = {
  taskId: "t1",
  status: "working",
  createdAt: "2026-01-01T00:00:00Z",
  lastUpdatedAt: "2026-01-01T00:00:00Z",
};

describe("readTask (2025-11-25)", () => {
  it("reads a task, ttl null meaning unlimited", () => {
    expect(readTask({ ...task, ttl: null, pollInterval: 250, extra: 1 }, "tasks/get t1")).toEqual({
      ...task,
      ttl: null,
      pollInterval: 250,
    });
  });

  it.each([
    [
      { ...task, ttl: 1, status: "paused" },
      /tasks\/get t1: the server's task has no valid status \(working \| input_required/,
    ],
    [{ ...task, ttl: -5 }, /no valid ttl \(milliseconds or null\)/],
    [{ ...task }, /no valid ttl/],
    [{ ...task, ttl: 1, taskId: "" }, /no valid taskId/],
    [{ ...task, ttl: 1, pollInterval: "soon" }, /no valid pollInterval/],
    [{ ...task, ttl: 1, createdAt: 5 }, /no valid createdAt/],
    ["task", /the server sent no task object/],
  ])("refuses %j with -32602 naming the field", (value, message) => {
    expect(() => readTask(value, "tasks/get t1")).toThrow(message);
    expect(() => readTask(value, "tasks/get t1")).toThrow(expect.objectContaining({ code: -32602 }));
  });
});

describe("readDetailedTask (2026-07-28)", () => {
  it("reads ttlMs and pollIntervalMs as the task's ttl and pollInterval, and what it inlines", () => {
    expect(
      readDetailedTask(
        { ...task, status: "completed", ttlMs: 600, pollIntervalMs: 50, result: { content: [] } },
        "x",
      ),
    ).toEqual({
      info: { ...task, status: "completed", ttl: 600, pollInterval: 50 },
      result: { content: [] },
    });
    const asking = readDetailedTask(
      {
        ...task,
        status: "input_required",
        inputRequests: { a: { method: "elicitation/create", params: {} } },
      },
      "x",
    );
    expect(asking.inputRequests).toEqual([["a", { method: "elicitation/create", params: {} }]]);
  });

  it.each([
    [{ ...task, status: "failed" }, /no valid error \(a JSON-RPC error object/],
    [{ ...task, ttlMs: 1.5 }, /no valid ttlMs \(a whole number of milliseconds\)/],
    [
      { ...task, status: "input_required", inputRequests: { a: { params: {} } } },
      /no valid inputRequests\.a/,
    ],
    [{ ...task, status: "completed", result: "done" }, /no valid result \(an object\)/],
  ])("refuses %j naming the field", (value, message) => {
    expect(() => readDetailedTask(value, "x")).toThrow(message);
  });
});
