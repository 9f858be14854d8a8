/**
 * The emitted contract modules type-check, bodies included: users' builds skip checking the validators'
 * and tables' bodies (`@ts-nocheck`, for the cost of large contracts), so this test checks them without
 * that line, for a handshake-era and a stateless-era protocol, with a handlers file using every kind.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";
import { emitContract, UNCHECKED } from "../../../generator/contract/emit.js";
import { loadContract } from "../../../generator/contract/load.js";
import { typeErrors } from "../../support/typecheck.js";

const REPO = fileURLToPath(new URL("../../../", import.meta.url));
const OUT = `${REPO}test/.tmp/contract-emit/`;

const HANDLERS = `
import type { Contract } from "./contract/server.js";
import { toolResult } from "./contract/server.js";
export const contract: Contract = {
  tools: {
    add: ({ a, b }) => ({ sum: a + b }),
    distance: ({ from, to }) => ({ distance: Math.hypot(from.x - to.x, from.y - to.y), unit: "m" }),
    total: ({ values }) =>
      values.length === 0
        ? toolResult({ isError: true, content: [{ type: "text", text: "empty" }] })
        : { total: values.reduce((s, v) => s + v, 0) },
    echo: ({ text }) => text,
  },
  prompts: { review: ({ code, depth }) => \`\${depth ?? "quick"}: \${code}\` },
  resources: { about: () => "about" },
  resourceTemplates: { item: ({ id, fields }) => ({ text: JSON.stringify({ id, fields }) }) },
};
// @ts-expect-error the output's sum is a number
export const wrong: Contract["tools"]["add"] = () => ({ sum: "1" });
`;

it("emits contract modules whose bodies type-check, for 2025-11-25 and 2026-07-28", async () => {
  const contract = await loadContract(`${REPO}test/fixtures/contract/contract.yaml`, "contract.yaml");
  rmSync(OUT, { recursive: true, force: true });
  const checked: string[] = [];
  for (const version of ["2025-11-25", "2026-07-28"]) {
    const dir = `${OUT}${version}/`;
    mkdirSync(`${dir}contract`, { recursive: true });
    const files = await emitContract(contract, {
      protocolVersion: version,
      protocolDir: `../../../../../generated/${version}`,
    });
    expect(files["validators.ts"]).toContain(UNCHECKED);
    for (const [name, text] of Object.entries(files))
      writeFileSync(`${dir}contract/${name}`, text.replace(UNCHECKED, ""));
    writeFileSync(`${dir}handlers.ts`, HANDLERS);
    checked.push(`${version}/**/*.ts`);
  }
  const include = [...checked, "../../../generated/2025-11-25/*.ts", "../../../generated/2026-07-28/**/*.ts"];
  expect(typeErrors(OUT, include)).toEqual([]);
  const listed = execFileSync(
    `${REPO}node_modules/.bin/tsc`,
    ["-p", `${OUT}tsconfig.json`, "--listFilesOnly"],
    {
      encoding: "utf8",
    },
  );
  for (const version of ["2025-11-25", "2026-07-28"])
    for (const name of ["contract/server.ts", "contract/validators.ts", "contract/types.ts", "handlers.ts"])
      expect(listed).toContain(`contract-emit/${version}/${name}`);
}, 120_000);
