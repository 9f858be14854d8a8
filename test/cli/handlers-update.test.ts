/**
 * `generate --protocol` on a project's handlers file, through the real CLI on real folders: moving
 * between versions both ways never duplicates the `notImplemented` import (it joins an existing import of
 * a module that exports it), inserted stubs follow the file's style (trailing commas, indentation, blank
 * lines, quotes, line endings), its own marks stay current, and the result type-checks.
 */
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO, runCli } from "./run.js";

const work = mkdtempSync(join(tmpdir(), "mcp-codegen-handlers-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** One scaffold per kind at 2025-06-18 (server) and 2024-11-05 (client), copied for each case. */
const templates = { server: join(work, "server-template"), client: join(work, "client-template") };
beforeAll(() => {
  for (const [args, dir] of [
    [["--protocol", "2025-06-18"], templates.server],
    [["--protocol", "2024-11-05", "--client"], templates.client],
  ] as const) {
    const r = runCli(["init", dir, ...args, "-q"]);
    if (r.code !== 0) throw new Error(`init failed: ${r.stderr}`);
  }
}, 300_000);

let cases = 0;
function project(kind: "server" | "client" = "server"): string {
  const dir = join(work, `p${++cases}`);
  cpSync(templates[kind], dir, { recursive: true });
  // The repository's node_modules: typescript, @types/node and @mcp-codegen/runtime for the type check.
  symlinkSync(join(REPO, "node_modules"), join(dir, "node_modules"));
  // The scaffold's contract implementation, kept where main.ts finds it when a case rewrites the handlers
  // file by hand (SERVER_HANDLERS re-exports it).
  if (kind === "server") cpSync(join(dir, "src/handlers.ts"), join(dir, "src/contract.ts"));
  return dir;
}

const handlersOf = (dir: string) => readFileSync(join(dir, "src/handlers.ts"), "utf8");

function generate(dir: string, protocol: string) {
  const r = runCli(["generate", "--protocol", protocol], { cwd: dir });
  expect(r.stderr).not.toContain("internal error");
  expect(r.code, r.stderr).toBe(0);
  return r;
}

/** `tsc` over the project; the runtime is read from source, so only errors in the project's files count. */
function typeErrors(dir: string): string[] {
  const r = spawnSync(
    join(REPO, "node_modules/.bin/tsc"),
    ["--noEmit", "-p", "tsconfig.json", "--customConditions", "mcp-codegen-source"],
    { cwd: dir, encoding: "utf8", timeout: 60_000 },
  );
  return r.stdout.split("\n").filter((l) => /^(src|generated)\//.test(l));
}

/** The import declarations of a file, one string each. */
const imports = (text: string) =>
  [...text.matchAll(/^import\b[^;]*?from\s+["'][^"']+["'];?/gms)].map((m) => m[0]);

/** A hand-written handlers file; the contract main.ts serves comes from src/contract.ts (see project()). */
const CONTRACT = 'export { contract } from "./contract.js";\n';
const SERVER_HANDLERS = (header: string, body: string) =>
  `${header}\n\nexport const handlers: ServerHandlers = {\n${body}};\n${CONTRACT}`;

describe("generate --protocol: the notImplemented import", () => {
  it("moving a scaffold between versions both ways keeps one import, merged; marks follow; it compiles", () => {
    const dir = project();
    const marks = (text: string) =>
      [...text.matchAll(/\/\/ mcp-codegen: not in protocol (\S+):/g)].map((m) => m[1]);
    // 2025-11-25 adds five task stubs; 2025-06-18 and 2024-11-05 have none of them; 2026-07-28 has all.
    const steps: [string, string[]][] = [
      ["2025-11-25", []],
      ["2026-07-28", []],
      ["2025-06-18", Array(5).fill("2025-06-18")],
      ["2024-11-05", Array(5).fill("2024-11-05")],
      ["2026-07-28", []],
    ];
    for (const [protocol, marked] of steps) {
      generate(dir, protocol);
      const text = handlersOf(dir);
      // One import declaration in all: notImplemented joined the scaffold's import of server.js.
      expect(imports(text), protocol).toEqual([
        'import { type Contract, type Returns, toolError } from "../generated/contract/server.js";',
        'import { notImplemented, type ServerHandlers } from "../generated/server.js";',
      ]);
      expect(marks(text), protocol).toEqual(marked);
      // A second run at the same version changes nothing.
      generate(dir, protocol);
      expect(handlersOf(dir), protocol).toBe(text);
    }
    expect(handlersOf(dir)).toMatch(
      /\n {2}\/\/ tasks\/list: new in protocol 2025-11-25;[^\n]*\n {2}listTasks: notImplemented/,
    );
    expect(typeErrors(dir)).toEqual([]);
  }, 600_000);

  it("2025-11-25 → 2026-07-28 → 2025-11-25 from a fresh scaffold adds no import it does not need", () => {
    const dir = project();
    generate(dir, "2025-11-25");
    const text = handlersOf(dir);
    generate(dir, "2026-07-28");
    expect(handlersOf(dir)).toBe(text);
    generate(dir, "2025-11-25");
    expect(handlersOf(dir)).toBe(text);
  }, 180_000);

  const body = "  listTools: () => ({ tools: [] }),\n  callTool: () => ({ content: [] }),\n";
  const variants: { name: string; header: string; want: string[]; callee: string }[] = [
    {
      name: "a type-only import of the same module",
      header: 'import type { ServerHandlers } from "../generated/server.js";',
      want: ['import { notImplemented, type ServerHandlers } from "../generated/server.js";'],
      callee: "notImplemented",
    },
    {
      name: "an import of index.js, which re-exports server.js",
      header: 'import { type ServerHandlers } from "../generated/index.js";',
      want: ['import { notImplemented, type ServerHandlers } from "../generated/index.js";'],
      callee: "notImplemented",
    },
    {
      name: "notImplemented already imported under another name",
      header: 'import { notImplemented as todo, type ServerHandlers } from "../generated/server.js";',
      want: ['import { notImplemented as todo, type ServerHandlers } from "../generated/server.js";'],
      callee: "todo",
    },
    {
      name: "notImplemented already imported from the runtime",
      header:
        'import { notImplemented } from "@mcp-codegen/runtime/codegen";\nimport type { ServerHandlers } from "../generated/server.js";',
      want: [
        'import { notImplemented } from "@mcp-codegen/runtime/codegen";',
        'import type { ServerHandlers } from "../generated/server.js";',
      ],
      callee: "notImplemented",
    },
    {
      name: "notImplemented imported as a type only",
      header: 'import type { notImplemented, ServerHandlers } from "../generated/server.js";',
      want: ['import { notImplemented, type ServerHandlers } from "../generated/server.js";'],
      callee: "notImplemented",
    },
    {
      name: "a namespace import of the module",
      header: 'import * as gen from "../generated/server.js";\ntype ServerHandlers = gen.ServerHandlers;',
      want: ['import * as gen from "../generated/server.js";'],
      callee: "gen.notImplemented",
    },
    {
      name: "single quotes and no semicolons",
      header: "import type { ServerHandlers } from '../generated/server.js'",
      want: ["import { notImplemented, type ServerHandlers } from '../generated/server.js'"],
      callee: "notImplemented",
    },
  ];
  it.each(variants)(
    "$name: no second import, stubs call $callee, it compiles",
    ({ header, want, callee }) => {
      const dir = project();
      writeFileSync(join(dir, "src/handlers.ts"), SERVER_HANDLERS(header, body));
      generate(dir, "2025-11-25");
      const text = handlersOf(dir);
      expect(imports(text)).toEqual(want);
      const quote = header.includes("'") ? "'" : '"';
      expect(text).toContain(`  getTask: ${callee}(${quote}tasks/get${quote})`);
      expect(typeErrors(dir)).toEqual([]);
      generate(dir, "2025-11-25");
      expect(handlersOf(dir)).toBe(text);
    },
    180_000,
  );

  it("a client (whose client.js import cannot take it) gets one new import after the last one", () => {
    const dir = project("client");
    generate(dir, "2025-06-18");
    const text = handlersOf(dir);
    expect(imports(text)).toEqual([
      'import type { ClientHandlers } from "../generated/client.js";',
      'import { notImplemented } from "../generated/server.js";',
    ]);
    expect(text).toContain('  elicit: notImplemented("elicitation/create"),\n');
    expect(typeErrors(dir)).toEqual([]);
    generate(dir, "2024-11-05");
    generate(dir, "2025-11-25");
    expect(imports(handlersOf(dir))).toEqual(imports(text));
    expect(typeErrors(dir)).toEqual([]);
  }, 300_000);
});

describe("generate --protocol: inserted stubs follow the file's style", () => {
  const COMMENT = (method: string) =>
    method.startsWith("notifications/")
      ? `// ${method}: new in protocol 2025-11-25; ignored until you write it.`
      : `// ${method}: new in protocol 2025-11-25; answers "method not found" until you write it.`;
  const NEW = [
    ["cancelTask", "tasks/cancel"],
    ["getTask", "tasks/get"],
    ["getTaskPayload", "tasks/result"],
    ["listTasks", "tasks/list"],
    ["onTaskStatus", "notifications/tasks/status"],
  ] as const;
  const stubs = (indent: string, sep: string, last: string, nl = "\n") =>
    NEW.map(
      ([name, method], i) =>
        `${sep}${indent}${COMMENT(method)}${nl}${indent}${name}: notImplemented("${method}")${i === NEW.length - 1 ? last : ","}${nl}`,
    ).join("");
  const header = 'import { notImplemented, type ServerHandlers } from "../generated/server.js";';

  it("the scaffold: blank line between entries, 2 spaces, a comment above each stub, a trailing comma each", () => {
    const dir = project();
    const before = handlersOf(dir);
    generate(dir, "2025-11-25");
    const after = handlersOf(dir);
    // The scaffold's handlers object holds only a comment: the stubs follow it, a trailing comma each.
    const comment = "  // subscribe: ({ uri }, ctx) => { … },\n";
    expect(after.endsWith(`${comment}${stubs("  ", "", ",")}};\n`)).toBe(true);
    // Take the insertions out again and the user's file remains, byte for byte.
    const restored = after
      .replace(`${stubs("  ", "", ",")}};\n`, "};\n")
      .replace("import { notImplemented, type ServerHandlers }", "import type { ServerHandlers }");
    expect(restored).toBe(before);
    // An entry the user adds after the last stub is fine.
    writeFileSync(join(dir, "src/handlers.ts"), after.replace(/\n\};\n$/, "\n  setLevel: () => ({}),\n};\n"));
    expect(typeErrors(dir)).toEqual([]);
  }, 180_000);

  const entries = ["  listTools: () => ({ tools: [] }),", "  callTool: () => ({ content: [] }),"];
  const handWritten: { name: string; body: string; want: string }[] = [
    {
      name: "trailing commas, no blank lines",
      body: `${entries.join("\n")}\n`,
      want: `${entries.join("\n")}\n${stubs("  ", "", ",")}`,
    },
    {
      name: "no trailing comma",
      body: `${entries.join("\n").replace(/,$/, "")}\n`,
      want: `${entries.join("\n")}\n${stubs("  ", "", "")}`,
    },
    {
      name: "no trailing comma, a comment after the last entry",
      body: `${entries.join("\n").replace(/,$/, "")} // the last one\n`,
      want: `${entries.join("\n")} // the last one\n${stubs("  ", "", "")}`,
    },
    {
      name: "4-space indentation, blank lines",
      body: `${entries.map((e) => `  ${e}`).join("\n\n")}\n`,
      want: `${entries.map((e) => `  ${e}`).join("\n\n")}\n${stubs("    ", "\n", ",")}`,
    },
    {
      name: "an empty object",
      body: "",
      want: stubs("  ", "", ","),
    },
  ];
  it.each(handWritten)(
    "a hand-written file with $name",
    ({ body, want }) => {
      const dir = project();
      writeFileSync(
        join(dir, "src/handlers.ts"),
        SERVER_HANDLERS('import type { ServerHandlers } from "../generated/server.js";', body),
      );
      generate(dir, "2025-11-25");
      expect(handlersOf(dir)).toBe(SERVER_HANDLERS(header, want));
      expect(typeErrors(dir)).toEqual([]);
    },
    180_000,
  );

  it("a file with CRLF line endings gets CRLF lines", () => {
    const dir = project();
    const text = SERVER_HANDLERS(
      'import type { ServerHandlers } from "../generated/server.js";',
      `${entries.join("\n")}\n`,
    ).replaceAll("\n", "\r\n");
    writeFileSync(join(dir, "src/handlers.ts"), text);
    generate(dir, "2025-11-25");
    expect(handlersOf(dir)).toBe(
      SERVER_HANDLERS(header, `${entries.join("\n")}\n${stubs("  ", "", ",")}`).replaceAll("\n", "\r\n"),
    );
  }, 180_000);

  it("a single-line object becomes one entry a line", () => {
    const dir = project();
    writeFileSync(
      join(dir, "src/handlers.ts"),
      `import type { ServerHandlers } from "../generated/server.js";\n\nexport const handlers: ServerHandlers = { listTools: () => ({ tools: [] }) };\n${CONTRACT}`,
    );
    generate(dir, "2025-11-25");
    const text = handlersOf(dir);
    expect(text).toContain(
      `export const handlers: ServerHandlers = { listTools: () => ({ tools: [] }),\n${stubs("  ", "", ",")}};\n${CONTRACT}`,
    );
    expect(typeErrors(dir)).toEqual([]);
  }, 180_000);
});
