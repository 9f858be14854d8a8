import type * as z from "zod";
import { McpError } from "./jsonrpc/messages.js";

export interface ValidationIssue {
  /** JSON pointer-like path of the failing value, e.g. `/arguments/count`. */
  path: string;
  message: string;
}

/** Flattens zod issues into paths and messages that say which field failed. */
export function issuesOf(error: z.ZodError): ValidationIssue[] {
  return error.issues.slice(0, 20).map((i) => ({
    path: `/${i.path.map((p) => String(p).replaceAll("~", "~0").replaceAll("/", "~1")).join("/")}`,
    message: i.message,
  }));
}

/** A JSON-RPC error for a failed validation: the message names the first failing path, `data.issues` all of them. */
export function validationError(code: number, message: string, error: z.ZodError): McpError {
  const issues = issuesOf(error);
  const first = issues[0];
  return new McpError(code, first ? `${message}: ${first.path}: ${first.message}` : message, { issues });
}

/** A peer's result checked against the method's generated result validator (-32602 naming the path). */
export function checkPeerResult(
  schema: z.ZodType,
  method: string,
  result: unknown,
  peer: "client" | "server",
): unknown {
  const checked = schema.safeParse(result);
  if (!checked.success)
    throw validationError(-32602, `invalid ${method} result from the ${peer}`, checked.error);
  return checked.data;
}
