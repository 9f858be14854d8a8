/**
 * A Lua script sent by its SHA1 (EVALSHA), and in full (EVAL) only when Redis does not know it yet:
 * after a restart, on a new Cluster node. A script touches only the keys it is given, so Cluster
 * routes it to their slot.
 */

import { createHash } from "node:crypto";
import type { RedisCommands } from "./connection.js";

export interface Script {
  readonly source: string;
  readonly sha1: string;
}

export const script = (source: string): Script =>
  Object.freeze({ source, sha1: createHash("sha1").update(source).digest("hex") });

export async function runScript(
  client: RedisCommands,
  { source, sha1 }: Script,
  keys: string[],
  args: string[],
): Promise<unknown> {
  try {
    return await client.evalSha(sha1, { keys, arguments: args });
  } catch (error) {
    if (!(error instanceof Error) || !error.message.startsWith("NOSCRIPT")) throw error;
    return client.eval(source, { keys, arguments: args });
  }
}
