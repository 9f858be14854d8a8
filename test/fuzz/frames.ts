/**
 * Frames for the fuzz campaign, each with what a correct server owes it: built by kind, so the oracle is
 * the construction itself. Request ids are unique per campaign (`f<n>`), so "answered exactly once" is
 * a count per id. Nothing here calls a method that waits on the client.
 */
import fc from "fast-check";

export interface Frame {
  /** One message: a line over stdio (without its newline), a body over HTTP. */
  body: string | Uint8Array;
  /** Request ids the server must answer exactly once each. */
  ids: string[];
  /** The exact error code each of those ids must get, where the kind decides it. */
  codes: Record<string, number>;
  /** Answers with id null the frame must get (a message whose id cannot be read). */
  nulls: number;
  /** For the 2026-07-28 headers: the method and tool name, when the frame has them. */
  method?: string;
  name?: string;
  /** Whether the body is a batch (an array). */
  batch: boolean;
  /** What a batch is owed where batches are served (2025-03-26 and before): each element's due. */
  inner?: { ids: string[]; codes: Record<string, number>; nulls: number };
}

const PROTOTYPE_NAMES = [
  "constructor",
  "__proto__",
  "toString",
  "hasOwnProperty",
  "valueOf",
  "__defineGetter__",
];
const KNOWN = [
  "ping",
  "tools/list",
  "tools/call",
  "resources/list",
  "resources/read",
  "resources/templates/list",
  "prompts/list",
  "prompts/get",
  "completion/complete",
  "logging/setLevel",
  "resources/subscribe",
  "initialize",
];
const NOTIFICATIONS = [
  "notifications/initialized",
  "notifications/roots/list_changed",
  "notifications/progress",
  "notifications/x",
];

const json = fc.jsonValue({ maxDepth: 3 });
const object = fc.dictionary(fc.string({ maxLength: 6 }), json, { maxKeys: 4 });
/** Params for a known method: right shapes, wrong shapes, random extras. */
const knownParams = (method: string): fc.Arbitrary<Record<string, unknown>> => {
  switch (method) {
    case "tools/call":
      return fc.record(
        {
          name: fc.oneof(fc.constantFrom("echo", "fail", "nope", "toString", "__proto__"), json),
          arguments: fc.oneof(fc.record({ text: fc.oneof(fc.string({ maxLength: 20 }), json) }), json),
        },
        { requiredKeys: [] },
      );
    case "resources/read":
    case "resources/subscribe":
      return fc.record({ uri: fc.oneof(fc.constantFrom("test://one", "test://two", "constructor"), json) });
    case "prompts/get":
      return fc.record(
        { name: fc.oneof(fc.constantFrom("hello", "nope", "hasOwnProperty"), json), arguments: json },
        { requiredKeys: [] },
      );
    case "logging/setLevel":
      return fc.record({ level: fc.oneof(fc.constantFrom("debug", "error", "loud"), json) });
    default:
      return object;
  }
};

const methodName = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...KNOWN) },
  { weight: 2, arbitrary: fc.constantFrom(...PROTOTYPE_NAMES) },
  { weight: 1, arbitrary: fc.string({ maxLength: 12 }) },
);

type Shape = {
  value: unknown;
  ids: string[];
  codes: Record<string, number>;
  nulls: number;
  method?: string;
  name?: string;
};

/** One message of a given kind; `id` is the frame's fresh request id. */
const message = (id: string): fc.Arbitrary<Shape> =>
  fc.oneof(
    // A well-formed request: answered once; a method on every object's prototype is unknown (-32601).
    {
      weight: 8,
      arbitrary: methodName.chain((method) =>
        fc.option(knownParams(method), { nil: undefined, freq: 8 }).map((params) => {
          const value = { jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params }) };
          const codes: Record<string, number> = PROTOTYPE_NAMES.includes(method) ? { [id]: -32601 } : {};
          const name = method === "tools/call" && typeof params?.name === "string" ? params.name : undefined;
          return { value, ids: [id], codes, nulls: 0, method, ...(name === undefined ? {} : { name }) };
        }),
      ),
    },
    // Params that are not an object: -32602.
    {
      weight: 2,
      arbitrary: fc
        .tuple(
          fc.constantFrom(...KNOWN, "nope"),
          fc.oneof(fc.array(json, { maxLength: 3 }), fc.string(), fc.constant(null), fc.integer()),
        )
        .map(([method, params]) => ({
          value: { jsonrpc: "2.0", id, method, params },
          ids: [id],
          codes: { [id]: -32602 },
          nulls: 0,
          method,
        })),
    },
    // A malformed envelope with a readable id: -32600.
    {
      weight: 2,
      arbitrary: fc
        .oneof(
          fc.record({ jsonrpc: fc.constantFrom("1.0", "2", 2), method: fc.constant("ping") }),
          fc.record({
            jsonrpc: fc.constant("2.0"),
            method: fc.oneof(fc.integer(), fc.constant(null), object),
          }),
        )
        .map((m) => ({ value: { ...m, id }, ids: [id], codes: { [id]: -32600 }, nulls: 0 })),
    },
    // A notification: no answer.
    {
      weight: 2,
      arbitrary: fc
        .tuple(fc.constantFrom(...NOTIFICATIONS), fc.option(object, { nil: undefined }))
        .map(([method, params]) => ({
          value: { jsonrpc: "2.0", method, ...(params === undefined ? {} : { params }) },
          ids: [],
          codes: {},
          nulls: 0,
          method,
        })),
    },
    // A cancellation of nothing in flight: no answer.
    {
      weight: 1,
      arbitrary: fc.oneof(fc.integer(), fc.string({ maxLength: 6 })).map((requestId) => ({
        value: { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: `x${requestId}` } },
        ids: [],
        codes: {},
        nulls: 0,
        method: "notifications/cancelled",
      })),
    },
    // A well-formed response to a request never made: ignored.
    {
      weight: 1,
      arbitrary: fc
        .oneof(
          object.map((result) => ({ result })),
          fc.record({ error: fc.record({ code: fc.integer(), message: fc.string() }) }),
        )
        .map((r) => ({ value: { jsonrpc: "2.0", id: `r${id}`, ...r }, ids: [], codes: {}, nulls: 0 })),
    },
    // A JSON value that is no message at all, with no id to read: -32600 with id null.
    {
      weight: 1,
      arbitrary: fc
        .oneof(
          fc.integer(),
          fc.string(),
          fc.constant(null),
          fc.boolean(),
          fc.dictionary(
            fc.string({ maxLength: 4 }).map((k) => `k${k}`),
            json,
            { maxKeys: 3 },
          ),
        )
        .map((value) => ({ value, ids: [], codes: {}, nulls: 1 })),
    },
  );

/**
 * The worst inputs of the checks that could cost more than linear time, for the target's contract tools
 * (test/fixtures/cost/contract.yaml), at sizes a campaign of 10^5 frames can afford: a regression to
 * pairwise `uniqueItems` or an unbounded pattern makes the campaign time out, one to unbounded recursion
 * answers a stack overflow where -32602 is owed.
 */
const costly = (id: string): fc.Arbitrary<Shape> => {
  const call = (name: string, args: unknown) => ({
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: { name, arguments: args },
  });
  const nest = (levels: number) => {
    let node: unknown = {};
    for (let i = 0; i < levels; i++) node = { children: [node] };
    return node;
  };
  // Answered as the version decides (a result with isError, or -32602 before 2025-11-25): any code but -32603.
  const answered = (value: unknown, name: string): Shape => ({
    value,
    ids: [id],
    codes: {},
    nulls: 0,
    method: "tools/call",
    name,
  });
  return fc.oneof(
    fc
      .tuple(fc.integer({ min: 1000, max: 30_000 }), fc.boolean())
      .map(([n, repeat]) =>
        answered(
          call("unique", { items: [...Array.from({ length: n }, (_, i) => i), ...(repeat ? [0] : [])] }),
          "unique",
        ),
      ),
    fc
      .integer({ min: 5000, max: 200_000 })
      .map((n) => answered(call("scan", { text: "a".repeat(n) }), "scan")),
    fc
      .integer({ min: 17, max: 100_000 })
      .map((n) => answered(call("match", { text: `${"a".repeat(n)}!` }), "match")),
    // Nested past the checks' bound (256 levels), within the parser's (10,000) and JSON.stringify's
    // (the 2026 frames are rewritten through it): -32602 naming the depth.
    fc.integer({ min: 130, max: 1500 }).map((nodes) => ({
      ...answered(call("tree", { root: nest(nodes) }), "tree"),
      codes: { [id]: -32602 },
    })),
  );
};

const encoder = new TextEncoder();

/** A frame with request id `f<n>` (and `f<n>.<i>` inside a batch). */
export const frameArb = (n: number): fc.Arbitrary<Frame> =>
  fc.oneof(
    { weight: 12, arbitrary: message(`f${n}`).map((m) => single(m)) },
    { weight: 1, arbitrary: costly(`f${n}`).map((m) => single(m)) },
    // Not JSON: -32700 with id null.
    {
      weight: 2,
      arbitrary: fc
        .oneof(
          fc.string({ unit: "binary-ascii", maxLength: 40 }),
          fc.constantFrom("{", '{"jsonrpc":"2.0",', "nul", "[1,]"),
        )
        .filter((s) => {
          try {
            JSON.parse(s);
            return false;
          } catch {
            return s.trim() !== "";
          }
        })
        .map((s) => garbage(s.replaceAll("\n", " "))),
    },
    // Not UTF-8: -32700 with id null, on every transport.
    {
      weight: 1,
      arbitrary: fc
        .constantFrom(
          Uint8Array.of(0x22, 0xff, 0x22),
          Uint8Array.of(0x7b, 0x22, 0xc3, 0x22, 0x7d),
          Uint8Array.of(0x22, 0xed, 0xa0, 0x80, 0x22),
        )
        .map((bytes) => ({ body: bytes, ids: [], codes: {}, nulls: 1, batch: false })),
    },
    // A batch (2025-11-25 has none): refused whole, one answer with id null.
    {
      weight: 1,
      arbitrary: fc
        .array(fc.integer({ min: 0, max: 999 }), { minLength: 1, maxLength: 4 })
        .chain((parts) => fc.tuple(...parts.map((_, i) => message(`f${n}.${i}`))))
        .map((messages) => ({
          body: JSON.stringify(messages.map((m) => m.value)),
          ids: [],
          codes: {},
          nulls: 1,
          batch: true,
          inner: {
            ids: messages.flatMap((m) => m.ids),
            codes: Object.assign({}, ...messages.map((m) => m.codes)) as Record<string, number>,
            nulls: messages.reduce((n, m) => n + m.nulls, 0),
          },
        })),
    },
    // Nested past what is parsed at all (10,000 levels): -32700 with id null, on every transport. The
    // params are an array, which the 2026 frames keep as they are.
    {
      weight: 1,
      arbitrary: fc
        .integer({ min: 10_001, max: 30_000 })
        .map((depth) =>
          garbage(
            `{"jsonrpc":"2.0","id":"deep","method":"ping","params":${"[".repeat(depth)}${"]".repeat(depth)}}`,
          ),
        ),
    },
    {
      weight: 1,
      arbitrary: fc
        .integer({ min: 1, max: 2000 })
        // Served as a batch or not, one answer with id null: an empty batch, or one whose element is no message.
        .map((depth) => ({
          body: "[".repeat(depth) + "]".repeat(depth),
          ids: [],
          codes: {},
          nulls: 1,
          batch: true,
          inner: { ids: [], codes: {}, nulls: 1 },
        })),
    },
  );

function single(m: Shape): Frame {
  return {
    body: JSON.stringify(m.value),
    ids: m.ids,
    codes: m.codes,
    nulls: m.nulls,
    batch: false,
    ...(m.method === undefined ? {} : { method: m.method }),
    ...(m.name === undefined ? {} : { name: m.name }),
  };
}

function garbage(text: string): Frame {
  return { body: text, ids: [], codes: {}, nulls: 1, batch: false };
}

/** `count` frames from a seed, numbered from `first`: the same seed gives the same frames. */
export function frames(count: number, seed: number, first = 0): Frame[] {
  const out: Frame[] = [];
  for (let i = 0; i < count; i++) {
    out.push(fc.sample(frameArb(first + i), { seed: seed + first + i, numRuns: 1 })[0]!);
  }
  return out;
}

export const bytesOf = (body: string | Uint8Array): Uint8Array =>
  typeof body === "string" ? encoder.encode(body) : body;

/** How many frames a run sends: FUZZ_FRAMES, else `fallback` (10^5 in the test suite; `npm run fuzz`: 10^6). */
export const frameCount = (fallback: number): number => {
  const n = Number(process.env.FUZZ_FRAMES);
  return Number.isInteger(n) && n > 0 ? n : fallback;
};
