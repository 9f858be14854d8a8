import { readFileSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { diffModels, type ProtocolDiff, renderMarkdown, renderText } from "../../generator/protocol/diff.js";
import { parseSchema } from "../../generator/protocol/load.js";
import { buildModel } from "../../generator/protocol/model.js";
import registry from "../../schema/versions.json" with { type: "json" };
import { officialSchemaPath, placeSchema, removeTempDirs, tempDir } from "../schema/fixtures.js";
import { runCli } from "./run.js";

// biome-ignore lint/suspicious/noExplicitAny: raw schema JSON is walked loosely on purpose.
type Raw = Record<string, any>;

afterAll(removeTempDirs);

const raw = (version: string): Raw => JSON.parse(readFileSync(officialSchemaPath(version), "utf8"));
const defsOf = (doc: Raw): Record<string, Raw> => doc.$defs ?? doc.definitions;
const refName = (ref: string): string => ref.split("/").pop()!;

/** Method strings of a message union as the raw schema states them (a single message counts as itself). */
function unionMethods(doc: Raw, union: string): Set<string> {
  const defs = defsOf(doc);
  const node = defs[union];
  if (!node) return new Set();
  const members: string[] = node.anyOf ? node.anyOf.map((m: Raw) => refName(m.$ref)) : [union];
  return new Set(members.map((m) => defs[m]!.properties.method.const as string));
}

/** `Definition:code` for every inline `code` property with a numeric const. */
function rawErrorCodes(doc: Raw): Set<string> {
  const found = new Set<string>();
  const visit = (name: string, node: unknown) => {
    if (node === null || typeof node !== "object") return;
    const code = (node as Raw).properties?.code?.const;
    if (typeof code === "number") found.add(`${name}:${code}`);
    for (const child of Object.values(node)) visit(name, child);
  };
  for (const [name, node] of Object.entries(defsOf(doc))) visit(name, node);
  return found;
}

const minus = <T>(a: Iterable<T>, b: Set<T>): T[] => [...a].filter((x) => !b.has(x)).sort();

const cache = new Map<string, ProtocolDiff>();
function jsonDiff(from: string, to: string): ProtocolDiff {
  const key = `${from} ${to}`;
  if (!cache.has(key)) {
    const run = runCli(["diff", from, to, "--format", "json"]);
    expect(run.stderr).not.toContain("error");
    expect(run.code).toBe(0);
    cache.set(key, JSON.parse(run.stdout) as ProtocolDiff);
  }
  return cache.get(key)!;
}

describe("mcp-codegen diff 2025-11-25 2026-07-28", () => {
  const before = raw("2025-11-25");
  const after = raw("2026-07-28");

  it("server/discover is added and initialize removed (client-to-server requests)", () => {
    const diff = jsonDiff("2025-11-25", "2026-07-28");
    const key = { kind: "request", direction: "client-to-server" };
    expect(diff.methods.added).toContainEqual({ method: "server/discover", ...key });
    expect(diff.methods.removed).toContainEqual({ method: "initialize", ...key });
  });

  it("every ClientRequest / ClientNotification / ServerNotification method that disappears or appears is listed", () => {
    const diff = jsonDiff("2025-11-25", "2026-07-28");
    const listed = (
      list: { method: string; kind: string; direction: string }[],
      kind: string,
      direction: string,
    ) =>
      list
        .filter((m) => m.kind === kind && m.direction === direction)
        .map((m) => m.method)
        .sort();
    for (const [union, kind, direction] of [
      ["ClientRequest", "request", "client-to-server"],
      ["ClientNotification", "notification", "client-to-server"],
      ["ServerNotification", "notification", "server-to-client"],
    ] as const) {
      const old = unionMethods(before, union);
      const now = unionMethods(after, union);
      expect(listed(diff.methods.removed, kind, direction), `${union} removed`).toEqual(minus(old, now));
      expect(listed(diff.methods.added, kind, direction), `${union} added`).toEqual(minus(now, old));
    }
    // Server→client requests: ServerRequest before, InputRequest (delivered inside a result) after.
    const old = unionMethods(before, "ServerRequest");
    const now = unionMethods(after, "InputRequest");
    expect(listed(diff.methods.removed, "request", "server-to-client")).toEqual(minus(old, now));
    expect(listed(diff.methods.added, "request", "server-to-client")).toEqual(minus(now, old));
  });

  it("definitions and error codes match the raw schemas exactly", () => {
    const diff = jsonDiff("2025-11-25", "2026-07-28");
    const a = new Set(Object.keys(defsOf(before)));
    const b = new Set(Object.keys(defsOf(after)));
    expect(diff.definitions.added).toEqual(minus(b, a));
    expect(diff.definitions.removed).toEqual(minus(a, b));

    const codesBefore = rawErrorCodes(before);
    const codesAfter = rawErrorCodes(after);
    const pairs = (list: { definition: string; code: number }[]) =>
      list.map((e) => `${e.definition}:${e.code}`).sort();
    expect(diff.errorCodes.changed).toEqual([]);
    expect(pairs(diff.errorCodes.added)).toEqual(minus(codesAfter, codesBefore));
    expect(pairs(diff.errorCodes.removed)).toEqual(minus(codesBefore, codesAfter));
    expect(diff.errorCodes.removed).toContainEqual({
      definition: "URLElicitationRequiredError",
      code: -32042,
    });
    expect(diff.errorCodes.added.length).toBeGreaterThan(5);
  });

  it("capabilities: each side's top-level capability keys that come and go are listed", () => {
    const diff = jsonDiff("2025-11-25", "2026-07-28");
    for (const [side, def] of [
      ["server", "ServerCapabilities"],
      ["client", "ClientCapabilities"],
    ] as const) {
      const old = new Set(Object.keys(defsOf(before)[def]!.properties));
      const now = new Set(Object.keys(defsOf(after)[def]!.properties));
      const top = (list: { side: string; path: string }[]) =>
        list.filter((c) => c.side === side && !c.path.includes(".")).map((c) => c.path);
      expect(top(diff.capabilities.added)).toEqual(minus(now, old));
      expect(top(diff.capabilities.removed)).toEqual(minus(old, now));
    }
    // Nested, through the inline objects: tasks.requests.tools.call went with tasks.
    expect(diff.capabilities.removed).toContainEqual({ side: "server", path: "tasks.requests.tools.call" });
  });
});

describe("mcp-codegen diff 2024-11-05 2025-03-26", () => {
  const before = raw("2024-11-05");
  const after = raw("2025-03-26");

  it("reports the completion changes: the completions capability and completion/complete's gating", () => {
    const diff = jsonDiff("2024-11-05", "2025-03-26");
    const old = new Set(Object.keys(defsOf(before).ServerCapabilities!.properties));
    const added = Object.keys(defsOf(after).ServerCapabilities!.properties).filter((k) => !old.has(k));
    expect(added).toContain("completions");
    for (const path of added) {
      expect(diff.capabilities.added).toContainEqual({ side: "server", path });
      expect(diff.properties.added).toContainEqual(
        expect.objectContaining({ definition: "ServerCapabilities", path }),
      );
    }
    expect(diff.methods.changed).toContainEqual({
      method: "completion/complete",
      kind: "request",
      direction: "client-to-server",
      changes: [{ field: "capability", before: null, after: "server: completions" }],
    });
    // Any definition whose name mentions completion and exists on one side only is listed.
    const names = (doc: Raw) => new Set(Object.keys(defsOf(doc)).filter((n) => /complet/i.test(n)));
    expect(diff.definitions.added).toEqual(expect.arrayContaining(minus(names(after), names(before))));
    expect(diff.definitions.removed).toEqual(expect.arrayContaining(minus(names(before), names(after))));
  });

  it("reports the annotation changes: new Annotation definitions and new `annotations` properties", () => {
    const diff = jsonDiff("2024-11-05", "2025-03-26");
    const a = defsOf(before);
    const b = defsOf(after);
    const newAnnotationDefs = Object.keys(b).filter((n) => /Annotation/.test(n) && !(n in a));
    expect(newAnnotationDefs).toContain("ToolAnnotations");
    expect(diff.definitions.added).toEqual(expect.arrayContaining(newAnnotationDefs));
    const gained = Object.keys(b).filter(
      (n) => n in a && b[n]!.properties?.annotations && !a[n]!.properties?.annotations,
    );
    expect(gained).toContain("Tool");
    for (const definition of gained) {
      expect(diff.properties.added).toContainEqual(
        expect.objectContaining({ definition, path: "annotations" }),
      );
    }
    // Inline annotation objects that became a $ref are retyped, compared by name.
    const moved = Object.keys(b).filter(
      (n) =>
        n in a && a[n]!.properties?.annotations?.type === "object" && b[n]!.properties?.annotations?.$ref,
    );
    expect(moved.length).toBeGreaterThan(0);
    for (const definition of moved) {
      expect(diff.properties.retyped).toContainEqual({
        definition,
        path: "annotations",
        before: "object",
        after: `ref ${refName(b[definition]!.properties.annotations.$ref)}`,
      });
    }
  });
});

/** One line per fact, in each format's own notation. */
function textFacts(d: ProtocolDiff): string[] {
  const m = (x: { kind: string; method: string; direction: string }) =>
    `${x.kind} ${x.method} (${x.direction})`;
  const at = (p: { definition: string; path: string }) =>
    p.path ? `${p.definition}.${p.path}` : p.definition;
  return [
    ...d.methods.added.map((x) => `+ ${m(x)}`),
    ...d.methods.removed.map((x) => `- ${m(x)}`),
    ...d.methods.changed.map((x) => `~ ${m(x)}: `),
    ...d.definitions.added.map((x) => `+ ${x}`),
    ...d.definitions.removed.map((x) => `- ${x}`),
    ...d.properties.added.map((p) => `+ ${at(p)}: ${p.after}`),
    ...d.properties.removed.map((p) => `- ${at(p)}: ${p.before}`),
    ...d.properties.retyped.map((p) => `~ ${at(p)}: ${p.before} → ${p.after}`),
    ...d.properties.madeRequired.map((p) => `~ ${at(p)}: optional → required`),
    ...d.properties.madeOptional.map((p) => `~ ${at(p)}: required → optional`),
    ...d.capabilities.added.map((c) => `+ ${c.side}: ${c.path}`),
    ...d.capabilities.removed.map((c) => `- ${c.side}: ${c.path}`),
    ...d.errorCodes.added.map((e) => `+ ${e.definition}: ${e.code}`),
    ...d.errorCodes.removed.map((e) => `- ${e.definition}: ${e.code}`),
    ...d.errorCodes.changed.map((e) => `~ ${e.definition}: ${e.before} → ${e.after}`),
  ];
}

function markdownFacts(d: ProtocolDiff): string[] {
  const m = (change: string, x: { kind: string; method: string; direction: string }) =>
    `| ${change} | \`${x.method}\` | ${x.kind} | ${x.direction} |`;
  const at = (p: { definition: string; path: string }) =>
    `\`${p.path ? `${p.definition}.${p.path}` : p.definition}\``;
  return [
    ...d.methods.added.map((x) => m("added", x)),
    ...d.methods.removed.map((x) => m("removed", x)),
    ...d.methods.changed.map((x) => m("changed", x)),
    ...d.definitions.added.map((x) => `- added \`${x}\``),
    ...d.definitions.removed.map((x) => `- removed \`${x}\``),
    ...d.properties.added.map((p) => `| ${at(p)} |  | \`${p.after}\` |`),
    ...d.properties.removed.map((p) => `| removed | ${at(p)} | \`${p.before}\` |  |`),
    ...d.properties.retyped.map((p) => `| retyped | ${at(p)} | \`${p.before}\` | \`${p.after}\` |`),
    ...d.properties.madeRequired.map((p) => `| made required | ${at(p)} |`),
    ...d.properties.madeOptional.map((p) => `| made optional | ${at(p)} |`),
    ...d.capabilities.added.map((c) => `- added ${c.side}: \`${c.path}\``),
    ...d.capabilities.removed.map((c) => `- removed ${c.side}: \`${c.path}\``),
    ...d.errorCodes.added.map((e) => `| added | \`${e.definition}\` |  | ${e.code} |`),
    ...d.errorCodes.removed.map((e) => `| removed | \`${e.definition}\` | ${e.code} |  |`),
    ...d.errorCodes.changed.map((e) => `| changed | \`${e.definition}\` | ${e.before} | ${e.after} |`),
  ];
}

describe("mcp-codegen diff formats", () => {
  it.each([
    ["2024-11-05", "2025-03-26"],
    ["2025-11-25", "2026-07-28"],
  ])("text and markdown state the same facts as json (%s → %s)", (from, to) => {
    const diff = jsonDiff(from, to);
    const text = runCli(["-q", "diff", from, to]);
    const markdown = runCli(["-q", "diff", from, to, "--format", "markdown"]);
    expect(text).toMatchObject({ code: 0, stderr: "" });
    expect(markdown).toMatchObject({ code: 0, stderr: "" });
    // GFM escapes `|` inside table cells; the facts are stated unescaped.
    const mdLines = markdown.stdout.replaceAll("\\|", "|").split("\n");
    const textLines = text.stdout.split("\n").map((l) => l.trim());
    for (const fact of textFacts(diff))
      expect(
        textLines.some((l) => l.startsWith(fact)),
        fact,
      ).toBe(true);
    for (const fact of markdownFacts(diff))
      expect(
        mdLines.some((l) => l.includes(fact)),
        fact,
      ).toBe(true);
    // And nothing else: one line per counted change in each.
    expect(textLines.filter((l) => /^[+\-~] /.test(l))).toHaveLength(diff.summary.total);
    expect(
      mdLines.filter((l) => /^(\| (added|removed|changed|retyped|made)|- (added|removed) )/.test(l)),
    ).toHaveLength(diff.summary.total);
    for (const heading of ["Methods", "Definitions", "Properties", "Capabilities"]) {
      expect(text.stdout).toContain(`\n${heading}:\n`);
      expect(markdown.stdout).toContain(`\n## ${heading}\n`);
    }
    // Same run, same bytes.
    expect(renderText(diff)).toBe(text.stdout);
    expect(renderMarkdown(diff)).toBe(markdown.stdout);
  });

  it("the same version twice is an empty diff", () => {
    const json = jsonDiff("2025-06-18", "2025-06-18");
    expect(json.summary.total).toBe(0);
    expect(runCli(["diff", "2025-06-18", "2025-06-18"]).stdout).toBe(
      "MCP schema 2025-06-18 → 2025-06-18: no differences\n",
    );
  });

  it("an unknown version exits 2 naming it and the known versions; a bad --format exits 2", () => {
    for (const args of [
      ["2025-11-25", "2031-01-01"],
      ["2031-01-01", "2025-11-25"],
    ]) {
      const run = runCli(["diff", ...args]);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain('"2031-01-01"');
      for (const v of Object.keys(registry.versions)) expect(run.stderr).toContain(v);
      expect(run.stdout).toBe("");
    }
    expect(runCli(["diff", "2025-06-18", "2025-11-25", "--format", "yaml"]).code).toBe(2);
    expect(runCli(["diff", "2025-06-18"]).code).toBe(2);
    const help = runCli(["diff", "--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("Examples:");
  });

  it("schemas come through the loader: an edited copy in MCP_SCHEMA_DIR is refused, or diffed with --allow-unpinned", async () => {
    const dir = await tempDir();
    const doc = raw("2025-06-18");
    defsOf(doc).Tool!.properties.colour = { type: ["string", "integer"] };
    defsOf(doc).Tool!.required.push("colour");
    await placeSchema(dir, "2025-06-18", JSON.stringify(doc));
    const env = { MCP_SCHEMA_DIR: dir };
    const refused = runCli(["diff", "2025-03-26", "2025-06-18"], { env });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`${dir}/2025-06-18/schema.json`);
    const edited = runCli(["diff", "2025-03-26", "2025-06-18", "--json", "--allow-unpinned"], { env });
    expect(edited.code).toBe(0);
    expect(JSON.parse(edited.stdout).properties.added).toContainEqual({
      definition: "Tool",
      path: "colour",
      after: "string | integer",
      required: true,
    });
  });
});

// ---- diffModels on small hand-written schemas: the cases the official versions do not all exhibit ----

function model(defs: Record<string, unknown>) {
  const doc = {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    $defs: {
      ClientRequest: { anyOf: [{ $ref: "#/$defs/InitializeRequest" }, { $ref: "#/$defs/PingRequest" }] },
      ServerRequest: { anyOf: [{ $ref: "#/$defs/PingRequest" }] },
      PingRequest: { type: "object", properties: { method: { const: "ping", type: "string" } } },
      EmptyResult: { type: "object" },
      InitializeResult: { type: "object" },
      ServerCapabilities: { type: "object", properties: {} },
      ClientCapabilities: { type: "object", properties: {} },
      ...defs,
    },
  };
  return buildModel(parseSchema(JSON.stringify(doc), "test.json"), {
    protocolVersion: "test",
    schemaSha256: "0",
    generatorVersion: "0",
  });
}

const initialize = (params: unknown) => ({
  InitializeRequest: {
    type: "object",
    properties: { method: { const: "initialize", type: "string" }, params },
    required: ["method"],
  },
});

describe("diffModels", () => {
  it("walks inline objects to dotted paths: retyped, made required/optional, refs compared by name", () => {
    const a = model({
      ...initialize({
        type: "object",
        properties: {
          arguments: {
            type: "object",
            properties: { x: { type: "string" }, y: { type: "string" } },
            required: ["x"],
          },
          content: { type: "array", items: { $ref: "#/$defs/A" } },
          block: { $ref: "#/$defs/A" },
        },
      }),
      A: { type: "object", properties: { deep: { type: "string" } } },
      B: { type: "object" },
    });
    const b = model({
      ...initialize({
        type: "object",
        properties: {
          arguments: {
            type: "object",
            properties: {
              x: { type: ["string", "integer"] },
              y: { type: "string" },
              z: { type: "object", properties: { w: {} } },
            },
            required: ["y"],
          },
          content: { type: "array", items: { $ref: "#/$defs/B" } },
          block: { $ref: "#/$defs/B" },
        },
      }),
      A: { type: "object", properties: { deep: { type: "integer" } } },
      B: { type: "object" },
    });
    const diff = diffModels(a, b);
    const d = "InitializeRequest";
    expect(diff.properties.retyped).toEqual([
      { definition: "A", path: "deep", before: "string", after: "integer" },
      { definition: d, path: "params.arguments.x", before: "string", after: "string | integer" },
      { definition: d, path: "params.block", before: "ref A", after: "ref B" },
      { definition: d, path: "params.content", before: "array<ref A>", after: "array<ref B>" },
    ]);
    expect(diff.properties.madeRequired).toEqual([{ definition: d, path: "params.arguments.y" }]);
    expect(diff.properties.madeOptional).toEqual([{ definition: d, path: "params.arguments.x" }]);
    // Only the topmost addition: z's own properties come with it.
    expect(diff.properties.added).toEqual([
      { definition: d, path: "params.arguments.z", after: "object", required: false },
    ]);
    expect(diff.properties.removed).toEqual([]);
  });

  it("methods per direction; params, result and capability changes; capabilities through refs; error codes", () => {
    const caps = (props: unknown) => ({ ServerCapabilities: { type: "object", properties: props } });
    const a = model({
      ...initialize({ $ref: "#/$defs/P1" }),
      P1: { type: "object" },
      ...caps({ elicitation: { $ref: "#/$defs/Elicitation" } }),
      Elicitation: { type: "object", properties: { form: { type: "object" } } },
      SomeError: { type: "object", properties: { code: { const: -1, type: "integer" } } },
      GoneError: { type: "object", properties: { code: { const: -3, type: "integer" } } },
    });
    const b = model({
      ...initialize({ $ref: "#/$defs/P2" }),
      P2: { type: "object" },
      ServerRequest: { anyOf: [{ $ref: "#/$defs/InitializeRequest" }] },
      ...caps({ elicitation: { $ref: "#/$defs/Elicitation" } }),
      Elicitation: { type: "object", properties: { form: { type: "object" }, url: { type: "object" } } },
      SomeError: {
        type: "object",
        properties: {
          error: { allOf: [{ type: "object", properties: { code: { const: -2, type: "integer" } } }] },
        },
      },
      NewError: { type: "object", properties: { code: { const: -32042, type: "integer" } } },
    });
    const diff = diffModels(a, b);
    expect(diff.methods.added).toEqual([
      { method: "initialize", kind: "request", direction: "server-to-client" },
    ]);
    expect(diff.methods.removed).toEqual([
      { method: "ping", kind: "request", direction: "server-to-client" },
    ]);
    expect(diff.methods.changed).toEqual([
      {
        method: "initialize",
        kind: "request",
        direction: "client-to-server",
        changes: [{ field: "params", before: "P1", after: "P2" }],
      },
    ]);
    expect(diff.capabilities).toEqual({ added: [{ side: "server", path: "elicitation.url" }], removed: [] });
    expect(diff.errorCodes).toEqual({
      added: [{ definition: "NewError", code: -32042 }],
      removed: [{ definition: "GoneError", code: -3 }],
      changed: [{ definition: "SomeError", before: -1, after: -2 }],
    });
    expect(diff.definitions).toEqual({ added: ["NewError", "P2"], removed: ["GoneError", "P1"] });
    expect(diff.summary.total).toBe(
      Object.entries(diff.summary)
        .filter(([k]) => k !== "total")
        .reduce((n, [, v]) => n + v, 0),
    );
    // JSON round trip: plain data.
    expect(JSON.parse(JSON.stringify(diff))).toEqual(diff);
  });
});
