/**
 * Hostile input over a real pipe into a server written as generated handlers: every request gets the
 * right error, nothing else gets an answer it should not, and the process stays up.
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";

const REPO = fileURLToPath(new URL("../../", import.meta.url));
const children: ChildProcessWithoutNullStreams[] = [];
afterAll(() => {
  for (const c of children) c.kill("SIGKILL");
});

type Reply = {
  id?: unknown;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
};

/** A feature server child with a line reader; `send` writes raw text, `next` awaits replies. */
function start(version: string) {
  const child = spawn(
    `${REPO}node_modules/.bin/tsx`,
    ["--conditions=mcp-codegen-source", `${REPO}test/fixtures/interop/feature-server.ts`, version],
    {
      stdio: ["pipe", "pipe", "pipe"],
    },
  );
  children.push(child);
  const replies: unknown[] = [];
  const waiters: (() => void)[] = [];
  let buffer = "";
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (chunk: string) => {
    buffer += chunk;
    let nl = buffer.indexOf("\n");
    while (nl >= 0) {
      replies.push(JSON.parse(buffer.slice(0, nl)));
      buffer = buffer.slice(nl + 1);
      nl = buffer.indexOf("\n");
    }
    for (const w of waiters.splice(0)) w();
  });
  const send = (text: string) => new Promise<void>((resolve) => child.stdin.write(text, () => resolve()));
  const until = async (predicate: () => boolean, ms = 10_000) => {
    const deadline = Date.now() + ms;
    while (!predicate()) {
      if (Date.now() > deadline)
        throw new Error(`timed out; replies so far: ${JSON.stringify(replies).slice(-500)}`);
      await new Promise<void>((resolve) => {
        waiters.push(resolve);
        setTimeout(resolve, 50);
      });
    }
  };
  const reply = async (id: unknown) => {
    await until(() => replies.some((r) => (r as Reply).id === id));
    return replies.find((r) => (r as Reply).id === id) as Reply;
  };
  const call = async (id: number | string, method: string, params?: unknown) => {
    await send(
      `${JSON.stringify({ jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params }) })}\n`,
    );
    return reply(id);
  };
  const init = () =>
    call("init", "initialize", {
      protocolVersion: version,
      capabilities: {},
      clientInfo: { name: "hostile", version: "0" },
    }).then(async (r) => {
      await send('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
      return r;
    });
  return { child, replies, send, reply, call, until, init };
}

describe("hostile input over stdio (2025-11-25 server)", () => {
  const s = start("2025-11-25");

  it("answers ping before initialize and refuses other requests", async () => {
    expect((await s.call(1, "ping")).result).toEqual({});
    expect((await s.call(2, "tools/list")).error).toMatchObject({ code: -32600 });
    await s.init();
  });

  it("malformed JSON → -32700 with id null", async () => {
    const before = s.replies.length;
    await s.send('{"jsonrpc": "2.0", "id": 3, "method": \n');
    await s.until(() => s.replies.length > before);
    expect(s.replies.at(-1)).toMatchObject({ id: null, error: { code: -32700 } });
  });

  it("invalid request objects → -32600", async () => {
    await s.send('{"jsonrpc":"1.0","id":"v1","method":"ping"}\n');
    expect((await s.reply("v1")).error?.code).toBe(-32600);
    await s.send('{"jsonrpc":"2.0","id":"m1","method":42}\n');
    expect((await s.reply("m1")).error?.code).toBe(-32600);
  });

  it("params that are not an object (array, string, null, number) → -32602: the request is well formed, its params are not", async () => {
    const shapes = ["[1,2]", '"x"', "null", "7"];
    for (const [i, params] of shapes.entries()) {
      await s.send(`{"jsonrpc":"2.0","id":"p${i}","method":"tools/list","params":${params}}\n`);
      expect(await s.reply(`p${i}`), params).toMatchObject({
        error: { code: -32602, message: "params must be an object" },
      });
    }
    // Without a usable id the envelope is at fault: -32600 with id null.
    const before = s.replies.length;
    await s.send('{"jsonrpc":"2.0","id":null,"method":"tools/list","params":[]}\n');
    await s.until(() => s.replies.length > before);
    expect(s.replies.at(-1)).toMatchObject({ id: null, error: { code: -32600 } });
  });

  it("wrong param types → -32602 naming the failing path", async () => {
    const r = await s.call(4, "tools/call", { name: 5 });
    expect(r.error?.code).toBe(-32602);
    expect(r.error?.data).toMatchObject({ issues: [{ path: "/name" }] });
    expect(r.error?.message).toContain("/name");
  });

  it("unknown method and a notification method sent with an id → -32601", async () => {
    expect((await s.call(5, "tools/frobnicate")).error?.code).toBe(-32601);
    expect((await s.call(6, "notifications/initialized")).error?.code).toBe(-32601);
  });

  it("a 5 MiB line → -32600, then the next request works", async () => {
    const before = s.replies.length;
    await s.send(
      `{"jsonrpc":"2.0","id":"huge","method":"tools/call","params":{"name":"echo","arguments":{"text":"${"x".repeat(5 * 1024 * 1024)}"}}}\n`,
    );
    await s.until(() => s.replies.length > before);
    expect(s.replies.at(-1)).toMatchObject({ id: null, error: { code: -32600 } });
    expect(
      (await s.call(7, "tools/call", { name: "echo", arguments: { text: "still here" } })).result,
    ).toEqual({
      content: [{ type: "text", text: "still here" }],
    });
  });

  it("a reused in-flight id → -32600 for the duplicate, the original untouched", async () => {
    await s.send('{"jsonrpc":"2.0","id":"dup","method":"tools/call","params":{"name":"slow"}}\n');
    await s.send('{"jsonrpc":"2.0","id":"dup","method":"ping"}\n');
    const dup = await s.reply("dup");
    expect(dup.error).toMatchObject({ code: -32600 });
    await s.send('{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"dup"}}\n');
    expect((await s.call(8, "ping")).result).toEqual({});
  });

  it("responses to unknown ids are ignored, and the process stays up", async () => {
    const before = s.replies.length;
    await s.send(
      '{"jsonrpc":"2.0","id":999,"result":{}}\n{"jsonrpc":"2.0","id":998,"error":{"code":1,"message":"x"}}\n',
    );
    expect((await s.call(9, "ping")).result).toEqual({});
    expect(s.replies.length).toBe(before + 1);
    expect(s.child.exitCode).toBeNull();
  });

  it("a JSON-RPC batch is refused in 2025-11-25", async () => {
    const before = s.replies.length;
    await s.send('[{"jsonrpc":"2.0","id":"b1","method":"ping"}]\n');
    await s.until(() => s.replies.length > before);
    expect(s.replies.at(-1)).toMatchObject({ id: null, error: { code: -32600 } });
  });

  it(`survives ${10_000} random frames, answering every request exactly once`, async () => {
    let next = 0;
    const frame = fc.oneof(
      fc.jsonValue().map((v) => JSON.stringify(v)),
      fc.string({ maxLength: 40 }),
      fc
        .record(
          {
            jsonrpc: fc.oneof(fc.constant("2.0"), fc.constant("1.0"), fc.integer()),
            method: fc.oneof(
              fc.constantFrom(
                "ping",
                "tools/list",
                "tools/call",
                "resources/read",
                "prompts/get",
                "completion/complete",
                "logging/setLevel",
                "nope",
              ),
              fc.string(),
            ),
            params: fc.oneof(
              fc.object(),
              fc.constant([1]),
              fc.constant(null),
              fc.record({ name: fc.oneof(fc.string(), fc.integer()), uri: fc.string(), level: fc.string() }),
            ),
          },
          { requiredKeys: ["method"] },
        )
        .map((m) => ({ ...m, id: `fuzz-${next++}` }))
        .map((m) => JSON.stringify(m)),
    );
    const frames = fc.sample(frame, { numRuns: 10_000, seed: 42 }).map((f) => f.replaceAll("\n", " "));
    const expected = frames.filter((f) => f.includes('"id":"fuzz-')).map((f) => JSON.parse(f).id as string);
    for (let i = 0; i < frames.length; i += 500) await s.send(`${frames.slice(i, i + 500).join("\n")}\n`);
    await s.until(() => expected.every((id) => s.replies.some((r) => (r as Reply).id === id)), 50_000);
    const counts = new Map<string, number>();
    for (const r of s.replies) {
      const id = (r as Reply).id;
      if (typeof id === "string" && id.startsWith("fuzz-")) counts.set(id, (counts.get(id) ?? 0) + 1);
    }
    expect([...counts.values()].every((n) => n === 1)).toBe(true);
    expect(counts.size).toBe(expected.length);
    console.log(
      `fuzz: ${frames.length} frames sent, ${expected.length} requests with ids, each answered once`,
    );
    expect((await s.call("after", "ping")).result).toEqual({});
    expect(s.child.exitCode).toBeNull();
  }, 60_000);
});

describe("JSON-RPC batches in 2025-03-26", () => {
  const s = start("2025-03-26");
  it("answers a batch with one array of responses", async () => {
    await s.init();
    const before = s.replies.length;
    await s.send(
      `${JSON.stringify([
        { jsonrpc: "2.0", id: "b1", method: "ping" },
        { jsonrpc: "2.0", method: "notifications/initialized" },
        {
          jsonrpc: "2.0",
          id: "b2",
          method: "tools/call",
          params: { name: "echo", arguments: { text: "batched" } },
        },
        { jsonrpc: "2.0", id: "b3", method: "nope" },
      ])}\n`,
    );
    await s.until(() => s.replies.length > before);
    const batch = s.replies.at(-1) as Reply[];
    expect(Array.isArray(batch)).toBe(true);
    expect(batch.map((r) => r.id)).toEqual(["b1", "b2", "b3"]);
    expect(batch[1]?.result).toEqual({ content: [{ type: "text", text: "batched" }] });
    expect(batch[2]?.error?.code).toBe(-32601);
  });
});
