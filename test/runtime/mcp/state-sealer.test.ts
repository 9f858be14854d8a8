/**
 * Sealed request state (stateless-era input rounds): AES-256-GCM through WebCrypto, keys by id, bound
 * to the method, target, arguments and caller of the request that received it, and to a lifetime; used
 * states remembered so each is good for one retry.
 */
import { describe, expect, it } from "vitest";
import { createServer } from "../../../generated/2026-07-28/index.js";
import { ErrorCode, McpError } from "../../../runtime/jsonrpc/messages.js";
import {
  bindingOf,
  boundParams,
  defaultStateCaller,
  type RoundBinding,
  roundCaller,
} from "../../../runtime/mcp/round-binding.js";
import { type RoundState, StateSealer } from "../../../runtime/mcp/state-sealer.js";
import { InMemoryUsedStateStore } from "../../../runtime/mcp/used-states.js";
import { canonicalJson } from "../../../runtime/util/canonical-json.js";

const state = (over: Partial<RoundState> = {}): RoundState => ({
  answers: { "elicit-1": { action: "accept", content: { name: "Ada" } } },
  asked: { "elicit-2": "elicitation/create" },
  user: "mine",
  ...over,
});

const PARAMS = { name: "pay", arguments: { amount: 1, to: "bob" } };
const bind = (params: Record<string, unknown> = PARAMS, caller = "anyone", method = "tools/call") =>
  bindingOf(method, typeof params.name === "string" ? params.name : undefined, boundParams(params), caller);
const keys = (...ids: string[]) => ids.map((id) => ({ id, secret: `secret of ${id}` }));

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
  it("opens what it sealed, with non-ASCII content intact; the token hides its content", async () => {
    const sealer = new StateSealer(keys("k1"), 60_000);
    const s = state({ answers: { k: "ünïcødé ✓ 😀 Ada" } });
    const binding = await bind();
    const token = await sealer.seal(s, binding);
    expect(token).toMatch(/^k1\.[A-Za-z0-9_-]+$/);
    const opened = await sealer.open(token, binding);
    expect(opened).toEqual({
      ...s,
      ...binding,
      id: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/),
      expires: expect.any(Number),
    });
    expect(opened.expires).toBeGreaterThan(Date.now());
    // Encrypted: neither the JSON nor its base64 shows through.
    const bytes = Buffer.from(token.slice(3), "base64url").toString("latin1");
    for (const visible of ["Ada", "answers", "elicit", "tools/call", "mine"])
      expect(bytes).not.toContain(visible);
    // A fresh iv and id each time: one state sealed twice gives two tokens.
    expect(await sealer.seal(s, binding)).not.toBe(token);
  });

  it("two sealers with one secret read each other's states; stateKeys rotate: the first seals, all open", async () => {
    const binding = await bind();
    const token = await new StateSealer(
      [{ id: "default", secret: new TextEncoder().encode("shared") }],
      60_000,
    ).seal(state(), binding);
    expect(
      (await new StateSealer([{ id: "default", secret: "shared" }], 60_000).open(token, binding)).user,
    ).toBe("mine");

    const old = new StateSealer(keys("old"), 60_000);
    const rotated = new StateSealer(keys("new", "old"), 60_000);
    const fromOld = await old.seal(state(), binding);
    expect((await rotated.open(fromOld, binding)).user).toBe("mine");
    const fromRotated = await rotated.seal(state(), binding);
    expect(fromRotated.startsWith("new.")).toBe(true);
    expect((await rejection(old.open(fromRotated, binding))).message).toContain(
      'sealed with a key this server does not have (key id "new")',
    );
    // One id, another secret: it does not open.
    const impostor = await new StateSealer([{ id: "old", secret: "guess" }], 60_000).seal(state(), binding);
    expect((await rejection(old.open(impostor, binding))).message).toContain("altered, forged");
  });

  it('refuses bad key lists; a server takes stateKeys or stateSecret (the key "default"), not both', async () => {
    expect(() => new StateSealer(keys("a", "a"), 1)).toThrow(/given twice/);
    expect(() => new StateSealer(keys("a.b"), 1)).toThrow(/key id must match/);
    expect(() => new StateSealer([{ id: "a", secret: "" }], 1)).toThrow(/non-empty/);
    const options = { info: { name: "s", version: "1" }, handlers: {} };
    expect(() => createServer({ ...options, stateSecret: "s", stateKeys: keys("k") })).toThrow(
      "give stateKeys or stateSecret, not both",
    );
    const server = createServer({ ...options, stateSecret: "s" });
    expect(await server.sealer.seal(state(), await bind())).toMatch(/^default\./);
    expect(server.sealer.ttlMs).toBe(5 * 60_000);
  });

  it("a sealer with a random key rejects another's state", async () => {
    const binding = await bind();
    const token = await new StateSealer(undefined, 60_000).seal(state(), binding);
    const e = await rejection(new StateSealer(undefined, 60_000).open(token, binding));
    expect(e.message).toContain("requestState integrity check failed: altered, forged");
  });

  it("rejects altered ciphertext, iv or key id, truncation, garbage and non-strings", async () => {
    const sealer = new StateSealer(keys("k1", "k2"), 60_000);
    const binding = await bind();
    const token = await sealer.seal(state(), binding);
    const raw = Buffer.from(token.slice(3), "base64url");
    const flipped = (at: number) => {
      const copy = Buffer.from(raw);
      copy[at] = copy[at]! ^ 1;
      return `k1.${copy.toString("base64url")}`;
    };
    for (const bad of [
      flipped(0), // iv
      flipped(20), // ciphertext
      flipped(raw.length - 1), // tag
      `k2.${token.slice(3)}`, // another key's id
      `k1.${raw.subarray(0, raw.length - 1).toString("base64url")}`,
    ]) {
      expect((await rejection(sealer.open(bad, binding))).message).toContain(
        "requestState integrity check failed: altered, forged",
      );
    }
    for (const bad of ["nodot", "k1.", "k1.!!", ".abc", "k 1.AAAA", `k1.${"A".repeat(30)}`]) {
      expect((await rejection(sealer.open(bad, binding))).message).toContain("malformed");
    }
    expect((await rejection(sealer.open(42, binding))).message).toContain("not a string");
  });

  it("rejects a state issued for another method or target, other arguments, another caller, or expired", async () => {
    const sealer = new StateSealer(keys("k1"), 60_000);
    const token = await sealer.seal(state(), await bind());
    expect(
      (await rejection(sealer.open(token, await bind(PARAMS, "anyone", "prompts/get")))).message,
    ).toContain("issued for another request");
    expect((await rejection(sealer.open(token, await bind({ ...PARAMS, name: "other" })))).message).toContain(
      "issued for another request",
    );
    const more = { ...PARAMS, arguments: { amount: 1_000_000, to: "bob" } };
    expect((await rejection(sealer.open(token, await bind(more)))).message).toContain(
      "issued for other arguments",
    );
    expect((await rejection(sealer.open(token, await bind(PARAMS, "auth:mallory")))).message).toContain(
      "issued to another caller",
    );
    const short = new StateSealer(keys("k1"), -1);
    const old = await short.seal(state(), await bind());
    expect((await rejection(short.open(old, await bind()))).message).toContain("expired");
  });
});

describe("bindingOf", () => {
  it("binds every param but requestState, inputResponses and _meta, whatever the members' order", async () => {
    const base = await bind();
    const retry = await bind({
      arguments: { to: "bob", amount: 1 },
      name: "pay",
      requestState: "x",
      inputResponses: { a: { action: "accept" } },
      _meta: { progressToken: 7, "io.modelcontextprotocol/protocolVersion": "2026-07-28" },
    });
    expect(retry).toEqual(base);
    const changed = (params: Record<string, unknown>) => bind(params).then((b: RoundBinding) => b.args);
    // Too deep for JSON.stringify: bound all the same.
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = [deep];
    const deeper = await changed({ ...PARAMS, arguments: { deep } });
    expect(deeper).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(await changed({ ...PARAMS, arguments: { deep: [deep] } })).not.toBe(deeper);
    for (const params of [
      { ...PARAMS, arguments: { amount: 2, to: "bob" } },
      { ...PARAMS, arguments: { amount: 1, to: "bob", memo: "x" } },
      { ...PARAMS, arguments: { amount: "1", to: "bob" } },
      { name: "pay" },
      { ...PARAMS, task: { ttl: 1 } },
      JSON.parse('{"name":"pay","arguments":{"amount":1,"to":"bob"},"__proto__":{"x":1}}'),
    ]) {
      expect(await changed(params)).not.toBe(base.args);
    }
  });

  it("the caller: authenticated subject, else the session, else anyone", () => {
    expect(roundCaller({ auth: "alice" }, "s1", defaultStateCaller)).toBe("auth:alice");
    expect(roundCaller({ auth: { sub: "a", scopes: ["x"] } }, undefined, defaultStateCaller)).toBe(
      'auth:{"scopes":["x"],"sub":"a"}',
    );
    expect(roundCaller({ auth: { sub: "a" } }, undefined, (auth) => (auth as { sub: string }).sub)).toBe(
      "auth:a",
    );
    expect(roundCaller({ sessionId: "s2" }, "s1", defaultStateCaller)).toBe("session:s2");
    expect(roundCaller(undefined, "s1", defaultStateCaller)).toBe("session:s1");
    expect(roundCaller({}, undefined, defaultStateCaller)).toBe("anyone");
    expect(() => roundCaller({ auth: () => 1 }, undefined, defaultStateCaller)).toThrow(/not JSON/);
  });

  it("an AuthInfo caller is its subject: a refreshed token (other claims) keeps the binding", () => {
    const first = { subject: "alice", scopes: ["a"], claims: { jti: "1", iat: 1 } };
    const refreshed = { subject: "alice", scopes: ["a", "b"], expiresAt: 9, claims: { jti: "2", iat: 5 } };
    expect(roundCaller({ auth: first }, undefined, defaultStateCaller)).toBe("auth:alice");
    expect(roundCaller({ auth: refreshed }, undefined, defaultStateCaller)).toBe("auth:alice");
    expect(roundCaller({ auth: { ...first, subject: "bob" } }, undefined, defaultStateCaller)).toBe(
      "auth:bob",
    );
  });
});

describe("canonicalJson", () => {
  it("sorts members, keeps arrays in order, drops what JSON drops, and survives deep nesting", () => {
    expect(canonicalJson({ b: [3, { d: 1, c: undefined }], a: "é\n", z: null })).toBe(
      '{"a":"é\\n","b":[3,{"d":1}],"z":null}',
    );
    expect(canonicalJson([undefined, () => 1])).toBe("[null,null]");
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(canonicalJson(deep)).toHaveLength(200_001);
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => canonicalJson(cyclic)).toThrow(/cycle/);
    const shared = { x: 1 };
    expect(canonicalJson({ a: shared, b: shared })).toBe('{"a":{"x":1},"b":{"x":1}}');
    expect(() => canonicalJson(Number.NaN)).toThrow(TypeError);
  });
});

describe("InMemoryUsedStateStore", () => {
  it("claims an id once; forgets it after expiry; beyond its bound the oldest gives way", () => {
    let now = 1_000;
    const store = new InMemoryUsedStateStore(3, () => now);
    expect(store.claim("a", 2_000)).toBe(true);
    expect(store.claim("a", 2_000)).toBe(false);
    expect(store.claim("b", 5_000)).toBe(true);
    now = 3_000; // a expired: swept by the next claim
    expect(store.claim("c", 5_000)).toBe(true);
    expect(store.size).toBe(2);
    expect(store.claim("d", 5_000)).toBe(true);
    expect(store.claim("e", 5_000)).toBe(true); // full: b gives way
    expect(store.size).toBe(3);
    expect(store.claim("c", 5_000)).toBe(false);
    expect(store.claim("b", 5_000)).toBe(true);
  });
});
