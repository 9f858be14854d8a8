/**
 * One rule on every transport: a request whose params are not an object (an array, a string, null, a
 * number) is well formed with bad params, so it gets -32602 with its id; stdio is covered in
 * test/interop/hostile.test.ts. Here over real HTTP on 127.0.0.1: a 2025 session, stateless 2025, and a
 * 2026-07-28 request, on a dual-era server.
 */
import { afterAll, describe, expect, it } from "vitest";
import { serveHttp } from "../../../runtime/node/http.js";
import { featureServer } from "../../fixtures/http/feature-server.js";
import { initializeBody, messagesOf, POST_HEADERS, readSse } from "../../fixtures/http/helpers.js";

const closers: (() => Promise<void>)[] = [];
afterAll(() => Promise.all(closers.map((close) => close())));

const SHAPES = ["[1,2]", '"x"', "null", "7"];

async function serve(stateless: boolean) {
  const http = await serveHttp(await featureServer("2026-07-28"), { port: 0, stateless });
  closers.push(() => http.close());
  return http.url;
}

async function post(url: string, body: string, headers: Record<string, string>) {
  const response = await fetch(url, { method: "POST", headers: { ...POST_HEADERS, ...headers }, body });
  if (response.status === 202) return { status: 202, messages: [] };
  const type = response.headers.get("content-type") ?? "";
  const messages = type.includes("text/event-stream")
    ? messagesOf((await readSse(response.body!)).events)
    : [await response.json()];
  return { status: response.status, messages: messages as { id?: unknown; error?: { code: number } }[] };
}

const request = (id: string, params: string) =>
  `{"jsonrpc":"2.0","id":"${id}","method":"tools/list","params":${params}}`;

describe("params that are not an object → -32602 with the request's id", () => {
  it("in a 2025-11-25 session", async () => {
    const url = await serve(false);
    const init = await fetch(url, {
      method: "POST",
      headers: POST_HEADERS,
      body: JSON.stringify(initializeBody("2025-11-25")),
    });
    const session = init.headers.get("mcp-session-id")!;
    await init.body?.cancel();
    const headers = { "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" };
    const initialized = await post(url, '{"jsonrpc":"2.0","method":"notifications/initialized"}', headers);
    expect(initialized.status).toBe(202);
    for (const params of SHAPES) {
      const { status, messages } = await post(url, request("s", params), headers);
      expect(status, params).toBe(200);
      expect(messages.at(-1), params).toMatchObject({ id: "s", error: { code: -32602 } });
    }
  });

  it("stateless, 2025-11-25", async () => {
    const url = await serve(true);
    for (const params of SHAPES) {
      const { status, messages } = await post(url, request("t", params), {
        "mcp-protocol-version": "2025-11-25",
      });
      expect(status, params).toBe(200);
      expect(messages.at(-1), params).toMatchObject({ id: "t", error: { code: -32602 } });
    }
  });

  it("2026-07-28 (no session, per-request _meta): 400 with -32602", async () => {
    const url = await serve(false);
    const headers = { "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/list" };
    for (const params of SHAPES) {
      const { status, messages } = await post(url, request("m", params), headers);
      expect(status, params).toBe(400);
      expect(messages.at(-1), params).toMatchObject({ id: "m", error: { code: -32602 } });
    }
  });
});
