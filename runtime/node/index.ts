/**
 * Node-only pieces: the `node:http` adapter and `serveHttp`, the stdio transports, and a CLI's login
 * pieces: the token file store and the loopback redirect endpoint.
 */

export {
  type CorsOptions,
  type HttpServerHandle,
  INSPECTOR_ORIGINS,
  originList,
  type ServeHttpOptions,
  serveHttp,
  toNodeListener,
} from "./http.js";
export {
  AuthorizationResponseError,
  type LoopbackAuthorization,
  type LoopbackRedirect,
  LoopbackRedirectError,
  type LoopbackRedirectOptions,
  loopbackRedirect,
} from "./loopback-redirect.js";
export { type ShutdownOptions, shutdownOnSignals } from "./signals.js";
export { StdioClientTransport, type StdioClientTransportOptions } from "./stdio-client.js";
export { StdioServerTransport, type StdioServerTransportOptions } from "./stdio-server.js";
export { defaultTokenFilePath, FileTokenStore, TokenFileError } from "./token-file-store.js";
