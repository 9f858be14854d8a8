/** Failed checks as JSON-RPC errors: -32602 (or the code given) naming the failing path. */

import { type Check, type Fail, failuresOf } from "../check/check.js";
import { isDepthBounded, tooDeep } from "../check/depth.js";
import { cutShort } from "../check/describe.js";
import { ErrorCode, type JsonRpcNotification, McpError } from "../jsonrpc/messages.js";

export interface ValidationIssue {
  /** JSON pointer of the failing value, e.g. `/arguments/count`. */
  path: string;
  message: string;
}

const segment = (step: string | number): string =>
  `/${String(step).replaceAll("~", "~0").replaceAll("/", "~1")}`;

/** A failure's path as a JSON pointer below `prefix` (a pointer); the value itself is `/`. */
export const pointer = (path: readonly (string | number)[], prefix = ""): string =>
  `${prefix}${path.map(segment).join("")}` || "/";

/** A check's failures as JSON pointers (below `prefix`) and messages, in the check's order. */
export const issuesOf = (failure: Fail, prefix = ""): ValidationIssue[] =>
  failuresOf(failure).map((f) => ({ path: pointer(f.path, prefix), message: f.message }));

/** A JSON-RPC error for a failed validation: the message names each failing path, `data.issues` holds them. */
function validationError(code: number, message: string, failure: Fail): McpError {
  const issues = issuesOf(failure);
  const listed = issues.map((i) => `${i.path}: ${i.message}`).join("; ");
  return new McpError(code, `${message}: ${listed}${cutShort(issues.length)}`, { issues });
}

/**
 * The error for `value` failing `check` (code `code`, `message` then the failing path), or undefined.
 * Every check of a peer's message runs through here or `invalidNotification`, so this is where depth is
 * bounded: below it, no check (nor a contract's, which judges part of these params) can exhaust the stack.
 */
export function invalid(check: Check, value: unknown, code: number, message: string): McpError | undefined {
  const failure = (isDepthBounded(check) ? undefined : tooDeep(value)) ?? check(value);
  return failure === undefined ? undefined : validationError(code, message, failure);
}

/** Throws the error `invalid` finds. */
export function assertValid(check: Check, value: unknown, code: number, message: string): void {
  const error = invalid(check, value, code, message);
  if (error) throw error;
}

/** A peer's result checked against the method's generated result validator (-32602 naming the path). */
export function checkPeerResult(
  check: Check,
  method: string,
  result: unknown,
  peer: "client" | "server",
): unknown {
  assertValid(check, result, ErrorCode.InvalidParams, `invalid ${method} result from the ${peer}`);
  return result;
}

/** A peer's notification checked against its generated params validator (-32602 naming the path). */
export function invalidNotification(entry: { params: Check }, n: JsonRpcNotification): McpError | undefined {
  return invalid(entry.params, n.params, ErrorCode.InvalidParams, `invalid ${n.method} notification`);
}

/** A request's params, checked against its method's generated validator (-32602 naming the path). */
export function checkedParams(entry: { method: string; params: Check }, params: unknown): unknown {
  assertValid(entry.params, params, ErrorCode.InvalidParams, `Invalid params for ${entry.method}`);
  return params;
}
