/**
 * `mcp-codegen test` against real server processes serving test/fixtures/contract-test/contract.yaml:
 * a correct server passes (tools, prompt, resource template, resource); a server whose `add` breaks its
 * outputSchema past a = 100 is caught, shrunk, and caught again with the printed seed, and so is one whose
 * prompt crashes on an enum value and whose template answers no contents past id 500; a server that
 * checks no argument or variable is caught refusing nothing; a contract of prompts and templates only is
 * testable; usage mistakes exit 2.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadContractText } from "../../generator/contract/load.js";
import type { JsonObject } from "../../generator/contract/model.js";
import {
  comparePrompts,
  compareResources,
  compareTemplates,
  compareTools,
} from "../../generator/lock/compare.js";
import { FIXTURE_DIR, fixtureFiles } from "../fixtures/contract-test/generate.js";
import { REPO, runCli } from "./run.js";

const CONTRACT = join(FIXTURE_DIR, "contract.yaml");
const server = (name: string) => [
  `${REPO}node_modules/.bin/tsx`,
  "--conditions=mcp-codegen-source",
  join(FIXTURE_DIR, `${name}-server.ts`),
];
const WORK = `${REPO}test/.tmp/contract-test`;
rmSync(WORK, { recursive: true, force: true });
mkdirSync(WORK, { recursive: true });
afterAll(() => rmSync(WORK, { recursive: true, force: true }));

const TOOLS = ["add", "distance", "greet", "tag"];

/** The lines of one item's report (`add`, `prompt review`): its summary and the indented details under it. */
function toolReport(stdout: string, tool: string): string {
  const lines = stdout.split("\n");
  const start = lines.findIndex((l) => l.startsWith(`✓ ${tool}: `) || l.startsWith(`✗ ${tool}: `));
  if (start < 0) return "";
  let end = start + 1;
  while (end < lines.length && lines[end]!.startsWith("  ")) end++;
  return lines.slice(start, end).join("\n");
}

describe("mcp-codegen test", () => {
  it("the fixture's generated contract code is what emitContract makes (regenerate with its generate.ts)", async () => {
    for (const [name, text] of Object.entries(await fixtureFiles()))
      expect(readFileSync(join(FIXTURE_DIR, "contract", name), "utf8"), name).toBe(text);
  });

  it("passes a server that implements its contract, reading the contract from mcp-codegen.json", () => {
    const dir = join(WORK, "project");
    mkdirSync(dir, { recursive: true });
    // A project's config, as init writes it.
    writeFileSync(
      join(dir, "mcp-codegen.json"),
      JSON.stringify({
        kind: "server",
        protocol: "2025-11-25",
        output: "generated",
        handlers: "src/handlers.ts",
        schema: null,
        contract: CONTRACT,
      }),
    );
    const r = runCli(["test", "--runs", "40", "--", ...server("correct")], { cwd: dir });
    expect(r.stderr).not.toContain("error:");
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain("✓ tools/list: the contract's 4 tools, same schemas");
    for (const tool of TOOLS)
      expect(toolReport(r.stdout, tool)).toMatch(/^✓ \S+: 40 runs, 40 passed; (\d) of \1 wrong/);
    expect(r.stdout).toContain("✓ prompts/list: the contract's 1 prompt, same arguments");
    // code missing, tone outside its enum.
    expect(toolReport(r.stdout, "prompt review")).toBe(
      "✓ prompt review: 40 runs, 40 passed; 2 of 2 wrong arguments refused",
    );
    expect(r.stdout).toContain(
      "✓ resources/templates/list: the contract's 1 resource template, same URI templates",
    );
    // id not an integer, format outside its enum.
    expect(toolReport(r.stdout, "resource template item")).toBe(
      "✓ resource template item: 40 runs, 40 passed; 2 of 2 wrong URIs refused",
    );
    expect(r.stdout).toContain("✓ resources/list: holds the contract's 1 resource");
    expect(toolReport(r.stdout, "resource readme")).toBe("✓ resource readme: docs://readme read");
    expect(r.stdout).toMatch(
      /OK: every tool, prompt, resource template and resource holds to .*contract\.yaml \(seed -?\d+\)/,
    );
  }, 90_000);

  it("catches output that breaks the outputSchema, shrinks it, and reproduces it with the printed seed", () => {
    const args = ["test", "--contract", CONTRACT, "--runs", "100", "--", ...server("output-bug")];
    const first = runCli(args);
    expect(first.code, first.stdout + first.stderr).toBe(1);
    const add = toolReport(first.stdout, "add");
    expect(add).toMatch(/^✗ add: run \d+ of 100 failed \(shrunk \d+ times\)/);
    expect(add).toContain("problem:   structuredContent fails the outputSchema at sum: Expected number");
    const shrunk = JSON.parse(/arguments: (.*)/.exec(add)![1]!) as { a: number; b: number };
    // Shrunk to the edge of the bug: a just past 100, b at its simplest.
    expect(shrunk.a).toBeGreaterThan(100);
    expect(shrunk.a).toBeLessThanOrEqual(101);
    expect(shrunk.b).toBe(0);
    for (const tool of ["distance", "greet", "tag"]) expect(toolReport(first.stdout, tool)).toMatch(/^✓ /);
    const seed = /FAILED \(seed (-?\d+)\)/.exec(first.stdout)?.[1];
    expect(seed).toBeDefined();
    expect(first.stdout).toContain(`--runs 100 --seed ${seed} -- `);

    const again = runCli([
      "test",
      "--contract",
      CONTRACT,
      "--runs",
      "100",
      "--seed",
      seed!,
      "--",
      ...server("output-bug"),
    ]);
    expect(again.code).toBe(1);
    expect(toolReport(again.stdout, "add")).toBe(add);
  }, 120_000);

  it("catches a prompt that crashes on one enum value and a template with no contents, shrunk, with the seed", () => {
    const args = ["test", "--contract", CONTRACT, "--runs", "100", "--", ...server("content-bug")];
    const first = runCli(args);
    expect(first.code, first.stdout + first.stderr).toBe(1);
    const review = toolReport(first.stdout, "prompt review");
    expect(review).toMatch(
      /^✗ prompt review: run \d+ of 100 failed \(shrunk \d+ times\); 2 of 2 wrong arguments refused\n {2}sampled arguments\n/,
    );
    // Shrunk to the enum value at fault, the required argument at its simplest and nothing optional.
    expect(review).toContain('    arguments: {"code":"","tone":"strict"}');
    expect(review).toContain(
      '    problem:   JSON-RPC error -32603: Internal error {"message":"no strict reviews today"}',
    );
    const item = toolReport(first.stdout, "resource template item");
    expect(item).toMatch(
      /^✗ resource template item: run \d+ of 100 failed \(shrunk \d+ times\); 2 of 2 wrong URIs/,
    );
    expect(item).toContain('    variables: {"id":501}');
    expect(item).toContain("    uri:       items://501");
    expect(item).toContain("    problem:   the result's contents array is empty");
    for (const ok of [...TOOLS, "resource readme"]) expect(toolReport(first.stdout, ok)).toMatch(/^✓ /);
    const seed = /FAILED \(seed (-?\d+)\)/.exec(first.stdout)?.[1];
    expect(seed).toBeDefined();

    const again = runCli([...args.slice(0, 5), "--seed", seed!, ...args.slice(5)]);
    expect(again.code).toBe(1);
    expect(toolReport(again.stdout, "prompt review")).toBe(review);
    expect(toolReport(again.stdout, "resource template item")).toBe(item);
  }, 120_000);

  it("tests a contract of prompts and resource templates alone", async () => {
    const text = readFileSync(CONTRACT, "utf8");
    const file = join(WORK, "prompts-only.yaml");
    writeFileSync(
      file,
      text.slice(text.indexOf("prompts:")).replace(/^resources:[\s\S]*?(?=^resourceTemplates:)/m, ""),
    );
    const contract = await loadContractText(readFileSync(file, "utf8"), "prompts-only.yaml");
    expect([contract.tools.length, contract.prompts.length, contract.resources.length]).toEqual([0, 1, 0]);
    const r = runCli(["test", "--contract", file, "--runs", "20", "--", ...server("correct")]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain("1 prompt, 1 resource template; 20 runs each");
    expect(r.stdout).not.toContain("tools/list");
    expect(r.stdout).toMatch(/OK: every prompt and resource template holds to .*prompts-only\.yaml/);
  }, 90_000);

  it("catches a server that takes missing and wrong-typed arguments instead of refusing them", () => {
    const r = runCli(["test", "--contract", CONTRACT, "--runs", "20", "--", ...server("lenient")]);
    expect(r.code, r.stdout + r.stderr).toBe(1);
    const greet = toolReport(r.stdout, "greet");
    expect(greet).toMatch(/^✗ greet: 20 runs, 20 passed; 0 of 2 wrong arguments refused/);
    expect(greet).toContain("required argument name, missing: not refused");
    expect(greet).toContain("required argument name, wrong type (true): not refused");
    expect(greet).toContain(
      'problem:   accepted: answered {"content":[{"type":"text","text":"Hello, true!"}]}',
    );
    expect(toolReport(r.stdout, "add")).toContain("required argument a, wrong type (true)");
    const review = toolReport(r.stdout, "prompt review");
    expect(review).toMatch(/^✗ prompt review: 20 runs, 20 passed; 0 of 2 wrong arguments refused/);
    // The mistake is made from the smallest valid sample of the run's seed, which may hold `tone` too.
    const missing = /argument code, missing: not refused as it must be\n {4}arguments: (\{.*\})\n/.exec(
      review,
    );
    expect(missing, review).not.toBeNull();
    expect(JSON.parse(missing![1]!)).not.toHaveProperty("code");
    expect(review).toContain('argument tone, outside its enum ("not-a-valid-value"): not refused');
    const item = toolReport(r.stdout, "resource template item");
    expect(item).toMatch(/^✗ resource template item: 20 runs, 20 passed; 0 of 2 wrong URIs refused/);
    // From the smallest valid sample of the seed: `items://abc`, maybe with a `?format=…` of it.
    const wrongId =
      /variable id, wrong type \("abc"\): not refused as it must be\n {4}uri: {7}(items:\/\/abc(?:\?format=(\w+))?)\n {4}problem: {3}accepted: answered (.*)\n/.exec(
        item,
      );
    expect(wrongId, item).not.toBeNull();
    const [, uri, format] = wrongId!;
    expect(JSON.parse(wrongId![3]!)).toEqual({
      contents: [{ uri, text: `item abc as ${format ?? "text"}` }],
    });
    expect(item).toContain('variable format, outside its enum ("abc"): not refused');
    expect(r.stdout).toMatch(/Reproduce with:\n {2}mcp-codegen test --contract .* --seed -?\d+ -- /);
  }, 90_000);

  it("exits 2 without a contract, with a bad option, or when the server cannot start", () => {
    const empty = join(WORK, "empty");
    mkdirSync(empty, { recursive: true });
    const none = runCli(["test", "--", ...server("correct")], { cwd: empty });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain(
      'no contract: pass --contract <file|dir>, or set "contract" in mcp-codegen.json',
    );

    const runs = runCli(["test", "--contract", CONTRACT, "--runs", "0", "--", ...server("correct")]);
    expect(runs.code).toBe(2);
    expect(runs.stderr).toContain("--runs must be an integer of at least 1");

    const only = runCli(["test", "--contract", CONTRACT, "--only", "tool:ad", "--", ...server("correct")]);
    expect(only.code).toBe(2);
    expect(only.stderr).toContain("--only tool:ad: the contract declares no tool named ad");
    const concurrency = runCli([
      "test",
      "--contract",
      CONTRACT,
      "--concurrency",
      "0",
      "--",
      ...server("correct"),
    ]);
    expect(concurrency.code).toBe(2);
    expect(concurrency.stderr).toContain("--concurrency must be an integer of at least 1");
    const budget = runCli(["test", "--contract", CONTRACT, "--budget", "30s", "--", ...server("correct")]);
    expect(budget.code).toBe(2);
    expect(budget.stderr).toContain('--budget must be an integer of at least 1, not "30s"');
    const hint = join(WORK, "bad-hint.yaml");
    writeFileSync(hint, "tools:\n  get:\n    inputSchema: { type: object }\n    test: { timeoutMs: -1 }\n");
    const badHint = runCli(["test", "--contract", hint, "--", ...server("correct")]);
    expect(badHint.code).toBe(2);
    expect(badHint.stderr).toContain(
      "tools.get.test.timeoutMs: must be a whole number of milliseconds from 1",
    );

    const noCommand = runCli(["test", "--contract", CONTRACT]);
    expect(noCommand.code).toBe(2);
    expect(noCommand.stderr).toContain("no server command");

    const missing = runCli(["test", "--contract", join(WORK, "nope.yaml"), "--", ...server("correct")]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("nope.yaml: not found");

    const impossible = join(WORK, "impossible.yaml");
    writeFileSync(
      impossible,
      "tools:\n  get:\n    inputSchema: { type: object, required: [id], additionalProperties: false }\n",
    );
    const unsatisfiable = runCli(["test", "--contract", impossible, "--", ...server("correct")]);
    expect(unsatisfiable.code).toBe(2);
    expect(unsatisfiable.stderr).toContain("tools.get.inputSchema accepts no value to sample");

    const nothing = join(WORK, "nothing.yaml");
    writeFileSync(nothing, "tools: {}\n");
    const declaresNothing = runCli(["test", "--contract", nothing, "--", ...server("correct")]);
    expect(declaresNothing.code).toBe(2);
    expect(declaresNothing.stderr).toContain("the contract declares no tools, prompts or resources to test");

    const noArguments = join(WORK, "no-arguments.yaml");
    writeFileSync(
      noArguments,
      "resourceTemplates:\n  t:\n    uriTemplate: 'x://{n}'\n    variables: { n: { type: integer, minimum: 2, maximum: 1 } }\n",
    );
    const noVariables = runCli(["test", "--contract", noArguments, "--", ...server("correct")]);
    expect(noVariables.code).toBe(2);
    expect(noVariables.stderr).toContain("resourceTemplates.t.variables accepts no value to sample");

    const dead = runCli(["test", "--contract", CONTRACT, "--", join(WORK, "no-such-server")]);
    expect(dead.code).toBe(2);
    expect(dead.stderr).toContain("error: the server could not be started");
  }, 240_000);

  it("shows a progress line on a terminal, and nothing but the report when piped", () => {
    const args = [
      "test",
      "--contract",
      CONTRACT,
      "--runs",
      "20",
      "--only",
      "tool:add",
      "--",
      ...server("correct"),
    ];
    const { CI: _, ...noCi } = process.env;
    const piped = runCli(args, { env: { CI: "" } });
    expect(piped.code, piped.stdout + piped.stderr).toBe(0);
    expect(piped.stderr).not.toContain("testing ");
    expect(piped.stdout).not.toContain("\x1b[");
    // A real terminal: `script` runs the CLI on a pseudo-terminal (stdout and stderr both on it).
    const command = [
      `${REPO}node_modules/.bin/tsx`,
      "--conditions=mcp-codegen-source",
      `${REPO}generator/cli/index.ts`,
      ...args,
    ]
      .map((a) => `'${a.replaceAll("'", "'\\''")}'`)
      .join(" ");
    const tty = spawnSync("script", ["-qec", command, "/dev/null"], {
      encoding: "utf8",
      env: noCi,
      timeout: 60_000,
    });
    expect(tty.status, tty.stdout).toBe(0);
    expect(tty.stdout).toMatch(/testing 0\/1 done · add \(\d+ calls\) · \d+ s/);
    // Cleared before the report line, which reads as it does when piped.
    expect(tty.stdout).toContain("\r\x1b[K✓ add: 20 runs, 20 passed; 4 of 4 wrong arguments refused\r\n");
  }, 90_000);

  it("--help shows examples", () => {
    const r = runCli(["test", "--help"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("mcp-codegen test --contract contract.yaml -- node dist/server.js");
  }, 60_000);
});

describe("compareTools", () => {
  const declared: JsonObject[] = [
    { name: "a", inputSchema: { type: "object", properties: { x: { type: "number" } } } },
    { name: "b", inputSchema: { type: "object" }, outputSchema: { type: "object" } },
  ];
  it("accepts the same tools with keys in another order", () => {
    expect(
      compareTools(declared, [
        { inputSchema: { properties: { x: { type: "number" } }, type: "object" }, name: "a" },
        { name: "b", outputSchema: { type: "object" }, inputSchema: { type: "object" } },
      ]),
    ).toEqual([]);
  });
  it("names missing, extra and differing tools with the place of each difference", () => {
    expect(
      compareTools(declared, [
        { name: "a", inputSchema: { type: "object", properties: { x: { type: "string" } } } },
        { name: "c", inputSchema: { type: "object" } },
      ]),
    ).toEqual([
      'tool a: inputSchema/properties/x/type: contract "number", server "string"',
      "tool b: declared in the contract, missing from tools/list",
      "tool c: listed by the server, not declared in the contract",
    ]);
  });
});

describe("comparePrompts, compareTemplates, compareResources", () => {
  const yaml = `
prompts:
  review:
    arguments:
      - { name: code, required: true }
      - { name: tone, enum: [a, b] }
resources:
  readme: { uri: "docs://readme", mimeType: text/plain }
resourceTemplates:
  item: { uriTemplate: "items://{id}", mimeType: text/plain }
`;
  it("accepts the same prompts and templates, and a resources/list holding more than the contract", async () => {
    const c = await loadContractText(yaml, "c.yaml");
    expect(
      comparePrompts(c.prompts, [
        { name: "review", arguments: [{ name: "tone" }, { name: "code", required: true }] },
      ]),
    ).toEqual([]);
    expect(
      compareTemplates(c.resourceTemplates, [
        { name: "item", uriTemplate: "items://{id}", mimeType: "text/plain" },
      ]),
    ).toEqual([]);
    expect(
      compareResources(c.resources, [
        { uri: "docs://other", name: "other" },
        { uri: "docs://readme", name: "readme", mimeType: "text/plain", size: 3 },
      ]),
    ).toEqual([]);
  });

  it("names what is missing, extra or different, by item and field", async () => {
    const c = await loadContractText(yaml, "c.yaml");
    expect(
      comparePrompts(c.prompts, [
        { name: "review", arguments: [{ name: "code" }, { name: "style" }] },
        { name: "other" },
        { title: "no name" },
      ]),
    ).toEqual([
      'prompts/list holds an entry without a name: {"title":"no name"}',
      "prompt review: argument code: contract required, server optional",
      "prompt review: argument tone: declared in the contract, missing from prompts/list",
      "prompt review: argument style: listed by the server, not declared in the contract",
      "prompt other: listed by the server, not declared in the contract",
    ]);
    expect(comparePrompts(c.prompts, [])).toEqual([
      "prompt review: declared in the contract, missing from prompts/list",
    ]);
    expect(compareTemplates(c.resourceTemplates, [{ name: "item", uriTemplate: "items://{id}/x" }])).toEqual([
      'resource template item: uriTemplate: contract "items://{id}", server "items://{id}/x"',
      'resource template item: mimeType: contract "text/plain", server absent',
    ]);
    expect(compareTemplates(c.resourceTemplates, [{ name: "x", uriTemplate: "x://" }])).toEqual([
      "resource template item: declared in the contract, missing from resources/templates/list",
      "resource template x: listed by the server, not declared in the contract",
    ]);
    expect(
      compareResources(c.resources, [{ uri: "docs://readme", name: "read-me", mimeType: "text/plain" }]),
    ).toEqual(['resource readme: name: contract "readme", server "read-me"']);
    expect(compareResources(c.resources, [{ name: "x" }])).toEqual([
      'resources/list holds an entry without a uri: {"name":"x"}',
      "resource readme: declared in the contract (docs://readme), missing from resources/list",
    ]);
  });
});
