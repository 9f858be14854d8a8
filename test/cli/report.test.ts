import { describe, expect, it } from "vitest";
import { createReporter } from "../../generator/cli/report.js";

function stream(isTTY: boolean) {
  const chunks: string[] = [];
  return { chunks, s: { isTTY, write: (c: string) => chunks.push(c) > 0 } as unknown as NodeJS.WriteStream };
}

describe("reporter", () => {
  it("shows a spinner on a terminal, then clears it for the done line", async () => {
    const saved = process.env.CI;
    delete process.env.CI;
    try {
      const { chunks, s } = stream(true);
      const step = createReporter({ stream: s }).step("working");
      // Frames are drawn on a timer: wait until the second one is, however slow the machine.
      await expect.poll(() => chunks.some((c) => c.startsWith("\r⠙"))).toBe(true);
      step.done("finished");
      expect(chunks[0]).toBe("⠋ working");
      expect(chunks.filter((c) => c.startsWith("\r⠙") || c.startsWith("\r⠹")).length).toBeGreaterThan(0);
      expect(chunks.at(-2)).toBe("\r\x1b[K");
      expect(chunks.at(-1)).toMatch(/^✓ finished \[\d+ ms\]\n$/);
    } finally {
      if (saved !== undefined) process.env.CI = saved;
    }
  });

  it("clears the spinner's line before a message printed while it spins (a login URL stays whole)", async () => {
    const saved = process.env.CI;
    delete process.env.CI;
    try {
      const { chunks, s } = stream(true);
      const reporter = createReporter({ stream: s });
      const step = reporter.step("pulling");
      reporter.notice("Open this URL to log in: http://127.0.0.1:1/auth");
      reporter.error("bad");
      step.done("pulled");
      reporter.notice("after");
      expect(chunks.slice(0, 5)).toEqual([
        "⠋ pulling",
        "\r\x1b[K",
        "Open this URL to log in: http://127.0.0.1:1/auth\n",
        "\r\x1b[K",
        "error: bad\n",
      ]);
      // Once the step is done, nothing is left to clear.
      expect(chunks.at(-2)).toMatch(/^✓ pulled/);
      expect(chunks.at(-1)).toBe("after\n");
    } finally {
      if (saved !== undefined) process.env.CI = saved;
    }
  });

  it("prints plain lines when piped or under CI, nothing but errors when quiet", async () => {
    const piped = stream(false);
    const step = createReporter({ stream: piped.s }).step("working");
    await new Promise((r) => setTimeout(r, 100));
    step.done("finished");
    expect(piped.chunks).toHaveLength(1);
    expect(piped.chunks[0]).toMatch(/^✓ finished/);
    const quiet = stream(true);
    const r = createReporter({ quiet: true, stream: quiet.s });
    r.step("x").done("y");
    r.info("z");
    r.error("bad");
    expect(quiet.chunks).toEqual(["error: bad\n"]);
  });
});
