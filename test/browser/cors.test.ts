/**
 * CORS in a real browser: Debian's Chromium, headless, driven by playwright-core, loads a page from one
 * loopback origin whose fetch() calls reach our server on another. From the allowed origin: initialize
 * (2025-11-25), the session id read from the answer, notifications/initialized, a tool call carrying the
 * session, DELETE; a stateless 2026-07-28 call with Mcp-Method, Mcp-Name and a tool's Mcp-Param-*
 * header; a protected server's 401 and its WWW-Authenticate read by the page. From another origin the
 * browser blocks the calls.
 *
 * Chromium must be at /usr/bin/chromium (`apt-get install -y chromium`; .ci/run installs it). When it
 * is missing the suite FAILS where CI is set, and is skipped (saying why) only where CI is not set.
 */

import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type Server as NodeServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BrowserContext, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { handlers, info } from "../../examples/everything-server/handlers.js";
import { createServer as createMcpServer } from "../../generated/2026-07-28/index.js";
import { HttpError } from "../../runtime/http/http-error.js";
import { type HttpServerHandle, serveHttp } from "../../runtime/node/http.js";

const CHROMIUM = "/usr/bin/chromium";
const missing = !existsSync(CHROMIUM);
const inCi = Boolean(process.env.CI);
const CHALLENGE = 'Bearer resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource/mcp"';

/** A page server on 127.0.0.1: one blank page, so that the page's origin is this server's. */
async function pageServer(): Promise<{ origin: string; server: NodeServer }> {
  const server = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end("<!doctype html><title>page</title>");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

const mcpServer = () =>
  createMcpServer({
    info,
    handlers,
    capabilities: { tools: { listChanged: true }, prompts: { listChanged: true } },
    onError: () => {},
  });

describe.skipIf(missing && !inCi)(
  missing ? `browser CORS: no Chromium at ${CHROMIUM} (skipped without CI, fails with it)` : "browser CORS",
  () => {
    let context: BrowserContext;
    let profile: string;
    let allowed: Awaited<ReturnType<typeof pageServer>>;
    let other: Awaited<ReturnType<typeof pageServer>>;
    let open: HttpServerHandle;
    let guarded: HttpServerHandle;
    let authenticated = 0;

    beforeAll(async () => {
      if (missing) {
        throw new Error(
          `Chromium is not installed at ${CHROMIUM}, and CI is set: install it (apt-get install -y chromium), as .ci/run does`,
        );
      }
      allowed = await pageServer();
      other = await pageServer();
      open = await serveHttp(mcpServer(), { port: 0, cors: { origins: [allowed.origin] } });
      guarded = await serveHttp(mcpServer(), {
        port: 0,
        cors: { origins: [allowed.origin] },
        authenticate: () => {
          authenticated++;
          throw new HttpError(401, "Unauthorized", { "www-authenticate": CHALLENGE });
        },
      });
      profile = await mkdtemp(join(tmpdir(), "mcp-codegen-chromium-"));
      context = await chromium.launchPersistentContext(profile, {
        executablePath: CHROMIUM,
        headless: true,
        timeout: 60_000,
        args: [
          "--no-sandbox",
          "--disable-gpu",
          "--disable-quic",
          "--no-first-run",
          "--disable-background-networking",
          "--disable-component-update",
          "--disable-sync",
        ],
      });
    }, 120_000);

    afterAll(async () => {
      await context?.close();
      await Promise.all([open?.close(), guarded?.close()]);
      for (const page of [allowed, other]) page?.server.close();
      if (profile) await rm(profile, { recursive: true, force: true });
    });

    /** A new tab on `origin`, and the console messages it logs (Chromium reports CORS blocks there). */
    async function tabOn(origin: string) {
      const page = await context.newPage();
      const console: string[] = [];
      page.on("console", (message) => console.push(message.text()));
      await page.goto(`${origin}/`);
      expect(await page.evaluate(() => location.origin)).toBe(origin);
      return { page, console };
    }

    it("the allowed origin: initialize, the session id read, a session-carrying tool call, DELETE", async () => {
      const { page } = await tabOn(allowed.origin);
      const seen = await page.evaluate(async (url) => {
        const accept = "application/json, text/event-stream";
        /** The JSON-RPC messages of an answer, JSON or SSE. */
        const messages = async (response: Response) => {
          const text = await response.text();
          if ((response.headers.get("content-type") ?? "").includes("application/json"))
            return [JSON.parse(text)];
          return text
            .split("\n")
            .filter((line) => line.startsWith("data:") && line.slice(5).trim() !== "")
            .map((line) => JSON.parse(line.slice(5)));
        };
        const init = await fetch(url, {
          method: "POST",
          headers: { "content-type": "application/json", accept },
          body: JSON.stringify({
            jsonrpc: "2.0",
            id: 1,
            method: "initialize",
            params: {
              protocolVersion: "2025-11-25",
              capabilities: {},
              clientInfo: { name: "page", version: "1" },
            },
          }),
        });
        const session = init.headers.get("mcp-session-id");
        const initMessages = await messages(init);
        const headers = {
          "content-type": "application/json",
          accept,
          "mcp-session-id": session ?? "",
          "mcp-protocol-version": "2025-11-25",
        };
        const initialized = await fetch(url, {
          method: "POST",
          headers,
          body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
        });
        const call = await fetch(url, {
          method: "POST",
          headers,
          body: JSON.stringify({
            jsonrpc: "2.0",
            id: 2,
            method: "tools/call",
            params: { name: "test_simple_text", arguments: {} },
          }),
        });
        const callMessages = await messages(call);
        const deleted = await fetch(url, { method: "DELETE", headers });
        const after = await fetch(url, {
          method: "POST",
          headers,
          body: JSON.stringify({ jsonrpc: "2.0", id: 3, method: "tools/list" }),
        });
        return {
          initStatus: init.status,
          session,
          protocolVersion: initMessages[0]?.result?.protocolVersion,
          initialized: initialized.status,
          call: callMessages.find((m) => m.id === 2),
          deleted: deleted.status,
          after: after.status,
        };
      }, open.url);
      expect(seen).toEqual({
        initStatus: 200,
        session: expect.stringMatching(/^[\x21-\x7e]{32,}$/),
        protocolVersion: "2025-11-25",
        initialized: 202,
        call: {
          jsonrpc: "2.0",
          id: 2,
          result: { content: [{ type: "text", text: "This is a simple text response for testing." }] },
        },
        deleted: 204,
        after: 404,
      });
      await page.close();
    });

    it("the allowed origin: a stateless 2026-07-28 call with Mcp-Method, Mcp-Name and Mcp-Param-Region", async () => {
      const { page } = await tabOn(allowed.origin);
      const seen = await page.evaluate(async (url) => {
        const meta = {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientCapabilities": {},
          "io.modelcontextprotocol/clientInfo": { name: "page", version: "1" },
        };
        const post = async (id: number, method: string, params: object, extra: Record<string, string>) => {
          const response = await fetch(url, {
            method: "POST",
            headers: {
              "content-type": "application/json",
              accept: "application/json, text/event-stream",
              "mcp-protocol-version": "2026-07-28",
              "mcp-method": method,
              ...extra,
            },
            body: JSON.stringify({ jsonrpc: "2.0", id, method, params: { ...params, _meta: meta } }),
          });
          return { status: response.status, body: await response.json() };
        };
        const list = await post(1, "tools/list", {}, {});
        const call = await post(
          2,
          "tools/call",
          { name: "test_custom_headers", arguments: { region: "eu-west1" } },
          { "mcp-name": "test_custom_headers", "mcp-param-region": "eu-west1" },
        );
        const mismatch = await post(
          3,
          "tools/call",
          { name: "test_custom_headers", arguments: { region: "eu-west1" } },
          { "mcp-name": "test_custom_headers", "mcp-param-region": "us-east1" },
        );
        return {
          listed: list.body.result.tools.some((t: { name: string }) => t.name === "test_custom_headers"),
          call: { status: call.status, content: call.body.result?.content },
          mismatch: { status: mismatch.status, code: mismatch.body.error?.code },
        };
      }, open.url);
      expect(seen).toEqual({
        listed: true,
        call: { status: 200, content: [{ type: "text", text: "region=eu-west1" }] },
        // The header reached the server, which checked it against the body: readable by the page too.
        mismatch: { status: 400, code: expect.any(Number) },
      });
      await page.close();
    });

    it("a protected server: the page reads the 401 and its WWW-Authenticate; the preflight ran no authentication", async () => {
      const { page } = await tabOn(allowed.origin);
      const before = authenticated;
      const seen = await page.evaluate(async (url) => {
        const response = await fetch(url, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
            authorization: "Bearer not-a-valid-token",
          },
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
        });
        return { status: response.status, challenge: response.headers.get("www-authenticate") };
      }, guarded.url);
      expect(seen).toEqual({ status: 401, challenge: CHALLENGE });
      // One request authenticated (the POST); the preflight before it reached no authentication.
      expect(authenticated - before).toBe(1);
      await page.close();
    });

    it("another origin: the browser blocks the calls (TypeError), preflighted or not", async () => {
      const { page, console } = await tabOn(other.origin);
      const sessions = open.handler.sessionCount;
      const seen = await page.evaluate(async (url) => {
        const attempt = async (init: RequestInit) => {
          try {
            const response = await fetch(url, init);
            return `status ${response.status}`;
          } catch (error) {
            return (error as Error).name;
          }
        };
        const body = JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: {
            protocolVersion: "2025-11-25",
            capabilities: {},
            clientInfo: { name: "page", version: "1" },
          },
        });
        return {
          preflighted: await attempt({
            method: "POST",
            headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
            body,
          }),
          simple: await attempt({ method: "POST", headers: { "content-type": "text/plain" }, body }),
        };
      }, open.url);
      expect(seen).toEqual({ preflighted: "TypeError", simple: "TypeError" });
      expect(console.join("\n")).toMatch(/blocked by CORS policy/);
      // The server refused them too (Origin check): no session was opened.
      expect(open.handler.sessionCount).toBe(sessions);
      await page.close();
    });
  },
);
