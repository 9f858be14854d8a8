/**
 * `generate` in a project, through the real CLI: a contract pattern that can backtrack catastrophically
 * is reported (the tool, the place, the pattern, the fix), and the validators run a pattern only on
 * strings no longer than its maxLength, else mcp-codegen.json's `patternMaxLength` or, for a pattern
 * that backtracks sooner, the length the warning names.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "./run.js";

const work = mkdtempSync(join(tmpdir(), "mcp-codegen-patterns-"));
const dir = join(work, "project");
afterAll(() => rmSync(work, { recursive: true, force: true }));

const contract = (nameSchema: string) => `
tools:
  greet:
    inputSchema:
      type: object
      properties:
        name: ${nameSchema}
        tags:
          type: object
          patternProperties: { "^(x|xx)+$": { type: string } }
      required: [name]
`;

beforeAll(() => {
  const r = runCli(["init", dir, "-q"]);
  expect(r.code, r.stderr).toBe(0);
}, 180_000);

describe("mcp-codegen generate and patterns", () => {
  it("warns about each pattern that can backtrack catastrophically, naming the tool, place and fix", () => {
    writeFileSync(join(dir, "contract.yaml"), contract('{ type: string, pattern: "^(a+)+$" }'));
    const r = runCli(["generate", "-q"], { cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    const warnings = r.stderr.split("\n").filter((l) => l.startsWith("warning: "));
    expect(warnings).toEqual([
      `warning: contract.yaml: tool "greet" inputSchema at /properties/name: pattern "^(a+)+$" can backtrack exponentially (on 'a' + 'a'.repeat(31) + '\\x00', for instance): a string of 4096 characters could block the server; add "maxLength" (at most 19) or rewrite the pattern without a repeated group that can match the same text two ways; until then it is checked only on strings of at most 19 characters`,
      `warning: contract.yaml: tool "greet" inputSchema at /properties/tags/patternProperties: pattern "^(x|xx)+$" can backtrack exponentially (on 'x' + 'xxxx'.repeat(29) + '\\x00', for instance): a string of 4096 characters could block the server; add "maxLength" (at most 19) or rewrite the pattern without a repeated group that can match the same text two ways; until then it is checked only on strings of at most 19 characters`,
    ]);
    // Meanwhile the validators run each of those patterns only on strings within its safe length.
    const validators = readFileSync(join(dir, "generated/contract/validators.js"), "utf8");
    expect(validators).toContain("Expected at most 19 characters (the most a pattern is checked on)");
    expect(validators).toContain(
      "Expected at most 19 characters in a property name (the most a pattern is checked on)",
    );
    expect(validators).not.toContain("4096");
  }, 120_000);

  it("says nothing once maxLength bounds the pattern; patternMaxLength sets the bound without one", () => {
    writeFileSync(
      join(dir, "contract.yaml"),
      contract('{ type: string, pattern: "^(a+)+$", maxLength: 16 }').replace("^(x|xx)+$", "^x+$"),
    );
    const config = JSON.parse(readFileSync(join(dir, "mcp-codegen.json"), "utf8"));
    writeFileSync(join(dir, "mcp-codegen.json"), JSON.stringify({ ...config, patternMaxLength: 300 }));
    const r = runCli(["generate", "-q"], { cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toContain("warning");
    const validators = readFileSync(join(dir, "generated/contract/validators.js"), "utf8");
    // Each pattern is compiled once, at module level; maxLength is checked before it runs; property
    // names get the configured bound.
    const compiled = validators.split("\n").filter((l) => l.includes("new RegExp("));
    expect(compiled.length).toBe(2);
    for (const line of compiled) expect(line).toMatch(/^const pattern\$\S+ = new RegExp\(/);
    expect(validators.indexOf("> 16)")).toBeGreaterThanOrEqual(0);
    expect(validators.indexOf("> 16)")).toBeLessThan(
      validators.indexOf("pattern$GreetInput$properties$name.test"),
    );
    expect(validators).toContain(
      "Expected at most 300 characters in a property name (the most a pattern is checked on)",
    );
  }, 120_000);

  it("refuses a patternMaxLength that is not a positive integer", () => {
    const config = JSON.parse(readFileSync(join(dir, "mcp-codegen.json"), "utf8"));
    writeFileSync(join(dir, "mcp-codegen.json"), JSON.stringify({ ...config, patternMaxLength: "big" }));
    const r = runCli(["generate", "-q"], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('"patternMaxLength" must be a positive integer (characters)');
  }, 120_000);
});
