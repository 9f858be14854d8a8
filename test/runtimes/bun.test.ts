/**
 * The fixture server on Bun (installed from npm), as a real process on 127.0.0.1: `Bun.serve` with the
 * web handler, Bun running the TypeScript sources itself (`--conditions=mcp-codegen-source` resolves the
 * runtime package to them); and over stdio with the `/node` entry's StdioServerTransport.
 */
import { describe } from "vitest";
import { bin, FIXTURES, httpLegs, RuntimeProcess, serverFor, stdioLegs } from "./helpers.js";

const BUN = bin("bun");
const SOURCE = "--conditions=mcp-codegen-source";

describe("Bun: Bun.serve + createStreamableHttpHandler (sessions)", () => {
  const url = serverFor(
    async () => new RuntimeProcess(BUN, [SOURCE, `${FIXTURES}bun.ts`]),
    async (server) => (await server.waitFor(/listening on (\S+)/))[1]!,
  );
  httpLegs("bun", url, { sessions: true });
});

describe("Bun: stdio (StdioServerTransport)", () => {
  stdioLegs("bun", async () => ({ command: BUN, args: [SOURCE, `${FIXTURES}stdio.ts`] }));
});
