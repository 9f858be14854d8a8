/**
 * The HTTP transports with zod jitless: generated validators built without code generation still
 * accept, refuse with their issues, and serve the official SDK client end to end.
 */
import "../../fixtures/http/jitless.js";
import { afterAll, expect, it } from "vitest";
import * as z from "zod";
import { createStreamableHttpHandler } from "../../../runtime/http/streamable-http.js";
import { serveHttp } from "../../../runtime/node/http.js";
import { featureServer } from "../../fixtures/http/feature-server.js";
import { initializeBody, POST_HEADERS, runSdkClient } from "../../fixtures/http/helpers.js";

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups) await cleanup();
});

it("runs with jitless on", () => {
  expect(z.config().jitless).toBe(true);
});

it("validates params without generated code: -32602 with the failing path", async () => {
  const handler = createStreamableHttpHandler(await featureServer(), { jsonResponse: true });
  const init = await handler(
    new Request("http://127.0.0.1/mcp", {
      method: "POST",
      headers: POST_HEADERS,
      body: JSON.stringify(initializeBody()),
    }),
  );
  const headers = { ...POST_HEADERS, "mcp-session-id": init.headers.get("mcp-session-id")! };
  const bad = await handler(
    new Request("http://127.0.0.1/mcp", {
      method: "POST",
      headers,
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: 7 } }),
    }),
  );
  const body = (await bad.json()) as { error: { code: number; data: { issues: { path: string }[] } } };
  expect(body.error.code).toBe(-32602);
  expect(body.error.data.issues[0]?.path).toBe("/name");
  await handler.close();
});

it("serves the official SDK client over Streamable HTTP and legacy SSE", async () => {
  const http = await serveHttp(await featureServer());
  cleanups.push(() => http.close());
  const steps = ["connect", "tools", "echo", "progress", "logging", "sample", "notify"];
  const streamable = await runSdkClient("streamable", http.url, steps);
  expect(streamable.error).toBeUndefined();
  expect(streamable.progress).toEqual({ result: "done in 4 steps", progress: [1, 2, 3, 4] });
  expect(streamable.sample).toBe("sampled: echo ping (sdk-model)");
  expect(streamable.notify).toBe(true);
  const legacy = await runSdkClient("legacy", new URL("/sse", http.url).href, ["connect", "echo", "sample"]);
  expect(legacy).toMatchObject({ echo: "héllo", sample: "sampled: echo ping (sdk-model)" });
});
