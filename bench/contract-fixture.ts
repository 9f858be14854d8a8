/**
 * The stdio bench's typed tool (bench/fixtures/contract.json) as the generator emits it, into
 * bench/fixtures/contract/ (committed, so that `npm test`'s tsc checks the fixture that uses it).
 * `tsx --conditions=mcp-codegen-source bench/contract-fixture.ts` rewrites the files;
 * test/generator/bench-contract-fixture.test.ts fails when they differ from what generation yields.
 */

import { mkdirSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { emitContract } from "../generator/contract/emit.js";
import { loadContract } from "../generator/contract/load.js";

export const CONTRACT_FILE = fileURLToPath(new URL("./fixtures/contract.json", import.meta.url));
export const CONTRACT_DIR = fileURLToPath(new URL("./fixtures/contract/", import.meta.url));

/** The generated files by name (`server.ts`, `types.ts`, `tables.js`, `validators.js` and their `.d.ts`). */
export async function contractFixtureFiles(): Promise<Record<string, string>> {
  const model = await loadContract(CONTRACT_FILE, "bench/fixtures/contract.json");
  return emitContract(model, {
    protocolVersion: "2025-11-25",
    protocolDir: "../../../generated/2025-11-25",
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  mkdirSync(CONTRACT_DIR, { recursive: true });
  for (const [name, text] of Object.entries(await contractFixtureFiles())) {
    writeFileSync(`${CONTRACT_DIR}${name}`, text);
  }
}
