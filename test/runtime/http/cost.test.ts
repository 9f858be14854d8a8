/**
 * No client can stall another (docs/architecture.md, Principles), against a real server process over HTTP
 * on 127.0.0.1
 * (test/fixtures/cost/server.ts, a contract served with the runtime's default limits): while one
 * client sends the worst input of each kind at the largest body the server accepts (4 MB, at most
 * 100,000 JSON values and member names) — distinct items of every shape under `uniqueItems`, a string
 * for a backtracking `pattern`, arguments nested as deep as the body allows, and bodies past either
 * bound — another client's pings are each answered within 100 ms, and the attack gets a clear answer
 * naming the field, the depth or the bound.
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { emitContract } from "../../../generator/contract/emit.js";
import { loadContract } from "../../../generator/contract/load.js";
import { MAX_TEXT_DEPTH, MAX_TEXT_ITEMS, textExcess } from "../../../runtime/check/depth.js";
import { DEFAULT_MAX_BODY_BYTES } from "../../../runtime/http/body.js";
import { initializeBody, POST_HEADERS } from "../../fixtures/http/helpers.js";

const REPO = fileURLToPath(new URL("../../../", import.meta.url));
const VERSION = "2025-11-25";
/** The longest a ping may wait while the attack is served. */
const PING_MS = 100;
/** Attack rounds measured, at most. */
const ROUNDS = 3;
/** How long a ping is given before it counts as stalled (the attack before the fix took minutes). */
const STALLED_MS = 2000;

let child: ChildProcessWithoutNullStreams | undefined;
let url = "";

beforeAll(async () => {
  const out = `${REPO}test/.tmp/cost/${VERSION}/`;
  mkdirSync(out, { recursive: true });
  const contract = await loadContract(`${REPO}test/fixtures/cost/contract.yaml`, "contract.yaml");
  const files = await emitContract(contract, {
    protocolVersion: VERSION,
    protocolDir: `../../../../generated/${VERSION}`,
  });
  for (const [name, text] of Object.entries(files)) writeFileSync(`${out}${name}`, text);
  const server = spawn(
    process.execPath,
    ["--import", "tsx", "--conditions=mcp-codegen-source", "test/fixtures/cost/server.ts", VERSION],
    { cwd: REPO, stdio: ["pipe", "pipe", "pipe"] },
  );
  child = server;
  let stderr = "";
  server.stderr.setEncoding("utf8").on("data", (c: string) => (stderr += c));
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the cost fixture said nothing: ${stderr}`)), 30_000);
    server.stdout.setEncoding("utf8").once("data", (line: string) => {
      clearTimeout(timer);
      resolve(Number(line.replace("listening ", "")));
    });
  });
  url = `http://127.0.0.1:${port}/mcp`;
}, 60_000);

afterAll(() => {
  child?.kill("SIGKILL");
});

/** A 2025-11-25 session: its request headers. */
async function session(): Promise<Record<string, string>> {
  const init = await fetch(url, {
    method: "POST",
    headers: POST_HEADERS,
    body: JSON.stringify(initializeBody(VERSION)),
  });
  await init.text();
  const headers = {
    ...POST_HEADERS,
    "mcp-session-id": init.headers.get("mcp-session-id")!,
    "mcp-protocol-version": VERSION,
  };
  const initialized = await fetch(url, {
    method: "POST",
    headers,
    body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
  });
  await initialized.text();
  return headers;
}

/** The one JSON-RPC message of a POST's answer (JSON, or the data of SSE events). */
async function answerOf(response: Response): Promise<Record<string, unknown>> {
  const text = await response.text();
  const data = text
    .split("\n")
    .filter((l) => l.startsWith("data: {"))
    .map((l) => l.slice(6));
  return JSON.parse(data[0] ?? text) as Record<string, unknown>;
}

/**
 * A tools/call body of exactly `DEFAULT_MAX_BODY_BYTES` bytes: `argumentsOf(budget)` writes the
 * arguments in at most `budget` bytes of ASCII, and spaces fill the rest.
 */
function largestCall(id: number, name: string, argumentsOf: (budget: number) => string): string {
  const head = `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":${JSON.stringify(name)},"arguments":`;
  const tail = "}}";
  const args = argumentsOf(DEFAULT_MAX_BODY_BYTES - head.length - tail.length);
  const body = head + args + tail;
  expect(body.length).toBeLessThanOrEqual(DEFAULT_MAX_BODY_BYTES);
  return head + args + " ".repeat(DEFAULT_MAX_BODY_BYTES - body.length) + tail;
}

/** How many values and member names JSON text adds (text with no `[{,:` inside its strings). */
const marks = (text: string) => text.match(/[[{,:]/g)?.length ?? 0;

/**
 * A tools/call of "unique" whose items are `item(0)`, `item(1)`, … as many as the body may hold
 * (`MAX_TEXT_ITEMS` values and member names, exactly: negative integers fill the last few), the last of
 * them `last` when given; padded with
 * spaces to `DEFAULT_MAX_BODY_BYTES`. Also the number of items.
 */
function mostItems(id: number, item: (i: number) => string, last?: string): { body: string; count: number } {
  const head = `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"unique","arguments":{"items":[`;
  const tail = "]}}}";
  const parts: string[] = [];
  // A text holds one value more than its marks; each item after the first adds its comma.
  let used = 1 + marks(head + tail) + (last === undefined ? 0 : marks(last) + 1);
  for (let i = 0; ; i++) {
    const next = item(i);
    const cost = marks(next) + (parts.length > 0 ? 1 : 0);
    if (used + cost > MAX_TEXT_ITEMS) break;
    parts.push(next);
    used += cost;
  }
  // Integers (a comma and a value each) fill what is left, so the body holds the most exactly.
  for (let n = 0; used < MAX_TEXT_ITEMS; n++, used++) parts.push(`${-1 - n}`);
  if (last !== undefined) parts.push(last);
  const text = head + parts.join(",") + tail;
  expect(text.length).toBeLessThanOrEqual(DEFAULT_MAX_BODY_BYTES);
  const body = head + parts.join(",") + " ".repeat(DEFAULT_MAX_BODY_BYTES - text.length) + tail;
  // Exactly at the bound: one value fewer allowed would refuse it.
  expect(textExcess(body, MAX_TEXT_DEPTH, MAX_TEXT_ITEMS)).toBeUndefined();
  expect(textExcess(body, MAX_TEXT_DEPTH, MAX_TEXT_ITEMS - 1)).toBe("items");
  return { body, count: parts.length };
}

/** `item(0)`, `item(1)`, … filling `budget` bytes as a JSON array, as `{"items":[…]}`. */
const filled = (item: (i: number) => string) => (budget: number) => {
  const parts: string[] = [];
  let used = `{"items":[]}`.length;
  for (let i = 0; used + item(i).length + 1 <= budget; i++) {
    parts.push(item(i));
    used += item(i).length + 1;
  }
  return `{"items":[${parts.join(",")}]}`;
};

/** The answer to a body past the bound on values and member names, refused unparsed. */
const tooManyItems = {
  jsonrpc: "2.0",
  id: null,
  error: {
    code: -32000,
    message: `Payload Too Large: the body holds more than ${MAX_TEXT_ITEMS} JSON values and member names`,
  },
};

/** `{"root":{"children":[{"children":[…]}]}}` as deep as `budget` bytes allow (two levels a node). */
const deepTree = (budget: number) => {
  const open = '{"children":[';
  const close = "]}";
  const levels = Math.floor((budget - `{"root":{}}`.length) / (open.length + close.length));
  return `{"root":${open.repeat(levels)}{}${close.repeat(levels)}}`;
};

/** A string argument of as many a's as `budget` allows, then `end`. */
const longText = (end: string) => (budget: number) =>
  `{"text":"${"a".repeat(budget - `{"text":""}`.length - end.length)}${end}"}`;

/**
 * Sends `body` from the attacker's session and pings from the other one until the attack is answered:
 * the attack's answer and every ping's round trip (a ping that gets no answer counts as STALLED_MS).
 */
async function underAttack(
  attacker: Record<string, string>,
  pinger: Record<string, string>,
  body: Uint8Array<ArrayBuffer>,
): Promise<{ answer: Record<string, unknown> | undefined; pings: number[]; ms: number }> {
  const started = performance.now();
  let answer: Record<string, unknown> | undefined;
  let done = false;
  const attack = fetch(url, { method: "POST", headers: attacker, body, signal: AbortSignal.timeout(10_000) })
    .then(answerOf)
    .then((a) => {
      answer = a;
    })
    .catch(() => {})
    .finally(() => {
      done = true;
    });
  const pings: number[] = [];
  for (let id = 1; !done || pings.length < 3; id++) {
    const sent = performance.now();
    let reply: Record<string, unknown>;
    try {
      const response = await fetch(url, {
        method: "POST",
        headers: pinger,
        body: JSON.stringify({ jsonrpc: "2.0", id, method: "ping" }),
        signal: AbortSignal.timeout(STALLED_MS),
      });
      reply = await answerOf(response);
    } catch (e) {
      // Only a ping that got no answer in time counts as stalled; any other failure is the test's.
      if ((e as Error).name !== "TimeoutError") throw e;
      pings.push(STALLED_MS);
      break;
    }
    expect(reply).toMatchObject({ id, result: {} });
    pings.push(performance.now() - sent);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  await Promise.race([attack, new Promise((resolve) => setTimeout(resolve, 100))]);
  return { answer, pings, ms: performance.now() - started };
}

const toolText = (answer: Record<string, unknown> | undefined) =>
  (answer?.result as { content?: { text: string }[]; isError?: boolean } | undefined)?.content?.[0]?.text;

describe("one client's worst input at the largest allowed body does not stall another's pings", () => {
  let attacker: Record<string, string>;
  let pinger: Record<string, string>;
  beforeAll(async () => {
    attacker = await session();
    pinger = await session();
  }, 60_000);

  const cases: {
    name: string;
    body: () => string;
    want: (answer: Record<string, unknown> | undefined) => void;
  }[] = [
    ...(
      [
        ["integers", (i: number) => String(i)],
        ["short strings", (i: number) => JSON.stringify(i.toString(36))],
        ["one-member objects", (i: number) => `{"k":${JSON.stringify(i.toString(36))}}`],
        [
          "two-member objects, members in either order",
          (i: number) => (i % 2 === 0 ? `{"a":${i},"b":true}` : `{"b":true,"a":${i}}`),
        ],
        ["one-item arrays", (i: number) => `[${i}]`],
      ] as const
    ).map(([shape, item]) => {
      let count = 0;
      return {
        name: `uniqueItems over distinct ${shape}, as many as a body may hold`,
        body: () => {
          const most = mostItems(2, item);
          count = most.count;
          return most.body;
        },
        want: (answer: Record<string, unknown> | undefined) =>
          expect(toolText(answer)).toBe(`${count} distinct`),
      };
    }),
    ...(
      [
        ["integers, the last equal to the first", (i: number) => String(i), "0"],
        [
          "two-member objects, the last the first with its members reordered",
          (i: number) => `{"a":${i},"b":true}`,
          `{"b":true,"a":0}`,
        ],
      ] as const
    ).map(([shape, item, last]) => {
      let count = 0;
      return {
        name: `uniqueItems over ${shape}, as many as a body may hold`,
        body: () => {
          const most = mostItems(3, item, last);
          count = most.count;
          return most.body;
        },
        want: (answer: Record<string, unknown> | undefined) =>
          expect(toolText(answer)).toBe(
            `Invalid arguments for tool "unique": items: Expected unique items (items 0 and ${count - 1} are equal)`,
          ),
      };
    }),
    {
      name: "4 MB of integers (~600,000): past the bound on values, refused before parsing",
      body: () => largestCall(2, "unique", filled(String)),
      want: (answer) => expect(answer).toEqual(tooManyItems),
    },
    {
      name: "4 MB of empty objects (~1,400,000): past the bound on values, refused before parsing",
      body: () =>
        largestCall(
          2,
          "unique",
          filled(() => "{}"),
        ),
      want: (answer) => expect(answer).toEqual(tooManyItems),
    },
    {
      name: "a 4 MB string for a quadratic pattern without maxLength",
      body: () => largestCall(4, "scan", longText("")),
      want: (answer) =>
        expect(toolText(answer)).toBe(
          'Invalid arguments for tool "scan": text: Expected at most 4096 characters (the most a pattern is checked on)',
        ),
    },
    {
      name: "a string of the longest length the quadratic pattern runs on",
      body: () => largestCall(5, "scan", () => `{"text":"${"a".repeat(4096)}"}`),
      want: (answer) =>
        expect(toolText(answer)).toBe('Invalid arguments for tool "scan": text: Expected to match a+b'),
    },
    {
      name: "a 4 MB string for an exponential pattern with maxLength",
      body: () => largestCall(6, "match", longText("!")),
      want: (answer) =>
        expect(toolText(answer)).toBe(
          'Invalid arguments for tool "match": text: Expected at most 16 characters',
        ),
    },
    {
      name: "the longest string the exponential pattern runs on, made to fail",
      body: () => largestCall(7, "match", () => `{"text":"${"a".repeat(15)}!"}`),
      want: (answer) =>
        expect(toolText(answer)).toBe('Invalid arguments for tool "match": text: Expected to match ^(a+)+$'),
    },
    {
      name: "a 4 MB string for an exponential pattern without maxLength",
      body: () => largestCall(10, "explode", longText("!")),
      want: (answer) =>
        expect(toolText(answer)).toBe(
          'Invalid arguments for tool "explode": text: Expected at most 19 characters (the most a pattern is checked on)',
        ),
    },
    {
      name: "the longest string the unbounded exponential pattern runs on (its safe length), made to fail",
      body: () => largestCall(11, "explode", () => `{"text":"${"a".repeat(18)}!"}`),
      want: (answer) =>
        expect(toolText(answer)).toBe(
          'Invalid arguments for tool "explode": text: Expected to match ^(a+)+$',
        ),
    },
    {
      name: "arguments nested ~280,000 deep under a recursive schema: refused before parsing",
      body: () => largestCall(8, "tree", (b) => deepTree(b)),
      want: (answer) =>
        expect(answer).toEqual({
          jsonrpc: "2.0",
          id: null,
          error: { code: -32700, message: "Parse error: the body nests more than 10000 levels deep" },
        }),
    },
    {
      name: "arguments nested 9,000 deep under a recursive schema: refused naming the depth",
      body: () => largestCall(9, "tree", () => deepTree(15 * 4500)),
      want: (answer) =>
        expect(answer).toEqual({
          jsonrpc: "2.0",
          id: 9,
          error: {
            code: -32602,
            message:
              "Invalid params for tools/call: /arguments/root/children/0: Nested more than 256 levels deep below this point",
            data: {
              issues: [
                {
                  path: "/arguments/root/children/0",
                  message: "Nested more than 256 levels deep below this point",
                },
              ],
            },
          },
        }),
    },
  ];

  it.each(cases)(
    "$name",
    async ({ body, want }) => {
      // Encoded before the clock starts, so that the test's own work does not delay its pings.
      const text = new TextEncoder().encode(body());
      expect(text.byteLength).toBe(DEFAULT_MAX_BODY_BYTES);
      // The first round compiles the code paths this input takes (once per server process). Then up to
      // ROUNDS rounds, until one where every ping was answered within PING_MS: the machine is shared, so
      // another process can hold the CPU through one round; a stalled event loop holds every round.
      want((await underAttack(attacker, pinger, text)).answer);
      const worst: number[] = [];
      for (let round = 0; round < ROUNDS && !(Math.min(...worst) < PING_MS); round++) {
        const { answer, pings } = await underAttack(attacker, pinger, text);
        want(answer);
        worst.push(Math.max(...pings));
      }
      expect(
        Math.min(...worst),
        `slowest ping per round: ${worst.map(Math.round).join(", ")} ms`,
      ).toBeLessThan(PING_MS);
    },
    60_000,
  );
});
