/**
 * The verdicts of `mcp-codegen test` on call outcomes: what counts as a refusal naming an argument (an
 * isError result, or -32602 as protocols before 2025-11-25 answer), and what an answer to valid
 * arguments must hold to.
 */
import { describe, expect, it } from "vitest";
import { answerProblem, refusalProblem } from "../../generator/cli/test-verdicts.js";
import type { CheckFn } from "../../generator/contract/checks.js";

const result = (r: Record<string, unknown>) => ({ kind: "result" as const, result: r });
const text = (t: string, isError = true) => result({ content: [{ type: "text", text: t }], isError });

describe("refusalProblem", () => {
  it("takes an isError result or a -32602 error that names the argument", () => {
    expect(refusalProblem(text('Invalid arguments for tool "add": a: Expected number'), "a")).toBeUndefined();
    expect(
      refusalProblem(
        { kind: "error", code: -32602, message: 'Invalid arguments for tool "add": b: Required' },
        "b",
      ),
    ).toBeUndefined();
    expect(
      refusalProblem(
        {
          kind: "error",
          code: -32602,
          message: "Invalid arguments",
          data: { field: "limit", reason: "Required" },
        },
        "limit",
      ),
    ).toBeUndefined();
  });

  it("refuses a refusal that does not name the argument as a word of its own", () => {
    expect(refusalProblem(text('tool "add" failed'), "a")).toMatch(/isError text does not name a/);
    expect(refusalProblem({ kind: "error", code: -32602, message: "Invalid params" }, "name")).toMatch(
      /the -32602 error does not name name/,
    );
  });

  it("refuses acceptance, another error code and a lost connection", () => {
    expect(refusalProblem(text("Hello, true!", false), "name")).toMatch(/^accepted: answered /);
    expect(refusalProblem({ kind: "error", code: -32603, message: "name: boom" }, "name")).toMatch(
      /not -32602 or an isError result/,
    );
    expect(refusalProblem({ kind: "lost", message: "no answer within 10 ms" }, "name")).toBe(
      "no answer within 10 ms",
    );
  });
});

describe("answerProblem", () => {
  const output: CheckFn = (v) =>
    typeof (v as { sum?: unknown }).sum === "number"
      ? undefined
      : { path: ["sum"], message: "Expected number" };

  it("takes structuredContent the outputSchema accepts, an isError result, and anything without one", () => {
    expect(answerProblem(result({ content: [], structuredContent: { sum: 3 } }), output)).toBeUndefined();
    expect(answerProblem(text("cannot", true), output)).toBeUndefined();
    expect(answerProblem(text("hello", false), undefined)).toBeUndefined();
  });

  it("names a JSON-RPC error, missing structuredContent and output that fails its schema", () => {
    expect(answerProblem({ kind: "error", code: -32603, message: "boom" }, output)).toBe(
      "JSON-RPC error -32603: boom",
    );
    expect(answerProblem(text("3", false), output)).toMatch(/no structuredContent/);
    expect(answerProblem(result({ content: [], structuredContent: { sum: "3" } }), output)).toBe(
      'structuredContent fails the outputSchema at sum: Expected number; it was {"sum":"3"}',
    );
  });
});
