/** Failed checks as JSON-RPC errors: -32602 (or the code given) naming the failing path. */

import type { Check, Fail } from "../check/check.js";
import { isDepthBounded, tooDeep } from "../check/depth.js";
import { ErrorCode, type JsonRpcNotification, McpError } from "../jsonrpc/messages.js";

export interface ValidationIssue {
  /** JSON pointer of the failing value, e.g. `/arguments/count`. */
  path: string;
  message: string;
}

/** A check's failure as a JSON pointer and a message. */
function issueOf(failure: Fail): ValidationIssue {
  return {
    path: `/${failure.path.map((p) => String(p).replaceAll("~", "~0").replaceAll("/", "~1")).join("/")}`,
    message: failure.message,
  };
}

/** A JSON-RPC error for a failed validation: the message names the failing path, `data.issues` holds it. */
function validationError(code: number, message: string, failure: Fail): McpError {
  const issue = issueOf(failure);
  return new McpError(code, `${message}: ${issue.path}: ${issue.message}`, { issues: [issue] });
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
