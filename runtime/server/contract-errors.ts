/**
 * The errors a contract handler means (as opposed to crashes): "no such resource" and "these arguments
 * are wrong". Each is an McpError, so it reaches the client as the protocol error it is wherever it is
 * thrown; `serveContract` completes it where it knows more (the URI a resource handler was asked for,
 * the tool whose arguments were wrong and whether the session's version wants an `isError` result).
 */

import { ErrorCode, McpError } from "../jsonrpc/messages.js";
import { pointer } from "../mcp/check-errors.js";

/** -32002 by default; `serveContract` answers it with the version's own not-found error for the URI read. */
export class ResourceNotFound extends McpError {
  override name = "ResourceNotFound";
  constructor() {
    super(-32002, "Resource not found");
  }
}

/**
 * Thrown from a resource or template handler (`throw notFound()`, or `return notFound()`: it never
 * returns): the URI read names no resource, answered as the protocol says (-32002 with the URI).
 */
export function notFound(): never {
  throw new ResourceNotFound();
}

/** One field's problem, for the client (and a model) to fix: `{ field: "due", reason: "is in the past" }`. */
export interface ArgumentProblem {
  readonly field: string;
  readonly reason: string;
}

/** -32602 naming each field; for a tool, in versions that want it, an `isError` result with that text. */
export class InvalidArguments extends McpError {
  override name = "InvalidArguments";
  constructor(readonly problems: readonly ArgumentProblem[]) {
    super(ErrorCode.InvalidParams, `Invalid arguments: ${describeProblems(problems)}`, dataOf(problems));
  }

  /** The same error, its message naming what was called (`tool "add"`). */
  about(what: string): McpError {
    return new McpError(
      ErrorCode.InvalidParams,
      `Invalid arguments for ${what}: ${describeProblems(this.problems)}`,
      this.data,
    );
  }
}

/**
 * Arguments a handler found wrong beyond what the schema says, by field:
 * `throw invalidArguments({ due: "must be after start" })`.
 */
export function invalidArguments(problems: Readonly<Record<string, string>>): InvalidArguments {
  return new InvalidArguments(Object.entries(problems).map(([field, reason]) => ({ field, reason })));
}

const describeProblems = (problems: readonly ArgumentProblem[]): string =>
  problems.map((p) => (p.field === "" ? p.reason : `${p.field}: ${p.reason}`)).join("; ");

/**
 * As a failed schema check's data: `field` and `reason` of the first problem, every one in `issues` as a
 * pointer into the params (`/arguments/due`; a problem with no field names `/arguments`).
 */
const dataOf = (problems: readonly ArgumentProblem[]) => ({
  field: problems[0]?.field ?? "",
  reason: problems[0]?.reason ?? "",
  issues: problems.map((p) => ({
    path: pointer(p.field === "" ? [] : [p.field], "/arguments"),
    message: p.reason,
  })),
});
