/**
 * The fuzz campaign over HTTP on 127.0.0.1, against a real child process serving generated 2026-07-28
 * handlers: Streamable HTTP in a 2025-11-25 session, stateless 2025-11-25, 2026-07-28 (per-request
 * `_meta` and headers), and legacy HTTP+SSE (a 2025-03-26 session, so batches are served). 10^5 frames each
 * (FUZZ_FRAMES; `npm run fuzz`: 10^6); in 2026-07-28, a frame tampering with an input round's sealed
 * state is sent after the round it tampers with. Checks: never a 5xx; every request with a readable id
 * answered exactly once with the code (or exact answer) its kind decides, never -32603, the owed id-null
 * answers and nothing else; no stack trace on stderr; the heap after a forced gc back within 8 MB of its
 * baseline.
 */
import type { ChildProcessWithoutNullStreams } from "node:child_process";
import { Pool } from "undici";
import { afterAll, describe, expect, it } from "vitest";
import { type Frame, frameCount, frames } from "./frames.js";
import { type Answer, Ledger, STACK_LINE } from "./ledger.js";
import { spawnTarget } from "./target.js";

const FRAMES = frameCount(100_000);
const CHUNK = 1000;
const INFLIGHT = 16;
const HEAP_SLACK = 8 * 2 ** 20;
/** Bounded, and long enough for `npm run fuzz` (10^6 frames at a few thousand a second). */
const TEST_MS = Math.max(600_000, FRAMES * 2);

const children: ChildProcessWithoutNullStreams[] = [];
afterAll(() => {
  for (const child of children) child.kill("SIGKILL");
});

/** The fuzz target as a child: its port, a forced gc's heapUsed, its stderr. */
async function target(flags: string[]) {
  const child = spawnTarget(["--http", ...flags]);
  children.push(child);
  const state = { stderr: "", exited: undefined as string | undefined };
  child.stderr.setEncoding("utf8").on("data", (c: string) => {
    state.stderr = (state.stderr + c).slice(-100_000);
  });
  child.once("exit", (code, signal) => {
    state.exited = `exited (${signal ?? code})`;
  });
  const waiters: ((line: string) => void)[] = [];
  let pending = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    const lines = (pending + chunk).split("\n");
    pending = lines.pop() ?? "";
    for (const line of lines) waiters.shift()?.(line);
  });
  const nextLine = () =>
    new Promise<string>((resolve, reject) => {
      waiters.push(resolve);
      setTimeout(
        () => reject(new Error(`the fuzz target said nothing: ${state.stderr.slice(-1000)}`)),
        30_000,
      );
    });
  const port = Number((await nextLine()).replace("listening ", ""));
  const heap = async () => {
    const line = nextLine();
    child.stdin.write("gc\n");
    return Number((await line).replace("gc ", ""));
  };
  return { port, heap, state, stop: () => child.stdin.end() };
}

/** JSON-RPC messages of a response body: JSON (one or an array) or SSE data lines. */
function messagesOf(contentType: string, text: string): Answer[] {
  if (text === "") return [];
  if (contentType.startsWith("text/event-stream")) {
    return text
      .split("\n")
      .filter((l) => l.startsWith("data: {") || l.startsWith("data: ["))
      .flatMap((l) => {
        const v = JSON.parse(l.slice(6)) as Answer | Answer[];
        return Array.isArray(v) ? v : [v];
      });
  }
  const v = JSON.parse(text) as Answer | Answer[];
  return Array.isArray(v) ? v : [v];
}

const VISIBLE = /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/;

/** A 2026-07-28 request: `_meta` in object params, and the headers that name method and target. */
function modern(frame: Frame): { body: string | Uint8Array; headers: Record<string, string>; due: Frame } {
  const headers: Record<string, string> = { "mcp-protocol-version": "2026-07-28" };
  if (typeof frame.body !== "string" || frame.batch) return { body: frame.body, headers, due: frame };
  let value: unknown;
  try {
    value = JSON.parse(frame.body);
  } catch {
    return { body: frame.body, headers, due: frame };
  }
  const m = value as { method?: unknown; params?: unknown; id?: unknown; jsonrpc?: unknown };
  const isObject = typeof value === "object" && value !== null && !Array.isArray(value);
  // A POST carries one request or notification: anything else is refused whole, with id null.
  if (!isObject || typeof m.method !== "string")
    return { body: frame.body, headers, due: { ...frame, ids: [], codes: {}, nulls: 1 } };
  if (VISIBLE.test(m.method)) headers["mcp-method"] = m.method;
  const params = m.params as Record<string, unknown> | undefined;
  const target = m.method === "resources/read" ? params?.uri : params?.name;
  if (typeof target === "string" && VISIBLE.test(target)) headers["mcp-name"] = target;
  // A frame owed an exact answer names its target as a client must, whatever its characters.
  if (typeof target === "string" && frame.exact)
    headers["mcp-name"] = `=?base64?${Buffer.from(target, "utf8").toString("base64")}?=`;
  let body = frame.body;
  // Every request of this era carries `_meta` in params: added to object params, or as the params.
  if (params === undefined || (typeof params === "object" && params !== null && !Array.isArray(params))) {
    const meta = {
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientCapabilities": {},
    };
    body = JSON.stringify({ ...m, params: { ...params, _meta: meta } });
  }
  // The envelope rules of this era are its own (jsonrpc is not what it checks first): any error code
  // but -32603 for a malformed envelope; the other kinds keep theirs.
  const due =
    m.jsonrpc !== "2.0"
      ? { ...frame, codes: {} }
      : frame.exactModern
        ? { ...frame, exact: frame.exactModern }
        : frame;
  return { body, headers, due };
}

type Mode = "session" | "stateless" | "2026";

async function campaign(mode: Mode) {
  const server = await target(mode === "stateless" ? ["--stateless"] : []);
  const pool = new Pool(`http://127.0.0.1:${server.port}`, { connections: INFLIGHT });
  const ledger = new Ledger();
  const statuses = new Map<number, number>();
  const base = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
  };
  let session: Record<string, string> = {};
  if (mode === "session") {
    const init = await pool.request({
      path: "/mcp",
      method: "POST",
      headers: base,
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: "init",
        method: "initialize",
        params: {
          protocolVersion: "2025-11-25",
          capabilities: {},
          clientInfo: { name: "fuzz", version: "1" },
        },
      }),
    });
    await init.body.text();
    session = {
      "mcp-session-id": String(init.headers["mcp-session-id"]),
      "mcp-protocol-version": "2025-11-25",
    };
    const note = await pool.request({
      path: "/mcp",
      method: "POST",
      headers: { ...base, ...session },
      body: '{"jsonrpc":"2.0","method":"notifications/initialized"}',
    });
    await note.body.text();
  } else if (mode === "stateless") session = { "mcp-protocol-version": "2025-11-25" };

  /** One POST of a 2026-07-28 request outside the frames: its answers. */
  const post2026 = async (value: object): Promise<Answer[]> => {
    const { body, headers } = modern({
      body: JSON.stringify(value),
      ids: [],
      codes: {},
      nulls: 0,
      batch: false,
    });
    const r = await pool.request({ path: "/mcp", method: "POST", headers: { ...base, ...headers }, body });
    return messagesOf(String(r.headers["content-type"] ?? ""), await r.body.text());
  };
  /**
   * A frame's body in the 2026-07-28 era: the retry of a real input round (its state fetched first),
   * tampered with as the frame says; a reused state's first retry is owed the resumed result.
   */
  const retryOf = async (frame: Frame & { round: NonNullable<Frame["round"]> }): Promise<string> => {
    const { tamper, at, text } = frame.round;
    const id = frame.ids[0]!;
    const params = (args: object, requestState?: string) => ({
      name: "round",
      arguments: args,
      ...(requestState === undefined ? {} : { requestState }),
    });
    const [asked] = await post2026({
      jsonrpc: "2.0",
      id: `${id}.ask`,
      method: "tools/call",
      params: params({ text }),
    });
    const token = (asked?.result as { requestState?: unknown } | undefined)?.requestState;
    if (typeof token !== "string") {
      ledger.problem(`no requestState from the round tool: ${JSON.stringify(asked).slice(0, 200)}`);
      return frame.body as string;
    }
    const dot = token.indexOf(".");
    const sealed = token.slice(dot + 1);
    let state = token;
    let args = { text };
    if (tamper === "flip") {
      const i = dot + 1 + (at % (sealed.length - 1));
      state = `${token.slice(0, i)}${token[i] === "A" ? "B" : "A"}${token.slice(i + 1)}`;
    } else if (tamper === "truncate") state = token.slice(0, dot + 1 + 4 * at);
    else if (tamper === "arguments") args = { text: `${text}!` };
    else {
      ledger.owe(`${id}.first`, { text: `resumed asked ${JSON.stringify(args)}`, isError: false });
      const retry = { jsonrpc: "2.0", id: `${id}.first`, method: "tools/call", params: params(args, state) };
      for (const m of await post2026(retry)) ledger.record(m, "(first retry)");
    }
    return JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: params(args, state) });
  };

  const send = async (frame: Frame) => {
    const sent =
      mode === "2026" && frame.round
        ? { ...frame, body: await retryOf({ ...frame, round: frame.round }) }
        : frame;
    const { body, headers, due } =
      mode === "2026" ? modern(sent) : { body: frame.body, headers: session, due: frame };
    ledger.expect(due);
    const r = await pool.request({ path: "/mcp", method: "POST", headers: { ...base, ...headers }, body });
    const text = await r.body.text();
    statuses.set(r.statusCode, (statuses.get(r.statusCode) ?? 0) + 1);
    if (r.statusCode >= 500)
      ledger.problem(`HTTP ${r.statusCode} for ${String(body).slice(0, 200)}: ${text.slice(0, 200)}`);
    if (r.statusCode === 202) {
      if (due.ids.length > 0 || due.nulls > 0)
        ledger.problem(`202 for a frame owed answers: ${String(body).slice(0, 200)}`);
      return;
    }
    let messages: Answer[];
    try {
      messages = messagesOf(String(r.headers["content-type"] ?? ""), text);
    } catch {
      ledger.problem(`HTTP ${r.statusCode} with a body that is no JSON-RPC: ${text.slice(0, 200)}`);
      return;
    }
    for (const m of messages) ledger.record(m, `(HTTP ${r.statusCode})`);
  };

  let baseline = 0;
  for (let first = 0; first < FRAMES; first += CHUNK) {
    const batch = frames(Math.min(CHUNK, FRAMES - first), 0xf022 + first, first);
    let next = 0;
    await Promise.all(
      Array.from({ length: INFLIGHT }, async () => {
        while (next < batch.length) await send(batch[next++]!);
      }),
    );
    if (first === CHUNK * 2) baseline = await server.heap();
  }
  const after = await server.heap();
  await pool.close();
  server.stop();
  return { ledger, statuses, baseline, after, state: server.state };
}

describe(`fuzz: Streamable HTTP, ${FRAMES} frames per mode`, () => {
  for (const mode of ["session", "stateless", "2026"] as const) {
    it(
      `${mode}: never a 5xx, every request answered exactly once with the right code, no stack, heap kept`,
      async () => {
        const t0 = Date.now();
        const { ledger, statuses, baseline, after, state } = await campaign(mode);
        console.info(
          `fuzz http ${mode}: ${ledger.frames} frames, ${ledger.answers} answers in ${((Date.now() - t0) / 1000).toFixed(1)} s; ` +
            `statuses ${JSON.stringify(Object.fromEntries(statuses))}; heap after gc ${(baseline / 2 ** 20).toFixed(1)} → ${(after / 2 ** 20).toFixed(1)} MB`,
        );
        expect(ledger.verdict()).toEqual([]);
        expect(ledger.frames).toBe(FRAMES);
        expect(state.exited).toBeUndefined();
        expect(state.stderr).not.toMatch(STACK_LINE);
        expect(after - baseline).toBeLessThan(HEAP_SLACK);
      },
      TEST_MS,
    );
  }
});

describe(`fuzz: legacy HTTP+SSE, ${FRAMES} frames`, () => {
  it(
    "every request answered exactly once on the stream with the right code, never a 5xx, no stack, heap kept",
    async () => {
      const t0 = Date.now();
      const server = await target([]);
      const origin = `http://127.0.0.1:${server.port}`;
      const stream = await fetch(`${origin}/sse`, { headers: { accept: "text/event-stream" } });
      expect(stream.status).toBe(200);
      const reader = stream.body!.pipeThrough(new TextDecoderStream()).getReader();
      // 2025-03-26 answers invalid tool arguments with -32602.
      const ledger = new Ledger(true);
      const control = new Map<string, Answer>();
      let endpoint = "";
      let buffer = "";
      const pump = (async () => {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) return;
          buffer += value;
          let end = buffer.indexOf("\n\n");
          while (end >= 0) {
            const event = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            end = buffer.indexOf("\n\n");
            const data = event
              .split("\n")
              .filter((l) => l.startsWith("data:"))
              .map((l) => l.slice(5).trimStart())
              .join("\n");
            if (/^event: endpoint$/m.test(event)) endpoint = data;
            else if (data !== "") {
              const v = JSON.parse(data) as Answer | Answer[];
              for (const m of Array.isArray(v) ? v : [v]) {
                if (typeof m.id === "string" && m.id.startsWith("ctl-")) control.set(m.id, m);
                else ledger.record(m, "(stream)");
              }
            }
          }
        }
      })();
      const until = async (check: () => boolean, what: string) => {
        const deadline = Date.now() + 20_000;
        while (!check()) {
          if (Date.now() > deadline)
            throw new Error(`${what}: nothing within 20 s; ${server.state.stderr.slice(-1000)}`);
          await new Promise((r) => setTimeout(r, 5));
        }
      };
      await until(() => endpoint !== "", "the endpoint event");
      const pool = new Pool(origin, { connections: INFLIGHT });
      const post = async (body: string | Uint8Array) => {
        const r = await pool.request({
          path: endpoint,
          method: "POST",
          headers: { "content-type": "application/json" },
          body,
        });
        return {
          status: r.statusCode,
          text: await r.body.text(),
          type: String(r.headers["content-type"] ?? ""),
        };
      };
      let ctl = 0;
      const ask = async (method: string, params: object) => {
        const id = `ctl-${ctl++}`;
        expect((await post(JSON.stringify({ jsonrpc: "2.0", id, method, params }))).status).toBe(202);
        await until(() => control.has(id), method);
        return control.get(id)! as { result?: { protocolVersion?: string } };
      };
      // 2025-03-26, the one version with JSON-RPC batches (2024-11-05 defined none, 2025-06-18 removed
      // them): a batch is owed each element's due, and batches get fuzzed too.
      const init = await ask("initialize", {
        protocolVersion: "2025-03-26",
        capabilities: {},
        clientInfo: { name: "fuzz", version: "1" },
      });
      expect(init.result?.protocolVersion).toBe("2025-03-26");
      const batches = true;
      expect((await post('{"jsonrpc":"2.0","method":"notifications/initialized"}')).status).toBe(202);

      const statuses = new Map<number, number>();
      let baseline = 0;
      for (let first = 0; first < FRAMES; first += CHUNK) {
        const chunk = frames(Math.min(CHUNK, FRAMES - first), 0x55e + first, first);
        let next = 0;
        await Promise.all(
          Array.from({ length: INFLIGHT }, async () => {
            while (next < chunk.length) {
              const frame = chunk[next++]!;
              ledger.expect(batches && frame.inner ? { ...frame, ...frame.inner } : frame);
              const r = await post(frame.body);
              statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
              if (r.status >= 500) ledger.problem(`HTTP ${r.status}: ${r.text.slice(0, 200)}`);
              if (r.status !== 202) {
                try {
                  for (const m of messagesOf(r.type, r.text)) ledger.record(m, `(HTTP ${r.status})`);
                } catch {
                  ledger.problem(`HTTP ${r.status} with a body that is no JSON-RPC: ${r.text.slice(0, 200)}`);
                }
              }
            }
          }),
        );
        await ask("ping", {}); // a barrier: every answer to what came before is on the stream before it
        if (first === CHUNK * 2) baseline = await server.heap();
      }
      const after = await server.heap();
      console.info(
        `fuzz legacy sse: ${ledger.frames} frames, ${ledger.answers} answers in ${((Date.now() - t0) / 1000).toFixed(1)} s; ` +
          `statuses ${JSON.stringify(Object.fromEntries(statuses))}; heap after gc ${(baseline / 2 ** 20).toFixed(1)} → ${(after / 2 ** 20).toFixed(1)} MB`,
      );
      await reader.cancel();
      await pump.catch(() => {});
      await pool.close();
      server.stop();
      expect(ledger.verdict()).toEqual([]);
      expect(ledger.frames).toBe(FRAMES);
      expect(server.state.exited).toBeUndefined();
      expect(server.state.stderr).not.toMatch(STACK_LINE);
      expect(after - baseline).toBeLessThan(HEAP_SLACK);
    },
    TEST_MS,
  );
});
