import { describe, expect, it } from "vitest";
import type { CoreRequest } from "../../../runtime/http/core.js";
import { HostGuard, loopbackHosts } from "../../../runtime/http/guards.js";

const request = (headers: Record<string, string>): CoreRequest => ({
  method: "POST",
  url: "/mcp",
  header: (name) => headers[name] ?? null,
  body: async () => new Uint8Array(0),
});

const refusal = (guard: HostGuard, headers: Record<string, string>) => {
  const reply = guard.check(request(headers));
  return reply && { status: reply.status, message: JSON.parse(reply.body!).error.message as string };
};

describe("HostGuard", () => {
  const loopback = new HostGuard({ allowedHosts: loopbackHosts("127.0.0.1", 3000) });

  it("admits the loopback names of the bound port, whatever their case", () => {
    expect(refusal(loopback, { host: "127.0.0.1:3000" })).toBeUndefined();
    expect(refusal(loopback, { host: "LOCALHOST:3000" })).toBeUndefined();
    expect(refusal(loopback, { host: "[::1]:3000" })).toBeUndefined();
  });

  it("refuses another host or another port with 403 naming the Host (DNS rebinding)", () => {
    for (const host of ["evil.example:3000", "127.0.0.1:3001", "127.0.0.1", "localhost", ""]) {
      expect(refusal(loopback, { host })).toEqual({ status: 403, message: "Forbidden: Host not allowed" });
    }
  });

  it("a bare host name in the allowlist admits any port of it, and only of it", () => {
    const guard = new HostGuard({ allowedHosts: ["mcp.example.com", "[::1]"] });
    expect(refusal(guard, { host: "mcp.example.com:8443" })).toBeUndefined();
    expect(refusal(guard, { host: "mcp.example.com" })).toBeUndefined();
    expect(refusal(guard, { host: "[::1]:9" })).toBeUndefined();
    expect(refusal(guard, { host: "mcp.example.com.evil.net" })?.status).toBe(403);
    expect(refusal(guard, { host: "other.example.com:8443" })?.status).toBe(403);
  });

  it("without an Origin allowlist only the request's own host and port are same-origin", () => {
    const guard = new HostGuard({});
    expect(refusal(guard, { host: "127.0.0.1:3000", origin: "http://127.0.0.1:3000" })).toBeUndefined();
    expect(refusal(guard, { host: "127.0.0.1:3000", origin: "https://127.0.0.1:3000" })).toBeUndefined();
    // Same host, another port: another origin (another local app), refused.
    expect(refusal(guard, { host: "127.0.0.1:3000", origin: "http://127.0.0.1:5173" })).toEqual({
      status: 403,
      message: "Forbidden: Origin not allowed",
    });
    expect(refusal(guard, { host: "localhost:3000", origin: "http://127.0.0.1:3000" })?.status).toBe(403);
    expect(refusal(guard, { host: "127.0.0.1:3000", origin: "http://evil.example" })?.status).toBe(403);
  });

  it("never trusts the opaque origin 'null' nor a malformed one", () => {
    const guard = new HostGuard({ allowedOrigins: ["null", "http://app.example"] });
    expect(refusal(guard, { host: "x", origin: "null" })?.status).toBe(403);
    expect(refusal(guard, { host: "x", origin: "::not a url" })?.status).toBe(403);
    expect(refusal(new HostGuard({}), { host: "x", origin: "null" })?.status).toBe(403);
  });

  it("an Origin allowlist compares normalized origins (case, default port), exactly", () => {
    const guard = new HostGuard({ allowedOrigins: ["https://App.Example:443", "http://localhost:5173"] });
    expect(refusal(guard, { host: "api:1", origin: "https://app.example" })).toBeUndefined();
    expect(refusal(guard, { host: "api:1", origin: "http://localhost:5173" })).toBeUndefined();
    expect(refusal(guard, { host: "api:1", origin: "http://localhost:5174" })?.status).toBe(403);
    expect(refusal(guard, { host: "api:1", origin: "http://app.example" })?.status).toBe(403);
  });

  it("reads the Host header itself, never a forwarding header", () => {
    const own = "127.0.0.1:3000";
    const spoof = { "x-forwarded-host": own, forwarded: `host=${own}` };
    expect(refusal(loopback, { ...spoof, host: "evil.example:3000" })?.status).toBe(403);
    const hostile = { "x-forwarded-host": "evil.example", forwarded: "host=evil.example" };
    expect(refusal(loopback, { ...hostile, host: own })).toBeUndefined();
    expect(refusal(loopback, { ...hostile, host: own, origin: "http://evil.example" })?.status).toBe(403);
  });

  it("no Origin header (a non-browser client) passes the Origin check", () => {
    expect(refusal(new HostGuard({ allowedOrigins: [] }), { host: "x" })).toBeUndefined();
  });
});

describe("loopbackHosts", () => {
  it("names the loopback hosts for a loopback bind and nothing (no check) otherwise", () => {
    expect(loopbackHosts("localhost", 8080)).toEqual(["127.0.0.1:8080", "localhost:8080", "[::1]:8080"]);
    expect(loopbackHosts("::1", 1)).toEqual(["127.0.0.1:1", "localhost:1", "[::1]:1"]);
    expect(loopbackHosts("0.0.0.0", 8080)).toBeUndefined();
    expect(loopbackHosts("192.168.1.2", 8080)).toBeUndefined();
  });
});
