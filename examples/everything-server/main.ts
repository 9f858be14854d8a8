/**
 * The everything-server (examples/everything-server/handlers.ts) for the MCP conformance suite.
 *
 *   tsx --conditions=mcp-codegen-source examples/everything-server/main.ts [--port 3000] [--host 127.0.0.1] [--stateless]
 *       Streamable HTTP on http://<host>:<port>/mcp (--port 0 picks a free port), and the 2024-11-05
 *       HTTP+SSE transport on /sse and /messages unless --no-legacy-sse; prints "listening on <url>" on
 *       stdout once it accepts connections.
 *   tsx --conditions=mcp-codegen-source examples/everything-server/main.ts --stdio
 *       newline-delimited JSON-RPC over stdin/stdout.
 *
 * Then: npx conformance server --url http://127.0.0.1:3000/mcp --spec-version 2025-11-25
 */
import { parseArgs } from "node:util";
import { StdioServerTransport, serveHttp, shutdownOnSignals } from "@mcp-codegen/runtime/node";
import { createServer } from "../../generated/2026-07-28/index.js";
import { changes, handlers, info, instructions } from "./handlers.js";

const USAGE =
  "usage: everything-server [--port <n>] [--host <address>] [--path <path>] [--stateless] [--no-legacy-sse] [--retry-ms <n>] | --stdio";

let args: ReturnType<typeof parse>;
try {
  args = parse();
} catch (error) {
  process.stderr.write(`${(error as Error).message}\n${USAGE}\n`);
  process.exit(2);
}

function parse() {
  return parseArgs({
    options: {
      stdio: { type: "boolean", default: false },
      port: { type: "string", default: "3000" },
      host: { type: "string", default: "127.0.0.1" },
      path: { type: "string", default: "/mcp" },
      stateless: { type: "boolean", default: false },
      "legacy-sse": { type: "boolean", default: true },
      "retry-ms": { type: "string", default: "1000" },
      help: { type: "boolean", short: "h", default: false },
    },
    allowNegative: true,
  }).values;
}

if (args.help) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}

const server = createServer({
  info,
  instructions,
  handlers,
  // Change notifications (for subscriptions/listen and handshake sessions) and resource subscriptions.
  capabilities: {
    tools: { listChanged: true },
    prompts: { listChanged: true },
    resources: { subscribe: true },
  },
  // test_tool_with_task gathers its input as input rounds of the request, then goes on as a task: its
  // stateless calls run as plain requests for their first 200 ms (see taskTools in the runtime's README).
  taskTools: { test_tool_with_task: { taskSupport: "required", graceMs: 200 } },
  // Tool failures (test_error_handling, a client without sampling) are expected here: one line, no stack.
  onError: (error) =>
    process.stderr.write(`everything-server: ${error instanceof Error ? error.message : String(error)}\n`),
});

changes.notify = (method) => server.notifyAll(method, {});

if (args.stdio) {
  shutdownOnSignals(() => server.close());
  const session = await server.connect(new StdioServerTransport());
  await session.closed;
  process.exit(0);
}

function integer(name: string, value: string, max: number): number {
  const n = Number(value);
  if (Number.isInteger(n) && n >= 0 && n <= max) return n;
  process.stderr.write(`--${name} must be an integer from 0 to ${max}, not ${value}\n${USAGE}\n`);
  process.exit(2);
}
const port = integer("port", args.port, 65535);
const retryMs = integer("retry-ms", args["retry-ms"], 3_600_000);

const http = await serveHttp(server, {
  port,
  host: args.host,
  path: args.path,
  stateless: args.stateless,
  legacySse: args["legacy-sse"],
  // SEP-1699: how long a client waits before resuming a stream the server ended (test_reconnection).
  retryMs,
});
process.stdout.write(`listening on ${http.url}\n`);

// SIGTERM or SIGINT: new requests get 503, those in flight are answered (up to 2 s), then exit 0.
shutdownOnSignals(() => http.close({ timeoutMs: 2000 }));
