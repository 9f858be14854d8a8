/**
 * `mcp-codegen test` on an ordinary server, as a user gets there: `npm pack` this package, `init` a
 * scaffold from the tarballs, install offline, then add what real servers have: a slow tool (2 s a
 * call, progress notifications, stops when cancelled) and a template over data (`task://{id}`, an
 * unknown id answered -32002). The scaffold's own `npm test` (which runs `mcp-codegen test`) passes; the
 * time it took is printed. Then a real bug is planted, the slow tool answering the wrong type for one
 * enum value, and `npm test` fails naming the tool and the input.
 */
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { packedWorkspace } from "./packed.js";

const { work, must, run, pack, initArgs } = packedWorkspace("mcp-codegen-real-server-");
afterAll(() => rmSync(work, { recursive: true, force: true }));

const dir = join(work, "tasks-server");

/** The contract's additions: the slow tool, hinted as slow, and the template over data. */
const SLOW_TOOL = `
  export_report:
    description: Builds a report of every task (slowly), reporting progress
    inputSchema:
      type: object
      properties:
        format: { type: string, enum: [csv, json], default: csv }
      required: [format]
      additionalProperties: false
    outputSchema:
      type: object
      properties:
        rows: { type: integer, minimum: 0 }
        format: { type: string, enum: [csv, json] }
      required: [rows, format]
    test: { timeoutMs: 5000, runs: 5 }
`;
const TASK_TEMPLATE = `
  task:
    uriTemplate: "task://{id}"
    mimeType: application/json
    description: A task by its id
    variables:
      id: { type: string, minLength: 1, examples: [t1, t2] }
`;

/** The handlers the user writes for them; `rows` is what the export answers for `format`. */
const handlers = (rows: string) => ({
  tool: `
    export_report: async ({ format }, ctx) => {
      // Four steps of half a second, each reported; a cancelled call stops at once.
      for (let step = 1; step <= 4; step++) {
        await new Promise<void>((resolve, reject) => {
          const timer = setTimeout(resolve, 500);
          ctx.signal.addEventListener("abort", () => {
            clearTimeout(timer);
            reject(new Error("cancelled"));
          }, { once: true });
        });
        await ctx.progress?.(step, 4, \`step \${step} of 4\`);
      }
      return { rows: ${rows}, format };
    },
`,
  template: `
    task: ({ id }) => {
      const task = TASKS.get(id);
      if (!task) throw new McpError(-32002, \`Resource not found: task://\${id}\`, { uri: \`task://\${id}\` });
      return JSON.stringify(task);
    },
`,
});

/** Adds the tool and the template to the scaffold's contract and handlers, `rows` as the export's answer. */
function addSlowToolAndTemplate(rows: string): void {
  const contractPath = join(dir, "contract.yaml");
  const contract = readFileSync(`${contractPath}.orig`, "utf8")
    .replace(/^tools:\n/m, `tools:${SLOW_TOOL}`)
    .replace(/^resourceTemplates:\n/m, `resourceTemplates:${TASK_TEMPLATE}`);
  expect(contract).toContain("export_report:");
  expect(contract).toContain("task://{id}");
  writeFileSync(contractPath, contract);
  const original = readFileSync(join(dir, "src/handlers.ts.orig"), "utf8");
  const { tool, template } = handlers(rows);
  const edited = `import { McpError } from "@mcp-codegen/runtime";\n${original}`
    .replace(/^ {2}tools: \{\n/m, (m) => `${m}${tool}`)
    .replace(/^ {2}resourceTemplates: \{\n/m, (m) => `${m}${template}`)
    .concat(
      '\nconst TASKS = new Map([\n  ["t1", { id: "t1", title: "Write the report" }],\n  ["t2", { id: "t2", title: "Send it" }],\n]);\n',
    );
  expect(edited).toContain("export_report: async");
  expect(edited).toContain("task: ({ id })");
  writeFileSync(join(dir, "src/handlers.ts"), edited);
  must(`${dir}/node_modules/.bin/mcp-codegen`, ["generate"], dir);
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

beforeAll(() => {
  must("npx", initArgs(pack(), [dir]), work);
  must("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund"], dir);
  // The scaffold as init wrote it: each test adds to these.
  for (const file of ["contract.yaml", "src/handlers.ts"])
    writeFileSync(join(dir, `${file}.orig`), readFileSync(join(dir, file)));
}, 600_000);

describe("mcp-codegen test on a scaffold with a slow tool and a data-backed template", () => {
  it("npm test passes: the slow tool within its own timeout, unknown task ids answered not found", () => {
    addSlowToolAndTemplate("42");
    const started = performance.now();
    const tested = run("npm", ["test"], dir);
    const seconds = (performance.now() - started) / 1000;
    console.info(
      `npm test (build and mcp-codegen test) of the scaffold with a 2 s tool: ${seconds.toFixed(1)} s`,
    );
    const out = tested.stdout + tested.stderr;
    console.info(tested.stdout);
    expect(tested.code, out).toBe(0);
    // The default first (csv), then sampled formats: five calls of 2 s, none timed out.
    expect(itemReport(tested.stdout, "export_report")).toBe(
      "✓ export_report: 5 runs, 5 passed; 2 of 2 wrong arguments refused",
    );
    // t1 and t2 (the examples) are found; sampled ids are not, and say so with -32002.
    const task = itemReport(tested.stdout, "resource template task");
    const notFound = /^✓ resource template task: 100 runs, 100 passed \((\d+) answered not found\)$/.exec(
      task,
    );
    expect(notFound, task).not.toBeNull();
    expect(Number(notFound![1])).toBeLessThanOrEqual(98);
    expect(Number(notFound![1])).toBeGreaterThan(0);
    for (const item of ["add", "greet", "prompt introduce", "resource template greeting", "resource about"])
      expect(itemReport(tested.stdout, item), item).toMatch(/^✓ /);
    expect(tested.stdout).toMatch(
      /OK: every tool, prompt, resource template and resource holds to contract\.yaml/,
    );
  }, 300_000);

  it("npm test fails on a tool answering the wrong type for one enum value, naming the tool and the input", () => {
    // The bug: for csv the row count goes out as text.
    addSlowToolAndTemplate('(format === "csv" ? "42" : 42) as unknown as number');
    const tested = run("npm", ["test"], dir);
    const out = tested.stdout + tested.stderr;
    expect(tested.code, out).toBe(1);
    const report = itemReport(tested.stdout, "export_report");
    expect(report, out).toMatch(/^✗ export_report: run \d+ of 5 failed \(shrunk \d+ times\)/);
    expect(report).toContain('    arguments: {"format":"csv"}');
    // The generated server checks its own output first: it refuses to send it, and says where it fails.
    expect(report).toMatch(
      /problem: {3}JSON-RPC error -32603: Tool "export_report" returned output that does not match its outputSchema: rows: /,
    );
    for (const item of ["add", "greet", "resource template task"])
      expect(itemReport(tested.stdout, item), item).toMatch(/^✓ /);
    expect(tested.stdout).toMatch(/FAILED \(seed -?\d+\)\. Reproduce with:/);
  }, 300_000);

  it("a call past the item's timeout is reported slow and not shrunk; --only tests that item alone", () => {
    addSlowToolAndTemplate("42");
    must("npm", ["run", "-s", "build"], dir);
    const contract = readFileSync(join(dir, "contract.yaml"), "utf8");
    writeFileSync(
      join(dir, "contract-timeout.yaml"),
      contract.replace("test: { timeoutMs: 5000, runs: 5 }", "test: { timeoutMs: 1000, runs: 5 }"),
    );
    const started = performance.now();
    const tested = run(
      `${dir}/node_modules/.bin/mcp-codegen`,
      [
        "test",
        "--contract",
        "contract-timeout.yaml",
        "--only",
        "tool:export_report",
        "--",
        "node",
        "dist/src/main.js",
      ],
      dir,
    );
    console.info(`a 2 s tool under a 1 s timeout: ${((performance.now() - started) / 1000).toFixed(1)} s`);
    expect(tested.code, tested.stdout + tested.stderr).toBe(1);
    expect(tested.stdout).toContain("✓ tools/list: the contract's 1 tool, same schemas");
    expect(itemReport(tested.stdout, "export_report")).toBe(
      [
        "✗ export_report: run 1 of 5 timed out (slow: not shrunk); 2 of 2 wrong arguments refused",
        "  sampled arguments",
        '    arguments: {"format":"csv"}',
        "    problem:   no answer within 1000 ms (slow: give the item more time with test: { timeoutMs } in the contract, or --timeout)",
      ].join("\n"),
    );
    for (const other of ["add", "greet", "prompt introduce", "resource template task"])
      expect(itemReport(tested.stdout, other), other).toBe("");
    expect(tested.stdout).toMatch(/--only tool:export_report -- node dist\/src\/main\.js/);
  }, 300_000);

  it("a URI made from the examples must be found, and a default the schema refuses is the contract's mistake", () => {
    addSlowToolAndTemplate("42");
    must("npm", ["run", "-s", "build"], dir);
    const contract = readFileSync(join(dir, "contract.yaml"), "utf8");
    writeFileSync(
      join(dir, "contract-examples.yaml"),
      contract
        .replace("examples: [t1, t2]", "examples: [t1, t9]")
        .replace("enum: [csv, json], default: csv", "enum: [csv, json], default: xml"),
    );
    const tested = run(
      `${dir}/node_modules/.bin/mcp-codegen`,
      [
        "test",
        "--contract",
        "contract-examples.yaml",
        "--only",
        "template:task,export_report",
        "--",
        "node",
        "dist/src/main.js",
      ],
      dir,
    );
    expect(tested.code, tested.stdout + tested.stderr).toBe(1);
    const task = itemReport(tested.stdout, "resource template task");
    expect(task).toMatch(/^✗ resource template task: run 2 of 100 failed \(shrunk 0 times\)/);
    expect(task).toContain('    variables: {"id":"t9"}');
    expect(task).toContain(
      '    problem:   JSON-RPC error -32002: Resource not found: task://t9 {"uri":"task://t9"}: the URI is made from the contract\'s examples, so it must be found',
    );
    const report = itemReport(tested.stdout, "export_report");
    expect(report).toMatch(/^✗ export_report: 5 runs, 5 passed/);
    expect(report).toContain(
      '  the contract\'s defaults of format: {"format":"xml"} fails the inputSchema at format: ',
    );
  }, 300_000);

  it("--budget stops the slow tool's sampling when its share is spent and still passes; --concurrency 2", () => {
    addSlowToolAndTemplate("42");
    must("npm", ["run", "-s", "build"], dir);
    // No hint: a hundred 2 s calls would take minutes.
    const contract = readFileSync(join(dir, "contract.yaml"), "utf8");
    writeFileSync(
      join(dir, "contract-nohint.yaml"),
      contract.replace("    test: { timeoutMs: 5000, runs: 5 }\n", ""),
    );
    const args = ["--contract", "contract-nohint.yaml", "--budget", "10", "--concurrency", "2"];
    const tested = run(
      `${dir}/node_modules/.bin/mcp-codegen`,
      ["test", ...args, "--only", "export_report,template:task", "--", "node", "dist/src/main.js"],
      dir,
    );
    expect(tested.code, tested.stdout + tested.stderr).toBe(0);
    const cut =
      /^✓ export_report: (\d+) of 100 runs, \1 passed \(budget spent\); (2 of 2 wrong arguments refused|wrong arguments not sent \(budget spent\))$/.exec(
        itemReport(tested.stdout, "export_report"),
      );
    expect(cut, tested.stdout).not.toBeNull();
    expect(Number(cut![1])).toBeGreaterThan(0);
    expect(itemReport(tested.stdout, "resource template task")).toMatch(
      /^✓ resource template task: 100 runs, 100 passed/,
    );
    expect(tested.stdout).toMatch(
      /OK: every tool and resource template chosen holds to contract-nohint\.yaml \(seed -?\d+\) \(budget of 10 s spent: 1 item cut short\)/,
    );
  }, 300_000);
});
