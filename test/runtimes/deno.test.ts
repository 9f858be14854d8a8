/**
 * The fixture server on Deno (installed from npm), as a real process on 127.0.0.1: `Deno.serve` with the
 * web handler, from an esbuild bundle of the fixture, allowed the network on 127.0.0.1 and nothing else;
 * and over stdio with the `/node` entry's StdioServerTransport (Deno's Node compatibility), from a bundle
 * for Node, with no permissions at all.
 */
import { describe } from "vitest";
import { bin, bundle, httpLegs, once, RuntimeProcess, serverFor, stdioLegs } from "./helpers.js";

const DENO = bin("deno");
/** No prompts (a permission the fixture lacks fails it at once), no deno.json, no deno.lock written. */
const RUN = ["run", "--no-prompt", "--no-config", "--no-lock"];

describe("Deno: Deno.serve + createStreamableHttpHandler (sessions)", () => {
  const url = serverFor(
    async () =>
      new RuntimeProcess(DENO, [...RUN, "--allow-net=127.0.0.1", await bundle("deno.ts", "neutral")]),
    async (server) => (await server.waitFor(/listening on (\S+)/))[1]!,
  );
  httpLegs("deno", url, { sessions: true });
});

describe("Deno: stdio (StdioServerTransport under Node compatibility)", () => {
  const entry = once(() => bundle("stdio.ts", "node"));
  stdioLegs("deno", async () => ({ command: DENO, args: [...RUN, await entry()] }));
});
