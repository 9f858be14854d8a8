/**
 * The emitted contract modules type-check, bodies included: users get the validators and tables as
 * JavaScript beside a `.d.ts`, and server.ts with `// @ts-nocheck` (so a large contract costs their
 * `tsc` little), so this test checks the TypeScript they are compiled from and server.ts without that
 * line, proves each `.d.ts` declares exactly what that TypeScript exports, and checks the files users
 * get, for a handshake-era and a stateless-era protocol, with a handlers file using every kind.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";
import { emitContract, emitContractSources, UNCHECKED } from "../../../generator/contract/emit.js";
import { loadContract } from "../../../generator/contract/load.js";
import { typeErrors } from "../../support/typecheck.js";

const REPO = fileURLToPath(new URL("../../../", import.meta.url));
const OUT = `${REPO}test/.tmp/contract-emit/`;

const HANDLERS = `
import type { Contract, Returns } from "./contract/server.js";
import { invalidArguments, notFound, toolError, toolResult } from "./contract/server.js";
export const contract: Contract = {
  tools: {
    add: ({ a, b }) => (a > 1e300 ? toolError("too large") : { sum: a + b }),
    distance: async ({ from, to }): Promise<Returns<"tools", "distance">> => {
      return { distance: Math.hypot(from.x - to.x, from.y - to.y), unit: "m" };
    },
    total: ({ values }) =>
      values.length === 0
        ? toolResult({ isError: true, content: [{ type: "text", text: "empty" }] })
        : { total: values.reduce((s, v) => s + v, 0) },
    echo: ({ text }) => (text === "" ? toolError("nothing to echo") : text),
  },
  prompts: {
    review: ({ code, depth }): Returns<"prompts", "review"> => {
      if (code === "") throw invalidArguments({ code: "is empty" });
      return \`\${depth ?? "quick"}: \${code}\`;
    },
  },
  resources: { about: (): Returns<"resources", "about"> => (Date.now() > 0 ? "about" : undefined) },
  resourceTemplates: {
    item: ({ id, fields }) => (id < 0 ? notFound() : id === 0 ? undefined : { text: JSON.stringify({ id, fields }) }),
  },
};
// @ts-expect-error the output's sum is a number
export const wrong: Contract["tools"]["add"] = () => ({ sum: "1" });
export const wrongAtReturn: Contract["tools"]["add"] = (): Returns<"tools", "add"> => {
  // @ts-expect-error the output's sum is a number: reported here, at the return
  return { sum: "1" };
};
`;

/** The `.d.ts` beside each compiled module declares what its TypeScript exports, no more, no less. */
const AGREE = `
import type * as VD from "../emitted/contract/validators.js";
import type * as TD from "../emitted/contract/tables.js";
import type * as VS from "./contract/validators.js";
import type * as TS from "./contract/tables.js";
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
export const validators: Same<typeof VD, typeof VS> = true;
export const tables: Same<typeof TD, typeof TS> = true;
`;

it("emits contract modules whose bodies type-check, for 2025-11-25 and 2026-07-28", async () => {
  const contract = await loadContract(`${REPO}test/fixtures/contract/contract.yaml`, "contract.yaml");
  rmSync(OUT, { recursive: true, force: true });
  const checked: string[] = [];
  for (const version of ["2025-11-25", "2026-07-28"]) {
    const options = { protocolVersion: version, protocolDir: `../../../../../../generated/${version}` };
    const sources = await emitContractSources(contract, options);
    const emitted = await emitContract(contract, options);
    expect(Object.keys(emitted).sort()).toEqual([
      "server.ts",
      "tables.d.ts",
      "tables.js",
      "types.ts",
      "validators.d.ts",
      "validators.js",
    ]);
    expect(emitted["server.ts"]).toBe(sources["server.ts"]!.replace("\n\n", `\n\n${UNCHECKED}`));
    expect(sources["server.ts"]).not.toContain("@ts-nocheck");
    for (const [kind, files] of [
      ["sources", sources],
      ["emitted", emitted],
    ] as const) {
      const dir = `${OUT}${version}/${kind}/`;
      mkdirSync(`${dir}contract`, { recursive: true });
      for (const [name, text] of Object.entries(files)) writeFileSync(`${dir}contract/${name}`, text);
      writeFileSync(`${dir}handlers.ts`, HANDLERS);
    }
    writeFileSync(`${OUT}${version}/sources/agree.ts`, AGREE);
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
  for (const version of ["2025-11-25", "2026-07-28"]) {
    for (const name of ["server", "validators", "tables", "types"].map((n) => `contract/${n}.ts`))
      expect(listed).toContain(`contract-emit/${version}/sources/${name}`);
    expect(listed).toContain(`contract-emit/${version}/sources/agree.ts`);
    for (const name of ["server.ts", "validators.d.ts", "tables.d.ts", "types.ts"].map(
      (n) => `contract/${n}`,
    ))
      expect(listed).toContain(`contract-emit/${version}/emitted/${name}`);
    for (const kind of ["sources", "emitted"])
      expect(listed).toContain(`contract-emit/${version}/${kind}/handlers.ts`);
    // tsc reads the declarations, never the compiled JavaScript.
    expect(listed).not.toContain(`contract-emit/${version}/emitted/contract/validators.js`);
    expect(listed).not.toContain(`contract-emit/${version}/emitted/contract/tables.js`);
  }
}, 120_000);
