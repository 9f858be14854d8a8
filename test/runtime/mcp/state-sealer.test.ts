/** Sealed request state (stateless-era input rounds): WebCrypto HMAC, bound to method, target and time. */
import { describe, expect, it } from "vitest";
import { ErrorCode, McpError } from "../../../runtime/jsonrpc/messages.js";
import { type RoundState, StateSealer } from "../../../runtime/mcp/state-sealer.js";

const state = (over: Partial<RoundState> = {}): RoundState => ({
  method: "tools/call",
  target: "greet",
  answers: { "elicit-1": { action: "accept", content: { name: "Ada" } } },
  asked: { "elicit-2": "elicitation/create" },
  user: "mine",
  expires: Date.now() + 60_000,
  ...over,
});

async function rejection(p: Promise<unknown>): Promise<McpError> {
  const error = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(McpError);
  expect((error as McpError).code).toBe(ErrorCode.InvalidParams);
  return error as McpError;
}

describe("StateSealer", () => {
  it("opens what it sealed, with non-ASCII content intact", async () => {
    const sealer = new StateSealer("secret", 60_000);
    const s = state({ answers: { k: "ünïcødé ✓ 😀" } });
    const token = await sealer.seal(s);
    expect(token).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
    expect(await sealer.open(token, "tools/call", "greet")).toEqual(s);
  });

  it("two sealers with one secret read each other's states (servers behind a load balancer)", async () => {
    const token = await new StateSealer(new TextEncoder().encode("shared"), 60_000).seal(state());
    expect((await new StateSealer("shared", 60_000).open(token, "tools/call", "greet")).user).toBe("mine");
  });

  it("a sealer with a random key rejects another's state", async () => {
    const token = await new StateSealer(undefined, 60_000).seal(state());
    const e = await rejection(new StateSealer(undefined, 60_000).open(token, "tools/call", "greet"));
    expect(e.message).toContain("bad signature");
  });

  it("rejects an altered body, an altered or truncated MAC, garbage and non-strings", async () => {
    const sealer = new StateSealer("secret", 60_000);
    const token = await sealer.seal(state());
    const [body, mac] = token.split(".") as [string, string];
    const forged = Buffer.from(JSON.stringify({ ...state(), user: "forged" })).toString("base64url");
    const flip = (s: string) => (s[0] === "A" ? "B" : "A") + s.slice(1);
    for (const bad of [
      `${forged}.${mac}`,
      `${body}.${flip(mac)}`,
      `${body}.${mac.slice(0, 20)}`,
      `${body}.!!`,
    ]) {
      expect((await rejection(sealer.open(bad, "tools/call", "greet"))).message).toContain("bad signature");
    }
    expect((await rejection(sealer.open("nodot", "tools/call", "greet"))).message).toContain("malformed");
    expect((await rejection(sealer.open(42, "tools/call", "greet"))).message).toContain("not a string");
  });

  it("rejects a state issued for another method or target, or expired", async () => {
    const sealer = new StateSealer("secret", 60_000);
    const token = await sealer.seal(state());
    expect((await rejection(sealer.open(token, "prompts/get", "greet"))).message).toContain(
      "another request",
    );
    expect((await rejection(sealer.open(token, "tools/call", "other"))).message).toContain("another request");
    const old = await sealer.seal(state({ expires: Date.now() - 1 }));
    expect((await rejection(sealer.open(old, "tools/call", "greet"))).message).toContain("expired");
  });
});
