/**
 * The README's "Skills" run as written. The test reads the section, checks its command lines are the
 * ones it runs (so a README edit breaks it until the test follows), and runs them for real, as
 * test/docs/readme-tasks.test.ts does: `npx mcp-codegen init` from the packed packages
 * (test/cli/packed.ts), `npm install` offline, the section's two skill files written where it names them,
 * its `contract.yaml` line added, `generate`, its client as src/skills-client.ts, `npm run build` (which
 * type-checks it), `npm start` on a free port (the README's port 3000 is that one), the client run with
 * tsx against it over HTTP on 127.0.0.1, `pull`, then the section's edit of SKILL.md, `generate`, `build`,
 * the server restarted and `pull --check`, whose report is the one the section prints. The packed
 * `mcp-codegen/skills` the section names for handwritten servers is imported in the project too.
 */
import type { ChildProcess } from "node:child_process";
import { createHash } from "node:crypto";
import { appendFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { packedWorkspace } from "../cli/packed.js";
import { REPO } from "../cli/run.js";
import { freePort } from "../fixtures/auth/protected-server.js";
import { blocksOf, commandLines, endChildren, parse, sectionOf, startChild } from "./readme-run.js";

const README = readFileSync(join(REPO, "README.md"), "utf8");
const README_URL = "http://127.0.0.1:3000/mcp";
const SKILL_MD = "skills/release-notes/SKILL.md";
const STYLE_MD = "skills/release-notes/references/style.md";

/** The section's files: each `markdown` block with the path named (in backquotes) just before it. */
const filesOf = (section: string) =>
  Object.fromEntries(
    [...section.matchAll(/`([^`\s]+)`:\n\n```markdown\n([\s\S]*?)^```$/gm)].map((m) => [m[1]!, m[2]!]),
  );

const sha256 = (data: Buffer) => `sha256:${createHash("sha256").update(data).digest("hex")}`;

const { work, env, must, run, pack, initArgs } = packedWorkspace("mcp-codegen-readme-skills-");
const children = new Set<ChildProcess>();

afterAll(() => {
  endChildren(children);
  rmSync(work, { recursive: true, force: true });
});

describe("README: Skills", () => {
  const section = sectionOf(README, "Skills");
  const commands = commandLines(blocksOf(section, "sh"));
  const files = filesOf(section);
  const [contractBlock, ...others] = blocksOf(section, "yaml");
  const [clientBlock, ...moreTs] = blocksOf(section, "ts");
  const [report, ...moreText] = blocksOf(section, "text");
  const dir = join(work, "guides");

  it("lists the commands this test runs, two skill files, one contract line, one client and the report", () => {
    expect(commands).toEqual([
      "npx mcp-codegen init guides --transport http --protocol 2026-07-28",
      "cd guides",
      "npm install",
      "npx mcp-codegen generate",
      "npm run build",
      "PORT=3000 npm start",
      "npx tsx src/skills-client.ts",
      `npx mcp-codegen pull ${README_URL} --out src/servers`,
      "npx mcp-codegen generate",
      "npm run build",
      "PORT=3000 npm start",
      `npx mcp-codegen pull --check ${README_URL} --out src/servers`,
    ]);
    expect(Object.keys(files)).toEqual([SKILL_MD, STYLE_MD]);
    expect(blocksOf(section, "markdown")).toHaveLength(2);
    expect(files[SKILL_MD]).toMatch(/^---\nname: release-notes\ndescription: .+\n---\n/);
    expect(files[SKILL_MD]).toContain("newest first");
    expect(section).toContain("(`newest first` to `oldest first`, say)");
    expect(contractBlock).toMatch(/^skills: \.\/skills\b/);
    expect(others).toEqual([]);
    expect(clientBlock!.split(README_URL)).toHaveLength(2);
    expect(moreTs).toEqual([]);
    expect(moreText).toEqual([]);
  });

  it("runs them: the skill is compiled, served, listed, loaded and read verified; pull locks it and --check names it changed", async () => {
    const packed = pack();
    let cwd = work;
    let server: ReturnType<typeof startChild> | undefined;
    let url = "";
    let generates = 0;
    let clientOut = "";
    let checked: ReturnType<typeof run> | undefined;
    const atPort = (line: string) => line.replace(README_URL, url);
    for (const line of commands) {
      const { env: assigned, argv } = parse(line);
      const [cmd, ...args] = argv;
      const joined = argv.join(" ");
      if (joined.startsWith("npx mcp-codegen init ")) must("npx", initArgs(packed, args.slice(2)), cwd);
      else if (cmd === "cd") cwd = join(cwd, args[0]!);
      else if (joined === "npm install")
        must("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund"], cwd);
      else if (joined === "npx mcp-codegen generate") {
        if (generates++ === 0) {
          // The section's files and contract line, as it orders, before the first generate.
          for (const [path, text] of Object.entries(files)) {
            mkdirSync(dirname(join(cwd, path)), { recursive: true });
            writeFileSync(join(cwd, path), text);
          }
          appendFileSync(join(cwd, "contract.yaml"), contractBlock!);
          writeFileSync(join(cwd, "src/skills-client.ts"), clientBlock!);
        } else {
          // The section's edit, with the server stopped.
          process.kill(-server!.child.pid!, "SIGTERM");
          await server!.done;
          const skillFile = join(cwd, SKILL_MD);
          writeFileSync(skillFile, readFileSync(skillFile, "utf8").replace("newest first", "oldest first"));
        }
        must("npx", ["mcp-codegen", "generate"], cwd);
        expect(readFileSync(join(cwd, "generated/contract/tables.js"), "utf8")).toContain(
          "skill://release-notes/references/style.md",
        );
      } else if (joined === "npm run build")
        must("npm", ["run", "build"], cwd); // tsc --noEmit first: the client, and the pulled client
      else if (joined === "npm start") {
        expect(assigned).toEqual({ PORT: "3000" });
        const port = await freePort();
        server = startChild(children, "npm", ["start"], cwd, { ...env, PORT: String(port) });
        url = (await server.stderrMatch(/MCP over Streamable HTTP at (\S+)/))[1]!;
        expect(url).toBe(`http://127.0.0.1:${port}/mcp`);
      } else if (joined === "npx tsx src/skills-client.ts") {
        // As written (the build type-checked it), then run at the server's port.
        expect(readFileSync(join(cwd, "src/skills-client.ts"), "utf8")).toBe(clientBlock);
        writeFileSync(join(cwd, "src/skills-client.ts"), atPort(clientBlock!));
        clientOut = must("npx", ["tsx", "src/skills-client.ts"], cwd).stdout;
      } else if (joined.startsWith("npx mcp-codegen pull --check ")) {
        checked = run("npx", atPort(joined).split(" ").slice(1), cwd);
      } else if (joined.startsWith("npx mcp-codegen pull ")) {
        const pulled = must("npx", atPort(joined).split(" ").slice(1), cwd);
        expect(pulled.stderr).toContain("1 skill");
        // A control for the check below: the same server matches the lock.
        const same = run("npx", ["mcp-codegen", "pull", "--check", url, "--out", "src/servers"], cwd);
        expect(same.stdout).toBe("no changes: the server matches the lock\n");
        expect(same.code).toBe(0);
      } else throw new Error(`a README command this test does not know: ${line}`);
    }
    expect(cwd).toBe(dir);
    expect(generates).toBe(2);

    // The client: the entry's name and description, the files it lists, the supporting file verified.
    expect(clientOut).toBe(
      `release-notes: Writes release notes from a list of merged changes\nSKILL.md references/style.md\n${files[STYLE_MD]}\n`,
    );

    // The lock: the entry with each file's digest and size, computed here from the files as first served.
    const lock = JSON.parse(readFileSync(join(dir, "src/servers/guides.lock.json"), "utf8"));
    const first = Buffer.from(files[SKILL_MD]!);
    const style = readFileSync(join(dir, STYLE_MD));
    expect(lock.skills).toEqual([
      {
        name: "release-notes",
        sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
        definition: {
          uri: "skill://release-notes/SKILL.md",
          frontmatter: {
            name: "release-notes",
            description: "Writes release notes from a list of merged changes",
          },
          resources: [
            { uri: "skill://release-notes/SKILL.md", digest: sha256(first), size: first.length },
            { uri: "skill://release-notes/references/style.md", digest: sha256(style), size: style.length },
          ],
        },
      },
    ]);
    expect(JSON.stringify(lock)).not.toContain("Three headings");

    // --check against the restarted server: the report the section prints, exit 1.
    expect(checked, "pull --check was not run").toBeDefined();
    expect(checked!.stdout).toBe(report);
    expect(checked!.code).toBe(1);

    // The export the section names for handwritten servers, from the packed package: the same table.
    writeFileSync(
      join(dir, "src/table.ts"),
      [
        'import { skillsTable } from "mcp-codegen/skills";',
        'import { tables } from "../generated/contract/tables.js";',
        'const table = await skillsTable("./skills");',
        "console.log(JSON.stringify({ table: table.skills, generated: tables.skills?.skills }));",
        "",
      ].join("\n"),
    );
    const { table, generated: inTables } = JSON.parse(must("npx", ["tsx", "src/table.ts"], dir).stdout);
    expect(table).toEqual(inTables);
    expect(table[0].resources[0].digest).toBe(sha256(readFileSync(join(dir, SKILL_MD))));

    expect(server!.run.code).toBeNull(); // still serving
  }, 300_000);
});
