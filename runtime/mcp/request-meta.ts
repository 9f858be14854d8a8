/**
 * The stateless lifecycle (`discover`, from protocol 2026-07-28): no handshake; every request carries
 * its protocol version, the client's capabilities and identity in `_meta`, every result says whether it
 * is complete, and the server names itself in each result's `_meta`. Key names and error codes here are
 * the specification's; which versions use this lifecycle is the generated code's to say.
 */

import { isObject, McpError } from "../jsonrpc/messages.js";
import type { Capabilities } from "./capabilities.js";

export const META = {
  protocolVersion: "io.modelcontextprotocol/protocolVersion",
  clientCapabilities: "io.modelcontextprotocol/clientCapabilities",
  clientInfo: "io.modelcontextprotocol/clientInfo",
  logLevel: "io.modelcontextprotocol/logLevel",
  serverInfo: "io.modelcontextprotocol/serverInfo",
  subscriptionId: "io.modelcontextprotocol/subscriptionId",
} as const;

export const StatelessErrorCode = {
  /** An HTTP header disagrees with the body, or a required header is missing (HTTP 400). */
  HeaderMismatch: -32020,
  /** The request needs a client capability the request's `_meta` does not declare (HTTP 400). */
  MissingRequiredClientCapability: -32021,
  /** The requested protocol version is not one the server speaks; `data.supported` lists those (HTTP 400). */
  UnsupportedProtocolVersion: -32022,
} as const;

export const RESULT_TYPE = { complete: "complete", inputRequired: "input_required" } as const;

/** The `_meta` protocol version of a request's params, if it carries one (what marks a stateless request). */
export function metaVersion(params: unknown): string | undefined {
  if (!isObject(params) || !isObject(params._meta)) return undefined;
  const version = params._meta[META.protocolVersion];
  return typeof version === "string" ? version : undefined;
}

export const unsupportedVersion = (requested: string, supported: readonly string[]): McpError =>
  new McpError(
    StatelessErrorCode.UnsupportedProtocolVersion,
    `Unsupported protocol version: ${requested} (supported: ${supported.join(", ")})`,
    { supported: [...supported], requested },
  );

export const missingCapability = (required: Capabilities, what: string): McpError =>
  new McpError(
    StatelessErrorCode.MissingRequiredClientCapability,
    `This request needs the client capability ${what}, which the request's _meta does not declare`,
    { requiredCapabilities: required },
  );

export const headerMismatch = (reason: string): McpError =>
  new McpError(StatelessErrorCode.HeaderMismatch, `Header mismatch: ${reason}`);

/**
 * What a caller may add to a stateless request's params: its own `_meta` (a progress token, a log level),
 * merged with the per-request protocol fields the client runtime fills in.
 */
export interface CallMeta {
  _meta?: Record<string, unknown>;
}

/** The per-request protocol fields of a stateless request. */
export interface RequestMeta {
  protocolVersion: string;
  clientCapabilities: Capabilities;
  clientInfo?: { name: string; version: string; [key: string]: unknown };
  logLevel?: string;
}

/**
 * The request's per-request `_meta` fields, or an InvalidParams error naming the one missing (a request
 * without them is malformed in the stateless lifecycle; HTTP answers it 400).
 */
export function readRequestMeta(params: unknown): RequestMeta {
  const invalid = (why: string) => new McpError(-32602, `Invalid params: ${why}`);
  if (!isObject(params) || !isObject(params._meta)) throw invalid("params._meta is required");
  const meta = params._meta;
  const version = meta[META.protocolVersion];
  if (typeof version !== "string") throw invalid(`_meta["${META.protocolVersion}"] is required`);
  const caps = meta[META.clientCapabilities];
  if (!isObject(caps)) throw invalid(`_meta["${META.clientCapabilities}"] is required (an object)`);
  const info = meta[META.clientInfo];
  if (
    info !== undefined &&
    (!isObject(info) || typeof info.name !== "string" || typeof info.version !== "string")
  )
    throw invalid(`_meta["${META.clientInfo}"] must be an Implementation (name, version)`);
  const level = meta[META.logLevel];
  if (level !== undefined && typeof level !== "string")
    throw invalid(`_meta["${META.logLevel}"] must be a log level`);
  return {
    protocolVersion: version,
    clientCapabilities: caps,
    ...(info ? { clientInfo: info as RequestMeta["clientInfo"] } : {}),
    ...(level === undefined ? {} : { logLevel: level as string }),
  };
}

/** Whether a request's params carry any per-request protocol field (what marks a stateless-era request). */
export function hasRequestMeta(params: unknown): boolean {
  if (!isObject(params) || !isObject(params._meta)) return false;
  return Object.keys(params._meta).some((k) => k.startsWith("io.modelcontextprotocol/"));
}
