import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runCli } from "./run.js";

const dir = mkdtempSync(join(tmpdir(), "mcp-codegen-cli-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const snapshot = (d: string) =>
  readdirSync(d, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => `${join(e.parentPath, e.name)}:${readFileSync(join(e.parentPath, e.name), "utf8").length}`)
    .sort();

describe("mcp-codegen generate", () => {
  it("writes one version's files and is idempotent", () => {
    const out = join(dir, "ok");
    const first = runCli(["generate", "-p", "2025-06-18", "-o", out]);
    expect(first.stderr).toContain("7 files written");
    expect(first.code).toBe(0);
    expect(readdirSync(join(out, "2025-06-18")).sort()).toEqual([
      "client.ts",
      "index.ts",
      "protocol.ts",
      "schemas.ts",
      "server.ts",
      "types.ts",
      "validators.ts",
    ]);
    const again = runCli(["generate", "-p", "2025-06-18", "-o", out]);
    expect(again.code).toBe(0);
    expect(again.stderr).toContain("0 files written");
    expect(runCli(["generate", "-p", "2025-06-18", "-o", out, "--check"]).code).toBe(0);
  });

  it("--check exits 1 and names each stale, missing or unexpected file", () => {
    const out = join(dir, "drift");
    expect(runCli(["generate", "-p", "2024-11-05", "-o", out]).code).toBe(0);
    const v = join(out, "2024-11-05");
    writeFileSync(join(v, "types.ts"), `${readFileSync(join(v, "types.ts"), "utf8")}// edited\n`);
    rmSync(join(v, "schemas.ts"));
    writeFileSync(join(v, "leftover.ts"), "export {};\n");
    const before = snapshot(out);
    const check = runCli(["generate", "-p", "2024-11-05", "-o", out, "--check"]);
    expect(check.code).toBe(1);
    expect(check.stderr).toContain(`differs: ${join(v, "types.ts")}`);
    expect(check.stderr).toContain(`missing: ${join(v, "schemas.ts")}`);
    expect(check.stderr).toContain(`unexpected: ${join(v, "leftover.ts")}`);
    expect(snapshot(out)).toEqual(before);
  });

  it("the committed generated/ is up to date", () => {
    const check = runCli(["generate", "--all", "--check"]);
    expect(check.stderr).toContain("up to date (6 versions, 1 extension)");
    expect(check.code).toBe(0);
  });

  it("--all --check covers the Apps protocol's folder", () => {
    const out = join(dir, "all");
    cpSync(join(import.meta.dirname, "../../generated"), out, { recursive: true });
    const methods = join(out, "ext-apps-2026-01-26", "methods.ts");
    writeFileSync(methods, `${readFileSync(methods, "utf8")}// edited\n`);
    const check = runCli(["generate", "--all", "-o", out, "--check"]);
    expect(check.stderr).toContain(`differs: ${methods}`);
    expect(check.code).toBe(1);
  });

  const bad: { name: string; text: string; pointer: string }[] = [
    { name: "not JSON", text: "{ nope", pointer: "" },
    { name: "not a JSON Schema", text: JSON.stringify({ hello: "world" }), pointer: "/$schema" },
    {
      name: "a dangling $ref",
      text: JSON.stringify({
        $schema: "https://json-schema.org/draft/2020-12/schema",
        $defs: { A: { $ref: "#/$defs/B" } },
      }),
      pointer: "/$defs/A/$ref",
    },
    {
      name: "an unsupported keyword",
      text: JSON.stringify({
        $schema: "http://json-schema.org/draft-07/schema#",
        definitions: { A: { type: "object", dependencies: {} } },
      }),
      pointer: "/definitions/A/dependencies",
    },
  ];
  it.each(bad)(
    "a schema that is $name: exit 2, file and pointer named, nothing written",
    ({ text, pointer }) => {
      const out = join(dir, "bad");
      expect(runCli(["generate", "-p", "2025-11-25", "-o", out]).code).toBe(0);
      const before = snapshot(out);
      const file = join(dir, "bad.json");
      writeFileSync(file, text);
      const result = runCli(["generate", "--schema", file, "-p", "custom-version", "-o", out]);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`error: ${file}#${pointer}: `);
      expect(result.stderr).not.toMatch(/\n\s+at /);
      expect(snapshot(out)).toEqual(before);
    },
  );

  it("an unknown version is a usage error naming the known ones", () => {
    const result = runCli(["generate", "-p", "1999-01-01", "-o", join(dir, "unknown")]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/1999-01-01/);
    expect(result.stderr).toMatch(/2025-11-25/);
  });

  it("an unknown flag is a usage error", () => {
    const result = runCli(["generate", "--frobnicate"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/unknown option '--frobnicate'/);
  });

  it("--help shows examples", () => {
    const result = runCli(["generate", "--help"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("mcp-codegen generate --check");
    expect(result.stdout).toContain("mcp-codegen generate --protocol 2025-11-25");
  });
});
