/**
 * loopbackRedirect over real sockets: the authorization response brought back by a GET, `state` checked,
 * an error response, requests that are not a response, a response held until the state is known, the
 * timeout and close(), each ending with the server closed and no handle left open.
 */
import { spawn } from "node:child_process";
import { connect } from "node:net";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import {
  AuthorizationResponseError,
  type LoopbackRedirect,
  LoopbackRedirectError,
  loopbackRedirect,
} from "../../../runtime/node/loopback-redirect.js";

const STATE = "st-8c1f0e2a9b";
const MODULE = fileURLToPath(new URL("../../../runtime/node/loopback-redirect.ts", import.meta.url));
const TSX = fileURLToPath(new URL("../../../node_modules/.bin/tsx", import.meta.url));

/** Runs an ES module script under tsx in a new process; resolves when that process exits by itself. */
function runScript(source: string): Promise<{ stdout: string; exitCode: number | null }> {
  return new Promise((resolve, reject) => {
    const child = spawn(TSX, ["--input-type=module", "-e", source], { stdio: ["ignore", "pipe", "inherit"] });
    let stdout = "";
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
    });
    const killer = setTimeout(() => child.kill("SIGKILL"), 30_000);
    child.once("error", reject);
    child.once("exit", (exitCode) => {
      clearTimeout(killer);
      resolve({ stdout, exitCode });
    });
  });
}

/** Whether something accepts connections at the redirect URI's port. */
function listening(redirectUri: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(Number(new URL(redirectUri).port), "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

const get = async (redirect: LoopbackRedirect, pathAndQuery: string, init?: RequestInit) => {
  const response = await fetch(new URL(pathAndQuery, redirect.redirectUri), init);
  return { status: response.status, type: response.headers.get("content-type"), html: await response.text() };
};

describe("loopbackRedirect", () => {
  it("listens on 127.0.0.1 at a random port and resolves with the code, state and iss the browser brings", async () => {
    const redirect = await loopbackRedirect({ timeoutMs: 10_000 });
    expect(redirect.redirectUri).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    expect(new URL(redirect.redirectUri).port).not.toBe("0");
    const waiting = redirect.wait(STATE);
    const page = await get(
      redirect,
      `/callback?code=the-code&state=${STATE}&iss=${encodeURIComponent("https://as")}`,
    );
    expect(page.status).toBe(200);
    expect(page.type).toBe("text/html; charset=utf-8");
    expect(page.html).toContain("You can close this window");
    expect(page.html).not.toContain("the-code");
    await expect(waiting).resolves.toEqual({ code: "the-code", state: STATE, iss: "https://as" });
    await redirect.close();
    expect(await listening(redirect.redirectUri)).toBe(false);
  });

  it("rejects a response with another state, or none, and stops", async () => {
    for (const query of ["code=c&state=st-8c1f0e2a9c", "code=c&state=short", "code=c"]) {
      const redirect = await loopbackRedirect({ expectedState: STATE, timeoutMs: 10_000 });
      const waiting = redirect.wait();
      const page = await get(redirect, `/callback?${query}`);
      expect(page.status).toBe(400);
      expect(page.html).toContain("not for the sign-in under way");
      await expect(waiting).rejects.toBeInstanceOf(LoopbackRedirectError);
      await expect(waiting).rejects.toMatchObject({ reason: "state_mismatch" });
      await redirect.close();
      expect(await listening(redirect.redirectUri)).toBe(false);
    }
  });

  it("rejects with the OAuth error of an error response, showing it escaped", async () => {
    const redirect = await loopbackRedirect({ timeoutMs: 10_000 });
    const waiting = redirect.wait(STATE);
    const error = "<script>alert(1)</script>";
    const page = await get(
      redirect,
      `/callback?error=${encodeURIComponent(error)}&error_description=${encodeURIComponent("<b>no</b>")}&state=${STATE}&iss=https%3A%2F%2Fas`,
    );
    expect(page.status).toBe(400);
    expect(page.html).not.toContain("<script>");
    expect(page.html).toContain("&#60;script&#62;alert(1)&#60;/script&#62;");
    expect(page.html).not.toContain("<b>");
    await expect(waiting).rejects.toBeInstanceOf(AuthorizationResponseError);
    await expect(waiting).rejects.toMatchObject({ error, errorDescription: "<b>no</b>", iss: "https://as" });
    await redirect.close();
  });

  it("answers other paths 404, other methods 405, a bare callback 400, and keeps waiting", async () => {
    const redirect = await loopbackRedirect({ path: "/cb", timeoutMs: 10_000 });
    const waiting = redirect.wait(STATE);
    expect((await get(redirect, "/favicon.ico")).status).toBe(404);
    expect((await get(redirect, `/callback?code=c&state=${STATE}`)).status).toBe(404);
    expect((await get(redirect, `/cb?code=c&state=${STATE}`, { method: "POST" })).status).toBe(405);
    expect((await get(redirect, "/cb")).status).toBe(400);
    expect((await get(redirect, `/cb?state=${STATE}`)).status).toBe(400);
    expect((await get(redirect, `/cb?code=late&state=${STATE}`)).status).toBe(200);
    await expect(waiting).resolves.toMatchObject({ code: "late" });
    await redirect.close();
  });

  it("holds a response that comes before the state is known, until wait(state)", async () => {
    const redirect = await loopbackRedirect({ timeoutMs: 10_000 });
    const page = get(redirect, `/callback?code=early&state=${STATE}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const result = await redirect.wait(STATE);
    expect(result.code).toBe("early");
    expect((await page).status).toBe(200);
    await redirect.close();
  });

  it("still takes a held response whose browser went away, and closes", async () => {
    const redirect = await loopbackRedirect({ timeoutMs: 10_000 });
    const socket = connect(Number(new URL(redirect.redirectUri).port), "127.0.0.1");
    await new Promise((resolve) => socket.once("connect", resolve));
    socket.write(`GET /callback?code=orphan&state=${STATE} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
    await new Promise((resolve) => setTimeout(resolve, 100));
    socket.destroy();
    await new Promise((resolve) => setTimeout(resolve, 100));
    await expect(redirect.wait(STATE)).resolves.toMatchObject({ code: "orphan" });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await listening(redirect.redirectUri)).toBe(false);
    await redirect.close();
  });

  it("refuses wait() without a state to compare, and a state other than expectedState", async () => {
    const redirect = await loopbackRedirect({ timeoutMs: 10_000 });
    await expect(redirect.wait()).rejects.toThrow(/pass the state/);
    await redirect.close();
    const fixed = await loopbackRedirect({ expectedState: STATE, timeoutMs: 10_000 });
    await expect(fixed.wait("another")).rejects.toThrow(/differs from expectedState/);
    await fixed.close();
  });

  it("times out: rejects and closes the server", async () => {
    const started = Date.now();
    const redirect = await loopbackRedirect({ timeoutMs: 300 });
    const waiting = redirect.wait(STATE);
    await expect(waiting).rejects.toMatchObject({ reason: "timeout" });
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    await redirect.close();
    expect(await listening(redirect.redirectUri)).toBe(false);
  });

  it("answers a response held when the time runs out, and closes", async () => {
    const redirect = await loopbackRedirect({ timeoutMs: 300 });
    const page = await get(redirect, `/callback?code=never-checked&state=${STATE}`);
    expect(page.status).toBe(503);
    await expect(redirect.wait(STATE)).rejects.toMatchObject({ reason: "timeout" });
    await redirect.close();
  });

  it("close() stops a wait under way, and the server goes away even with a keep-alive connection open", async () => {
    const redirect = await loopbackRedirect({ timeoutMs: 10_000 });
    const waiting = redirect.wait(STATE);
    expect((await get(redirect, "/favicon.ico")).status).toBe(404); // leaves a kept-alive socket
    await redirect.close();
    await expect(waiting).rejects.toMatchObject({ reason: "closed" });
    expect(await listening(redirect.redirectUri)).toBe(false);
  });

  it("close() does not wait for a connection stuck halfway through a request", async () => {
    const redirect = await loopbackRedirect({ timeoutMs: 10_000 });
    const socket = connect(Number(new URL(redirect.redirectUri).port), "127.0.0.1");
    await new Promise((resolve) => socket.once("connect", resolve));
    socket.write("GET /callback?code=c HTTP/1.1\r\nHost: 127.0.0.1\r\n"); // headers never end
    socket.on("error", () => {});
    await new Promise((resolve) => setTimeout(resolve, 50));
    const closing = redirect.close().then(() => "closed");
    const late = new Promise((resolve) => setTimeout(() => resolve("still waiting after 2 s"), 2000));
    expect(await Promise.race([closing, late])).toBe("closed");
    socket.destroy();
  });

  it("leaves nothing that keeps a process alive: after a response, a timeout, or close()", async () => {
    const ends = {
      response: `const w = r.wait("s"); await fetch(r.redirectUri + "?code=c&state=s"); await w;`,
      timeout: `await r.wait("s").catch(() => {});`,
      close: `const w = r.wait("s").catch(() => {}); await fetch(new URL("/favicon.ico", r.redirectUri)); await r.close(); await w;`,
    };
    for (const [end, code] of Object.entries(ends)) {
      const timeoutMs = end === "timeout" ? 200 : 60_000;
      const script = `import { loopbackRedirect } from ${JSON.stringify(MODULE)};
const r = await loopbackRedirect({ timeoutMs: ${timeoutMs} }); ${code} console.log("done");`;
      const started = Date.now();
      const { stdout, exitCode } = await runScript(script);
      expect({ end, stdout: stdout.trim(), exitCode }).toEqual({ end, stdout: "done", exitCode: 0 });
      // The process ended on its own, long before the 60 s timer could have fired.
      expect(Date.now() - started).toBeLessThan(20_000);
    }
  });

  it("refuses a path that is not absolute, and reports a port in use", async () => {
    await expect(loopbackRedirect({ path: "callback" })).rejects.toThrow(/must start with/);
    const first = await loopbackRedirect({ timeoutMs: 10_000 });
    const port = Number(new URL(first.redirectUri).port);
    await expect(loopbackRedirect({ port, timeoutMs: 10_000 })).rejects.toMatchObject({ code: "EADDRINUSE" });
    await first.close();
  });
});
