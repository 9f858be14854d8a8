/**
 * Web-standard HTTP serving (`Request` → `Response`): Streamable HTTP and the legacy HTTP+SSE endpoints,
 * for Node (through `./node`), Bun, Deno and Workers.
 */

export { type CorsOptions, INSPECTOR_ORIGINS, originList } from "./cors.js";
export { type EventStore, InMemoryEventStore, type PrimingEvent } from "./event-store.js";
export { createLegacySseHandler, type LegacySseOptions } from "./legacy-sse.js";
export { allHealthy, type HealthReporter, readinessReply } from "./readiness.js";
export {
  InMemorySessionStore,
  type LinkedRecord,
  type MaybePromise,
  type SessionRecord,
  type SessionStore,
} from "./session-store.js";
export {
  closeSseStream,
  createStreamableHttpHandler,
  HttpError,
  type McpHttpHandler,
  type StreamableHttpOptions,
} from "./streamable-http.js";
