/**
 * `execution.taskSupport` in a contract: kept in the tool's tools/list entry (where the server reads
 * it: `tables.tools[name].definition.execution.taskSupport`), and named in the generated server module's
 * `TaskTools` / `RequiredTaskTools`.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { emitContractSources } from "../../../generator/contract/emit.js";
import { loadContract } from "../../../generator/contract/load.js";

const dir = mkdtempSync(join(tmpdir(), "mcp-task-support-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it("keeps each tool's taskSupport in its tools/list entry and names task tools in the server's types", async () => {
  const file = join(dir, "contract.yaml");
  writeFileSync(
    file,
    `tools:
  plain: { inputSchema: { type: object } }
  never: { inputSchema: { type: object }, execution: { taskSupport: forbidden } }
  slow_compute:
    execution: { taskSupport: optional }
    inputSchema: { type: object, properties: { seconds: { type: number } } }
  export_all: { inputSchema: { type: object }, execution: { taskSupport: required } }
`,
  );
  const contract = await loadContract(file, "contract.yaml");
  const entries = Object.fromEntries(contract.tools.map((t) => [t.name, t.definition.execution]));
  expect(entries).toEqual({
    plain: undefined,
    never: { taskSupport: "forbidden" },
    slow_compute: { taskSupport: "optional" },
    export_all: { taskSupport: "required" },
  });
  const sources = await emitContractSources(contract, {
    protocolVersion: "2025-11-25",
    protocolErrorVersions: [],
  });
  const server = sources["server.ts"]!.replace(/\s+/g, " ");
  expect(server).toContain('export type TaskTools = "slow_compute" | "export_all";');
  expect(server).toContain('export type RequiredTaskTools = "export_all";');
  const tables = sources["tables.ts"]!.replace(/\s+/g, " ");
  expect(tables).toContain('"name": "slow_compute", "execution": { "taskSupport": "optional" }');

  const none = join(dir, "none.yaml");
  writeFileSync(none, "tools:\n  plain: { inputSchema: { type: object } }\n");
  const plain = await emitContractSources(await loadContract(none, "none.yaml"), {
    protocolVersion: "2025-11-25",
    protocolErrorVersions: [],
  });
  expect(plain["server.ts"]).toContain("export type TaskTools = never;");
  expect(plain["server.ts"]).toContain("export type RequiredTaskTools = never;");
});
