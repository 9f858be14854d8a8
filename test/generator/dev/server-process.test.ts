/**
 * One run of a server for dev (generator/dev/server-process.ts), as real node processes: ready once its
 * port accepts, refused with a reason when it exits first or listens elsewhere (and then killed), stopped
 * with SIGTERM.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { freePort, startServer } from "../../../generator/dev/server-process.js";

const work = mkdtempSync(join(tmpdir(), "mcp-codegen-server-process-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function script(name: string, text: string): string {
  const path = join(work, name);
  writeFileSync(path, text);
  return path;
}

const LISTEN_ON_PORT = `
import { createServer } from "node:http";
const server = createServer((_q, r) => r.end("up")).listen(Number(process.env.PORT), "127.0.0.1");
process.on("SIGTERM", () => server.close(() => process.exit(0)));
`;

const start = (main: string, readyTimeoutMs = 10_000) =>
  freePort().then((port) =>
    startServer({ main, args: [], nodeFlags: [], cwd: work, port, readyTimeoutMs, onStderr: () => {} }),
  );

describe("dev's server process", () => {
  it("is ready once it listens on the port it was given in PORT, and stops on SIGTERM", async () => {
    const server = await start(script("ok.mjs", LISTEN_ON_PORT));
    expect(await (await fetch(`http://127.0.0.1:${server.port}/`)).text()).toBe("up");
    await server.stop();
    expect(await server.exited).toBe("exit code 0");
  });

  it("is refused with its exit when it exits before listening", async () => {
    await expect(start(script("crash.mjs", 'throw new Error("boom");'))).rejects.toThrow(
      "the server exited before listening (exit code 1)",
    );
  });

  it("is refused, and killed, when it listens elsewhere, naming PORT", async () => {
    const main = script("elsewhere.mjs", 'console.error("pid", process.pid); setInterval(() => {}, 1000);');
    const lines: string[] = [];
    const port = await freePort();
    const started = startServer({
      main,
      args: [],
      nodeFlags: [],
      cwd: work,
      port,
      readyTimeoutMs: 500,
      onStderr: (line) => lines.push(line),
    });
    await expect(started).rejects.toThrow(/did not listen on port \d+ within 500 ms \(dev passes it in PORT/);
    const pid = Number(lines.find((l) => l.startsWith("pid "))?.slice(4));
    expect(pid).toBeGreaterThan(0);
    // Gone: signal 0 only asks whether the process exists.
    expect(() => process.kill(pid, 0)).toThrow();
  });
});
