/**
 * dev's endpoint (generator/dev/proxy.ts) with real sockets on 127.0.0.1: requests wait for a server
 * instead of being refused, time out with a 503 naming why, survive a server that went away, stream SSE
 * as it is written, and reach the server with its own Host (and a same-origin Origin) while a foreign
 * Host is passed on untouched.
 */
import { spawnSync } from "node:child_process";
import { once } from "node:events";
import { createServer, type IncomingHttpHeaders, request, type Server } from "node:http";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { type DevProxy, startProxy } from "../../../generator/dev/proxy.js";
import { freePort } from "../../../generator/dev/server-process.js";

const PROXY = fileURLToPath(new URL("../../../generator/dev/proxy.ts", import.meta.url));
const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function backend(
  handler: Parameters<typeof createServer>[1] = (_req, res) => res.end("ok"),
): Promise<{ port: number; server: Server }> {
  const server = createServer(handler);
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  closers.push(
    () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(r);
      }),
  );
  return { port: (server.address() as { port: number }).port, server };
}

async function proxy(holdMs = 5000): Promise<DevProxy> {
  const p = await startProxy({ port: 0, holdMs });
  closers.push(() => p.close());
  return p;
}

describe("dev's proxy", () => {
  it("holds a request while no server runs and answers it once one is ready", async () => {
    const p = await proxy();
    const b = await backend((req, res) => req.resume().on("end", () => res.end(`got ${req.method}`)));
    const pending = fetch(`${p.origin}/mcp`, { method: "POST", body: "{}" });
    await new Promise((r) => setTimeout(r, 150));
    p.setTarget(b.port);
    const res = await pending;
    expect(res.status).toBe(200);
    expect(await res.text()).toBe("got POST");
  });

  it("answers 503 naming why when no server comes within the hold", async () => {
    const p = await proxy(150);
    const res = await fetch(`${p.origin}/mcp`, { method: "POST", body: "{}" });
    expect(res.status).toBe(503);
    expect(((await res.json()) as { error: { message: string } }).error.message).toContain(
      "the server is not running",
    );
  });

  it("closing drops the requests it holds, so dev exits without waiting out the hold", () => {
    // A process of its own: what is measured is how soon it can exit.
    const script = `
      import { startProxy } from ${JSON.stringify(PROXY)};
      const p = await startProxy({ port: 0, holdMs: 30000 });
      const pending = fetch(p.origin + "/mcp", { method: "POST", body: "{}" }).catch(() => "dropped");
      await new Promise((r) => setTimeout(r, 200));
      await p.close();
      console.log(await pending);
    `;
    const started = Date.now();
    const r = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(r.stdout.trim(), r.stderr).toBe("dropped");
    expect(Date.now() - started).toBeLessThan(15_000);
  }, 60_000);

  it("retries a request whose server went away once the next one is set, body included", async () => {
    const p = await proxy();
    p.setTarget(await freePort()); // nothing listens there: the server has just exited
    const b = await backend((req, res) => {
      let body = "";
      req.setEncoding("utf8").on("data", (s: string) => {
        body += s;
      });
      req.on("end", () => res.end(body));
    });
    const pending = fetch(`${p.origin}/mcp`, { method: "POST", body: '{"id":7}' });
    await new Promise((r) => setTimeout(r, 150));
    p.setTarget(b.port);
    const res = await pending;
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('{"id":7}');
  });

  it("streams server-sent events as they are written", async () => {
    const p = await proxy();
    let finish: () => void = () => {};
    const b = await backend((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write("data: first\n\n");
      finish = () => res.end("data: last\n\n");
    });
    p.setTarget(b.port);
    const res = await fetch(`${p.origin}/mcp`);
    expect(res.headers.get("content-type")).toBe("text/event-stream");
    const reader = res.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    // The first event arrived while the server still holds the stream open.
    expect(first).toBe("data: first\n\n");
    finish();
    const rest = new TextDecoder().decode((await reader.read()).value);
    expect(rest).toBe("data: last\n\n");
  });

  it("gives the server its own Host and a same-origin Origin; a foreign Host goes through as sent", async () => {
    const p = await proxy();
    const seen: IncomingHttpHeaders[] = [];
    const b = await backend((req, res) => {
      seen.push(req.headers);
      res.end();
    });
    p.setTarget(b.port);
    await fetch(`${p.origin}/mcp`, { headers: { origin: p.origin } });
    expect(seen[0]!.host).toBe(`127.0.0.1:${b.port}`);
    expect(seen[0]!.origin).toBe(`http://127.0.0.1:${b.port}`);
    await fetch(`${p.origin}/mcp`, { headers: { origin: "http://evil.example" } });
    expect(seen[1]!.origin).toBe("http://evil.example");
    await new Promise<void>((resolve, reject) => {
      request({ host: "127.0.0.1", port: p.port, path: "/mcp", headers: { host: "evil.example" } }, (res) => {
        res.resume().on("end", resolve);
      })
        .on("error", reject)
        .end();
    });
    expect(seen[2]!.host).toBe("evil.example");
  });
});
