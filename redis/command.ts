/**
 * One command to Redis, bounded in time. node-redis bounds only the wait to write a command (a reply
 * may still never come from a Redis that is stuck rather than gone), so each store operation races its
 * own deadline; the command left behind settles, or fails when the connection is reset, on its own.
 */

import type { RedisCommands, RedisConnection } from "./connection.js";
import { RedisUnavailable, unavailableOr } from "./unavailable.js";

/** Default longest wait for one command's answer, ms. */
export const DEFAULT_COMMAND_TIMEOUT_MS = 2000;

export async function command<T>(
  redis: RedisConnection,
  send: (client: RedisCommands) => Promise<T>,
): Promise<T> {
  const ms = redis.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      reject(new RedisUnavailable(redis.where, { cause: new Error(`no answer within ${ms} ms`) }));
    }, ms);
  });
  try {
    return await Promise.race([send(redis.client), deadline]);
  } catch (error) {
    throw unavailableOr(error, redis.where);
  } finally {
    clearTimeout(timer);
  }
}
