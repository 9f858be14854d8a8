import type { Check, Fail } from "./check.js";
import { McpError } from "./jsonrpc/messages.js";

export interface ValidationIssue {
  /** JSON pointer of the failing value, e.g. `/arguments/count`. */
  path: string;
  message: string;
}

/** A check's failure as a JSON pointer and a message. */
export function issueOf(failure: Fail): ValidationIssue {
  return {
    path: `/${failure.path.map((p) => String(p).replaceAll("~", "~0").replaceAll("/", "~1")).join("/")}`,
    message: failure.message,
  };
}

/** A JSON-RPC error for a failed validation: the message names the failing path, `data.issues` holds it. */
export function validationError(code: number, message: string, failure: Fail): McpError {
  const issue = issueOf(failure);
  return new McpError(code, `${message}: ${issue.path}: ${issue.message}`, { issues: [issue] });
}

/** A peer's result checked against the method's generated result validator (-32602 naming the path). */
export function checkPeerResult(
  check: Check,
  method: string,
  result: unknown,
  peer: "client" | "server",
): unknown {
  const failure = check(result);
  if (failure !== undefined)
    throw validationError(-32602, `invalid ${method} result from the ${peer}`, failure);
  return result;
}
