/**
 * The command line answers --version and --help without loading any command's code, and its help stays
 * complete: every command, and every option each one registers. Real processes; timings are in
 * bench/cli.ts, not here.
 */

import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Command } from "commander";
import { afterAll, describe, expect, it } from "vitest";
import { createProgram } from "../../generator/cli/index.js";
import { REPO, runCli } from "./run.js";
import { heavyIn, ownFilesIn, packageVersion, runCliTraced } from "./run-traced.js";

/** Source files that only a command's own code brings in. */
const COMMAND_CODE =
  /^generator\/(cli\/(generate|generate-versions|regenerate-project|init|diff|pull|test|dev|dev-generate)\.ts|cli\/test\/(?!select\.ts)|emit\/|contract\/|lock\/|sampling\/|output\/|dev\/|project\/(?!project-config\.ts)|protocol\/(model|load)\.ts)/;

const flat = (text: string): string => text.replace(/\s+/g, " ");

/** Every command and subcommand, by the words that invoke it (`["schema", "list"]`). */
function commands(program: Command, path: string[] = []): { path: string[]; command: Command }[] {
  return program.commands.flatMap((c) => [
    { path: [...path, c.name()], command: c },
    ...commands(c, [...path, c.name()]),
  ]);
}

describe("mcp-codegen --version and --help", () => {
  it("--version prints the package's version, loading no command's code", () => {
    const run = runCliTraced(["--version"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(`${packageVersion()}\n`);
    // The trace sees what was loaded: the light registrations are there.
    expect(ownFilesIn(run.modules)).toContain("generator/cli/generate-command.ts");
    expect(heavyIn(run.modules)).toEqual([]);
    expect(ownFilesIn(run.modules).filter((f) => COMMAND_CODE.test(f))).toEqual([]);
  });

  it("--help lists every command and option, loading no command's code", () => {
    const run = runCliTraced(["--help"]);
    expect(run.code).toBe(0);
    expect(heavyIn(run.modules)).toEqual([]);
    expect(ownFilesIn(run.modules).filter((f) => COMMAND_CODE.test(f))).toEqual([]);
    const program = createProgram();
    expect(program.commands.map((c) => c.name())).toEqual([
      "init",
      "generate",
      "diff",
      "schema",
      "pull",
      "test",
      "dev",
    ]);
    for (const c of program.commands) {
      expect(run.stdout).toMatch(new RegExp(`^  ${c.name()} `, "m"));
      expect(flat(run.stdout)).toContain(flat(c.description()));
    }
    for (const o of program.options) expect(run.stdout).toContain(o.flags);
    expect(run.stdout).toContain("-V, --version");
  });

  it("each command's --help lists its every argument and option", () => {
    for (const { path, command } of commands(createProgram())) {
      const run = runCli([...path, "--help"]);
      expect(run.code, path.join(" ")).toBe(0);
      expect(run.stdout, path.join(" ")).toContain(`Usage: mcp-codegen ${path.join(" ")}`);
      expect(flat(run.stdout)).toContain(flat(command.description()));
      for (const o of command.options) expect(run.stdout, `${path.join(" ")} ${o.flags}`).toContain(o.flags);
      for (const a of command.registeredArguments) expect(run.stdout).toContain(a.name());
    }
  });

  it("a command still runs its code: generate --check outside a project reports on generated/", () => {
    const run = runCliTraced(["generate", "-p", "2025-11-25", "-o", "generated", "--check"]);
    expect(run.stderr).toContain("up to date (1 version)");
    expect(run.code).toBe(0);
    expect(heavyIn(run.modules)).toContain("json-schema-to-typescript");
  });
});

describe("the repository's bin in a clone that was never built", () => {
  const root = mkdtempSync(join(tmpdir(), "mcp-codegen-clone-"));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  /** A copy of what a clone holds for the CLI (no dist/), with `node_modules` as given. */
  const clone = (name: string, nodeModules: (dir: string) => void): string => {
    const dir = join(root, name);
    for (const part of ["bin", "generator", "schema", "templates", "package.json"])
      cpSync(join(REPO, part), join(dir, part), {
        recursive: true,
        filter: (src) => !src.includes("/schema/bundled"),
      });
    nodeModules(join(dir, "node_modules"));
    return dir;
  };

  const bin = (dir: string, args: string[]) => {
    const r = spawnSync(process.execPath, [join(dir, "bin/mcp-codegen.js"), ...args], {
      cwd: root,
      encoding: "utf8",
      timeout: 60_000,
    });
    return { code: r.status, stdout: r.stdout, stderr: r.stderr };
  };

  it("runs the TypeScript sources through tsx: --version and --help answer", () => {
    const dir = clone("with-tsx", (nm) => symlinkSync(join(REPO, "node_modules"), nm, "dir"));
    const version = bin(dir, ["--version"]);
    expect(version.stderr).toBe("");
    expect(version.stdout).toBe(`${packageVersion()}\n`);
    expect(version.code).toBe(0);
    const help = bin(dir, ["--help"]);
    expect(help.code).toBe(0);
    for (const c of createProgram().commands) expect(help.stdout).toMatch(new RegExp(`^  ${c.name()} `, "m"));
  });

  it("without dist/ nor tsx, says what to run and exits 1", () => {
    const dir = clone("bare", (nm) => {
      mkdirSync(nm);
      symlinkSync(join(REPO, "node_modules/commander"), join(nm, "commander"), "dir");
    });
    const run = bin(dir, ["--version"]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("dist/ is missing");
    expect(run.stderr).toContain("npm run build");
    expect(run.stderr).not.toContain("ERR_MODULE_NOT_FOUND");
  });
});
