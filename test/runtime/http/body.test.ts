import { describe, expect, it } from "vitest";
import { parseJson, readBody } from "../../../runtime/http/body.js";
import { HttpError } from "../../../runtime/http/http-error.js";

const streamed = (chunks: Uint8Array[], headers: Record<string, string> = {}) => {
  let pulled = 0;
  let cancelled = false;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (pulled < chunks.length) controller.enqueue(chunks[pulled++]!);
      else controller.close();
    },
    cancel() {
      cancelled = true;
    },
  });
  const request = new Request("http://127.0.0.1/mcp", {
    method: "POST",
    body,
    headers,
    duplex: "half",
  } as RequestInit);
  return { request, pulled: () => pulled, cancelled: () => cancelled };
};

const statusOf = async (promise: Promise<unknown>) => {
  try {
    await promise;
    return "resolved";
  } catch (e) {
    return e instanceof HttpError ? `${e.status} ${e.message}` : String(e);
  }
};

describe("readBody", () => {
  it("joins the chunks of a body within the limit", async () => {
    const { request } = streamed([new Uint8Array([1, 2]), new Uint8Array([3])]);
    expect([...(await readBody(request, 3))]).toEqual([1, 2, 3]);
  });

  it("refuses with 413 on a declared Content-Length over the limit, before reading", async () => {
    const { request } = streamed([new Uint8Array(10)], { "content-length": "10" });
    expect(await statusOf(readBody(request, 9))).toBe("413 Payload Too Large: the body exceeds 9 bytes");
    expect(request.bodyUsed).toBe(false); // the body was never read
  });

  it("stops reading and cancels the upload as soon as an undeclared body passes the limit", async () => {
    const chunks = Array.from({ length: 100 }, () => new Uint8Array(1024));
    const { request, pulled, cancelled } = streamed(chunks);
    expect(await statusOf(readBody(request, 4096))).toMatch(/^413 /);
    expect(pulled()).toBeLessThanOrEqual(6);
    expect(cancelled()).toBe(true);
  });

  it("a broken upload is a 400, not a crash", async () => {
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.error(new Error("connection reset"));
      },
    });
    const request = new Request("http://x/", { method: "POST", body, duplex: "half" } as RequestInit);
    expect(await statusOf(readBody(request, 100))).toBe(
      "400 Bad Request: the request body could not be read",
    );
  });
});

describe("parseJson", () => {
  it("parses UTF-8 JSON", () => {
    expect(parseJson(new TextEncoder().encode('{"a":"é"}'))).toEqual({ value: { a: "é" } });
  });

  it("answers 400 with JSON-RPC -32700 for bad JSON and for bytes that are not UTF-8", () => {
    for (const bytes of [
      new TextEncoder().encode("{"),
      new Uint8Array([0x7b, 0xff, 0x7d]),
      new Uint8Array(0),
    ]) {
      const result = parseJson(bytes);
      expect("error" in result).toBe(true);
      const reply = (result as { error: { status: number; body: string } }).error;
      expect(reply.status).toBe(400);
      expect(JSON.parse(reply.body)).toEqual({
        jsonrpc: "2.0",
        id: null,
        error: { code: -32700, message: "Parse error: the body is not valid JSON" },
      });
    }
  });
});
