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
  /** The exact answer (code and message, or result text) some of those ids must get. */
  exact?: Record<string, Exact>;
  /** What the 2026-07-28 era owes instead of `exact`, where it differs (a `requestState` it opens). */
  exactModern?: Record<string, Exact>;
  /**
   * In the 2026-07-28 era, the frame is the retry of an input round of the `round` tool, its sealed state
   * tampered with: flipped at `at`, cut to `at` groups of 4 characters, sent with other arguments, or
   * used twice. Elsewhere the frame is sent as it is.
   */
  round?: { tamper: "flip" | "truncate" | "arguments" | "reuse"; at: number; text: string };
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

/**
 * An answer owed exactly: an error with this code and message; a result whose text (a tool's first
 * content block, a prompt's first message, a resource's first contents) is `text`, flagged `isError` or
 * not; or the invalid-arguments answer, -32602 with `invalid` as its message where the version makes it
 * a protocol error (before 2025-11-25), else a result flagged `isError` with `invalid` as its text.
 */
export type Exact =
  | { code: number; message: string }
  | { text: string; isError: boolean }
  | { invalid: string };

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

/** The fuzz contract's declared names (test/fixtures/fuzz/contract.yaml) and what only looks like them. */
const CLOSED = "closed";
const CAFE = "caf\u00e9";
const lookAlikes = (name: string): string[] =>
  [
    name.toUpperCase(),
    ` ${name}`,
    `${name} `,
    `${name}\u0000`,
    `${name.slice(0, 2)}\u200b${name.slice(2)}`,
    `${name}\u200d`,
    name.normalize("NFD"),
    [...name].map((c) => String.fromCodePoint(c.codePointAt(0)! + 0xfee0)).join(""),
    `\u0441${name.slice(1)}`,
    `${name}\u202e`,
  ].filter((alike) => alike !== name); // NFD leaves an ASCII name as it is
const TOOL_LOOK_ALIKES = [...lookAlikes(CLOSED), "unique ", "ech\u043e"];
const PROMPT_LOOK_ALIKES = [...lookAlikes(CAFE), "cafe", "hello\u200b"];
/** Keys a closed schema must refuse by name, however an object may inherit them. */
const PROTOTYPE_KEYS = ["__proto__", "constructor", "toString", "hasOwnProperty", "valueOf", "isPrototypeOf"];

/** Template variables by type: texts read strictly as that type (with their value), and texts that are not. */
const TEMPLATE_VALUES = {
  count: {
    variable: "n",
    words: "an integer",
    strict: ["0", "7", "-42", "0123", "9007199254740993"],
    loose: [
      "0x10",
      "0b11",
      "0o7",
      "1e2",
      "%201",
      "1%20",
      "+1",
      "",
      "1.0",
      "1.5",
      "-",
      "Infinity",
      "%EF%BC%91",
    ],
  },
  ratio: {
    variable: "x",
    words: "a number",
    strict: ["0", "-0.5", "3.25", "1e2", "2E-3", "-0"],
    loose: ["0x10", "0b11", "%201", "+1", "", ".5", "1.", "01", "Infinity", "NaN", "1e999", "1_000"],
  },
  flag: {
    variable: "b",
    words: "true or false",
    strict: ["true", "false"],
    loose: ["True", "TRUE", "1", "0", "", "%20true", "yes", "false%00"],
  },
} as const;

/** Sealed states no server issued: a made-up key id, cut short, forged bytes under the real key id. */
const forgedState = fc.oneof(
  fc.uint8Array({ minLength: 28, maxLength: 120 }).map((bytes) => ({
    token: `local.${Buffer.from(bytes).toString("base64url")}`,
    why: "altered, forged, or sealed by a server with another key",
  })),
  fc
    .uint8Array({ minLength: 0, maxLength: 27 })
    .map((bytes) => ({ token: `local.${Buffer.from(bytes).toString("base64url")}`, why: "malformed" })),
  fc
    .constantFrom(
      "",
      "local",
      "local.",
      ".AAAA",
      "local.!!!!",
      "lo cal.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
    )
    .map((token) => ({ token, why: "malformed" })),
  fc
    .tuple(fc.constantFrom("k1", "old", "LOCAL"), fc.uint8Array({ minLength: 28, maxLength: 60 }))
    .map(([key, bytes]) => ({
      token: `${key}.${Buffer.from(bytes).toString("base64url")}`,
      why: `sealed with a key this server does not have (key id "${key}")`,
    })),
);

/**
 * Requests that probe how names and values from the wire are read, each owed one exact answer: tool
 * and prompt names that are prototype members or look-alikes of declared names (unknown, never found
 * on a prototype); arguments whose own keys are prototype names against closed schemas (refused naming
 * the key, and Object.prototype untouched, which the `polluted` tool reports); template variables read
 * strictly by type; and, in the 2026-07-28 era, `requestState` tokens this server never sealed.
 */
const hostile = (id: string): fc.Arbitrary<Frame> => {
  const request = (method: string, params: string, exact: Exact, name?: string): Frame => ({
    body: `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"method":${JSON.stringify(method)},"params":${params}}`,
    ids: [id],
    codes: {},
    exact: { [id]: exact },
    nulls: 0,
    batch: false,
    method,
    ...(name === undefined ? {} : { name }),
  });
  // Own keys in JSON text (an object literal would set the prototype instead): prototype names, in any
  // order around a declared key; the first prototype name is the one refused.
  const ownKeys = fc
    .tuple(fc.subarray(PROTOTYPE_KEYS, { minLength: 1 }), fc.boolean(), fc.string({ maxLength: 8 }))
    .chain(([keys, declaredFirst, text]) =>
      fc.shuffledSubarray(keys, { minLength: keys.length }).map((order) => ({ order, declaredFirst, text })),
    );
  // Every key the contract does not declare is named, in the order the arguments hold them.
  const unexpected = (order: string[]) => order.map((k) => `${k}: Unexpected property`).join("; ");
  const membersOf = (order: string[], value: string, polluting: string) =>
    order.map((k) => `${JSON.stringify(k)}:${k === "__proto__" ? polluting : JSON.stringify(value)}`);
  return fc.oneof(
    fc
      .constantFrom(...PROTOTYPE_NAMES, ...TOOL_LOOK_ALIKES)
      .map((name) =>
        request(
          "tools/call",
          JSON.stringify({ name, arguments: {} }),
          { code: -32602, message: `Unknown tool: ${name}` },
          name,
        ),
      ),
    fc
      .constantFrom(...PROTOTYPE_NAMES, ...PROMPT_LOOK_ALIKES)
      .map((name) =>
        request(
          "prompts/get",
          JSON.stringify({ name, arguments: {} }),
          { code: -32602, message: `Unknown prompt: ${name}` },
          name,
        ),
      ),
    // The declared names themselves are found.
    fc
      .string({ maxLength: 12 })
      .map((text) =>
        request(
          "tools/call",
          JSON.stringify({ name: CLOSED, arguments: { text } }),
          { text: `closed: ${text}`, isError: false },
          CLOSED,
        ),
      ),
    fc
      .string({ maxLength: 12 })
      .map((who) =>
        request(
          "prompts/get",
          JSON.stringify({ name: CAFE, arguments: { who } }),
          { text: `${CAFE}, ${who}`, isError: false },
          CAFE,
        ),
      ),
    ownKeys.map(({ order, declaredFirst, text }) => {
      const members = membersOf(order, text, '{"polluted":"tool"}');
      const declared = `"text":${JSON.stringify(text)}`;
      const args = `{${(declaredFirst ? [declared, ...members] : [...members, declared]).join(",")}}`;
      return request(
        "tools/call",
        `{"name":"${CLOSED}","arguments":${args}}`,
        { invalid: `Invalid arguments for tool "${CLOSED}": ${unexpected(order)}` },
        CLOSED,
      );
    }),
    ownKeys.map(({ order, declaredFirst, text }) => {
      // Prompt arguments are strings by the protocol's schema: the prototype key is the contract's to refuse.
      const members = membersOf(order, text, '"polluted"');
      const declared = `"who":${JSON.stringify(text)}`;
      const args = `{${(declaredFirst ? [declared, ...members] : [...members, declared]).join(",")}}`;
      return request(
        "prompts/get",
        `{"name":"${CAFE}","arguments":${args}}`,
        { code: -32602, message: `Invalid arguments for prompt "${CAFE}": ${unexpected(order)}` },
        CAFE,
      );
    }),
    // Nothing sent so far has reached Object.prototype.
    fc.constant(request("tools/call", '{"name":"polluted"}', { text: "clean", isError: false }, "polluted")),
    fc
      .constantFrom(...(Object.keys(TEMPLATE_VALUES) as (keyof typeof TEMPLATE_VALUES)[]))
      .chain((template) => {
        const { variable, words, strict, loose } = TEMPLATE_VALUES[template];
        return fc.oneof(
          fc.constantFrom(...strict).map((text) => {
            const uri = `fuzz://${template}/${text}`;
            const value = template === "flag" ? text === "true" : Number(text);
            return request(
              "resources/read",
              JSON.stringify({ uri }),
              {
                text: `${typeof value} ${JSON.stringify(value)}`,
                isError: false,
              },
              uri,
            );
          }),
          fc.constantFrom(...loose).map((text) => {
            const uri = `fuzz://${template}/${text}`;
            const message = `${uri} matches resource template "${template}", but variable "${variable}" is not ${words}: ${JSON.stringify(decodeURIComponent(text))}`;
            return request("resources/read", JSON.stringify({ uri }), { code: -32602, message }, uri);
          }),
        );
      }),
    // A real sealed state, tampered with (test/fuzz/http.test.ts fetches it): in the 2026-07-28 era alone.
    fc
      .tuple(
        fc.constantFrom(...(["flip", "truncate", "arguments", "reuse"] as const)),
        fc.integer({ min: 1, max: 40 }),
        fc.string({ maxLength: 12 }),
      )
      .map(([tamper, at, text]) => {
        const integrity = (why: string) => `requestState integrity check failed: ${why}`;
        // A token holds at least 12 + 100 + 16 bytes: 40 groups of 3 are always a cut.
        const message =
          tamper === "flip" || (tamper === "truncate" && 3 * at >= 28)
            ? integrity("altered, forged, or sealed by a server with another key")
            : tamper === "truncate"
              ? integrity("malformed")
              : tamper === "arguments"
                ? "requestState was issued for other arguments: a retry must repeat the params of the request that received it"
                : "requestState was already used (each is good for one retry): send the request again without it";
        return {
          ...request(
            "tools/call",
            JSON.stringify({ name: "echo", arguments: { text } }),
            { text, isError: false },
            "echo",
          ),
          exactModern: { [id]: { code: -32602, message } },
          round: { tamper, at, text },
        };
      }),
    // A sealed state only the 2026-07-28 era opens; a session's handler ignores one it did not ask for.
    fc.tuple(forgedState, fc.string({ maxLength: 12 })).map(([{ token, why }, text]) => ({
      ...request(
        "tools/call",
        JSON.stringify({ name: "echo", arguments: { text }, requestState: token }),
        { text, isError: false },
        "echo",
      ),
      exactModern: { [id]: { code: -32602, message: `requestState integrity check failed: ${why}` } },
    })),
  );
};

const encoder = new TextEncoder();

/** A frame with request id `f<n>` (and `f<n>.<i>` inside a batch). */
export const frameArb = (n: number): fc.Arbitrary<Frame> =>
  fc.oneof(
    { weight: 12, arbitrary: message(`f${n}`).map((m) => single(m)) },
    { weight: 1, arbitrary: costly(`f${n}`).map((m) => single(m)) },
    { weight: 1, arbitrary: hostile(`f${n}`) },
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
