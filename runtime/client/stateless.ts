/**
 * The client's half of the stateless lifecycle (`discover`, 2026-07-28 on), as plain functions the
 * Client composes: the `_meta` every request carries, which version to speak given the versions a server
 * names, what a failed `server/discover` probe says about the server, and how to read a result's
 * `resultType` and an InputRequiredResult.
 */

import { REQUEST_CANCELLED } from "../jsonrpc/connection.js";
import { ErrorCode, isObject, McpError } from "../jsonrpc/messages.js";
import type { Capabilities } from "../mcp/capabilities.js";
import type { ImplementationInfo } from "../mcp/handler-context.js";
import type { InputRequest } from "../mcp/input-rounds.js";
import { META, RESULT_TYPE, StatelessErrorCode } from "../mcp/request-meta.js";
import type { ProtocolTables } from "../mcp/tables.js";

export interface MetaFields {
  version: string;
  capabilities: Capabilities;
  /** Left out when the client is configured not to identify itself. */
  info?: ImplementationInfo;
  logLevel?: string;
}

/**
 * A request's `_meta`: what the caller put there (progressToken, trace context) with the protocol fields
 * over it, since the version must match the HTTP header and the capabilities must be this client's.
 */
export function requestMeta(userMeta: unknown, fields: MetaFields): Record<string, unknown> {
  const meta: Record<string, unknown> = isObject(userMeta) ? { ...userMeta } : {};
  meta[META.protocolVersion] = fields.version;
  meta[META.clientCapabilities] = fields.capabilities;
  if (fields.info) meta[META.clientInfo] = fields.info;
  if (fields.logLevel !== undefined) meta[META.logLevel] = fields.logLevel;
  return meta;
}

export type VersionChoice =
  | { lifecycle: "discover"; version: string }
  | { lifecycle: "initialize"; version: string }
  | undefined;

/**
 * The version to speak with a server that supports `theirs`: our stateless versions in our order of
 * preference first, then (for a dual-era client) the legacy ones, which mean the initialize handshake.
 */
export function chooseVersion(tables: ProtocolTables, theirs: readonly unknown[]): VersionChoice {
  const offered = new Set(theirs.filter((v): v is string => typeof v === "string"));
  const stateless = tables.supportedVersions.find((s) => offered.has(s.version));
  if (stateless) return { lifecycle: "discover", version: stateless.version };
  const legacy = tables.legacy?.supportedVersions.find((s) => offered.has(s.version));
  return legacy ? { lifecycle: "initialize", version: legacy.version } : undefined;
}

/** The versions an UnsupportedProtocolVersion error lists, when `error` is one and well formed. */
export function supportedVersionsIn(error: unknown): string[] | undefined {
  if (!(error instanceof McpError) || error.code !== StatelessErrorCode.UnsupportedProtocolVersion)
    return undefined;
  const supported = isObject(error.data) ? error.data.supported : undefined;
  if (!Array.isArray(supported) || !supported.every((v) => typeof v === "string")) return undefined;
  return supported;
}

/** What a failed `server/discover` probe means. */
export type ProbeVerdict =
  /** A stateless-era server that wants another version of ours: ask again with it. */
  | { kind: "retry"; version: string }
  /** A legacy server (or a stateless-era one whose versions we share only in the legacy era): initialize. */
  | { kind: "legacy"; why: string }
  /** Nothing to fall back to: the error stands. */
  | { kind: "fail"; error: unknown };

/**
 * The spec's rule for a dual-era client: a recognised stateless-era error means a stateless-era server (retry with a
 * version it lists, never initialize); any other error, or silence until the timeout, means a legacy
 * server, whichever code it used. Errors that are not the server's answer (our own abort, a closed
 * connection, a network failure) decide nothing and stand.
 */
export function judgeProbeError(
  error: unknown,
  tables: ProtocolTables,
  connectionClosed: boolean,
): ProbeVerdict {
  if (connectionClosed) return { kind: "fail", error };
  const supported = supportedVersionsIn(error);
  if (supported) {
    const choice = chooseVersion(tables, supported);
    if (choice?.lifecycle === "discover") return { kind: "retry", version: choice.version };
    if (choice?.lifecycle === "initialize")
      return { kind: "legacy", why: `the server supports ${supported.join(", ")}` };
    return {
      kind: "fail",
      error: noCommonVersion(
        tables,
        supported,
        StatelessErrorCode.UnsupportedProtocolVersion,
        (error as McpError).data,
      ),
    };
  }
  if (error instanceof McpError) {
    if (error.code === REQUEST_CANCELLED) return { kind: "fail", error };
    if (
      error.code === StatelessErrorCode.HeaderMismatch ||
      error.code === StatelessErrorCode.MissingRequiredClientCapability
    )
      return { kind: "fail", error };
    return { kind: "legacy", why: `server/discover failed: ${error.message} (${error.code})` };
  }
  if (isHttpStatusError(error)) {
    // Refused credentials are no sign of the era: initialize would be refused the same way.
    if (error.status === 401 || error.status === 403) return { kind: "fail", error };
    // An HTTP answer without a JSON-RPC error in it (404 text, 405): not a stateless-era server.
    return { kind: "legacy", why: error.message };
  }
  return { kind: "fail", error };
}

/**
 * The HTTP transports' HttpStatusError, recognised by shape: the client core does not load the HTTP
 * transports (stdio users need none of them).
 */
const isHttpStatusError = (error: unknown): error is Error & { status: number } =>
  error instanceof Error && typeof (error as { status?: unknown }).status === "number";

/** The error when a server's versions and ours have nothing in common. */
export const noCommonVersion = (
  tables: ProtocolTables,
  supported: readonly string[],
  code: number = ErrorCode.InvalidRequest,
  data?: unknown,
): McpError =>
  new McpError(
    code,
    `the server supports protocol versions ${supported.join(", ") || "(none)"}; this client speaks ${speaks(tables).join(", ")}`,
    data,
  );

/** Every version the tables speak, newest first, legacy ones after. */
export const speaks = (tables: ProtocolTables): string[] => [
  ...tables.supportedVersions.map((s) => s.version),
  ...(tables.legacy?.supportedVersions.map((s) => s.version) ?? []),
];

/** A result's `resultType`; older servers leave it out, which means complete. */
export function resultTypeOf(result: Record<string, unknown>): unknown {
  return result.resultType === undefined ? RESULT_TYPE.complete : result.resultType;
}

/**
 * A complete result as the result validators expect it: `resultType` filled in, and for cacheable
 * results the caching hints older servers leave out (no `ttlMs` means stale at once; no scope is treated
 * as private, the one that never shares across users).
 */
export function normalizeComplete(
  result: Record<string, unknown>,
  cacheable: boolean,
): Record<string, unknown> {
  const out = result.resultType === undefined ? { ...result, resultType: RESULT_TYPE.complete } : result;
  if (!cacheable || (out.ttlMs !== undefined && out.cacheScope !== undefined)) return out;
  return {
    ...out,
    ttlMs: out.ttlMs === undefined ? 0 : out.ttlMs,
    cacheScope: out.cacheScope === undefined ? "private" : out.cacheScope,
  };
}

export interface InputRequired {
  /** In the server's order; absent when the server only sent `requestState` (retry at once). */
  inputRequests?: Array<[key: string, request: InputRequest]>;
  requestState?: string;
}

/** The members of an InputRequiredResult, checked: a malformed one fails the call, naming what is wrong. */
export function readInputRequired(method: string, result: Record<string, unknown>): InputRequired {
  const bad = (what: string) =>
    new McpError(
      ErrorCode.InvalidParams,
      `invalid input_required result for ${method} from the server: ${what}`,
    );
  const out: InputRequired = {};
  if (result.requestState !== undefined) {
    if (typeof result.requestState !== "string") throw bad("requestState is not a string");
    out.requestState = result.requestState;
  }
  if (result.inputRequests !== undefined) {
    if (!isObject(result.inputRequests)) throw bad("inputRequests is not an object");
    out.inputRequests = Object.entries(result.inputRequests).map(([key, request]) => {
      if (!isObject(request) || typeof request.method !== "string")
        throw bad(`inputRequests.${key} has no method`);
      return [key, { method: request.method, params: request.params }];
    });
  }
  return out;
}
