/**
 * What the README tests share: the command lines of a section's `sh` blocks, split as a shell would for
 * the README's plain lines, and long-running children (servers) with their output collected.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { expect } from "vitest";

/** The command lines of `sh` blocks: continuation lines joined, `# comments` dropped, blanks collapsed. */
export const commandLines = (blocks: readonly string[]): string[] =>
  blocks.flatMap((block) =>
    block
      .replace(/\\\n/g, " ")
      .split("\n")
      .map((line) =>
        line
          .replace(/(^|\s)#.*$/, "")
          .replace(/\s+/g, " ")
          .trim(),
      )
      .filter((line) => line !== ""),
  );

/** `NAME=value … command args`, split on blanks: the README's lines quote nothing. */
export function parse(line: string) {
  expect(line, "a README command the test cannot split on blanks").not.toMatch(/["'`$\\;&|<>()]/);
  const words = line.split(" ");
  const env: Record<string, string> = {};
  while (/^[A-Z_]+=/.test(words[0]!)) {
    const [name, ...value] = words.shift()!.split("=");
    env[name!] = value.join("=");
  }
  return { env, argv: words };
}

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * A long-running child in its own process group (added to `children`, for the caller to end), its
 * output collected; never blocks this process.
 */
export function startChild(
  children: Set<ChildProcess>,
  cmd: string,
  argv: string[],
  cwd: string,
  childEnv: NodeJS.ProcessEnv,
) {
  const child = spawn(cmd, argv, { cwd, env: childEnv, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  children.add(child);
  const run: Run = { code: null, stdout: "", stderr: "" };
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
    run.stdout += chunk;
  });
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => {
    run.stderr += chunk;
  });
  const done = new Promise<Run>((resolve) =>
    child.once("close", (code) => {
      run.code = code;
      resolve(run);
    }),
  );
  /** Resolves with the first match of `pattern` on stderr; rejects when the child ends first. */
  const stderrMatch = (pattern: RegExp) =>
    new Promise<RegExpExecArray>((resolve, reject) => {
      const look = () => {
        const found = pattern.exec(run.stderr);
        if (found) resolve(found);
      };
      child.stderr!.on("data", look);
      look();
      done.then((r) => reject(new Error(`${cmd} ${argv.join(" ")} ended (${r.code}): ${r.stderr}`)));
    });
  return { child, run, done, stderrMatch };
}

/** Ends every child still running, with its process group (npm start → node goes with it). */
export function endChildren(children: Iterable<ChildProcess>): void {
  for (const child of children)
    if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, "SIGTERM");
}

/** The README section `## title` of `readme`, up to the next `## `. */
export function sectionOf(readme: string, title: string): string {
  const start = readme.indexOf(`\n## ${title}\n`);
  expect(start, `README has no "## ${title}"`).toBeGreaterThan(0);
  const rest = readme.slice(start + title.length + 5);
  const end = rest.search(/\n## /);
  return end === -1 ? rest : rest.slice(0, end);
}

/** The fenced blocks of a language in a section, in order. */
export const blocksOf = (section: string, lang: string) =>
  [...section.matchAll(new RegExp(`^\`\`\`${lang}\\n([\\s\\S]*?)^\`\`\`$`, "gm"))].map((b) => b[1]!);
