/** Node-only pieces: the `node:http` adapter and `serveHttp`, and the stdio transports. */

export {
  type CorsOptions,
  type HttpServerHandle,
  INSPECTOR_ORIGINS,
  originList,
  type ServeHttpOptions,
  serveHttp,
  toNodeListener,
} from "./http.js";
export { type ShutdownOptions, shutdownOnSignals } from "./signals.js";
export { StdioClientTransport, type StdioClientTransportOptions } from "./stdio-client.js";
export { StdioServerTransport, type StdioServerTransportOptions } from "./stdio-server.js";
