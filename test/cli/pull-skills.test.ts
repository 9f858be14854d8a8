/**
 * `mcp-codegen pull` of a skills-serving server we did not write (SDK v2's McpServer with the SDK's own
 * Skills extension over stdio, test/fixtures/skills/sdk-skills-server.ts, serving a copy of
 * test/fixtures/skills/folder): the lock records each skill entry (canonical, with its sha256, never a
 * file's content), and `pull --check` reports a skill added (compatible), removed or changed (breaking,
 * naming the skill and the files whose digests changed). And against a raw server
 * (test/fixtures/pull/raw-server.mjs) answering what a careless or hostile one may: a malformed entry is
 * left out with a warning, a missing method records no skills, a result that is not an object fails the pull.
 */
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO, runCli } from "./run.js";

const TMP = join(REPO, "test/.tmp", `pull-skills-${process.pid}`);
const SKILLS = join(TMP, "skills");
const SERVER = [`${REPO}node_modules/.bin/tsx`, `${REPO}test/fixtures/skills/sdk-skills-server.ts`, SKILLS];
const pull = (...args: string[]) =>
  runCli(["pull", "--out", TMP, "--name", "sdk-skills", ...args, "--", ...SERVER]);
const check = () => pull("--check");
const file = (path: string) => join(SKILLS, path);
const original = (path: string) => readFileSync(join(REPO, "test/fixtures/skills/folder", path), "utf8");

beforeAll(() => {
  rmSync(TMP, { recursive: true, force: true });
  mkdirSync(TMP, { recursive: true });
  cpSync(join(REPO, "test/fixtures/skills/folder"), SKILLS, { recursive: true });
});
afterAll(() => rmSync(TMP, { recursive: true, force: true }));

describe("pull of a skills server", () => {
  it("records each skill entry in the lock, and no file's content", () => {
    const run = pull();
    expect(run.stderr).toContain("2 skills");
    expect(run.code).toBe(0);
    const text = readFileSync(join(TMP, "sdk-skills.lock.json"), "utf8");
    const lock = JSON.parse(text);
    expect(lock.skills.map((s: { name: string }) => s.name)).toEqual(["git-basics", "pdf-processing"]);
    const pdf = lock.skills[1];
    expect(pdf.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(pdf.definition).toEqual({
      uri: "skill://pdf-processing/SKILL.md",
      frontmatter: {
        name: "pdf-processing",
        description: "Extract, fill, and assemble PDF documents",
        license: "Apache-2.0",
        metadata: { author: "example", version: "1.0" },
      },
      resources: [
        { uri: "skill://pdf-processing/SKILL.md", digest: expect.stringMatching(/^sha256:/), size: 216 },
        {
          uri: "skill://pdf-processing/references/FORMS.md",
          digest: expect.stringMatching(/^sha256:/),
          size: 35,
        },
      ],
    });
    expect(text).not.toContain("Fill each field in order");
    expect(text).not.toContain("before filling a form");
  }, 60_000);

  it("--check: no changes on the same skills", () => {
    const run = check();
    expect(run.stdout).toBe("no changes: the server matches the lock\n");
    expect(run.code).toBe(0);
  }, 60_000);

  it("--check: a changed supporting file is breaking, naming the skill and the file", () => {
    writeFileSync(file("pdf-processing/references/FORMS.md"), "# Forms\n\nFill the fields in any order.\n");
    const run = check();
    expect(run.stdout).toBe(
      [
        "skill skill://pdf-processing/SKILL.md",
        "  BREAKING   file changed (digest): skill://pdf-processing/references/FORMS.md",
        "1 breaking, 0 compatible",
        "",
      ].join("\n"),
    );
    expect(run.code).toBe(1);
    writeFileSync(file("pdf-processing/references/FORMS.md"), original("pdf-processing/references/FORMS.md"));
  }, 60_000);

  it("--check: a changed frontmatter and a removed skill are breaking; a new skill is compatible", () => {
    writeFileSync(
      file("pdf-processing/SKILL.md"),
      original("pdf-processing/SKILL.md").replace("Extract, fill, and assemble", "Read"),
    );
    rmSync(file("git-basics"), { recursive: true });
    mkdirSync(file("csv-tools"));
    writeFileSync(
      file("csv-tools/SKILL.md"),
      "---\nname: csv-tools\ndescription: Work with CSV files\n---\n\nUse commas.\n",
    );
    const run = pull("--check", "--format", "json");
    expect(run.code).toBe(1);
    const report = JSON.parse(run.stdout) as { matches: boolean; changes: Array<{ kind: string }> };
    expect(report.matches).toBe(false);
    // The SDK also lists each SKILL.md in resources/list: those resources change as well.
    expect(report.changes.filter((c) => c.kind === "skills")).toEqual([
      { level: "compatible", kind: "skills", name: "skill://csv-tools/SKILL.md", change: "new skill" },
      { level: "breaking", kind: "skills", name: "skill://git-basics/SKILL.md", change: "skill removed" },
      {
        level: "breaking",
        kind: "skills",
        name: "skill://pdf-processing/SKILL.md",
        change: "file changed (digest): skill://pdf-processing/SKILL.md",
      },
      {
        level: "breaking",
        kind: "skills",
        name: "skill://pdf-processing/SKILL.md",
        change: 'frontmatter changed: "description"',
      },
    ]);
  }, 60_000);
});

describe("pull of a careless skills server", () => {
  const raw = (name: string, skills: unknown) => {
    const lists = join(TMP, `${name}.lists.json`);
    writeFileSync(lists, JSON.stringify({ serverInfo: { name, version: "1" }, tools: [], skills }));
    return runCli(
      ["pull", "--out", TMP, "--name", name, "--", "node", `${REPO}test/fixtures/pull/raw-server.mjs`],
      {
        env: { PULL_LISTS: lists },
      },
    );
  };
  const lock = (name: string) => JSON.parse(readFileSync(join(TMP, `${name}.lock.json`), "utf8"));
  const good = {
    uri: "skill://ok/SKILL.md",
    frontmatter: { name: "ok", description: "d" },
    resources: [{ uri: "skill://ok/SKILL.md", digest: `sha256:${"a".repeat(64)}`, size: 3 }],
  };

  it("leaves out a malformed entry with a warning naming it, and keeps the rest", () => {
    const bad = {
      ...good,
      uri: "skill://bad/SKILL.md",
      frontmatter: { name: "bad", description: "d" },
      resources: [{ uri: "skill://bad/SKILL.md", digest: "md5:1", size: 3 }],
    };
    const run = raw("careless", { skills: [bad, good] });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain(
      "warning: skills/list: left out skill skill://bad/SKILL.md: resources[0] (skill://bad/SKILL.md): digest is not sha256:",
    );
    expect(lock("careless").skills.map((s: { name: string }) => s.name)).toEqual(["ok"]);
  }, 60_000);

  it("records no skills when the declared extension's skills/list is not found", () => {
    const run = raw("missing", null);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain(
      "warning: the server declares io.modelcontextprotocol/skills but answers skills/list: Method not found",
    );
    expect(lock("missing").skills).toBeUndefined();
  }, 60_000);

  it("fails with a clear message on a skills/list result without a skills array", () => {
    const run = raw("noarray", { skills: "all" });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("while skills/list: skills/list: the result has no skills array");
    expect(run.stderr).not.toMatch(/\n\s+at /);
  }, 60_000);
});
