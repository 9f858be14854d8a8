/**
 * `mcp-codegen test` against real server processes serving test/fixtures/contract-test/contract.yaml:
 * a correct server passes; a server whose `add` breaks its outputSchema past a = 100 is caught, shrunk,
 * and caught again with the printed seed; a server that checks no argument is caught refusing nothing;
 * usage mistakes exit 2.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { compareTools } from "../../generator/contract/compare.js";
import type { JsonObject } from "../../generator/contract/model.js";
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

/** The lines of one tool's report: its summary and the indented details under it. */
function toolReport(stdout: string, tool: string): string {
  const lines = stdout.split("\n");
  const start = lines.findIndex((l) => new RegExp(`^[✓✗] ${tool}: `).test(l));
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
    expect(r.stdout).toMatch(/OK: every tool holds to .*contract\.yaml \(seed -?\d+\)/);
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

    const dead = runCli(["test", "--contract", CONTRACT, "--", join(WORK, "no-such-server")]);
    expect(dead.code).toBe(2);
    expect(dead.stderr).toContain("error: the server could not be started");
  }, 240_000);

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
