/**
 * What telemetry costs per call: our generated client calling our generated server (2025-11-25, the
 * bench's echo tool) in one process over the runtime's in-memory transport pair, with telemetry absent,
 * with `openTelemetry()` and no provider registered, and recording with the real SDK (every span to a
 * SimpleSpanProcessor whose exporter drops it, both histograms aggregated). CPU per call covers both
 * ends. Rounds interleave the variants; medians of RUNS. --quick divides the call counts by 10;
 * --json prints the rows as JSON.
 */

import { cpus } from "node:os";
import { MeterProvider, MetricReader } from "@opentelemetry/sdk-metrics";
import { BasicTracerProvider, SimpleSpanProcessor, type SpanExporter } from "@opentelemetry/sdk-trace-base";
import { createClient } from "../generated/2025-11-25/client.js";
import { createServer } from "../generated/2025-11-25/server.js";
import { createMemoryTransportPair } from "../runtime/jsonrpc/memory.js";
import type { Telemetry } from "../runtime/mcp/telemetry.js";
import { openTelemetry } from "../runtime/otel/index.js";
import { echoHandlers } from "./fixtures/echo.js";
import { median } from "./lib.js";

const QUICK = process.argv.includes("--quick");
const JSON_OUTPUT = process.argv.includes("--json");
const SCALE = QUICK ? 10 : 1;
const CALLS = 50_000 / SCALE;
const WARMUP = 20_000 / SCALE;
const INFLIGHT = 32;
const RUNS = 5;

class DroppingExporter implements SpanExporter {
  export(_spans: unknown[], done: (result: { code: number }) => void): void {
    done({ code: 0 }); // ExportResultCode.SUCCESS
  }
  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}

class IdleReader extends MetricReader {
  protected override onForceFlush(): Promise<void> {
    return Promise.resolve();
  }
  protected override onShutdown(): Promise<void> {
    return Promise.resolve();
  }
}

type Variant = "absent" | "no provider" | "recording";
const VARIANTS: readonly Variant[] = ["absent", "no provider", "recording"];

async function pair(telemetry: Telemetry | undefined) {
  const [serverEnd, clientEnd] = createMemoryTransportPair();
  const server = createServer({
    info: { name: "bench-telemetry", version: "1.0.0" },
    handlers: echoHandlers,
    validateResults: false,
    ...(telemetry ? { telemetry } : {}),
  });
  await server.connect(serverEnd);
  const client = createClient({
    info: { name: "bench", version: "1.0.0" },
    ...(telemetry ? { telemetry } : {}),
  });
  await client.connect(clientEnd);
  return client;
}

type BenchClient = Awaited<ReturnType<typeof pair>>;

/** `count` echo calls, INFLIGHT at a time; CPU µs per call (both ends: one process). */
async function run(client: BenchClient, count: number): Promise<{ cpuUs: number; callsPerSec: number }> {
  let next = 0;
  const cpu = process.cpuUsage();
  const start = performance.now();
  const worker = async () => {
    while (next < count) {
      next++;
      await client.callTool({ name: "echo", arguments: { text: "hi" } });
    }
  };
  await Promise.all(Array.from({ length: INFLIGHT }, worker));
  const used = process.cpuUsage(cpu);
  const seconds = (performance.now() - start) / 1000;
  return { cpuUs: (used.user + used.system) / count, callsPerSec: count / seconds };
}

async function main() {
  const tracerProvider = new BasicTracerProvider({
    spanProcessors: [new SimpleSpanProcessor(new DroppingExporter())],
  });
  const meterProvider = new MeterProvider({ readers: [new IdleReader()] });
  const clients: Record<Variant, BenchClient> = {
    absent: await pair(undefined),
    // No provider registered with the API: the global tracer and meter are no-ops.
    "no provider": await pair(openTelemetry()),
    recording: await pair(openTelemetry({ tracerProvider, meterProvider })),
  };
  for (const v of VARIANTS) await run(clients[v], WARMUP);
  const samples = Object.fromEntries(
    VARIANTS.map((v) => [v, [] as { cpuUs: number; callsPerSec: number }[]]),
  );
  for (let round = 0; round < RUNS; round++) {
    for (const v of VARIANTS) samples[v]!.push(await run(clients[v], CALLS));
  }
  const rows = VARIANTS.map((v) => ({
    variant: v,
    cpuUsPerCall: median(samples[v]!.map((s) => s.cpuUs)),
    callsPerSec: median(samples[v]!.map((s) => s.callsPerSec)),
  }));
  for (const v of VARIANTS) await clients[v].close();
  await tracerProvider.shutdown();
  await meterProvider.shutdown();
  if (JSON_OUTPUT) {
    process.stdout.write(`${JSON.stringify({ name: "telemetry", quick: QUICK, rows })}\n`);
    return;
  }
  const base = rows[0]!.cpuUsPerCall;
  const lines = [
    `telemetry cost, node ${process.version}, ${cpus().length} cores${QUICK ? ", --quick" : ""}: ${CALLS} calls × ${RUNS} runs at ${INFLIGHT} in flight, client and server in one process (memory transport)`,
    "",
    "| telemetry | CPU µs/call (both ends) | vs absent | calls/s |",
    "| --- | ---: | ---: | ---: |",
    ...rows.map(
      (r) =>
        `| ${r.variant} | ${r.cpuUsPerCall.toFixed(1)} | ${(r.cpuUsPerCall / base).toFixed(2)}× | ${Math.round(r.callsPerSec)} |`,
    ),
  ];
  process.stdout.write(`${lines.join("\n")}\n`);
}

await main();
