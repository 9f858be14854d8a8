/**
 * The default error report (no `onError`): stderr, at most 10 lines per 10 s, what was held back
 * counted in the next line. A client that makes a handler throw in a loop cannot flood the log.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { createServer } from "../../../generated/2025-11-25/index.js";

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe("the default error report", () => {
  it("writes 10 errors per 10 s, then says how many it held back", () => {
    vi.useFakeTimers({ now: 1_000_000 });
    const lines: string[] = [];
    vi.spyOn(console, "error").mockImplementation((line: unknown) => void lines.push(String(line)));
    const server = createServer({ info: { name: "s", version: "1" }, handlers: {} });
    for (let i = 0; i < 25; i++) server.reportError(new Error(`boom ${i}`));
    expect(lines).toHaveLength(10);
    expect(lines[0]).toMatch(/^mcp server: Error: boom 0/);
    vi.setSystemTime(1_000_000 + 9_999);
    server.reportError(new Error("still held"));
    expect(lines).toHaveLength(10);
    vi.setSystemTime(1_000_000 + 10_000);
    server.reportError(new Error("next window"));
    expect(lines.slice(10)).toEqual([
      "mcp server: 16 more errors in 10 s not shown",
      expect.stringMatching(/^mcp server: Error: next window/),
    ]);
  });

  it("onError takes every error, unlimited", () => {
    const seen: unknown[] = [];
    const server = createServer({
      info: { name: "s", version: "1" },
      handlers: {},
      onError: (e) => seen.push(e),
    });
    for (let i = 0; i < 25; i++) server.reportError(new Error(`boom ${i}`));
    expect(seen).toHaveLength(25);
  });
});
