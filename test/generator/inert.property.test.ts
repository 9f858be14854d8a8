/**
 * Generated code is inert whatever the input: fast-check builds hostile contracts and hostile servers
 * (strings over all of Unicode with line terminators, `*` + `/`, backticks, `${`, quotes, lone surrogates,
 * terminal controls; prototype names, reserved words, names that differ only in punctuation; deep and
 * recursive schemas) and for each:
 *
 * - the generator does not crash: a contract is loaded (or refused with a ContractError), a lock is built
 *   and compiled into a client;
 * - the generated TypeScript type-checks (all cases in one tsc run) and holds no raw control, bidi or
 *   line-separator character and no lone surrogate;
 * - importing the generated modules changes nothing global (all cases in one child process,
 *   test/support/import-probe.ts: globalThis and the built-in prototypes compared before and after);
 * - the data round-trips: the `tools/list` and `prompts/list` a served contract answers over the runtime's
 *   client and server are the declared ones, byte for byte as JSON; a hostile server's lists, read by
 *   the runtime's client into a lock, written and read back, are the server's exact lists and name, and
 *   the pulled client binds every item by its own name.
 *
 * The run is reproducible: a fixed seed (MCP_CODEGEN_PROPERTY_SEED, default below) and
 * MCP_CODEGEN_PROPERTY_RUNS cases of each kind (default 12, a few seconds of work plus one tsc run).
 * Run longer with `npm run property` (200 cases, with the odd-schemas property test), or e.g.
 *   MCP_CODEGEN_PROPERTY_RUNS=1000 MCP_CODEGEN_PROPERTY_SEED=$RANDOM npm run property
 * A failing case is named with its index; with MCP_CODEGEN_PROPERTY_KEEP=1 its input and output stay in
 * test/.tmp/inert-<pid>/<kind>-<n>/ (input.json, the generated files).
 */
import { execFile } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient } from "../../generated/2025-11-25/client.js";
import { createServer } from "../../generated/2025-11-25/server.js";
import { emitContract, emitContractSources } from "../../generator/contract/emit.js";
import { ContractError, canonicalJson, loadContractText } from "../../generator/contract/load.js";
import type { ContractModel } from "../../generator/contract/model.js";
import { emitContractClient } from "../../generator/lock/emit-client.js";
import { contractFromLock } from "../../generator/lock/from-lock.js";
import { buildLock, parseLock, renderLock } from "../../generator/lock/lock.js";
import { createMemoryTransportPair } from "../../runtime/jsonrpc/memory.js";
import { typeErrors } from "../support/typecheck.js";

const REPO = fileURLToPath(new URL("../../", import.meta.url));
const OUT = `${REPO}test/.tmp/inert-${process.pid}/`;
const SEED = Number(process.env.MCP_CODEGEN_PROPERTY_SEED ?? 20260721);
const RUNS = Number(process.env.MCP_CODEGEN_PROPERTY_RUNS ?? 12);

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Pieces that end comments, strings, template literals and lines, or move the cursor. */
const NASTY = [
  "\n",
  "\r",
  "\r\n",
  "\u2028",
  "\u2029",
  "*/",
  "/*",
  "//",
  "`",
  "${",
  "}",
  '"',
  "'",
  "\\",
  "\\u",
  "<!--",
  "-->",
  "#!",
  "\u0000",
  "\u001b[2J",
  "\u009b",
  "\u202e",
  "\u2066",
  "\ufeff",
  "\ud800",
  "\udfff",
  "\u{1f600}",
  "globalThis.PWNED = 1;",
  "</script>",
];
const PROTOTYPE = ["__proto__", "constructor", "toString", "hasOwnProperty", "valueOf", "__defineGetter__"];
const RESERVED = [
  "class",
  "default",
  "delete",
  "enum",
  "function",
  "let",
  "static",
  "yield",
  "await",
  "eval",
  "arguments",
  "this",
];
const SIMILAR = ["get_user", "get-user", "getUser", "GetUser", "get.user", "tool2go", "Tool2Go"];

/** Any code unit sequence: every code point, lone surrogates, and the nasty pieces. */
const unit = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...NASTY) },
  { weight: 3, arbitrary: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)) },
  { weight: 2, arbitrary: fc.integer({ min: 0, max: 0x10ffff }).map((c) => String.fromCodePoint(c)) },
  { weight: 1, arbitrary: fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c)) },
);
const text = fc.array(unit, { maxLength: 12 }).map((units) => units.join(""));
/** A name: hostile text, or a name JavaScript treats specially, or one of a family of look-alikes. */
const name = fc.oneof(
  { weight: 3, arbitrary: text },
  { weight: 2, arbitrary: fc.constantFrom(...PROTOTYPE, ...RESERVED, ...SIMILAR) },
);
/** A tool name the specification allows (contracts refuse others). */
const toolName = fc.oneof(
  fc.constantFrom(...PROTOTYPE, ...RESERVED, ...SIMILAR),
  fc.stringMatching(/^[A-Za-z0-9_.-]{1,12}$/),
);

/** An object with exactly these own keys (`__proto__` too): built from entries, not by assignment. */
const objectOf = <T>(entries: fc.Arbitrary<[string, T][]>) =>
  entries.map((e) => Object.fromEntries(e) as Record<string, T>);
const entries = <T>(key: fc.Arbitrary<string>, value: fc.Arbitrary<T>, maxLength = 4) =>
  fc.uniqueArray(fc.tuple(key, value), { maxLength, selector: ([k]) => k });

/** A regular expression matching `s` literally, valid with the `u` flag (lone surrogates as escapes). */
const literalPattern = (s: string) =>
  s
    .replace(/[\\^$.*+?()[\]{}|/]/g, "\\$&")
    .replace(/[\ud800-\udfff]/g, (c) => `\\u${c.charCodeAt(0).toString(16)}`);

const jsonValue: fc.Arbitrary<Json> = fc.letrec<{ v: Json }>((tie) => ({
  v: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    fc.integer(),
    text,
    fc.array(tie("v"), { maxLength: 3 }),
    objectOf(entries(name, tie("v"), 3)),
  ),
})).v;

/**
 * JSON Schemas the generator accepts, with hostile text everywhere text may go, nested and recursive.
 * A `$ref` stands only below a property or `items` (`g`, guarded): a definition that is a union with
 * itself (`A = A | …`) has no TypeScript type, which is another matter than inert output.
 */
const schemaOf = (defNames: string[]): fc.Arbitrary<Record<string, Json>> =>
  fc.letrec<{ s: Record<string, Json>; g: Record<string, Json> }>((tie) => {
    const annotated = (a: fc.Arbitrary<Record<string, Json>>) =>
      fc
        .tuple(a, fc.option(text, { nil: undefined }), fc.option(text, { nil: undefined }))
        .map(([s, d, t]) => ({
          ...s,
          ...(d === undefined ? {} : { description: d }),
          ...(t === undefined ? {} : { title: t }),
        }));
    const leaves = [
      fc.record({ type: fc.constant("string"), pattern: text.map(literalPattern) }),
      fc.record({ type: fc.constant("string"), enum: fc.uniqueArray(text, { minLength: 1, maxLength: 3 }) }),
      fc.record({ const: jsonValue }),
      fc.record({ type: fc.constant("number"), minimum: fc.integer() }),
      fc.record({ type: fc.constant("boolean"), default: fc.boolean() }),
      fc.constant({}),
    ];
    const ref = defNames.length ? [fc.constantFrom(...defNames).map((d) => ({ $ref: `#/$defs/${d}` }))] : [];
    const node = (self: "s" | "g", refs: fc.Arbitrary<Record<string, Json>>[]) =>
      annotated(
        fc.oneof(
          { depthSize: "small", withCrossShrink: true },
          fc.oneof(...leaves, ...refs),
          fc.tuple(entries(name, tie("g")), fc.boolean()).map(([props, closed]) => ({
            type: "object",
            properties: Object.fromEntries(props),
            required: props.filter((_, i) => i % 2 === 0).map(([k]) => k),
            ...(closed ? { additionalProperties: false } : {}),
          })),
          tie("g").map((items) => ({ type: "array", items })),
          fc.array(tie(self), { minLength: 2, maxLength: 3 }).map((anyOf) => ({ anyOf })),
        ),
      );
    return { s: node("s", []), g: node("g", ref) };
  }).s;

/** A deep chain of objects, `depth` levels, each with a hostile property name. */
const deep = (depth: number) =>
  fc
    .array(name, { minLength: depth, maxLength: depth })
    .map((keys) =>
      keys.reduceRight<Record<string, Json>>(
        (inner, key) => ({ type: "object", properties: Object.fromEntries([[key, inner]]) }),
        { type: "string" },
      ),
    );

const objectSchema = (defNames: string[]) =>
  fc
    .oneof({ weight: 4, arbitrary: schemaOf(defNames) }, { weight: 1, arbitrary: deep(24) })
    .map((s) => (s.type === "object" && s.properties ? s : { type: "object", properties: { value: s } }));

/** `$defs` names the contract format accepts (identifiers, prototype names and reserved words among them). */
const defName = fc.oneof(
  fc.constantFrom(...PROTOTYPE, ...RESERVED, "point", "Point", "string"),
  fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,6}$/),
);

/** Tool annotations as the protocol types them, with prototype-named keys of any value beside. */
const annotations = fc
  .tuple(
    fc.option(text, { nil: undefined }),
    fc.option(fc.boolean(), { nil: undefined }),
    fc.option(jsonValue, { nil: undefined }),
    fc.option(jsonValue, { nil: undefined }),
  )
  .map(([title, readOnlyHint, proto, ctor]) =>
    Object.fromEntries(
      (
        [
          ["title", title],
          ["readOnlyHint", readOnlyHint],
          ["__proto__", proto],
          ["constructor", ctor],
        ] as [string, Json | undefined][]
      ).filter(([, v]) => v !== undefined),
    ),
  );

/** A URI (scheme and colon) with hostile text after it, percent-encoded as a URI would be. */
const uriOf = text.map((t) => `note://${encodeURIComponent(t.replace(/[\ud800-\udfff]/g, "?"))}`);

/** A hostile contract: what a user (or a generator of contracts) might write, and its file's name. */
const contractArb = fc.uniqueArray(defName, { maxLength: 3 }).chain((defNames) =>
  fc.record({
    $defs: fc
      .tuple(...defNames.map((d) => schemaOf(defNames).map((s): [string, Json] => [d, s])))
      .map((e) => Object.fromEntries(e)),
    tools: objectOf(
      entries(
        toolName,
        fc.record(
          {
            title: text,
            description: text,
            inputSchema: objectSchema(defNames),
            outputSchema: objectSchema(defNames),
            annotations,
          },
          { requiredKeys: ["inputSchema"] },
        ),
        5,
      ),
    ),
    prompts: objectOf(
      entries(
        name,
        fc.record(
          {
            description: text,
            arguments: fc.uniqueArray(
              fc.record({ name: name.filter((n) => n !== ""), description: text, required: fc.boolean() }),
              {
                maxLength: 3,
                selector: (a) => a.name,
              },
            ),
          },
          { requiredKeys: [] },
        ),
        3,
      ),
    ),
    resources: objectOf(
      entries(
        name,
        fc.record({ uri: uriOf, title: text, description: text, mimeType: text }, { requiredKeys: ["uri"] }),
        2,
      ),
    ),
    resourceTemplates: objectOf(
      entries(
        name,
        fc.record(
          { uriTemplate: fc.constantFrom("note://{id}", "f://{a}/{+b}", "x://{?q,r}"), description: text },
          { requiredKeys: ["uriTemplate"] },
        ),
        2,
      ),
    ),
    // A file name: no separator, NUL, `%` or lone surrogate (a file of that name is written and read
    // back by URL), anything else goes.
    // biome-ignore lint/suspicious/noControlCharactersInRegex: a file name cannot hold NUL.
    label: text.map((t) => `${t.replace(/[/\\%\u0000\ud800-\udfff]/g, "_")}.json`),
  }),
);

/** A hostile server: its name and version, and lists as it would send them (names anything at all). */
const serverArb = fc.record({
  serverInfo: fc.record({ name: text, version: text }),
  tools: fc.array(
    fc.record(
      {
        name: fc.oneof(toolName, name),
        title: text,
        description: text,
        inputSchema: objectSchema([]),
        outputSchema: objectSchema([]),
        annotations,
      },
      { requiredKeys: ["name", "inputSchema"] },
    ),
    { maxLength: 6 },
  ),
  prompts: fc.array(
    fc.record(
      {
        name,
        description: text,
        arguments: fc.array(fc.record({ name: name.filter((n) => n !== ""), required: fc.boolean() }), {
          maxLength: 2,
        }),
      },
      { requiredKeys: ["name"] },
    ),
    { maxLength: 3 },
  ),
  resources: fc.array(
    fc.record({
      name,
      uri: uriOf,
      description: text,
      mimeType: text,
    }),
    { maxLength: 2 },
  ),
  resourceTemplates: fc.array(
    fc.record({
      name,
      uriTemplate: fc.constantFrom("note://{id}", "f://{a}/{+b}", "x://{?q,r}"),
      description: text,
    }),
    { maxLength: 2 },
  ),
});

/** Cases earlier runs found, kept first in every run (the sampled ones follow). */
const FOUND_CONTRACTS = [
  // An array definition whose items have a description: the library's note sat before an "Items:" line.
  { $defs: { list: { type: "array", items: { type: "boolean", description: "an item" } } }, tools: {} },
  // Keys the types emitter hands the library as stand-ins: lone surrogates, `$` replacement patterns,
  // a name every object inherits; two lone surrogates must not share a hoisted name.
  {
    tools: {
      t: {
        inputSchema: {
          type: "object",
          properties: {
            "\ud800": { type: "string", pattern: "^a" },
            "\ud801": { type: "string", pattern: "^b" },
            "$`$'$&": { type: "string" },
            toString: { const: "" },
            hasOwnProperty: { type: "number" },
          },
          required: ["toString", "\ud800"],
        },
      },
    },
  },
];
const FOUND_SERVERS = [
  {
    serverInfo: { name: "templates named like Object.prototype members", version: "1" },
    tools: [],
    prompts: [],
    resources: [],
    resourceTemplates: [{ name: "constructor", uriTemplate: "note://{id}" }],
  },
];

const sampledContracts = fc.sample(contractArb, { seed: SEED, numRuns: RUNS });
const sampledServers = fc.sample(serverArb, { seed: SEED + 1, numRuns: RUNS });
const contracts = [...(FOUND_CONTRACTS as unknown as typeof sampledContracts), ...sampledContracts];
const servers = [...(FOUND_SERVERS as unknown as typeof sampledServers), ...sampledServers];

/**
 * What generated source never holds raw (it would read other than it runs, or not survive a UTF-8 file):
 * controls but line feed, bidi and zero-width formatting, line separators, lone surrogates.
 */
const RAW =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point.
  /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

function expectPrintable(files: Record<string, string>): void {
  for (const [file, body] of Object.entries(files)) {
    const at = body.search(RAW);
    expect(at, `${file}: ${JSON.stringify(body.slice(Math.max(0, at - 40), at + 10))}`).toBe(-1);
  }
}

/** A client talking to `handlers` served by the runtime over the in-memory transport. */
async function connect(info: { name: string; version: string }, handlers: object) {
  const server = createServer({ info, handlers: handlers as never });
  const [a, b] = createMemoryTransportPair();
  await server.connect(a);
  const client = createClient({ info: { name: "inert", version: "1" } });
  const described = await client.connect(b);
  return { client, described };
}

/** The files written, per case folder, to type-check and import at the end. */
const typed: string[] = [];
/** Contracts refused, with why: the sampler must mostly make contracts the generator takes. */
const refused: string[] = [];
const imported: string[] = [];

beforeAll(() => mkdirSync(OUT, { recursive: true }));
afterAll(() => {
  if (!process.env.MCP_CODEGEN_PROPERTY_KEEP) rmSync(OUT, { recursive: true, force: true });
});

describe(`hostile contracts (seed ${SEED}, ${RUNS} cases)`, () => {
  contracts.forEach((input, n) => {
    it(`contract-${n}: loads or is refused, emits, and is served exactly as declared`, async () => {
      const dir = `${OUT}contract-${n}/`;
      mkdirSync(dir, { recursive: true });
      const { label, ...declared } = input;
      const json = JSON.stringify(declared);
      writeFileSync(`${dir}input.json`, json);
      let contract: ContractModel;
      try {
        contract = await loadContractText(json, label ?? "contract.json");
      } catch (e) {
        // Refused is fine when it names the place; anything else is a crash.
        expect(e, String((e as Error).stack)).toBeInstanceOf(ContractError);
        refused.push(`contract-${n}: ${(e as Error).message}`);
        return;
      }
      const options = { protocolVersion: "2025-11-25", protocolDir: "../../../../../generated/2025-11-25" };
      const sources = await emitContractSources(contract, options);
      expectPrintable(sources);
      mkdirSync(`${dir}sources`, { recursive: true });
      for (const [file, body] of Object.entries(sources)) writeFileSync(`${dir}sources/${file}`, body);
      typed.push(`./contract-${n}/sources/*.ts`);
      const files = await emitContract(contract, options);
      expectPrintable(files);
      mkdirSync(`${dir}emitted`, { recursive: true });
      for (const [file, body] of Object.entries(files)) writeFileSync(`${dir}emitted/${file}`, body);
      imported.push(`${dir}emitted/tables.js`, `${dir}emitted/validators.js`, `${dir}emitted/server.ts`);

      const { contractHandlers } = await import(`${dir}emitted/server.ts`);
      const { client } = await connect({ name: "contract", version: "1" }, contractHandlers({}));
      try {
        if (contract.tools.length > 0) {
          const listed = await client.listTools();
          expect(JSON.stringify(listed.tools)).toBe(JSON.stringify(contract.tools.map((t) => t.definition)));
          // What the user wrote, key for key (`__proto__` included), is what a client reads.
          for (const tool of listed.tools) {
            const declared = input.tools[tool.name]!;
            expect(canonicalJson(tool.annotations)).toBe(canonicalJson(declared.annotations));
            expect(tool.description).toBe(declared.description);
            expect(tool.title).toBe(declared.title);
          }
        }
        if (contract.resources.length > 0 || contract.resourceTemplates.length > 0) {
          const listed = await client.listResources();
          expect(JSON.stringify(listed.resources)).toBe(
            JSON.stringify(contract.resources.map((r) => r.definition)),
          );
        }
        if (contract.resourceTemplates.length > 0) {
          const listed = await client.listResourceTemplates();
          expect(JSON.stringify(listed.resourceTemplates)).toBe(
            JSON.stringify(contract.resourceTemplates.map((t) => t.definition)),
          );
        }
        if (contract.prompts.length > 0) {
          const listed = await client.listPrompts();
          expect(JSON.stringify(listed.prompts)).toBe(
            JSON.stringify(contract.prompts.map((p) => p.definition)),
          );
          expect(listed.prompts.map((p) => p.name)).toEqual(Object.keys(input.prompts));
        }
      } finally {
        await client.close();
      }
    });
  });
});

describe(`hostile servers (seed ${SEED + 1}, ${RUNS} cases)`, () => {
  servers.forEach((input, n) => {
    it(`server-${n}: its lists make a lock and a client, exactly`, async () => {
      const dir = `${OUT}server-${n}/`;
      mkdirSync(dir, { recursive: true });
      writeFileSync(`${dir}input.json`, JSON.stringify(input));
      const { client, described } = await connect(input.serverInfo, {
        listTools: () => ({ tools: input.tools }),
        callTool: ({ name }: { name: string }) => ({ content: [{ type: "text", text: name }] }),
        listPrompts: () => ({ prompts: input.prompts }),
        getPrompt: () => ({ messages: [] }),
        listResources: () => ({ resources: input.resources }),
        readResource: ({ uri }: { uri: string }) => ({ contents: [{ uri, text: "" }] }),
        listResourceTemplates: () => ({ resourceTemplates: input.resourceTemplates }),
      });
      let lists: Parameters<typeof buildLock>[0];
      try {
        lists = {
          server: described.serverInfo,
          protocolVersion: described.protocolVersion,
          tools: (await client.listTools()).tools,
          prompts: (await client.listPrompts()).prompts,
          resources: (await client.listResources()).resources,
          resourceTemplates: (await client.listResourceTemplates()).resourceTemplates,
        };
      } finally {
        await client.close();
      }
      const { lock } = buildLock(lists);
      const lockFile = "server.lock.json";
      const reread = parseLock(renderLock(lock), lockFile);
      // The server's own name and version, code unit for code unit, and each definition it listed.
      expect(reread.server).toEqual(input.serverInfo);
      const firsts = <T extends { name: string }>(items: T[]) =>
        items.filter((t, i) => items.findIndex((u) => u.name === t.name) === i);
      for (const tool of firsts(input.tools)) {
        const locked = reread.tools.find((t) => t.name === tool.name);
        expect(canonicalJson(locked?.definition)).toBe(canonicalJson(tool));
      }
      for (const prompt of firsts(input.prompts)) {
        const locked = reread.prompts.find((p) => p.name === prompt.name);
        expect(canonicalJson(locked?.definition)).toBe(canonicalJson(prompt));
      }

      const pulled = contractFromLock(reread, lockFile);
      const clientFiles = await emitContractClient({
        lock: reread,
        lockFile,
        model: pulled.model,
        loose: pulled.loose,
      });
      expectPrintable(clientFiles);
      for (const [file, body] of Object.entries(clientFiles)) writeFileSync(`${dir}${file}`, body);
      typed.push(`./server-${n}/*.ts`);
      imported.push(`${dir}types.ts`, `${dir}validators.ts`, `${dir}client.ts`);
      const { bindClient } = await import(`${dir}client.ts`);
      const bound = bindClient({
        callTool: async () => ({}),
        getPrompt: async () => ({}),
        readResource: async () => ({}),
      });
      for (const tool of pulled.model.tools)
        expect(Object.hasOwn(bound.tools, tool.name), tool.name).toBe(true);
      for (const prompt of pulled.model.prompts)
        expect(Object.hasOwn(bound.prompts, prompt.name), prompt.name).toBe(true);
    });
  });
});

describe("every case's generated code", () => {
  it("comes from contracts that mostly load (a sampler of refusals would test little)", () => {
    expect(refused.length, refused.join("\n")).toBeLessThanOrEqual(contracts.length / 4);
  });

  it("type-checks (one tsc run over all cases)", () => {
    expect(typed.length).toBeGreaterThan(0);
    expect(typeErrors(OUT, typed).join("\n")).toBe("");
  });

  it("changes nothing global when imported (one child process for all cases)", async () => {
    expect(imported.length).toBeGreaterThan(0);
    const effects = await new Promise<{ changed: string[]; failed: string[] }>((resolve, reject) => {
      execFile(
        `${REPO}node_modules/.bin/tsx`,
        ["--conditions=mcp-codegen-source", `${REPO}test/support/import-probe.ts`, ...imported],
        { cwd: REPO, encoding: "utf8", timeout: 120_000, maxBuffer: 16 * 1024 * 1024 },
        (error, stdout, stderr) =>
          error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(JSON.parse(stdout)),
      );
    });
    expect(effects).toEqual({ changed: [], failed: [] });
  });
});
