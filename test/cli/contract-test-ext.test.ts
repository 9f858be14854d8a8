/**
 * `mcp-codegen test` on the extensions' part of a contract, against real server processes over stdio:
 * test/fixtures/contract-test-ext (tools with `ui:`, a skills folder) copied, generated and served, for
 * 2026-07-28 (skills/* spoken) and 2025-11-25 (skill files as plain resources); a handwritten skills
 * server; the everything-server's skill. A server that serves what the contract says passes; one generated before a skill file or a view
 * changed (no regenerate), or built from another skills table, fails naming the skill or view and the file.
 */
import { appendFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { FIXTURE_DIR, generateCopy } from "../fixtures/contract-test-ext/generate.js";
import { REPO, runCli } from "./run.js";

const WORK = `${REPO}test/.tmp/contract-test-ext`;
rmSync(WORK, { recursive: true, force: true });
afterAll(() => rmSync(WORK, { recursive: true, force: true }));

const TSX = [`${REPO}node_modules/.bin/tsx`, "--conditions=mcp-codegen-source"];
/** The fixture's server for `version`, serving the copy generated in `dir`. */
const server = (version: string, dir: string) => [
  ...TSX,
  join(FIXTURE_DIR, "server.ts"),
  version,
  join(dir, "contract"),
];
const EVERYTHING = `${REPO}examples/everything-server/`;

/** A fresh copy of the fixture generated for `version`. */
async function copy(name: string, version: string): Promise<string> {
  const dir = join(WORK, name);
  await generateCopy(dir, version);
  return dir;
}

/** The lines of one item's report: its summary and the indented details under it. */
function itemReport(stdout: string, label: string): string {
  const lines = stdout.split("\n");
  const start = lines.findIndex((l) => l.startsWith(`✓ ${label}: `) || l.startsWith(`✗ ${label}: `));
  if (start < 0) return "";
  let end = start + 1;
  while (end < lines.length && lines[end]!.startsWith("  ")) end++;
  return lines.slice(start, end).join("\n");
}

const GUIDE = "skill://release-notes/templates/NOTES.md";

describe("mcp-codegen test: skills and views", () => {
  it("passes a generated 2026-07-28 server: skills/list, skills/get, every skill file verified, each tool's view", async () => {
    const dir = await copy("pass-2026", "2026-07-28");
    const r = runCli([
      "test",
      "--runs",
      "5",
      "--contract",
      join(dir, "contract.yaml"),
      "--",
      ...server("2026-07-28", dir),
    ]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain(": 3 tools, 3 views, 1 skill; 5 runs each");
    expect(r.stdout).toContain(
      "✓ skills/list: the contract's 1 skill, same entries (frontmatter, files, digests and sizes)",
    );
    expect(itemReport(r.stdout, "skill release-notes")).toBe(
      "✓ skill release-notes: 2 files verified (size, digest, frontmatter) in 2025-11-25 and 2026-07-28; skills/get answers its entry; 2 folders read with resources/directory/read",
    );
    const html = Buffer.byteLength(readFileSync(join(dir, "ui/counter.html")));
    expect(itemReport(r.stdout, "view show_counter")).toBe(
      `✓ view show_counter: ui://show_counter read (${html} bytes of HTML, csp and permissions as declared); visibility model, app in 2025-11-25 and 2026-07-28`,
    );
    expect(itemReport(r.stdout, "view increment")).toBe(
      `✓ view increment: ui://show_counter read (${html} bytes of HTML, csp and permissions as declared); visibility app (hidden from the model) in 2025-11-25 and 2026-07-28`,
    );
    expect(itemReport(r.stdout, "view audit")).toBe(
      "✓ view audit: no view; visibility model in 2025-11-25 and 2026-07-28",
    );
    expect(r.stdout).toMatch(/OK: every tool, view and skill holds to .*contract\.yaml \(seed -?\d+\)/);
  }, 90_000);

  it("passes a 2025-11-25 server, where skill files are resources: skills/list not sent, and says so", async () => {
    const dir = await copy("pass-2025", "2025-11-25");
    const r = runCli([
      "test",
      "--contract",
      join(dir, "contract.yaml"),
      "--only",
      "skill:*,view:*",
      "--",
      ...server("2025-11-25", dir),
    ]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain(
      "– skills/list: not sent: the server speaks 2025-11-25 and does not declare the skills extension (skills/* needs 2026-07-28); each skill's files are read as resources",
    );
    expect(itemReport(r.stdout, "skill release-notes")).toBe(
      "✓ skill release-notes: 2 files verified (size, digest, frontmatter) in 2025-11-25",
    );
    const html = Buffer.byteLength(readFileSync(join(dir, "ui/counter.html")));
    expect(itemReport(r.stdout, "view increment")).toBe(
      `✓ view increment: ui://show_counter read (${html} bytes of HTML, csp and permissions as declared); visibility app (hidden from the model) in 2025-11-25`,
    );
    for (const view of ["show_counter", "audit"])
      expect(itemReport(r.stdout, `view ${view}`), view).toMatch(/^✓ .* in 2025-11-25$/);
    // --only chose no tool: none was called.
    expect(itemReport(r.stdout, "show_counter")).toBe("");
    expect(r.stdout).toMatch(/OK: every view and skill chosen holds to /);
  }, 90_000);

  it("fails a server generated before a skill file changed, naming the skill and the file, in both eras", async () => {
    const dir = await copy("stale-skill", "2026-07-28");
    const file = join(dir, "skills/release-notes/templates/NOTES.md");
    const before = readFileSync(file).length;
    appendFileSync(file, "\n### Removed\n- …\n");
    const after = readFileSync(file).length;
    const r = runCli([
      "test",
      "--contract",
      join(dir, "contract.yaml"),
      "--only",
      "skill:release-notes",
      "--",
      ...server("2026-07-28", dir),
    ]);
    expect(r.code, r.stdout + r.stderr).toBe(1);
    expect(r.stdout).toMatch(
      new RegExp(
        `✗ skills/list: skill release-notes: ${GUIDE}: digest: contract sha256:[0-9a-f]{64}, server sha256:[0-9a-f]{64}\n`,
      ),
    );
    expect(r.stdout).toContain(
      `✗ skills/list: skill release-notes: ${GUIDE}: size: contract ${after}, server ${before}\n`,
    );
    const report = itemReport(r.stdout, "skill release-notes");
    const read = `skill skill://release-notes/SKILL.md: ${GUIDE}: read ${before} bytes where the entry lists ${after}`;
    expect(report).toContain(
      "✗ skill release-notes: not served as the contract's skills folder holds it (regenerate the server after a skill changes)",
    );
    expect(report).toContain(`    problem:   2025-11-25: ${read}`);
    expect(report).toContain(`    problem:   2026-07-28: ${read}`);
    expect(report).toContain(
      `    problem:   skills/get: ${GUIDE}: size: contract ${after}, server ${before}`,
    );
    expect(report).toContain(
      `    problem:   resources/directory/read skill://release-notes/templates: ${GUIDE}: size: contract ${after}, server ${before}`,
    );
    expect(r.stdout).toMatch(/FAILED \(seed -?\d+\)\. Reproduce with:\n.*--only skill:release-notes -- /);
  }, 90_000);

  it("fails a server generated before a file was added to a skill: missing from the entry, the reads and the folder", async () => {
    const dir = await copy("added-file", "2026-07-28");
    writeFileSync(join(dir, "skills/release-notes/templates/SHORT.md"), "## <version>\n");
    const added = "skill://release-notes/templates/SHORT.md";
    const r = runCli([
      "test",
      "--contract",
      join(dir, "contract.yaml"),
      "--only",
      "skill:*",
      "--",
      ...server("2026-07-28", dir),
    ]);
    expect(r.code, r.stdout + r.stderr).toBe(1);
    expect(r.stdout).toContain(
      `✗ skills/list: skill release-notes: ${added}: in the contract's skill, missing from the server's entry\n`,
    );
    expect(itemReport(r.stdout, "skill release-notes")).toBe(
      [
        "✗ skill release-notes: not served as the contract's skills folder holds it (regenerate the server after a skill changes)",
        `    problem:   2025-11-25: Resource not found: ${added}`,
        `    problem:   skills/get: ${added}: in the contract's skill, missing from the server's entry`,
        `    problem:   2026-07-28: Resource not found: ${added}`,
        `    problem:   resources/directory/read skill://release-notes/templates: ${added}: missing`,
      ].join("\n"),
    );
  }, 90_000);

  it("fails a 2025-11-25 server whose SKILL.md changed after generating (same size): the read is refused on its digest", async () => {
    const dir = await copy("stale-2025", "2025-11-25");
    const md = join(dir, "skills/release-notes/SKILL.md");
    writeFileSync(md, readFileSync(md, "utf8").replace('version: "1.2"', 'version: "1.3"'));
    const r = runCli([
      "test",
      "--contract",
      join(dir, "contract.yaml"),
      "--only",
      "skill:*",
      "--",
      ...server("2025-11-25", dir),
    ]);
    expect(r.code, r.stdout + r.stderr).toBe(1);
    expect(itemReport(r.stdout, "skill release-notes")).toMatch(
      /^✗ skill release-notes: not served .*\n {4}problem: {3}2025-11-25: skill skill:\/\/release-notes\/SKILL\.md: the content's digest sha256:[0-9a-f]{64} is not the entry's sha256:[0-9a-f]{64}$/,
    );
  }, 90_000);

  it("passes the everything-server's skill, and fails it against another table (a server with other skills)", async () => {
    const own = runCli([
      "test",
      "--contract",
      `${EVERYTHING}contract.yaml`,
      "--only",
      "skill:*",
      "--",
      ...TSX,
      `${EVERYTHING}main.ts`,
      "--stdio",
    ]);
    expect(own.code, own.stdout + own.stderr).toBe(0);
    expect(own.stdout).toContain("✓ skills/list: the contract's 1 skill, same entries");
    expect(itemReport(own.stdout, "skill everything-demo")).toBe(
      "✓ skill everything-demo: 2 files verified (size, digest, frontmatter) in 2025-11-25 and 2026-07-28; skills/get answers its entry; 2 folders read with resources/directory/read",
    );

    const dir = await copy("other-table", "2026-07-28");
    const other = runCli([
      "test",
      "--contract",
      join(dir, "contract.yaml"),
      "--only",
      "skill:*",
      "--",
      ...TSX,
      `${EVERYTHING}main.ts`,
      "--stdio",
    ]);
    expect(other.code, other.stdout + other.stderr).toBe(1);
    expect(other.stdout).toContain(
      "✗ skills/list: skill release-notes: declared in the contract (skill://release-notes/SKILL.md), missing\n",
    );
    expect(other.stdout).toContain(
      "✗ skills/list: skill everything-demo: listed (skill://everything-demo/SKILL.md), not in the contract's skills\n",
    );
    const report = itemReport(other.stdout, "skill release-notes");
    expect(report).toContain("    problem:   skill://release-notes/SKILL.md: missing from resources/list");
    expect(report).toContain("    problem:   2025-11-25: Resource not found: skill://release-notes/SKILL.md");
    expect(report).toContain(
      "    problem:   skills/get skill://release-notes/SKILL.md failed: No skill is served at skill://release-notes/SKILL.md",
    );
  }, 90_000);

  it("a handwritten server (skillsTable and the skills option): its own table passes; a tampered entry fails on the frontmatter", () => {
    const args = (tampered: string[]) => [
      "test",
      "--contract",
      join(FIXTURE_DIR, "contract.yaml"),
      "--only",
      "skill:*",
      "--",
      ...TSX,
      join(FIXTURE_DIR, "handwritten-server.ts"),
      ...tampered,
    ];
    const own = runCli(args([]));
    expect(own.code, own.stdout + own.stderr).toBe(0);
    expect(itemReport(own.stdout, "skill release-notes")).toMatch(/^✓ skill release-notes: 2 files verified/);
    const tampered = runCli(args(["--tampered"]));
    expect(tampered.code, tampered.stdout + tampered.stderr).toBe(1);
    const description =
      'contract "Writes release notes from a list of merged changes", server "Writes whatever it likes"';
    expect(tampered.stdout).toContain(
      `✗ skills/list: skill release-notes: frontmatter.description: ${description}\n`,
    );
    expect(itemReport(tampered.stdout, "skill release-notes")).toBe(
      [
        "✗ skill release-notes: not served as the contract's skills folder holds it (regenerate the server after a skill changes)",
        '    problem:   skill://release-notes/SKILL.md: resources/list description: "Writes whatever it likes", not "Writes release notes from a list of merged changes"',
        `    problem:   skills/get: frontmatter.description: ${description}`,
        `    problem:   loading the server's entry: skill skill://release-notes/SKILL.md: SKILL.md's frontmatter differs from the entry's in "description"`,
      ].join("\n"),
    );
  }, 60_000);

  it("tests a contract of skills alone (the everything-server's folder)", () => {
    const dir = join(WORK, "skills-only");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "contract.yaml"), `skills: ${relative(dir, `${EVERYTHING}skills`)}\n`);
    const r = runCli([
      "test",
      "--contract",
      join(dir, "contract.yaml"),
      "--",
      ...TSX,
      `${EVERYTHING}main.ts`,
      "--stdio",
    ]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/contract .*contract\.yaml: 1 skill; /);
    expect(itemReport(r.stdout, "skill everything-demo")).toMatch(
      /^✓ skill everything-demo: 2 files verified/,
    );
    expect(r.stdout).not.toContain("tools/list");
    expect(r.stdout).toMatch(/OK: every skill holds to /);
  }, 60_000);

  it("fails a server generated before the view and a visibility changed, naming the view and the field", async () => {
    const dir = await copy("stale-view", "2026-07-28");
    const view = join(dir, "ui/counter.html");
    writeFileSync(view, readFileSync(view, "utf8").replace("+1", "+2"));
    const contract = join(dir, "contract.yaml");
    writeFileSync(
      contract,
      readFileSync(contract, "utf8")
        .replace("visibility: [app]", "visibility: [model, app]")
        .replace("clipboardWrite: {}", "camera: {}"),
    );
    const r = runCli([
      "test",
      "--contract",
      contract,
      "--only",
      "view:*",
      "--",
      ...server("2026-07-28", dir),
    ]);
    expect(r.code, r.stdout + r.stderr).toBe(1);
    const at = readFileSync(view, "utf8").indexOf("+2") + 1;
    const bytes = Buffer.byteLength(readFileSync(view));
    const html = (era: string) =>
      `    problem:   ${era}: ui://show_counter: the HTML differs from the contract's file from character ${at} on (${bytes} bytes served, ${bytes} in the file): regenerate the server after the view changes`;
    const permissions = (era: string) =>
      `    problem:   ${era}: ui://show_counter: _meta.ui.permissions: contract {"camera":{}}, server {"clipboardWrite":{}}`;
    const ERAS = ["2025-11-25", "2026-07-28"];
    expect(itemReport(r.stdout, "view show_counter")).toBe(
      [
        "✗ view show_counter: not linked or served as the contract's ui: says",
        ...ERAS.flatMap((era) => [html(era), permissions(era)]),
      ].join("\n"),
    );
    expect(itemReport(r.stdout, "view increment")).toBe(
      [
        "✗ view increment: not linked or served as the contract's ui: says",
        ...ERAS.flatMap((era) => [
          `    problem:   ${era}: _meta.ui.visibility: contract ["model","app"], server ["app"]`,
          `    problem:   ${era}: modelTools hides it from the model, though the contract's visibility has model`,
          html(era),
          permissions(era),
        ]),
      ].join("\n"),
    );
    expect(itemReport(r.stdout, "view audit")).toBe(
      "✓ view audit: no view; visibility model in 2025-11-25 and 2026-07-28",
    );
  }, 90_000);

  it("--only names a skill by its path and a view by its tool; one the contract lacks is a usage error", async () => {
    const dir = await copy("usage", "2026-07-28");
    const r = runCli([
      "test",
      "--contract",
      join(dir, "contract.yaml"),
      "--only",
      "skill:nope",
      "--",
      ...server("2026-07-28", dir),
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--only skill:nope: the contract declares no skill named nope");
  }, 60_000);
});
