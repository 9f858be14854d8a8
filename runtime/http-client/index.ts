/** HTTP client transports on `fetch`: Streamable HTTP, legacy HTTP+SSE, and the spec's fallback between them. */

export { connectHttp, HttpClientTransport, type HttpTransportKind } from "../transports/connect-http.js";
export { SseClientTransport, type SseClientTransportOptions } from "../transports/sse-client.js";
export {
  type HeadersOption,
  HttpStatusError,
  type ReconnectOptions,
  SessionExpiredError,
  type StreamableHttpClientOptions,
  StreamableHttpClientTransport,
} from "../transports/streamable-http-client.js";
