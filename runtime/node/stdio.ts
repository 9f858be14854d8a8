/** The stdio transports alone (the `./node/stdio` entry): a stdio server loads nothing of HTTP. */

export { type ShutdownOptions, shutdownOnSignals } from "./signals.js";
export { StdioClientTransport, type StdioClientTransportOptions } from "./stdio-client.js";
export { StdioServerTransport, type StdioServerTransportOptions } from "./stdio-server.js";
