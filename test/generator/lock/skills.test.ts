/**
 * Skills in a lock (generator/lock/skills.ts): canonical items with their sha256, read back only when
 * untouched, and compared: new skill compatible; removed, frontmatter changed, files added, removed,
 * changed or made "dynamic" breaking, each named. The pull of a real skills server: test/cli/pull-skills.test.ts.
 */
import { describe, expect, it } from "vitest";
import { compareLocks } from "../../../generator/lock/compat.js";
import { buildLock, parseLock, renderLock } from "../../../generator/lock/lock.js";

const D = (c: string) => `sha256:${c.repeat(64)}`;
const skill = (name: string, files: Record<string, string> | "dynamic", description = "d") => ({
  uri: `skill://${name}/SKILL.md`,
  frontmatter: { name, description },
  resources:
    files === "dynamic"
      ? ("dynamic" as const)
      : Object.entries(files).map(([path, c]) => ({ uri: `skill://${name}/${path}`, digest: D(c), size: 1 })),
});
const lists = {
  server: { name: "s", version: "1" },
  protocolVersion: "2026-07-28",
  tools: [],
  prompts: [],
  resources: [],
  resourceTemplates: [],
};
const lockOf = (skills?: ReturnType<typeof skill>[]) =>
  buildLock({ ...lists, ...(skills ? { skills } : {}) }).lock;

describe("skills in a lock", () => {
  it("are sorted by URI, canonical, and left out of the lock's sha256 and of a server without them", () => {
    const a = lockOf([skill("zeta", { "SKILL.md": "a" }), skill("alpha", { "SKILL.md": "b" })]);
    expect(a.skills!.map((s) => s.name)).toEqual(["alpha", "zeta"]);
    expect(a.sha256).toBe(lockOf().sha256);
    expect(lockOf().skills).toBeUndefined();
    expect(renderLock(lockOf())).not.toContain("skills");
    expect(parseLock(renderLock(a), "x.lock.json")).toEqual(a);
  });

  it("refuses a lock whose skill was edited by hand", () => {
    const text = renderLock(lockOf([skill("alpha", { "SKILL.md": "b" })])).replace(
      '"description": "d"',
      '"description": "e"',
    );
    expect(() => parseLock(text, "x.lock.json")).toThrow(/skills\[0\].*sha256 does not match/);
    const notList = JSON.stringify({ ...JSON.parse(renderLock(lockOf())), skills: {} });
    expect(() => parseLock(notList, "x.lock.json")).toThrow(/skills.*must be an array/);
  });

  it("compares: new compatible; removed, frontmatter, files and dynamic breaking", () => {
    const before = lockOf([
      skill("a", { "SKILL.md": "1", "x.md": "2", "y.md": "3" }),
      skill("b", { "SKILL.md": "4" }),
      skill("c", { "SKILL.md": "5" }),
    ]);
    const after = lockOf([
      skill("a", { "SKILL.md": "1", "x.md": "9", "z.md": "3" }, "new"),
      skill("c", "dynamic"),
      skill("d", { "SKILL.md": "6" }),
    ]);
    const c = compareLocks(before, after);
    expect(c.changes.map((x) => `${x.level} ${x.name}: ${x.change}`)).toEqual([
      "breaking skill://a/SKILL.md: file added: skill://a/z.md",
      "breaking skill://a/SKILL.md: file changed (digest): skill://a/x.md",
      "breaking skill://a/SKILL.md: file removed: skill://a/y.md",
      'breaking skill://a/SKILL.md: frontmatter changed: "description"',
      "breaking skill://b/SKILL.md: skill removed",
      'breaking skill://c/SKILL.md: resources now "dynamic"',
      "compatible skill://d/SKILL.md: new skill",
    ]);
    expect([c.breaking, c.compatible]).toEqual([6, 1]);
    // A lock from before skills (or a server that stopped offering them) compares as an empty list.
    expect(compareLocks(lockOf(), after).compatible).toBe(3);
    expect(compareLocks(before, lockOf()).breaking).toBe(3);
  });
});
