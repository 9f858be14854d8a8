/** HTTP client transports on `fetch`: Streamable HTTP, legacy HTTP+SSE, and the spec's fallback between them. */

export { connectHttp, HttpClientTransport, type HttpTransportKind } from "./connect.js";
export { SseClientTransport, type SseClientTransportOptions } from "./legacy-sse.js";
export {
  type HeadersOption,
  HttpStatusError,
  type ReconnectOptions,
  SessionExpiredError,
  type StreamableHttpClientOptions,
  StreamableHttpClientTransport,
} from "./streamable-http.js";
