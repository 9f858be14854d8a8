/**
 * A contract's `app.ts` (the view side's binding) type-checks with the contract's types: tool input as a
 * union by tool name, checked outputs typed, `callTool` typed by name and refused for a tool the view
 * may not call, an unknown view refused.
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";
import { emitContract } from "../../../generator/contract/emit.js";
import { loadContract } from "../../../generator/contract/load.js";
import { typeErrors } from "../../support/typecheck.js";

const REPO = fileURLToPath(new URL("../../../", import.meta.url));
const OUT = `${REPO}test/.tmp/contract-app/`;

const VIEW = `
import { connectApp } from "./contract/app.js";
const options = { appInfo: { name: "view", version: "1.0.0" } };
export const app = await connectApp("ui://show_counter", options, {
  toolInput: (input) => {
    if (input.tool === "show_counter") {
      const start: number | undefined = input.arguments.start;
      void start;
    } else {
      const by: number = input.arguments.by;
      void by;
    }
  },
  toolResult: (output) => {
    const value: number | undefined = output.structuredContent?.value;
    void value;
  },
});
const more = await app.callTool("increment", { by: 1 });
export const value: number | undefined = more.structuredContent?.value;
export const tool: "show_counter" | "increment" | undefined = app.tool;
// @ts-expect-error summary's visibility is [model]: a view may not call it
await app.callTool("summary", {});
// @ts-expect-error by is an integer
await app.callTool("increment", { by: "1" });
// @ts-expect-error report's view serves report and summary alone
export const wrong: "show_counter" | undefined = (await connectApp("ui://acme/report", options)).tool;
// @ts-expect-error no such view
await connectApp("ui://nothing", options);
`;

it("emits an app.ts whose types follow the contract, for 2025-11-25 and 2026-07-28", async () => {
  const contract = await loadContract(`${REPO}test/fixtures/apps/contract.yaml`, "contract.yaml");
  rmSync(OUT, { recursive: true, force: true });
  for (const version of ["2025-11-25", "2026-07-28"]) {
    const files = await emitContract(contract, {
      protocolVersion: version,
      protocolDir: `../../../../../generated/${version}`,
    });
    expect(Object.keys(files)).toContain("app.ts");
    mkdirSync(`${OUT}${version}/contract`, { recursive: true });
    for (const [name, text] of Object.entries(files))
      writeFileSync(`${OUT}${version}/contract/${name}`, text);
    writeFileSync(`${OUT}${version}/view.ts`, VIEW);
  }
  const include = [
    "2025-11-25/**/*.ts",
    "2026-07-28/**/*.ts",
    "../../../generated/2025-11-25/*.ts",
    "../../../generated/2026-07-28/**/*.ts",
  ];
  expect(typeErrors(OUT, include)).toEqual([]);
});

it("emits no app.ts for a contract without views", async () => {
  const contract = await loadContract(`${REPO}test/fixtures/contract/contract.yaml`, "contract.yaml");
  const files = await emitContract(contract, { protocolVersion: "2025-11-25" });
  expect(Object.keys(files)).not.toContain("app.ts");
});
