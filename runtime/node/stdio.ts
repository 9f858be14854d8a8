/**
 * Both stdio transports from one module, for the importers that still name this path; the entry
 * (index.ts) imports stdio-server.ts and stdio-client.ts directly.
 */

export { StdioClientTransport, type StdioClientTransportOptions } from "./stdio-client.js";
export { StdioServerTransport, type StdioServerTransportOptions } from "./stdio-server.js";
