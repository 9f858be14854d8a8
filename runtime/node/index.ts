/** Node-only pieces: the `node:http` adapter and `serveHttp`, and the stdio transports. */

export {
  type HttpServerHandle,
  type ServeHttpOptions,
  serveHttp,
  toNodeListener,
} from "../transports/node-http.js";
export {
  StdioClientTransport,
  type StdioClientTransportOptions,
  StdioServerTransport,
  type StdioServerTransportOptions,
} from "../transports/stdio.js";
