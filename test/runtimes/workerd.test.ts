/**
 * The fixture server as a Cloudflare Workers module worker on workerd (installed from npm), as a real
 * process on 127.0.0.1: the fixture bundled by esbuild for a neutral platform (no Node built-ins, no
 * nodejs_compat flag), served by test/fixtures/runtimes/workerd.capnp, which binds port 0; workerd
 * reports the port it bound on its control descriptor. Stateless, as a Workers deployment must be; the
 * requestState secret comes from the environment, as a Workers secret would.
 */
import { randomBytes } from "node:crypto";
import { describe } from "vitest";
import { bin, bundle, FIXTURES, httpLegs, RuntimeProcess, serverFor } from "./helpers.js";

describe("workerd: module worker + createStreamableHttpHandler (stateless)", () => {
  const url = serverFor(
    async () => {
      await bundle("workerd.ts", "neutral");
      return new RuntimeProcess(bin("workerd"), ["serve", `${FIXTURES}workerd.capnp`, "--control-fd=3"], {
        controlFd: true,
        env: { STATE_SECRET: randomBytes(32).toString("base64") },
      });
    },
    async (server) => {
      const port = (await server.waitFor(/"socket":"http","port":(\d+)/, 30_000, true))[1]!;
      return `http://127.0.0.1:${port}/mcp`;
    },
  );
  httpLegs("workerd", url, { sessions: false });
});
