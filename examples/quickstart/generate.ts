/**
 * Compiles examples/quickstart/contract.yaml into examples/quickstart/generated/ (git-ignored), against
 * the repository's generated/2025-11-25/: what `mcp-codegen generate` does in a project.
 */
import { mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { emitContract } from "../../generator/contract/emit.js";
import { loadContract } from "../../generator/contract/load.js";
import { writeOutput } from "../../generator/output/write.js";

const here = fileURLToPath(new URL(".", import.meta.url));
const contract = await loadContract(`${here}contract.yaml`, "contract.yaml");
const files = await emitContract(contract, {
  protocolVersion: "2025-11-25",
  protocolDir: "../../../../generated/2025-11-25",
});
mkdirSync(`${here}generated/contract`, { recursive: true });
await writeOutput(`${here}generated/contract`, files);
