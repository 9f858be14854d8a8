/**
 * OpenTelemetry for MCP servers and clients: pass `telemetry: openTelemetry()` to `createServer` or
 * `createClient`. The only entry that loads `@opentelemetry/api` (an optional peer dependency).
 */

export type { OperationInfo, Telemetry, TelemetryOperation } from "../mcp/telemetry.js";
export { type OpenTelemetryOptions, openTelemetry } from "./open-telemetry.js";
export { MetaTraceContext } from "./trace-context.js";
