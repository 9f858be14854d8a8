/**
 * `generate` in a project, run twice with nothing changed, answers from its stamp: nothing rewritten
 * (bytes and mtimes), the generator not even loaded. Anything that would change the output is noticed:
 * the contract, a file it references, the handlers file, a generated file edited, deleted or left over.
 * Real processes on a project `init` made; timings are in bench/cli.ts, not here.
 */

import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateProject } from "../../generator/cli/generate.js";
import { GENERATED_MARK, STAMP_FILE } from "../../generator/output/stamp.js";
import { runCli } from "./run.js";
import { heavyIn, ownFilesIn, runCliTraced } from "./run-traced.js";

const root = mkdtempSync(join(tmpdir(), "mcp-codegen-stamp-"));
const project = join(root, "proj");
const at = (path: string) => join(project, path);
const read = (path: string) => readFileSync(at(path), "utf8");
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Every file of the project: its bytes and mtime. */
const snapshot = () =>
  Object.fromEntries(
    readdirSync(project, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => {
        const path = join(e.parentPath, e.name);
        return [path, { mtimeMs: statSync(path).mtimeMs, text: readFileSync(path, "utf8") }];
      }),
  );

/** `generate` in the project, traced; the run must succeed. */
const generate = (...args: string[]) => {
  const run = runCliTraced(["generate", ...args], { cwd: project });
  expect(run.stderr).not.toContain("error");
  expect(run.code, run.stderr).toBe(0);
  return run;
};

const expectUpToDate = () => {
  const before = snapshot();
  const run = generate();
  expect(run.stderr).toContain("nothing to change");
  expect(snapshot()).toEqual(before);
  expect(heavyIn(run.modules)).toEqual([]);
  expect(ownFilesIn(run.modules)).not.toContain("generator/cli/regenerate-project.ts");
  return run;
};

beforeAll(() => {
  const init = runCli(["-q", "init", "proj"], { cwd: root });
  expect(init.code, init.stderr).toBe(0);
  // The contract's first tool takes its input from another file, which is an input too.
  writeFileSync(
    at("shapes.yaml"),
    "$defs:\n  Point:\n    type: object\n    properties:\n      x: { type: number }\n    required: [x]\n",
  );
  writeFileSync(
    at("contract.yaml"),
    read("contract.yaml").replace(
      "tools:\n",
      "tools:\n  locate:\n    description: Finds a point\n    inputSchema: { type: object, properties: { at: { $ref: ./shapes.yaml#/$defs/Point } }, required: [at] }\n",
    ),
  );
  // The first run generates in full and leaves the stamp.
  const first = generate();
  expect(first.stderr).toContain("stubs added for tools.locate");
  expect(heavyIn(first.modules)).toContain("ts-morph");
  expect(existsSync(at(`generated/${STAMP_FILE}`))).toBe(true);
}, 180_000);

describe("generate with a stamp", () => {
  it("unchanged: rewrites nothing and loads none of the generator", () => {
    expectUpToDate();
  });

  it("a changed contract is regenerated (stub added), then the run after is answered by the stamp", () => {
    writeFileSync(
      at("contract.yaml"),
      read("contract.yaml").replace(
        "tools:\n",
        "tools:\n  multiply:\n    description: Multiplies\n    inputSchema: { type: object, properties: { a: { type: number } }, required: [a] }\n",
      ),
    );
    const run = generate();
    expect(run.stderr).toContain("stubs added for tools.multiply");
    expect(read("generated/contract/types.ts")).toContain("MultiplyInput");
    expect(read("src/handlers.ts")).toContain("multiply");
    expectUpToDate();
  });

  it("a file the contract references by $ref is an input: editing it regenerates", () => {
    writeFileSync(
      at("shapes.yaml"),
      read("shapes.yaml").replace(
        "x: { type: number }",
        "x: { type: number }\n      label: { type: string }",
      ),
    );
    generate();
    expect(read("generated/contract/types.ts")).toMatch(/label\?: string/);
    expectUpToDate();
  });

  it("a view a tool's ui: names is an input: served from the tables, and editing it regenerates", () => {
    mkdirSync(at("ui"), { recursive: true });
    writeFileSync(at("ui/view.html"), '<!doctype html><html lang="en"><body>view one</body></html>\n');
    writeFileSync(
      at("contract.yaml"),
      read("contract.yaml").replace(
        "tools:\n",
        "tools:\n  viewer:\n    description: Shows a view\n    inputSchema: { type: object }\n    ui: ./ui/view.html\n",
      ),
    );
    const run = generate();
    expect(run.stderr).toContain("stubs added for tools.viewer");
    expect(read("generated/contract/tables.js")).toContain("view one");
    expect(read("generated/contract/app.ts")).toContain('"ui://viewer": "viewer"');
    expectUpToDate();
    writeFileSync(at("ui/view.html"), '<!doctype html><html lang="en"><body>view two</body></html>\n');
    generate();
    expect(read("generated/contract/tables.js")).toContain("view two");
    expectUpToDate();
  });

  it("a generated file edited or deleted by hand is rewritten, one left over from an older run removed", () => {
    const tables = read("generated/contract/tables.js");
    const index = read("generated/index.ts");
    writeFileSync(at("generated/contract/tables.js"), `${tables}// mine\n`);
    rmSync(at("generated/index.ts"));
    writeFileSync(at("generated/old.ts"), `${GENERATED_MARK} 0.0.1. DO NOT EDIT.\nexport {};\n`);
    writeFileSync(at("generated/notes.ts"), "// the user's own file beside the generated ones\n");
    const run = generate();
    expect(run.stderr).toContain("generated/: 3 files written");
    expect(read("generated/contract/tables.js")).toBe(tables);
    expect(read("generated/index.ts")).toBe(index);
    expect(existsSync(at("generated/old.ts"))).toBe(false);
    expect(read("generated/notes.ts")).toContain("the user's own file");
    expectUpToDate();
  });

  it("a handler removed from the handlers file gets its stub back", () => {
    const line = '    about: () => "proj: an MCP server generated by mcp-codegen.",\n';
    expect(read("src/handlers.ts")).toContain(line);
    writeFileSync(at("src/handlers.ts"), read("src/handlers.ts").replace(line, ""));
    const run = generate();
    expect(run.stderr).toContain("stubs added for resources.about");
    expect(read("src/handlers.ts")).toMatch(/about:/);
    expectUpToDate();
  });

  it("a handlers file that does not parse is refused naming the place, stamp or not; nothing is written", () => {
    const handlers = read("src/handlers.ts");
    writeFileSync(at("src/handlers.ts"), `${handlers}export const broken = {;\n`);
    const before = snapshot();
    const run = runCliTraced(["generate"], { cwd: project });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/src\/handlers\.ts:\d+:\d+: does not parse/);
    expect(snapshot()).toEqual(before);
    writeFileSync(at("src/handlers.ts"), handlers);
    expectUpToDate();
  });

  it("--check compares in full whatever the stamp says, and writes nothing", () => {
    const types = read("generated/types.ts");
    writeFileSync(at("generated/types.ts"), `${types}// edited\n`);
    const before = snapshot();
    const check = runCliTraced(["generate", "--check"], { cwd: project });
    expect(check.code).toBe(1);
    expect(check.stderr).toContain(`differs: ${at("generated/types.ts")}`);
    expect(snapshot()).toEqual(before);
    writeFileSync(at("generated/types.ts"), types);
    expectUpToDate();
  });

  it("a stamp made for another generator or schema is not taken for this one", () => {
    const stamp = JSON.parse(read(`generated/${STAMP_FILE}`)) as { key: string };
    writeFileSync(at(`generated/${STAMP_FILE}`), JSON.stringify({ ...stamp, key: "0".repeat(64) }));
    const run = generate();
    expect(heavyIn(run.modules)).toContain("json-schema-to-typescript");
    expect(run.stderr).toContain("nothing to change");
    expectUpToDate();
  });

  it("generateProject (what `dev` calls) says what it changed, and when nothing did", async () => {
    writeFileSync(
      at("contract.yaml"),
      read("contract.yaml").replace("description: Multiplies", "description: Times"),
    );
    const changed = await generateProject(project);
    expect(changed.upToDate).toBe(false);
    expect(changed.changed).toContain(at("generated/contract/tables.js"));
    expect(await generateProject(project)).toEqual({ upToDate: true, changed: [] });
  });

  it("a contract folder: a file added to it is an input", () => {
    mkdirSync(at("contract"));
    renameSync(at("contract.yaml"), at("contract/main.yaml"));
    renameSync(at("shapes.yaml"), at("shapes.yaml.bak"));
    writeFileSync(
      at("contract/main.yaml"),
      read("contract/main.yaml")
        .replaceAll("./shapes.yaml", "../shapes.yaml.bak")
        .replaceAll("./ui/view.html", "../ui/view.html"),
    );
    writeFileSync(at("mcp-codegen.json"), read("mcp-codegen.json").replace('"contract.yaml"', '"contract"'));
    generate();
    expectUpToDate();
    writeFileSync(
      at("contract/more.yaml"),
      "tools:\n  divide:\n    inputSchema: { type: object, properties: { a: { type: number } } }\n",
    );
    const run = generate();
    expect(run.stderr).toContain("stubs added for tools.divide");
    expectUpToDate();
  });

  it("a skills folder: a skill file edited, a file or a skill added, each regenerates", () => {
    const skill = (name: string, description: string) =>
      `---\nname: ${name}\ndescription: ${description}\n---\nBody\n`;
    mkdirSync(at("contract/skills/alpha"), { recursive: true });
    writeFileSync(at("contract/skills/alpha/SKILL.md"), skill("alpha", "first"));
    writeFileSync(at("contract/skills.yaml"), "skills: ./skills\n");
    generate();
    expect(read("generated/contract/tables.js")).toContain('"skill://alpha/SKILL.md"');
    expectUpToDate();
    writeFileSync(at("contract/skills/alpha/SKILL.md"), skill("alpha", "edited"));
    generate();
    expect(read("generated/contract/tables.js")).toContain("description: edited");
    expectUpToDate();
    mkdirSync(at("contract/skills/alpha/refs"));
    writeFileSync(at("contract/skills/alpha/refs/more.md"), "more");
    generate();
    expect(read("generated/contract/tables.js")).toContain('"skill://alpha/refs/more.md"');
    expectUpToDate();
    mkdirSync(at("contract/skills/beta"));
    writeFileSync(at("contract/skills/beta/SKILL.md"), skill("beta", "second"));
    generate();
    expect(read("generated/contract/tables.js")).toContain('"skill://beta/SKILL.md"');
    expectUpToDate();
  });
});
