/** Node-only pieces: the `node:http` adapter and `serveHttp`, and the stdio transports. */

export {
  type HttpServerHandle,
  type ServeHttpOptions,
  serveHttp,
  toNodeListener,
} from "./http.js";
export {
  StdioClientTransport,
  type StdioClientTransportOptions,
  StdioServerTransport,
  type StdioServerTransportOptions,
} from "./stdio.js";
