/**
 * The verdicts of `mcp-codegen test` on call outcomes: what counts as a refusal naming an argument (an
 * isError result, or -32602 as protocols before 2025-11-25 answer; -32602 only for prompts and
 * resources), and what an answer to valid input must hold to (a tool's output, a prompt's messages, a
 * resource's contents).
 */
import { describe, expect, it } from "vitest";
import {
  answerProblem,
  contentsProblem,
  invalidParamsProblem,
  promptProblem,
  refusalProblem,
} from "../../../generator/cli/test/verdicts.js";
import type { CheckFn } from "../../../generator/contract/checks.js";

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

describe("invalidParamsProblem", () => {
  it("takes only a -32602 error naming the field", () => {
    expect(
      invalidParamsProblem(
        { kind: "error", code: -32602, message: 'Invalid arguments for prompt "review": code: Required' },
        "code",
      ),
    ).toBeUndefined();
    expect(
      invalidParamsProblem(
        {
          kind: "error",
          code: -32602,
          message: 'items://abc matches resource template "item", but variable "id" is not a number: abc',
        },
        "id",
      ),
    ).toBeUndefined();
    expect(invalidParamsProblem(text("code: Required"), "code")).toMatch(/^accepted: answered /);
    expect(invalidParamsProblem({ kind: "error", code: -32602, message: "Invalid params" }, "id")).toMatch(
      /the -32602 error does not name id/,
    );
    expect(
      invalidParamsProblem({ kind: "error", code: -32002, message: "Resource not found: id" }, "id"),
    ).toBe("answered JSON-RPC error -32002: Resource not found: id, not -32602");
  });

  it("does not take the client's own refusal of a malformed result for the server's", () => {
    const malformed = {
      kind: "malformed" as const,
      message: "invalid prompts/get result from the server: /messages: Required",
    };
    expect(invalidParamsProblem(malformed, "messages")).toBe(
      "answered invalid prompts/get result from the server: /messages: Required",
    );
    expect(refusalProblem(malformed, "messages")).toMatch(/^answered invalid /);
  });
});

describe("promptProblem and contentsProblem", () => {
  it("take messages, and contents of at least one item with a uri and a text or blob", () => {
    expect(promptProblem(result({ messages: [] }))).toBeUndefined();
    expect(
      contentsProblem(
        result({
          contents: [
            { uri: "x://1", text: "a" },
            { uri: "x://1", blob: "AA==" },
          ],
        }),
      ),
    ).toBeUndefined();
  });

  it("name a missing messages array, empty contents, an item without uri or body, and errors", () => {
    expect(promptProblem(result({}))).toBe("the result has no messages array: {}");
    expect(promptProblem({ kind: "error", code: -32603, message: "Internal error" })).toBe(
      "JSON-RPC error -32603: Internal error",
    );
    expect(contentsProblem(result({ contents: [] }))).toBe("the result's contents array is empty");
    expect(contentsProblem(result({}))).toBe("the result has no contents array: {}");
    expect(contentsProblem(result({ contents: [{ text: "a" }] }))).toBe(
      'contents[0] has no uri: {"text":"a"}',
    );
    expect(contentsProblem(result({ contents: [{ uri: "x://1", text: "a" }, { uri: "x://1" }] }))).toBe(
      'contents[1] has neither text nor blob: {"uri":"x://1"}',
    );
    expect(contentsProblem({ kind: "lost", message: "no answer within 10 ms" })).toBe(
      "no answer within 10 ms",
    );
  });
});
