import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { cacheDir } from "../../schema/loader.js";
import {
  defaultVersion,
  getExtension,
  getVersion,
  knownVersionForSha256,
  listExtensions,
  listVersions,
  splitExtensionKey,
} from "../../schema/registry.js";
import { officialBytes } from "./fixtures.js";

const ALL = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28", "draft"];

describe("registry", () => {
  it("lists versions by date with the draft last", () => {
    expect(listVersions()).toEqual(ALL);
  });

  it("returns a copy from listVersions", () => {
    listVersions().pop();
    expect(listVersions()).toEqual(ALL);
  });

  it("defaults to a released version in the registry", () => {
    expect(defaultVersion).toBe("2025-11-25");
    expect(getVersion(defaultVersion)?.status).toBe("released");
  });

  it.each(ALL)("pins %s to the sha256 of the shared official file", async (version) => {
    const bytes = await officialBytes(version);
    const entry = getVersion(version);
    expect(entry?.sha256).toBe(createHash("sha256").update(bytes).digest("hex"));
  });

  const SPEC_COMMIT = "b0f60ba5409db7a6582440a7b473cc0398890f15";

  it.each(ALL)("records the dialect, status and upstream address of %s", async (version) => {
    const doc = JSON.parse((await officialBytes(version)).toString("utf8")) as { $schema: string };
    const entry = getVersion(version)!;
    expect(entry.dialect).toBe(doc.$schema.includes("draft-07") ? "draft-07" : "2020-12");
    expect(entry.status).toBe(version === "draft" ? "draft" : "released");
    // Pinned to the specification commit the sha256s were taken from, so a later upstream edit cannot
    // turn a download into a mismatch.
    expect(entry.url).toBe(
      `https://raw.githubusercontent.com/modelcontextprotocol/modelcontextprotocol/${SPEC_COMMIT}/schema/${version}/schema.json`,
    );
    expect(entry.protocolVersion).toBe(version === "draft" ? "DRAFT-2026-v1" : version);
  });

  it("knows nothing of unlisted versions, including prototype names", () => {
    expect(getVersion("2099-01-01")).toBeUndefined();
    expect(getVersion("constructor")).toBeUndefined();
    expect(getVersion("__proto__")).toBeUndefined();
  });

  it("maps a sha256 back to its version, preferring a release over the draft sharing it", () => {
    const shared = getVersion("draft")!.sha256;
    expect(getVersion("2026-07-28")!.sha256).toBe(shared);
    expect(knownVersionForSha256(shared)).toBe("2026-07-28");
    expect(knownVersionForSha256(getVersion("2024-11-05")!.sha256.toUpperCase())).toBe("2024-11-05");
    expect(knownVersionForSha256("0".repeat(64))).toBeUndefined();
  });

  it("freezes entries so callers cannot change a pin", () => {
    expect(Object.isFrozen(getVersion(defaultVersion))).toBe(true);
    expect(Object.isFrozen(getExtension(listExtensions()[0]!))).toBe(true);
  });

  it("pins the Apps extension schema to the ext-apps package export", () => {
    expect(listExtensions()).toEqual(["io.modelcontextprotocol/ui@2026-01-26"]);
    expect(getExtension("io.modelcontextprotocol/ui@2026-01-26")).toEqual({
      package: "@modelcontextprotocol/ext-apps@2.0.4",
      export: "./schema.json",
      sha256: "3823abdec2ab00069420812520c20f561428e1bf328c8f61189094f5160e33d9",
      dialect: "2020-12",
    });
    expect(getExtension("constructor")).toBeUndefined();
    expect(splitExtensionKey("io.modelcontextprotocol/ui@2026-01-26")).toEqual({
      id: "io.modelcontextprotocol/ui",
      version: "2026-01-26",
    });
  });
});

describe("cacheDir", () => {
  it("prefers MCP_CODEGEN_CACHE_DIR, then XDG_CACHE_HOME, then ~/.cache", () => {
    expect(cacheDir({ MCP_CODEGEN_CACHE_DIR: "/c/own", XDG_CACHE_HOME: "/x" })).toBe("/c/own");
    expect(cacheDir({ XDG_CACHE_HOME: "/x", HOME: "/h" })).toBe("/x/mcp-codegen");
    expect(cacheDir({ HOME: "/h" })).toBe("/h/.cache/mcp-codegen");
  });

  it("ignores empty values and a relative XDG_CACHE_HOME", () => {
    expect(cacheDir({ MCP_CODEGEN_CACHE_DIR: "", XDG_CACHE_HOME: "rel", HOME: "/h" })).toBe(
      "/h/.cache/mcp-codegen",
    );
  });

  it("resolves a relative MCP_CODEGEN_CACHE_DIR against cwd", () => {
    expect(cacheDir({ MCP_CODEGEN_CACHE_DIR: "cache" }, "/work/p")).toBe("/work/p/cache");
  });
});
