/**
 * Compiles contract.yaml into contract/ for protocol 2026-07-28 (which serves both eras): what
 * `mcp-codegen generate` does in a project. `npx tsx --conditions=mcp-codegen-source
 * examples/everything-server/generate.ts`; test/conformance/everything-server.test.ts checks the committed
 * files are what it makes, as `generate --check` does for generated/.
 */
import { mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { emitContract } from "../../generator/contract/emit.js";
import { loadContract } from "../../generator/contract/load.js";
import { writeOutput } from "../../generator/output/write.js";

export const CONTRACT_DIR = fileURLToPath(new URL("./contract/", import.meta.url));

/** The contract's generated files, by name. */
export async function contractFiles(): Promise<Record<string, string>> {
  const here = fileURLToPath(new URL(".", import.meta.url));
  const contract = await loadContract(`${here}contract.yaml`, "contract.yaml");
  return emitContract(contract, {
    protocolVersion: "2026-07-28",
    protocolDir: "../../../generated/2026-07-28",
  });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  mkdirSync(CONTRACT_DIR, { recursive: true });
  await writeOutput(CONTRACT_DIR, await contractFiles());
}
