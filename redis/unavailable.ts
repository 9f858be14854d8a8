/**
 * The error every store of this package throws while Redis cannot answer: a 503 with Retry-After when
 * it reaches the HTTP layer, so the client retries (elsewhere) and nothing unstored is acknowledged.
 */

import { HttpError } from "@mcp-codegen/runtime/http";
import { ErrorReply } from "redis";

/** Seconds a client is told to wait: about one reconnection attempt at the longest backoff. */
const RETRY_AFTER_SECONDS = "2";

/** Errors Redis answers while it cannot serve writes for a while (loading, failover, out of memory). */
const TRANSIENT_REPLY = /^(LOADING|BUSY|TRYAGAIN|CLUSTERDOWN|MASTERDOWN|READONLY|OOM|NOREPLICAS)\b/;

/**
 * Redis is unreachable, timed out or cannot take writes just now. The message (which clients see) names
 * no host; `where` (host:port, never credentials) and `cause` are for the operator.
 */
export class RedisUnavailable extends HttpError {
  constructor(
    readonly where: string,
    options: { cause?: unknown } = {},
  ) {
    super(503, "Service Unavailable: the server's Redis is unreachable, retry later", {
      "retry-after": RETRY_AFTER_SECONDS,
    });
    this.name = "RedisUnavailable";
    if (options.cause !== undefined) this.cause = options.cause;
  }

  /** For logs: where and why, without credentials (node-redis never puts them in its messages). */
  override toString(): string {
    const cause = this.cause instanceof Error ? `: ${this.cause.name}: ${this.cause.message}` : "";
    return `RedisUnavailable: Redis at ${this.where} cannot answer${cause}`;
  }
}

/**
 * What a failed command means: connection trouble and transient refusals become RedisUnavailable;
 * anything else (a wrong key type, a script error) is a fault and is thrown as it is.
 */
export function unavailableOr(error: unknown, where: string): unknown {
  if (error instanceof RedisUnavailable) return error;
  // node-redis answers Redis's refusals as ErrorReply; everything else it throws is about the connection.
  if (error instanceof ErrorReply && !TRANSIENT_REPLY.test(error.message)) return error;
  return new RedisUnavailable(where, { cause: error });
}
