/**
 * CORS over real HTTP on 127.0.0.1 (serveHttp, the Node adapter's native path and the web path that an
 * `authenticate` hook takes): preflights answered before authentication, every answer to an allowed
 * origin readable (SSE, JSON, 202, 204, errors, 401 with its challenge), nothing for other origins, and
 * the DNS-rebinding guard as it was.
 */
import { afterAll, describe, expect, it } from "vitest";
import { Cors, corsPolicy, INSPECTOR_ORIGINS, originList } from "../../../runtime/http/cors.js";
import { HttpError } from "../../../runtime/http/http-error.js";
import { type ServeHttpOptions, serveHttp } from "../../../runtime/node/http.js";
import { featureServer } from "../../fixtures/http/feature-server.js";
import { initializeBody, POST_HEADERS, readSse } from "../../fixtures/http/helpers.js";

const APP = "http://127.0.0.1:5173";
const OTHER = "http://127.0.0.1:5174";

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

async function serve(options: ServeHttpOptions = {}, version = "2025-11-25") {
  const http = await serveHttp(await featureServer(version), { port: 0, ...options });
  cleanups.push(() => http.close());
  return http;
}

const preflight = (url: string, origin: string, method = "POST", headers = "content-type") =>
  fetch(url, {
    method: "OPTIONS",
    headers: { origin, "access-control-request-method": method, "access-control-request-headers": headers },
  });

/** Every `access-control-*` header of a response. */
const corsHeaders = (response: Response) =>
  Object.fromEntries([...response.headers].filter(([name]) => name.startsWith("access-control-")));

const readable = (origin: string) => ({
  "access-control-allow-origin": origin,
  "access-control-expose-headers": "Mcp-Session-Id, MCP-Protocol-Version, WWW-Authenticate, DPoP-Nonce",
});

const MCP_HEADERS = [
  "authorization",
  "dpop",
  "content-type",
  "accept",
  "mcp-session-id",
  "mcp-protocol-version",
  "last-event-id",
  "mcp-method",
  "mcp-name",
];
const allowedHeaders = (response: Response) =>
  (response.headers.get("access-control-allow-headers") ?? "").split(",").map((h) => h.trim().toLowerCase());

const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(url, { method: "POST", headers: { ...POST_HEADERS, ...headers }, body: JSON.stringify(body) });

describe("preflight", () => {
  it("from an allowed origin: 204 with the methods, MCP's headers, Max-Age and Vary", async () => {
    const http = await serve({ cors: { origins: [APP] } });
    const response = await preflight(
      http.url,
      APP,
      "POST",
      "content-type, mcp-protocol-version, authorization",
    );
    expect(response.status).toBe(204);
    expect(await response.text()).toBe("");
    expect(response.headers.get("access-control-allow-origin")).toBe(APP);
    expect(response.headers.get("access-control-allow-methods")).toBe("GET, POST, DELETE");
    expect(allowedHeaders(response)).toEqual(MCP_HEADERS);
    expect(response.headers.get("access-control-max-age")).toBe("600");
    expect(response.headers.get("vary")).toContain("Origin");
    expect(response.headers.get("access-control-allow-credentials")).toBeNull();
  });

  it("allows the Mcp-Param-* headers asked for (a tool's x-mcp-header parameters), not other headers", async () => {
    const http = await serve({ cors: { origins: [APP] } }, "2026-07-28");
    const asked = "content-type,mcp-method,mcp-name,mcp-param-region,mcp-param-priority,x-secret,mcp-param-";
    const allowed = allowedHeaders(await preflight(http.url, APP, "POST", asked));
    expect(allowed).toEqual([...MCP_HEADERS, "mcp-param-region", "mcp-param-priority"]);
  });

  it("maxAgeSec and allowHeaders are taken; the Inspector switch admits its two origins only", async () => {
    const http = await serve({ cors: { inspector: true, maxAgeSec: 30, allowHeaders: ["X-Trace-Id"] } });
    for (const origin of INSPECTOR_ORIGINS) {
      const response = await preflight(http.url, origin);
      expect(response.status).toBe(204);
      expect(response.headers.get("access-control-allow-origin")).toBe(origin);
      expect(response.headers.get("access-control-max-age")).toBe("30");
      expect(allowedHeaders(response)).toEqual([...MCP_HEADERS, "x-trace-id"]);
    }
    const elsewhere = await preflight(http.url, "http://localhost:6275");
    expect(elsewhere.status).toBe(403);
    expect(corsHeaders(elsewhere)).toEqual({});
  });

  it("is answered before authentication, which never sees it", async () => {
    let calls = 0;
    const http = await serve({
      cors: { origins: [APP] },
      authenticate: () => {
        calls++;
        throw new HttpError(401, "Unauthorized", { "www-authenticate": 'Bearer realm="mcp"' });
      },
    });
    const response = await preflight(http.url, APP, "POST", "authorization, content-type");
    expect(response.status).toBe(204);
    expect(response.headers.get("access-control-allow-origin")).toBe(APP);
    expect(calls).toBe(0);
  });

  it("from an origin not allowed: refused (403) with no CORS header at all", async () => {
    const http = await serve({ cors: { origins: [APP] } });
    const response = await preflight(http.url, OTHER);
    expect(response.status).toBe(403);
    expect(corsHeaders(response)).toEqual({});
    // Without a CORS policy nothing changes: the Origin check refuses, nothing says CORS.
    const plain = await serve();
    const refused = await preflight(plain.url, APP);
    expect(refused.status).toBe(403);
    expect(corsHeaders(refused)).toEqual({});
    // An origin the rebinding check admits (allowedOrigins) but CORS does not: no preflight answer.
    const admitted = await serve({ allowedOrigins: [APP] });
    const notCors = await preflight(admitted.url, APP);
    expect(notCors.status).toBe(405);
    expect(corsHeaders(notCors)).toEqual({});
  });

  it("an OPTIONS that is no preflight (no Access-Control-Request-Method) is not answered as one", async () => {
    const http = await serve({ cors: { origins: [APP] } });
    const response = await fetch(http.url, { method: "OPTIONS", headers: { origin: APP } });
    expect(response.status).toBe(405);
    expect(response.headers.get("access-control-allow-methods")).toBeNull();
    expect(corsHeaders(response)).toEqual(readable(APP));
  });
});

describe("answers to an allowed origin", () => {
  it("a whole session: initialize (SSE), 202, a call (JSON), the GET stream, DELETE, then 404", async () => {
    const http = await serve({ cors: { origins: [APP] }, jsonResponse: true });
    const origin = { origin: APP };
    const init = await fetch(http.url, {
      method: "POST",
      headers: { ...POST_HEADERS, ...origin },
      body: JSON.stringify(initializeBody()),
    });
    expect(init.status).toBe(200);
    expect(corsHeaders(init)).toEqual(readable(APP));
    expect(init.headers.get("vary")).toBe("Origin");
    const id = init.headers.get("mcp-session-id")!;
    expect(id).toBeTruthy();
    await init.text();
    const session = { ...origin, "mcp-session-id": id, "mcp-protocol-version": "2025-11-25" };

    const note = await post(http.url, { jsonrpc: "2.0", method: "notifications/initialized" }, session);
    expect(note.status).toBe(202);
    expect(corsHeaders(note)).toEqual(readable(APP));

    const call = {
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "echo", arguments: { text: "hi" } },
    };
    const answer = await post(http.url, call, session);
    expect(answer.headers.get("content-type")).toBe("application/json");
    expect(corsHeaders(answer)).toEqual(readable(APP));
    expect(await answer.json()).toMatchObject({ id: 1, result: { content: [{ type: "text", text: "hi" }] } });

    const stream = await fetch(http.url, { headers: { ...session, accept: "text/event-stream" } });
    expect(stream.headers.get("content-type")).toBe("text/event-stream");
    expect(corsHeaders(stream)).toEqual(readable(APP));
    await stream.body?.cancel();

    const deleted = await fetch(http.url, { method: "DELETE", headers: session });
    expect(deleted.status).toBe(204);
    expect(corsHeaders(deleted)).toEqual(readable(APP));

    const gone = await post(http.url, call, session);
    expect(gone.status).toBe(404);
    expect(corsHeaders(gone)).toEqual(readable(APP));
  });

  it("errors: 400, 406, 415, 405, and a 401 whose WWW-Authenticate the page may read", async () => {
    const http = await serve({ cors: { origins: [APP] } });
    const origin = { origin: APP };
    const cases = [
      [await post(http.url, { jsonrpc: "2.0", id: 1, method: "tools/list" }, origin), 400],
      [await post(http.url, initializeBody(), { ...origin, accept: "application/json" }), 406],
      [await post(http.url, initializeBody(), { ...origin, "content-type": "text/plain" }), 415],
      [await fetch(http.url, { method: "PUT", headers: origin }), 405],
    ] as const;
    for (const [response, status] of cases) {
      expect(response.status).toBe(status);
      expect(corsHeaders(response)).toEqual(readable(APP));
    }

    const challenge = 'Bearer resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource/mcp"';
    const guarded = await serve({
      cors: { origins: [APP] },
      authenticate: () => {
        throw new HttpError(401, "Unauthorized", { "www-authenticate": challenge });
      },
    });
    const refused = await post(guarded.url, initializeBody(), origin);
    expect(refused.status).toBe(401);
    expect(refused.headers.get("www-authenticate")).toBe(challenge);
    expect(corsHeaders(refused)).toEqual(readable(APP));
  });

  it("while closing: a preflight is still answered (a page may still owe an answer), the 503s readable", async () => {
    const http = await serve({ cors: { origins: [APP] } });
    await http.handler.close();
    const asked = await preflight(http.url, APP);
    expect(asked.status).toBe(204);
    expect(asked.headers.get("access-control-allow-origin")).toBe(APP);
    const refused = await post(http.url, initializeBody(), { origin: APP });
    expect(refused.status).toBe(503);
    expect(refused.headers.get("retry-after")).toBe("5");
    expect(corsHeaders(refused)).toEqual(readable(APP));
    const stream = await fetch(http.url, { headers: { origin: APP, accept: "text/event-stream" } });
    expect(stream.status).toBe(503);
    expect(corsHeaders(stream)).toEqual(readable(APP));
  });

  it("serveHttp's 404 for a path it does not serve, with and without an authenticate hook", async () => {
    const plain = await serve({ cors: { origins: [APP] } });
    const hooked = await serve({ cors: { origins: [APP] }, authenticate: () => "someone" });
    for (const http of [plain, hooked]) {
      const missing = await fetch(new URL("/.well-known/nothing-here", http.url), {
        headers: { origin: APP },
      });
      expect(missing.status).toBe(404);
      expect(corsHeaders(missing)).toEqual(readable(APP));
      expect(missing.headers.get("vary")).toBe("Origin");
      const other = await fetch(new URL("/elsewhere", http.url), { headers: { origin: OTHER } });
      expect(other.status).toBe(404);
      expect(corsHeaders(other)).toEqual({});
    }
  });

  it("the stateless era (2026-07-28) and the legacy HTTP+SSE endpoints too", async () => {
    const http = await serve({ cors: { origins: [APP] } }, "2026-07-28");
    const meta = {
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientCapabilities": {},
      "io.modelcontextprotocol/clientInfo": { name: "page", version: "1" },
    };
    const stateless = await post(
      http.url,
      {
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "echo", arguments: { text: "s" }, _meta: meta },
      },
      { origin: APP, "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "echo" },
    );
    expect(stateless.status).toBe(200);
    expect(corsHeaders(stateless)).toEqual(readable(APP));
    expect(await stateless.json()).toMatchObject({ result: { content: [{ text: "s" }] } });

    const base = http.url.replace(/\/mcp$/, "");
    const messages = await preflight(`${base}/messages?sessionId=x`, APP);
    expect(messages.status).toBe(204);
    expect(messages.headers.get("access-control-allow-origin")).toBe(APP);
    const sse = await fetch(`${base}/sse`, { headers: { origin: APP, accept: "text/event-stream" } });
    expect(corsHeaders(sse)).toEqual(readable(APP));
    const { events } = await readSse(sse.body!, () => true);
    expect(events[0]).toMatchObject({
      event: "endpoint",
      data: expect.stringMatching(/^\/messages\?sessionId=/),
    });
  });
});

describe("other origins and the DNS-rebinding guard", () => {
  it("an origin not allowed is refused (403) without CORS headers; a request without Origin gets none", async () => {
    const http = await serve({ cors: { origins: [APP] } });
    const refused = await post(http.url, initializeBody(), { origin: OTHER });
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toBe(
      "Forbidden: Origin not allowed",
    );
    expect(corsHeaders(refused)).toEqual({});
    expect(refused.headers.get("vary")).toBe("Origin");

    const native = await post(http.url, initializeBody());
    expect(native.status).toBe(200);
    expect(corsHeaders(native)).toEqual({});
    expect(native.headers.get("vary")).toBe("Origin");
    await native.body?.cancel();
  });

  it("CORS origins join the Origin check: beside allowedOrigins, and beside same-origin by default", async () => {
    const listed = await serve({ allowedOrigins: [OTHER], cors: { origins: [APP] } });
    for (const origin of [APP, OTHER]) {
      const response = await post(listed.url, initializeBody(), { origin });
      expect(response.status).toBe(200);
      await response.body?.cancel();
    }
    expect((await post(listed.url, initializeBody(), { origin: "http://127.0.0.1:9" })).status).toBe(403);

    const byDefault = await serve({ cors: { origins: [APP] } });
    const own = new URL(byDefault.url).origin;
    const same = await post(byDefault.url, initializeBody(), { origin: own });
    expect(same.status).toBe(200);
    expect(corsHeaders(same)).toEqual({});
    await same.body?.cancel();
  });

  it("the Host check is unchanged: an allowed origin naming a foreign Host is refused", async () => {
    const http = await serve({ cors: { origins: [APP] } });
    const { request } = await import("node:http");
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(http.url, {
        method: "OPTIONS",
        headers: { host: "evil.example:80", origin: APP, "access-control-request-method": "POST" },
      });
      req.on("response", (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on("error", reject);
      req.end();
    });
    expect(status).toBe(403);
  });
});

describe("the policy", () => {
  it("refuses what is not a bare origin, a bad header name or a bad Max-Age, naming it", () => {
    for (const entry of ["*", "null", "http://a.example/path", "http://a.example?x", "a.example", ""]) {
      expect(() => new Cors({ origins: [entry] })).toThrow(
        `cors.origins: ${JSON.stringify(entry)} is not an origin`,
      );
    }
    expect(() => new Cors({ allowHeaders: ["bad header"] })).toThrow('cors.allowHeaders: "bad header"');
    expect(() => new Cors({ maxAgeSec: -1 })).toThrow("cors.maxAgeSec");
    expect(() => new Cors({ maxAgeSec: 1.5 })).toThrow("cors.maxAgeSec");
  });

  it("matches normalized origins exactly (case, default port, trailing slash), never 'null'", () => {
    const cors = new Cors({ origins: ["HTTPS://App.Example:443/", "http://localhost:5173"] });
    expect(cors.allows("https://app.example")).toBe(true);
    expect(cors.allows("http://localhost:5173")).toBe(true);
    expect(cors.allows("http://app.example")).toBe(false);
    expect(cors.allows("http://localhost:5174")).toBe(false);
    expect(cors.allows("http://127.0.0.1:5173")).toBe(false);
    expect(cors.allows("null")).toBe(false);
    expect(new Cors({}).allows("http://localhost:5173")).toBe(false);
  });

  it("a policy allowing no origin is none: answers stay as they were, without Vary", async () => {
    expect(corsPolicy(undefined)).toBeUndefined();
    expect(corsPolicy({ origins: [] })).toBeUndefined();
    expect(() => corsPolicy({ origins: [], maxAgeSec: -1 })).toThrow("cors.maxAgeSec");
    const http = await serve({ cors: { origins: originList(undefined) } });
    const response = await post(http.url, initializeBody(), { origin: APP });
    expect(response.status).toBe(403);
    expect(response.headers.get("vary")).toBeNull();
    expect(corsHeaders(response)).toEqual({});
  });

  it("originList reads a comma-separated list (an environment variable)", () => {
    expect(originList(undefined)).toEqual([]);
    expect(originList("")).toEqual([]);
    expect(originList(" http://a.example , http://b.example:8080,,")).toEqual([
      "http://a.example",
      "http://b.example:8080",
    ]);
  });
});
