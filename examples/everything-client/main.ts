/**
 * The everything-client: the MCP conformance suite's client contract, built on the generated 2025-11-25
 * client, and on the generated 2026-07-28 one (stateless.ts) when the suite runs at 2026-07-28 or the scenario
 * exists only there. `conformance client --command "<this>" --scenario <name>` runs
 *
 *   <command> <server url>
 *
 * with the scenario in MCP_CONFORMANCE_SCENARIO (also MCP_CONFORMANCE_PROTOCOL_VERSION, and
 * MCP_CONFORMANCE_CONTEXT as JSON when the scenario has data for the client), and judges the client by
 * what its mock server saw and by the exit code. A server command instead of a URL connects over stdio:
 *
 *   MCP_CONFORMANCE_SCENARIO=tools_call tsx --conditions=mcp-codegen-source examples/everything-client/main.ts \
 *     tsx --conditions=mcp-codegen-source examples/everything-server/main.ts --stdio
 */

import type { Transport } from "@mcp-codegen/runtime";
import type { Authorizer } from "@mcp-codegen/runtime/http-client";
import { StdioClientTransport } from "@mcp-codegen/runtime/node";
import { createClient, type McpClient } from "../../generated/2025-11-25/index.js";
import { authorizerFor } from "./auth.js";
import { argumentsFor, callTool, echoFocalSchema, handlers, listTools, log } from "./handlers.js";
import { createStatelessClient, STATELESS_SCENARIOS } from "./stateless.js";

/** Below the suite's 30 s per-scenario limit, so a stuck run ends here with a message rather than a kill. */
const DEADLINE_MS = Number(process.env.EVERYTHING_CLIENT_TIMEOUT_MS ?? 25_000);

/** Bad arguments or environment: exit code 2. */
class UsageError extends Error {}

type Scenario = (client: McpClient) => Promise<void>;

const SCENARIOS: Record<string, Scenario> = {
  // The handshake is the test: connect() sent initialize and notifications/initialized.
  initialize: async (client) => {
    await listTools(client);
  },
  tools_call: async (client) => {
    const [tool] = await listTools(client);
    if (!tool) throw new Error("the server lists no tool to call");
    await callTool(client, tool.name, argumentsFor(tool));
  },
  // The mock server elicits a form whose fields are all optional with defaults; elicit() above answers.
  "elicitation-sep1034-client-defaults": async (client) => {
    await callTool(client, "test_client_elicitation_defaults");
  },
  // The mock server ends the tools/call SSE stream after a priming event carrying `retry`; the transport
  // must wait that long, reconnect with GET and Last-Event-ID, and deliver the answer sent there.
  "sse-retry": async (client) => {
    await listTools(client);
    await callTool(client, "test_reconnection");
  },
  "json-schema-2020-12-preservation": echoFocalSchema,
};

/** The 2026-07-28 client takes any HTTP server (connectHttp); the 2025 one Streamable HTTP, as the suite's. */
async function transportFor(
  target: string[],
  stateless: boolean,
  authorize?: (url: string) => Authorizer,
): Promise<Transport> {
  const [first, ...rest] = target;
  if (!first) throw new UsageError("a server URL or a server command is required");
  if (/^https?:\/\//i.test(first)) {
    if (rest.length > 0) throw new UsageError(`unexpected arguments after the URL: ${rest.join(" ")}`);
    const options = authorize ? { authorizer: authorize(first) } : {};
    // Loaded only for URLs, so stdio works without the HTTP client.
    if (stateless) return (await import("@mcp-codegen/runtime/http-client")).connectHttp(first, options);
    const { StreamableHttpClientTransport } = await import("@mcp-codegen/runtime/http-client");
    return new StreamableHttpClientTransport(first, options);
  }
  return new StdioClientTransport({ command: first, args: rest, stderr: "inherit" });
}

const STATELESS_VERSION = "2026-07-28";

async function main(): Promise<number> {
  const scenarioName = process.env.MCP_CONFORMANCE_SCENARIO ?? "initialize";
  const wanted = process.env.MCP_CONFORMANCE_PROTOCOL_VERSION;
  // A scenario only the 2026-07-28 client runs runs there whatever version the suite names: an
  // [extension] scenario is given none, and the suite then passes 2025-11-25.
  const stateless =
    wanted === STATELESS_VERSION ||
    (!Object.hasOwn(SCENARIOS, scenarioName) && Object.hasOwn(STATELESS_SCENARIOS, scenarioName));
  const table: Record<string, (client: never) => Promise<void>> = stateless ? STATELESS_SCENARIOS : SCENARIOS;
  // Every auth/* scenario is a login in front of a tools call: the scenario is in how the login goes.
  const auth = scenarioName.startsWith("auth/");
  const bodyName = auth ? "tools_call" : scenarioName;
  const scenario = Object.hasOwn(table, bodyName) ? table[bodyName] : undefined;
  if (!scenario) {
    throw new UsageError(
      `unknown scenario "${scenarioName}" (MCP_CONFORMANCE_SCENARIO) at protocol ${stateless ? STATELESS_VERSION : (wanted ?? "2025-11-25")}; this client runs: ${Object.keys(table).join(", ")}`,
    );
  }
  log(`scenario ${scenarioName}${wanted ? ` (suite protocol ${wanted})` : ""}`);

  const client = stateless
    ? createStatelessClient(DEADLINE_MS)
    : createClient({
        info: { name: "mcp-codegen-everything-client", version: "1.0.0" },
        handlers,
        requestTimeoutMs: DEADLINE_MS,
        onError: (error) => log(`error: ${error instanceof Error ? error.message : String(error)}`),
      });
  const transport = await transportFor(
    process.argv.slice(2),
    stateless,
    auth ? (url) => authorizerFor(scenarioName, url, wanted) : undefined,
  );
  const server = await client.connect(transport);
  log(
    `connected to ${server.serverInfo.name || "(unnamed server)"} ${server.serverInfo.version}, protocol ${server.protocolVersion}`,
  );
  try {
    await scenario(client as never);
  } finally {
    await client.close();
  }
  log(`scenario ${scenarioName} done`);
  return 0;
}

// Ref'd on purpose: it also keeps the process alive while main() awaits.
setTimeout(() => {
  log(`gave up after ${DEADLINE_MS} ms`);
  process.exit(1);
}, DEADLINE_MS);

let code: number;
try {
  code = await main();
} catch (error) {
  log(error instanceof Error ? error.message : String(error));
  if (error instanceof UsageError)
    log(
      "usage: everything-client <server url | server command [args…]>  (scenario in MCP_CONFORMANCE_SCENARIO)",
    );
  code = error instanceof UsageError ? 2 : 1;
}
// Exit now rather than when the last handle closes: the suite counts a client still running as timed out.
process.exit(code);
