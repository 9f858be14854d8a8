/** Reading what a fetch gave back: status lines, JSON-RPC errors in error bodies, failures with their cause. */
import { describe, expect, it } from "vitest";
import {
  discard,
  fetchFailed,
  HttpStatusError,
  messageWithCause,
  rpcErrorIn,
  SessionExpiredError,
  statusError,
  statusText,
} from "../../../runtime/http-client/fetch-results.js";

describe("rpcErrorIn", () => {
  it("finds the JSON-RPC error of a body, keeping data only when present", () => {
    expect(rpcErrorIn('{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"No session"}}')).toEqual({
      code: -32000,
      message: "No session",
    });
    expect(rpcErrorIn('{"error":{"code":-32602,"message":"bad","data":{"field":"x"}}}')).toEqual({
      code: -32602,
      message: "bad",
      data: { field: "x" },
    });
    expect(rpcErrorIn('{"error":{"code":-32602,"message":"bad","data":null}}')).toEqual({
      code: -32602,
      message: "bad",
      data: null,
    });
  });

  it("is undefined for bodies that carry none", () => {
    for (const text of [
      "",
      "Not Found",
      "<html>oops</html>",
      "null",
      "[]",
      '"error"',
      '{"result":{}}',
      '{"error":"bad"}',
      '{"error":{"code":"-32000","message":"x"}}',
      '{"error":{"code":-32000}}',
      '{"error":{"message":"x"}}',
    ]) {
      expect(rpcErrorIn(text), text).toBeUndefined();
    }
  });
});

describe("statusText", () => {
  it("joins the status and its reason phrase, or gives the status alone", () => {
    expect(statusText(new Response(null, { status: 404, statusText: "Not Found" }))).toBe("404 Not Found");
    expect(statusText(new Response(null, { status: 503 }))).toBe("503");
  });
});

describe("statusError", () => {
  it("says what the request got, with the JSON-RPC error of the body", async () => {
    const response = Response.json(
      { jsonrpc: "2.0", id: null, error: { code: -32000, message: "No session" } },
      { status: 400, statusText: "Bad Request" },
    );
    const error = await statusError(response, "POST http://x/mcp");
    expect(error).toBeInstanceOf(HttpStatusError);
    expect(error.status).toBe(400);
    expect(error.message).toBe("POST http://x/mcp answered 400 Bad Request: No session (-32000)");
    expect(error.error).toEqual({ code: -32000, message: "No session" });
    expect(response.bodyUsed).toBe(true);
  });

  it("shows the start of a body that is no JSON-RPC error, and nothing for an empty one", async () => {
    const long = await statusError(new Response("x".repeat(500), { status: 502 }), "GET u");
    expect(long.message).toBe(`GET u answered 502: ${"x".repeat(200)}`);
    expect(long.error).toBeUndefined();
    const empty = await statusError(new Response(null, { status: 500 }), "GET u");
    expect(empty.message).toBe("GET u answered 500");
  });

  it("survives a body that fails to read", async () => {
    const body = new ReadableStream({
      pull(controller) {
        controller.error(new Error("reset"));
      },
    });
    const error = await statusError(new Response(body, { status: 500 }), "POST u");
    expect(error.message).toBe("POST u answered 500");
  });
});

describe("SessionExpiredError", () => {
  it("is a 404 HttpStatusError naming the session", () => {
    const error = new SessionExpiredError("abc", { code: -32001, message: "gone" });
    expect(error).toBeInstanceOf(HttpStatusError);
    expect(error.status).toBe(404);
    expect(error.sessionId).toBe("abc");
    expect(error.error).toEqual({ code: -32001, message: "gone" });
    expect(error.message).toMatch(/^MCP session abc expired/);
  });
});

describe("messageWithCause", () => {
  it("adds the cause an Error carries: a failed fetch says only 'fetch failed'", () => {
    const refused = new Error("connect ECONNREFUSED 127.0.0.1:1");
    expect(messageWithCause(new TypeError("fetch failed", { cause: refused }))).toBe(
      "fetch failed: connect ECONNREFUSED 127.0.0.1:1",
    );
  });

  it("is the plain message without an Error cause, and never throws", () => {
    expect(messageWithCause(new Error("boom"))).toBe("boom");
    expect(messageWithCause(new Error("boom", { cause: "text" }))).toBe("boom");
    expect(messageWithCause("plain")).toBe("plain");
    const hostile = {
      toString() {
        throw new Error("no");
      },
    };
    expect(messageWithCause(hostile)).toBe("unprintable error");
  });
});

describe("fetchFailed", () => {
  it("names the request and the reason, and keeps the original error as its cause", () => {
    const original = new TypeError("fetch failed", { cause: new Error("ECONNRESET") });
    const error = fetchFailed("POST http://x/mcp", original);
    expect(error.message).toBe("POST http://x/mcp failed: fetch failed: ECONNRESET");
    expect(error.cause).toBe(original);
  });
});

describe("discard", () => {
  it("cancels an unread body, and takes responses without one", async () => {
    let cancelled = false;
    const body = new ReadableStream({
      cancel() {
        cancelled = true;
      },
    });
    await discard(new Response(body));
    expect(cancelled).toBe(true);
    await expect(discard(new Response(null, { status: 204 }))).resolves.toBeUndefined();
  });
});
