/** The small decisions `mcp-codegen dev` makes: which edits regenerate, which conditions carry over, how tsc's errors read. */
import { describe, expect, it } from "vitest";
import {
  changeKind,
  conditionsOf,
  corsOrigins,
  inspectorCommand,
  readByContract,
} from "../../generator/cli/dev.js";
import { parseDiagnostics } from "../../generator/dev/typecheck.js";

describe("dev's parts", () => {
  it("regenerates for contract files and mcp-codegen.json, rebuilds for code and tsconfig, ignores the rest", () => {
    expect(changeKind("contract.yaml")).toBe("contract");
    expect(changeKind("contract/tools.yml")).toBe("contract");
    expect(changeKind("schemas/point.json")).toBe("contract");
    expect(changeKind("mcp-codegen.json")).toBe("config");
    expect(changeKind("src/handlers.ts")).toBe("code");
    expect(changeKind("tsconfig.json")).toBe("code");
    expect(changeKind("package.json")).toBe("code");
    expect(changeKind("README.md")).toBeUndefined();
  });

  it("regenerates for what the contract read: its files, and anything in a folder it listed (skills)", () => {
    const read = new Set(["/p/contract.yaml", "/p/skills", "/p/skills/notes", "/p/skills/notes/SKILL.md"]);
    expect(readByContract("/p/skills/notes/SKILL.md", read)).toBe(true);
    expect(readByContract("/p/skills/notes/references/new.md", read)).toBe(true);
    expect(readByContract("/p/skills/other/SKILL.md", read)).toBe(true);
    expect(readByContract("/p/contract.yaml", read)).toBe(true);
    expect(readByContract("/p/README.md", read)).toBe(false);
    expect(readByContract("/p/skills-old/SKILL.md", read)).toBe(false);
    expect(readByContract("/p/src/handlers.ts", new Set())).toBe(false);
  });

  it("carries the resolution conditions dev runs under, in every spelling node accepts", () => {
    expect(
      conditionsOf(["--import", "tsx", "--conditions=a", "-C", "b", "--conditions", "c"], "-C=d --x"),
    ).toEqual(["a", "b", "c", "d"]);
    expect(conditionsOf([])).toEqual([]);
  });

  it("prints tsc's errors as file:line:col message (code), one line each", () => {
    const out = [
      "src/handlers.ts(12,7): error TS2322: Type 'number' is not assignable to type 'string'.",
      "  Some elaboration line.",
      "error TS5083: Cannot read file 'tsconfig.json'.",
    ].join("\n");
    expect(parseDiagnostics(out)).toEqual([
      "src/handlers.ts:12:7 Type 'number' is not assignable to type 'string'. (TS2322)",
      "error TS5083: Cannot read file 'tsconfig.json'.",
    ]);
  });

  it("--allow-inspector adds the Inspector's origins to the server's MCP_CORS_ORIGINS, once", () => {
    expect(corsOrigins(undefined, false)).toBeUndefined();
    expect(corsOrigins("http://app.example", false)).toBe("http://app.example");
    expect(corsOrigins(undefined, true)).toBe("http://localhost:6274,http://127.0.0.1:6274");
    expect(corsOrigins(" http://app.example, http://localhost:6274", true)).toBe(
      "http://app.example,http://localhost:6274,http://127.0.0.1:6274",
    );
  });

  it("builds the Inspector command line for a bundle", () => {
    expect(inspectorCommand(["--enable-source-maps"], "dist/dev/server/main.js")).toEqual([
      "npx",
      "@modelcontextprotocol/inspector",
      "node",
      "--enable-source-maps",
      "dist/dev/server/main.js",
    ]);
  });
});
