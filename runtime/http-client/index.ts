/** HTTP client transports on `fetch`: Streamable HTTP, legacy HTTP+SSE, and the spec's fallback between them. */

export {
  type AuthorizedRequest,
  type Authorizer,
  authorizedFetch,
  MAX_AUTHORIZATION_RETRIES,
} from "./authorizer.js";
export { connectHttp, HttpClientTransport, type HttpTransportKind } from "./connect.js";
export type { FetchOptions, HeadersOption } from "./fetch-options.js";
export { HttpStatusError, SessionExpiredError } from "./fetch-results.js";
export { SseClientTransport, type SseClientTransportOptions } from "./legacy-sse.js";
export type { ReconnectOptions } from "./sse-streams.js";
export { type StreamableHttpClientOptions, StreamableHttpClientTransport } from "./streamable-http.js";
