/**
 * Random frames as raw lines into real child stdio servers (batches off and on). The oracle is an
 * independent reading of the rules: every line that is not blank, not a valid notification and not a
 * valid response is answered exactly once, with the id it carried when that id is readable, else null.
 */

import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnRawServer } from "../helpers.js";

type Server = Awaited<ReturnType<typeof spawnRawServer>>;

const MIN_FRAMES = 10_000;
const RUNS = 110;
const FRAMES_PER_RUN = { minLength: 100, maxLength: 140 };
const TIME_LIMIT_MS = 40_000;

// Frames

const METHODS = [
  "echo",
  "log",
  "fail",
  "nope",
  "notifications/cancelled",
  "notifications/progress",
  "notifications/x",
];
/** Fixture methods that wait or loop on their params: a fuzzer must not call them. */
const UNSAFE_METHODS = new Set(["slow", "progress"]);

const smallId = fc.oneof(fc.integer({ min: 0, max: 5 }), fc.constantFrom("a", "b", "0"));
const anyId = fc.oneof(
  smallId,
  fc.integer(),
  fc.string({ maxLength: 8 }),
  fc.double(),
  fc.constantFrom(null, true, 1.5, -0, 2 ** 60),
  fc.array(fc.integer(), { maxLength: 2 }),
  fc.dictionary(fc.string({ maxLength: 3 }), fc.integer(), { maxKeys: 2 }),
);
const json = fc.jsonValue({ maxDepth: 3 });
const params = fc.oneof(
  fc.dictionary(fc.string({ maxLength: 6 }), json, { maxKeys: 4 }),
  fc.record({ requestId: anyId, reason: fc.oneof(fc.string({ maxLength: 10 }), json) }, { requiredKeys: [] }),
  fc.record({ _meta: fc.record({ progressToken: anyId }, { requiredKeys: [] }), n: fc.integer() }),
  fc.record({ progressToken: anyId, progress: fc.oneof(fc.double(), json) }, { requiredKeys: [] }),
  json,
);
const errorObject = fc.oneof(
  fc.record(
    { code: fc.integer(), message: fc.string({ maxLength: 10 }), data: json },
    { requiredKeys: ["code", "message"] },
  ),
  json,
);
const rpcShaped = fc
  .record(
    {
      jsonrpc: fc.oneof(fc.constant("2.0"), fc.constant("2.0"), fc.constant("1.0"), json),
      id: fc.oneof(smallId, smallId, anyId),
      method: fc.oneof(fc.constantFrom(...METHODS), fc.string({ maxLength: 12 }), json),
      params,
      result: fc.oneof(fc.dictionary(fc.string({ maxLength: 4 }), json, { maxKeys: 3 }), json),
      error: errorObject,
    },
    { requiredKeys: [] },
  )
  .filter((frame) => !UNSAFE_METHODS.has(frame.method as string));
const request = fc.record({
  jsonrpc: fc.constant("2.0"),
  id: smallId,
  method: fc.constantFrom("echo", "log", "fail", "nope"),
  params: fc.dictionary(fc.string({ maxLength: 4 }), json, { maxKeys: 3 }),
});
const cancel = fc.record({
  jsonrpc: fc.constant("2.0"),
  method: fc.constant("notifications/cancelled"),
  params: fc.record({ requestId: smallId, reason: fc.string({ maxLength: 8 }) }),
});
const message = fc.oneof(rpcShaped, request, request, cancel);
/** Number literals JSON.stringify never writes: huge, beyond double range, or with needless digits. */
const numberLiteral = fc.oneof(
  fc.bigInt({ min: -(10n ** 400n), max: 10n ** 400n }).map(String),
  fc.constantFrom(
    "1e400",
    "-1e400",
    "1e308",
    "4.0",
    "1E2",
    "-0",
    "0.0000000000000000000000001",
    "9007199254740993",
  ),
);
const garbage = fc
  .oneof(fc.string({ unit: "binary", maxLength: 40 }), fc.string({ unit: "binary-ascii", maxLength: 40 }))
  .map((s) => s.replaceAll("\n", " "));

const frame: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: message.map((m) => JSON.stringify(m)) },
  { weight: 2, arbitrary: json.map((v) => JSON.stringify(v)) },
  { weight: 2, arbitrary: garbage },
  {
    weight: 2,
    arbitrary: fc
      .tuple(numberLiteral, fc.constantFrom("echo", "nope", "notifications/x"))
      .map(([n, method]) => `{"jsonrpc":"2.0","id":${n},"method":"${method}","params":{"n":${n}}}`),
  },
  { weight: 2, arbitrary: fc.array(fc.oneof(message, json), { maxLength: 5 }).map((b) => JSON.stringify(b)) },
  {
    weight: 1,
    arbitrary: fc.array(fc.array(message, { maxLength: 2 }), { maxLength: 3 }).map((b) => JSON.stringify(b)),
  },
  {
    weight: 1,
    arbitrary: fc.integer({ min: 1, max: 3000 }).map((depth) => "[".repeat(depth) + "]".repeat(depth)),
  },
  { weight: 1, arbitrary: fc.constantFrom("", "   ", "\r", "\t\r", "{}\r", "null", "[]") },
);

// Oracle

type Id = string | number;
const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);
const readableId = (v: unknown): Id | null =>
  typeof v === "string" || (typeof v === "number" && Number.isInteger(v)) ? v : null;

function isValidResponse(v: Record<string, unknown>): boolean {
  const hasResult = Object.hasOwn(v, "result");
  const hasError = Object.hasOwn(v, "error");
  if (hasResult === hasError) return false;
  if (hasResult) return readableId(v.id) !== null && isObject(v.result);
  const e = v.error;
  const wellFormed = isObject(e) && Number.isInteger(e.code) && typeof e.message === "string";
  return wellFormed && (v.id === null || readableId(v.id) !== null);
}

/** The ids the server must answer one value with (null: the id could not be read). */
function answersFor(v: unknown): (Id | null)[] {
  if (!isObject(v)) return [null];
  const id = readableId(v.id);
  if (v.jsonrpc !== "2.0") return [id];
  if (Object.hasOwn(v, "method")) {
    if (typeof v.method !== "string") return [id];
    if (Object.hasOwn(v, "params") && !isObject(v.params)) return [id];
    return Object.hasOwn(v, "id") ? [id] : [];
  }
  if (Object.hasOwn(v, "result") || Object.hasOwn(v, "error")) return isValidResponse(v) ? [] : [id];
  return [id];
}

function answersForLine(raw: string, batches: boolean): (Id | null)[] {
  const text = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
  if (text.trim() === "") return [];
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return [null];
  }
  if (!Array.isArray(value)) return answersFor(value);
  if (!batches || value.length === 0) return [null];
  return value.flatMap(answersFor);
}

/** Ids a valid cancellation names: their requests may legitimately go unanswered. */
function cancelledIds(raw: string): Id[] {
  let value: unknown;
  try {
    value = JSON.parse(raw.endsWith("\r") ? raw.slice(0, -1) : raw);
  } catch {
    return [];
  }
  const items = Array.isArray(value) ? value : [value];
  return items.flatMap((m) => {
    const requestId =
      isObject(m) && m.method === "notifications/cancelled" && isObject(m.params) && m.params.requestId;
    const id = readableId(requestId);
    return id === null ? [] : [id];
  });
}

const key = (id: Id | null) => JSON.stringify(id);

function count(ids: (Id | null)[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const id of ids) counts.set(key(id), (counts.get(key(id)) ?? 0) + 1);
  return counts;
}

// Driving a server

let sentinels = 0;

/** Sends one round trip after everything written so far; twice, so every earlier handler has finished. */
async function barrier(server: Server): Promise<void> {
  for (let i = 0; i < 2; i++) {
    const id = `\u0000sentinel-${sentinels++}`;
    await server.write(`${JSON.stringify({ jsonrpc: "2.0", id, method: "echo" })}\n`);
    await server.response(id);
  }
}

/** What came out on stdout since the last call: response ids (batches flattened, sentinels left out) and the number of batch replies. */
function takeOutput(server: Server): { ids: (Id | null)[]; batchReplies: number } {
  const values = server.lines.items.splice(0).map((l) => JSON.parse(l) as unknown);
  const ids = values
    .flatMap((v) => (Array.isArray(v) ? v : [v]))
    .filter((v) => isObject(v) && ("result" in v || "error" in v))
    .map((v) => (v as { id: Id | null }).id)
    .filter((id) => !(typeof id === "string" && id.startsWith("\u0000sentinel-")));
  return { ids, batchReplies: values.filter(Array.isArray).length };
}

async function writeInPieces(server: Server, text: string, cuts: number[]): Promise<void> {
  const bytes = Buffer.from(text);
  const points = [...new Set(cuts.map((c) => c % bytes.length))].sort((a, b) => a - b);
  let from = 0;
  for (const point of [...points, bytes.length]) {
    if (point > from) await server.write(bytes.subarray(from, point));
    from = point;
  }
}

/** Checks one run's output against the oracle; returns how many answers it expected. */
function check(server: Server, lines: string[], batches: boolean): number {
  const answers = lines.map((l) => answersForLine(l, batches));
  const expected = count(answers.flat());
  const output = takeOutput(server);
  const observed = count(output.ids);
  const mayBeUnanswered = new Set(lines.flatMap(cancelledIds).map(key));
  // A batch is answered with one array, unless cancellation left it nothing to answer.
  const batchAnswers = batches
    ? answers.filter((ids, i) => ids.length > 0 && isNonEmptyArrayLine(lines[i]!))
    : [];
  const surelyAnswered = batchAnswers.filter((ids) => ids.some((id) => !mayBeUnanswered.has(key(id))));
  expect(output.batchReplies).toBeLessThanOrEqual(batchAnswers.length);
  expect(output.batchReplies).toBeGreaterThanOrEqual(surelyAnswered.length);
  for (const [id, n] of observed) {
    const want = expected.get(id) ?? 0;
    if (mayBeUnanswered.has(id)) expect(n, `answers to id ${id}`).toBeLessThanOrEqual(want);
    else expect(n, `answers to id ${id}`).toBe(want);
  }
  for (const [id, n] of expected) {
    if (!mayBeUnanswered.has(id)) expect(observed.get(id) ?? 0, `answers to id ${id}`).toBe(n);
  }
  return answers.flat().length;
}

function isNonEmptyArrayLine(raw: string): boolean {
  try {
    const value: unknown = JSON.parse(raw);
    return Array.isArray(value) && value.length > 0;
  } catch {
    return false;
  }
}

describe("stdio server under random frames", () => {
  const servers: { batches: boolean; server: Server }[] = [];

  beforeAll(async () => {
    servers.push({ batches: false, server: await spawnRawServer() });
    servers.push({ batches: true, server: await spawnRawServer("--batches") });
  });

  afterAll(async () => {
    await Promise.all(servers.map(({ server }) => server.stop()));
  });

  it(`answers every answerable frame exactly once and stays up (≥ ${MIN_FRAMES} frames)`, async () => {
    let framesSent = 0;
    let answersChecked = 0;
    const started = Date.now();
    await fc.assert(
      fc.asyncProperty(
        fc.array(frame, FRAMES_PER_RUN),
        fc.array(fc.nat(), { maxLength: 6 }),
        fc.constantFrom("\n", "\r\n"),
        async (frames, cuts, eol) => {
          const text = frames.join(eol) + eol;
          // The oracle reads exactly the lines the server reads: the written UTF-8, split at "\n".
          const lines = Buffer.from(text).toString().split("\n").slice(0, -1);
          for (const { batches, server } of servers) {
            await writeInPieces(server, text, cuts);
            await barrier(server);
            answersChecked += check(server, lines, batches);
            expect(server.child.exitCode).toBeNull();
          }
          framesSent += frames.length;
        },
      ),
      { numRuns: RUNS, endOnFailure: true, plugins: [fc.interruptAfterTimeLimit(TIME_LIMIT_MS)] },
    );
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    console.log(
      `stdio property: ${framesSent} random frames sent to each of 2 servers (batches off, on), ` +
        `${answersChecked} expected answers checked, in ${seconds} s`,
    );
    expect(framesSent).toBeGreaterThanOrEqual(MIN_FRAMES);
    for (const { server } of servers) {
      await server.write(
        `${JSON.stringify({ jsonrpc: "2.0", id: "final", method: "echo", params: { ok: 1 } })}\n`,
      );
      expect(await server.response("final")).toEqual({ jsonrpc: "2.0", id: "final", result: { ok: 1 } });
    }
  });
});
